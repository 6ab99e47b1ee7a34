// threads.cpp -- how a piece of code split its work over this process's
// threads: the CPU time each thread ran while it executed (see
// course_test::thread_cpu_seconds in course_test.hpp).
#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "course_test.hpp"

namespace {

// Nanoseconds each thread of this process has run so far (schedstat's first field).
std::map<long, double> run_times() {
  std::map<long, double> t;
  DIR *d = opendir("/proc/self/task");
  if (!d) return t;
  while (const dirent *e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string path = std::string("/proc/self/task/") + e->d_name + "/schedstat";
    if (FILE *f = std::fopen(path.c_str(), "r")) {
      unsigned long long ns = 0;
      if (std::fscanf(f, "%llu", &ns) == 1) t[std::strtol(e->d_name, nullptr, 10)] = static_cast<double>(ns) * 1e-9;
      std::fclose(f);
    }
  }
  closedir(d);
  return t;
}

}  // namespace

std::vector<double> course_test::thread_cpu_seconds(const std::function<void()> &call) {
  const auto before = run_times();
  call();
  const auto after = run_times();
  std::vector<double> s;
  for (const auto &[tid, t] : after) {
    const auto b = before.find(tid);
    s.push_back(t - (b == before.end() ? 0.0 : b->second));
  }
  std::sort(s.rbegin(), s.rend());
  return s;
}

std::string course_test::describe_thread_split(const std::vector<double> &seconds) {
  double total = 0;
  for (double x : seconds) total += x;
  int shown = 0;
  std::string parts;
  for (double x : seconds)
    if (total > 0 && x >= 0.01 * total && shown < 8) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %.0f %%", 100 * x / total);
      parts += buf;
      ++shown;
    }
  char head[96];
  std::snprintf(head, sizeof head, "%.3g s of CPU time on %d thread%s:", total, shown, shown == 1 ? "" : "s");
  return head + parts;
}
