// timing.cpp -- summaries of repeated timings (see course/timing.hpp).
#include "course/timing.hpp"

#include <omp.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

namespace course {

Timing summarize(std::vector<double> seconds) {
  Timing t;
  if (seconds.empty()) return t;
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  t.median = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  t.min = seconds.front();
  t.max = seconds.back();
  t.runs = static_cast<int>(n);
  return t;
}

double median_ms(const std::function<void()> &f, int reps) {
  const double first = time_once(f);
  if (first >= long_run_seconds) return first * 1e3;
  return time_median(f, reps, 0).median * 1e3;
}

PartTimes median_parts_ms(const std::vector<std::function<void()>> &parts, int reps,
                          const std::function<void()> &after_round) {
  PartTimes out;
  std::vector<std::vector<double>> seconds(parts.size());
  for (int round = 0; round <= reps; ++round) {
    std::vector<double> t;
    for (const auto &part : parts) t.push_back(time_once(part));
    if (after_round) after_round();
    double sum = 0;
    for (const double x : t) sum += x;
    if (round == 0) {
      out.first_s = sum;
      out.timed_once = sum >= long_run_seconds;
      if (!out.timed_once) continue;  // the warm-up round
    }
    for (std::size_t i = 0; i < t.size(); ++i) seconds[i].push_back(t[i]);
    if (out.timed_once) break;
  }
  for (auto &s : seconds) out.ms.push_back(summarize(std::move(s)).median * 1e3);
  return out;
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

LoadSample load_sample() {
  LoadSample s;
  std::ifstream in("/proc/stat");
  std::string line;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  while (std::getline(in, line)) {
    if (line.rfind("cpu ", 0) == 0) {
      // user nice system idle iowait irq softirq steal (guest time is inside user)
      std::istringstream f(line.substr(4));
      double v[8] = {};
      for (double &x : v) f >> x;
      s.busy = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / tick;
      s.total = s.busy + (v[3] + v[4]) / tick;
      s.ok = f.good() || f.eof();
    } else if (line.rfind("cpu", 0) == 0) {
      ++s.cores;
    }
  }
  s.own = process_cpu_seconds();
  s.ok = s.ok && s.cores > 0 && s.total > 0;
  return s;
}

MachineLoad load_between(const LoadSample &a, const LoadSample &b) {
  MachineLoad m;
  m.cores = b.cores;
  const double span = b.total - a.total;  // core-seconds that passed, over all cores
  if (!a.ok || !b.ok || span <= 0) return m;
  const double seconds = span / b.cores;
  m.own = (b.own - a.own) / seconds;
  const double all = (b.busy - a.busy) / seconds;
  m.others = all > m.own ? all - m.own : 0;
  return m;
}

void idle_threads_sleep() {
  // libomp's extension (LLVM and Intel runtimes): blocktime 0 for the calling
  // thread and the teams it starts, which include the host device's teams.
  kmp_set_blocktime(0);
}

}  // namespace course
