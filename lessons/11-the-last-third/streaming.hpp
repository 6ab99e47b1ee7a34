/// @file lessons/11-the-last-third/streaming.hpp
/// @brief Lesson 11 interface: a sum (of floats, ints or doubles) and a
///        256-bin histogram that stream their input once, in the shape
///        lesson 6 left them, for the last third of the way to the vendor's
///        libraries.
///
/// Both kernels read every byte once and do almost no arithmetic, so the
/// copy's bandwidth is their ceiling. What keeps them below it is how many
/// bytes each thread has on the way from memory at a time: the lesson's two
/// steps raise that number (README, Concepts).
#pragma once

#include <omp.h>

#include <cstddef>

#include "course/device.hpp"

namespace lesson11 {

/// How many device threads a kernel asks for: `num_teams(teams)
/// thread_limit(threads)`. The runtime may grant fewer; the kernels divide
/// their work by what omp_get_num_teams() and omp_get_num_threads() report.
struct Launch {
  int teams = 0;    ///< value for num_teams(); 0 means "choose with default_launch()"
  int threads = 0;  ///< value for thread_limit(); 0 means "choose with default_launch()"
};

/// Threads per team on a GPU: 8 warps.
inline constexpr int gpu_team_threads = 256;

/// The launch for @p n elements with at most @p teams_per_sm teams per
/// multiprocessor (the sum and the histogram use 8: on an H100 the float and
/// double sums were 2 % faster with 8 than with 16 or 32, the int sum within
/// 1 %, docs/results/h100-2026-11-26-sgemm.md). On the host-offload device:
/// a team per core, one thread each, as in lesson 6.
inline Launch default_launch(std::size_t n, int teams_per_sm) {
#ifdef COURSE_DEVICE_GPU
  const int sms = course::device_info().multiprocessors;
  const std::size_t cap = static_cast<std::size_t>(sms > 0 ? sms : 64) * static_cast<std::size_t>(teams_per_sm);
  std::size_t teams = (n + 64 * gpu_team_threads - 1) / (64 * gpu_team_threads);
  teams = teams < 1 ? 1 : (teams > cap ? cap : teams);
  return {static_cast<int>(teams), gpu_team_threads};
#else
  (void)teams_per_sm;
  const int cores = omp_get_num_procs() > 0 ? omp_get_num_procs() : 1;
  const std::size_t want = (n + 65535) / 65536;
  const int teams = want < 1 ? 1 : (want > static_cast<std::size_t>(cores) ? cores : static_cast<int>(want));
  return {teams, 1};
#endif
}

/// Sixteen bytes that travel together: 16 / sizeof(T) elements (four floats
/// or ints, two doubles), loaded by one 16-byte load instruction on a GPU
/// (`ld.global.v4.f32`, `.v4.u32`, `.v2.f64`) when the address is a multiple
/// of 16, as `alignas` promises the compiler.
#pragma omp begin declare target
template <class T>
struct alignas(16) Vec16 {
  static constexpr int lanes = 16 / static_cast<int>(sizeof(T));  ///< elements in 16 bytes
  T v[lanes];                                                     ///< the elements, in memory order
};
#pragma omp end declare target

/// Four floats: the histogram's unit (and the sum's, for floats).
using Quad = Vec16<float>;

/// Sum of x[0..n), n < 2^31. Tests allow 4 sqrt(n) 2^-24 relative error for
/// floats, 4 sqrt(n) 2^-53 for doubles; ints are exact (the sum must fit an
/// int). x may already be on the device (a caller's `target data` region),
/// and its device address need not be a multiple of 16.
float sum(const float *x, std::size_t n, Launch launch = {});
/// Sum of the ints x[0..n), exact; the sum must fit an int (as the float sum).
int sum(const int *x, std::size_t n, Launch launch = {});
/// Sum of the doubles x[0..n), 4 sqrt(n) 2^-53 relative error (as the float sum).
double sum(const double *x, std::size_t n, Launch launch = {});

/// The same sums with one element at a time per thread: the starter's
/// per-thread loop, kept as the speed tests' fixed baseline (given).
float plain_sum(const float *x, std::size_t n, Launch launch = {});
/// The int sum one element at a time per thread (given).
int plain_sum(const int *x, std::size_t n, Launch launch = {});
/// The double sum one element at a time per thread (given).
double plain_sum(const double *x, std::size_t n, Launch launch = {});

/// Bins of the histogram.
inline constexpr int hist_bins = 256;

/// The bin of a value in [0, 1): floor(256 x), clamped (as in lesson 6).
inline int bin_of(float x) {
  const int b = static_cast<int>(x * static_cast<float>(hist_bins));
  return b < 0 ? 0 : (b >= hist_bins ? hist_bins - 1 : b);
}

/// Histogram of x[0..n) into hist[0..hist_bins), n < 2^31. hist is output
/// only. x may already be on the device; its address need not be aligned.
void histogram(const float *x, std::size_t n, int *hist, Launch launch = {});

/// The same histogram with one 4-byte load per atomic: the starter's loop,
/// the speed tests' fixed baseline (given).
void plain_histogram(const float *x, std::size_t n, int *hist, Launch launch = {});

/// The path of the file these functions were compiled from (last_third.cpp).
const char *source_file();

}  // namespace lesson11
