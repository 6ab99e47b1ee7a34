/// @file timing.hpp
/// @brief Timing written once for every lesson: warm-up, median of N runs, and
///        interleaved A/B runs so a noisy machine slows both sides alike.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace course {

/// Summary of repeated timings of one function, in seconds.
struct Timing {
  double median = 0;  ///< median of the timed runs
  double min = 0;     ///< fastest timed run
  double max = 0;     ///< slowest timed run
  int runs = 0;       ///< number of timed runs (warm-up runs excluded)
};

/// What a timing measures.
enum class Clock {
  wall,         ///< elapsed time (steady clock): the default, and the only honest one for a GPU
  process_cpu,  ///< CPU time of all this process's threads: the work done on the host
                ///< device, which other programs on a busy machine cannot stretch
};

/// CPU seconds used so far by all threads of this process.
double process_cpu_seconds();

/// Makes OpenMP threads that run out of work sleep at once instead of
/// spinning for libomp's default 200 ms. Spinning threads burn CPU time, so
/// without this a process-CPU timing charges one side for the other's idle
/// threads (lesson 3 saw 1 run in 3 of the solution "1.0x slower").
void idle_threads_sleep();

/// Seconds taken by one call of @p f, on @p clock.
template <class F>
double time_once(F &&f, Clock clock = Clock::wall) {
  if (clock == Clock::process_cpu) {
    const double c0 = process_cpu_seconds();
    f();
    return process_cpu_seconds() - c0;
  }
  const auto t0 = std::chrono::steady_clock::now();
  f();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

/// Summarise a list of run times (seconds); an empty list gives all zeros.
Timing summarize(std::vector<double> seconds);

/// Runs @p f @p warmup times untimed, then @p reps times timed.
/// @return median, min and max of the timed runs.
template <class F>
Timing time_median(F &&f, int reps = 5, int warmup = 1) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) t.push_back(time_once(f));
  return summarize(std::move(t));
}

/// Wall and process-CPU time of the same timed runs, in seconds.
struct WallAndCpu {
  Timing wall;  ///< elapsed time of each run (Clock::wall)
  Timing cpu;   ///< CPU time of all this process's threads in each run (Clock::process_cpu)
};

/// Runs @p f untimed for @p warmup_seconds (at least once), then @p reps
/// times timed, each run on both clocks at once: the CPU column of a table
/// then describes the very runs its wall column does. A warm-up by time, not
/// by count, suits kernels of microseconds, whose first runs may meet a GPU
/// that sat idle at a low clock for longer than a few runs take.
template <class F>
WallAndCpu time_wall_and_cpu(F &&f, int reps, double warmup_seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  do f();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < warmup_seconds);
  std::vector<double> wall, cpu;
  for (int i = 0; i < reps; ++i) {
    const double c0 = process_cpu_seconds();
    wall.push_back(time_once(f));
    cpu.push_back(process_cpu_seconds() - c0);
  }
  return {summarize(std::move(wall)), summarize(std::move(cpu))};
}

/// The one rule for how long a lesson program times a variant: a run that
/// takes at least this long (seconds) is timed once, and that run is the
/// measurement. One second is over 10^5 times a kernel launch and the timer's
/// resolution, so more runs would change its median by noise only, while
/// costing a laptop several seconds each (a starter's serial loop at a full
/// size runs for minutes). Shorter runs get a warm-up and a median.
inline constexpr double long_run_seconds = 1.0;

/// Milliseconds of one call of @p f, the lesson programs' way: one untimed
/// warm-up run, then the median of @p reps runs; a warm-up run of
/// long_run_seconds or more is the measurement instead (timed once).
double median_ms(const std::function<void()> &f, int reps);

/// Medians of the parts of a call that runs in stages, each stage timed on
/// its own (copy in / kernel / copy out), in milliseconds.
struct PartTimes {
  std::vector<double> ms;  ///< median of each part, in the order the parts were given
  bool timed_once = false; ///< the first round took long_run_seconds or more and was the only one timed
  double first_s = 0;      ///< seconds the first round took (all parts)
};

/// Runs @p parts one after another, @p reps rounds after one warm-up round,
/// and takes the median of each part; a first round of long_run_seconds or
/// more is the measurement instead (as median_ms()). @p after_round, when
/// given, runs untimed after every round (the warm-up too): verify the
/// round's result there, poison the output for the next.
PartTimes median_parts_ms(const std::vector<std::function<void()>> &parts, int reps,
                          const std::function<void()> &after_round = {});

/// The machine's CPU time and this process's, at one moment (from /proc/stat):
/// two samples say how busy the rest of the machine was in between.
struct LoadSample {
  bool ok = false;         ///< /proc/stat could be read
  double busy = 0;         ///< CPU seconds all cores spent busy since boot
  double total = 0;        ///< CPU seconds all cores existed since boot (busy + idle)
  double own = 0;          ///< CPU seconds of this process
  int cores = 0;           ///< online cores
};

/// A LoadSample taken now.
LoadSample load_sample();

/// How busy the machine was while something was timed.
struct MachineLoad {
  double others = -1;  ///< cores kept busy by other programs on average (-1: unknown, no /proc/stat)
  double own = 0;      ///< cores this process kept busy
  int cores = 0;       ///< online cores
};

/// The load between two samples: all busy CPU time minus this process's, per second.
MachineLoad load_between(const LoadSample &before, const LoadSample &after);

/// Two functions timed in alternation (A, B, A, B, ...) after warm-up.
struct Comparison {
  Timing baseline;   ///< timings of the reference implementation
  Timing candidate;  ///< timings of the implementation being graded
  MachineLoad load;  ///< what the rest of the machine did during the timed runs
  /// baseline median / candidate median: how many times faster the candidate is.
  double speedup() const { return candidate.median > 0 ? baseline.median / candidate.median : 0; }
};

/// Times @p baseline and @p candidate interleaved, @p reps runs each, after
/// @p warmup untimed runs of each. Interleaving means a burst of load from
/// elsewhere on the machine hits both sides, not one. @p clock picks wall or
/// process CPU time (see Clock).
template <class FB, class FC>
Comparison compare_interleaved(FB &&baseline, FC &&candidate, int reps = 5, int warmup = 1,
                               Clock clock = Clock::wall) {
  if (clock == Clock::process_cpu) idle_threads_sleep();
  for (int i = 0; i < warmup; ++i) {
    baseline();
    candidate();
  }
  std::vector<double> tb, tc;
  const LoadSample before = load_sample();
  for (int i = 0; i < reps; ++i) {
    tb.push_back(time_once(baseline, clock));
    tc.push_back(time_once(candidate, clock));
  }
  return {summarize(std::move(tb)), summarize(std::move(tc)), load_between(before, load_sample())};
}

}  // namespace course
