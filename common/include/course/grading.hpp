/// @file grading.hpp
/// @brief Speedup grading: one threshold table per device class, scaled by
///        COURSE_SPEEDUP_SCALE, and the verdict line every speedup test prints.
///
/// The thresholds themselves live with their lesson, in the lesson's test file
/// (`namespace thresholds` of tests/lessonNN_*.cpp), one row per graded
/// kernel, each at most half of what the solution reaches on that class.
#pragma once

#include <string>

#include "course/timing.hpp"

namespace course {

/// How a host threshold depends on the parallelism actually available.
enum class Scaling {
  fixed,     ///< the same number on any machine
  per_core,  ///< on the host device the value is per host thread: required = host x threads
  per_core_everywhere,  ///< the kernel runs on host threads in every build (lesson 1): both columns per thread
};

/// Minimum speedups for one graded kernel.
struct Threshold {
  const char *key;   ///< "lesson1.matmul": lesson and kernel
  double host;       ///< required speedup on the host-offload device (per thread if scaled)
  double gpu;        ///< required speedup on a GPU (1.0 means "no slower")
  Scaling scaling;   ///< whether the host value scales with host threads
  double max_threads = 0;  ///< scaled rows: cap on the threads counted (0: no cap)
};

/// COURSE_SPEEDUP_SCALE from the environment (default 1). A value that is not
/// a positive number throws std::invalid_argument with a one-line message.
double speedup_scale();

/// Required speedup for @p t on this device class and machine, scaled.
double required_speedup(const Threshold &t);

/// Outcome of one speedup grade.
struct Verdict {
  bool passed = false;   ///< measured >= required
  double measured = 0;   ///< baseline median / candidate median
  double required = 0;   ///< threshold after class, cores and scale
  /// "lesson 3 simd: 5.2x faster than baseline (needs >= 3.0x on host, 2 threads)"; a failure
  /// timed while other programs held the cores the test wanted adds how many they held
  /// (Comparison::load) and what to do (rerun when idle, or COURSE_SPEEDUP_SCALE).
  std::string message;
};

/// Grades @p cmp against @p t. @p label names the kernel in the message,
/// e.g. "lesson 3 simd".
Verdict grade_speedup(const Threshold &t, const std::string &label, const Comparison &cmp);

/// Appends a verdict line to a file in COURSE_VERDICT_DIR (CTest sets it), so
/// that the summary after `ctest` shows every speed test's measured ratio and
/// threshold, passed or not (scripts/speed_summary.py). grade_speedup() calls
/// it; nothing happens where the variable is unset (a program run by hand).
void record_verdict(const std::string &line);

}  // namespace course
