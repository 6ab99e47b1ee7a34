/// @file lessons/06-atomic-reductions/atomics.hpp
/// @brief Lesson 6 interface: sums and a histogram built on atomics, the way
///        the oneAPI atomics chapter builds them, in OpenMP.
///
/// A sum of n numbers is n updates of one accumulator; a histogram is n
/// updates of one of 256 counters. Done with one global `#pragma omp atomic`
/// per element, every update waits for the one before it at the same address.
/// The lesson keeps a partial result per team instead (team-local), and
/// touches global memory once per team.
#pragma once

#include <omp.h>

#include <cstddef>

#include "course/device.hpp"

// hist_bins and bin_of(), how every histogram of this lesson bins a value,
// live in reference/: the fixed baselines your histogram is checked and timed
// against bin with them too.
#include "../../reference/lesson06_atomics_shared.hpp"

namespace lesson6 {

/// How many device threads a kernel asks for: `num_teams(teams)
/// thread_limit(threads)`. The runtime may grant fewer (on the host-offload
/// device a team gets the 1-2 cores there are), so kernels must divide their
/// work by what omp_get_num_teams() and omp_get_num_threads() report inside
/// the region, never by these numbers.
struct Launch {
  int teams = 0;    ///< value for num_teams(); 0 means "choose with default_launch()"
  int threads = 0;  ///< value for thread_limit(); 0 means "choose with default_launch()"
};

/// Threads per team on a GPU: 8 warps, so several teams share a multiprocessor.
inline constexpr int gpu_team_threads = 256;

/// The launch the lesson uses for @p n elements. On a GPU: teams of 256
/// threads, enough teams that each thread sums at least 32 elements (its
/// partial result then costs little), at most 60 per multiprocessor (60 is a
/// whole number of waves whether 4, 5 or 6 teams fit on one at a time). On the
/// host-offload device: one thread per core (asking for more only earns a
/// runtime warning and the cores there are).
inline Launch default_launch(std::size_t n) {
#ifdef COURSE_DEVICE_GPU
  const int sms = course::device_info().multiprocessors;
  const std::size_t cap = sms > 0 ? 60 * static_cast<std::size_t>(sms) : 4096;
  std::size_t teams = (n + 32 * gpu_team_threads - 1) / (32 * gpu_team_threads);
  teams = teams < 1 ? 1 : (teams > cap ? cap : teams);
  return {static_cast<int>(teams), gpu_team_threads};
#else
  const int cores = omp_get_num_procs() > 0 ? omp_get_num_procs() : 1;
  const std::size_t want = (n + 65535) / 65536;  // a team per 64 Ki elements, up to a team per core
  const int teams = want < 1 ? 1 : (want > static_cast<std::size_t>(cores) ? cores : static_cast<int>(want));
  return {teams, cores / teams > 0 ? cores / teams : 1};
#endif
}

/// Sum of x[0..n). The caller guarantees that no partial sum overflows an
/// int. @p launch: teams and threads to request (default: default_launch(n)).
/// x may already be on the device (a caller's `target data` region).
int sum(const int *x, std::size_t n, Launch launch = {});
/// Sum of x[0..n) in float; tests allow 4 sqrt(n) 2^-24 relative error.
float sum(const float *x, std::size_t n, Launch launch = {});
/// Sum of x[0..n) in double; tests allow 4 sqrt(n) 2^-53 relative error.
double sum(const double *x, std::size_t n, Launch launch = {});

/// Histogram of x[0..n) into hist[0..hist_bins): hist[b] = how many x have
/// bin_of(x) == b. hist is output only (its old contents must not matter);
/// n must be below 2^31 so that counts fit in an int.
void histogram(const float *x, std::size_t n, int *hist, Launch launch = {});

/// The same histogram through OpenMP's array-section reduction,
/// `reduction(+ : hist[0:hist_bins])`, for comparison.
void histogram_reduction(const float *x, std::size_t n, int *hist);

/// The path of the file these functions were compiled from (atomics.cpp, its
/// `__BASE_FILE__`): the tests ask the compiler whether that very file is
/// conforming OpenMP (README, Concepts: 4).
const char *source_file();

}  // namespace lesson6
