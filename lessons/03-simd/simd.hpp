/// @file lessons/03-simd/simd.hpp
/// @brief Lesson 3 interface: a float reduction and an elementwise kernel that
///        calls a small function, both run on the offload device, and a loop
///        that records which team and thread ran each iteration.
#pragma once

#include <cmath>

namespace lesson3 {

/// The Euclidean norm sqrt(x[0]^2 + ... + x[n-1]^2) of @p n floats, summed in
/// float on the default device.
///
/// @p x is a host pointer; map it to the device (the tests and the lesson
/// program may already hold it in a `target data` region, so the map then
/// finds it present and copies nothing). The additions may happen in any
/// order. Must be correct for every n >= 1.
float norm(int n, const float *x);

/// y[i] = x[i] / sqrt(1 + x[i]^2) for i < @p n, on the default device: a
/// smooth limiter that maps any x into (-1, 1).
///
/// @p x and @p y are host pointers to arrays that do not overlap; y is output
/// only (the tests fill it with NaN first). Must be correct for every n >= 1.
void soft_clip_all(int n, const float *x, float *y);

/// The relative error norm()'s result may have against the double reference
/// (course::check_scalar), in the tests and the lesson program alike. A float
/// sum of n terms in any order errs by at most about n u relative (u = 2^-24),
/// but for random data the roundings are as often up as down and the error
/// grows like sqrt(n) u. 8 sqrt(n) u (+ a few u for the squares and the square
/// root) is more than ten standard deviations at every n tested, and 1e-3 at
/// n = 4M.
inline double norm_tolerance(int n) { return (8.0 * std::sqrt(static_cast<double>(n)) + 4.0) * 0x1p-24; }

/// The relative error norm soft_clip_all()'s result may have against the
/// double reference (course::check_close). soft_clip in float rounds four
/// times (x*x, 1+, sqrt, /): at most ~3u relative per element; 8u leaves room
/// and still catches any wrong element.
inline constexpr double clip_tolerance = 8 * 0x1p-24;

/// Who ran one iteration of record_owners()'s loop, as the device reported it.
struct Owner {
  int team;     ///< omp_get_team_num(): the team that ran the iteration
  int thread;   ///< omp_get_thread_num(): the thread of that team
  int teams;    ///< omp_get_num_teams(): teams in the league (what the device granted)
  int threads;  ///< omp_get_num_threads(): threads in that team (what the device granted)
};

/// Runs a loop of @p n iterations as one `target teams distribute parallel
/// for` on the default device and records in owner[i] who ran iteration i,
/// with the assignment made explicit (README, "How the device runs a loop"):
///
/// - at most @p teams teams of at most @p threads threads each; the device
///   may grant fewer: T teams of G threads;
/// - chunks of @p chunk consecutive iterations are dealt to the teams in
///   turn: iteration i runs on team (i / chunk) % T;
/// - inside its chunk, consecutive iterations go to consecutive threads, one
///   each in turn: iteration i runs on thread (i % chunk) % G of that team.
///
/// So neighbouring threads run neighbouring iterations, as a GPU's warps need
/// to read neighbouring addresses. @p owner is a host pointer, output only
/// (the tests fill it with -1 first). n, teams, threads and chunk are >= 1.
void record_owners(int n, int teams, int threads, int chunk, Owner *owner);

/// The path of the graded simd.cpp as it was compiled (the tests compile it
/// again to ask the compiler which loops it vectorized and what soft_clip is
/// declared as).
const char *source_file();

}  // namespace lesson3
