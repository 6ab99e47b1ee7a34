// timing.cpp -- summaries of repeated timings (see course/timing.hpp).
#include "course/timing.hpp"

#include <omp.h>

#include <ctime>

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

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void idle_threads_sleep() {
  // libomp's extension (LLVM and Intel runtimes): blocktime 0 for the calling
  // thread and the teams it starts, which include the host device's teams.
  kmp_set_blocktime(0);
}

}  // namespace course
