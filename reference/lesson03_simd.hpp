/// @file lesson03_simd.hpp
/// @brief Lesson 3's fixed baselines (device loops without `simd`, as a first
///        offload would write them) and double-precision references.
#pragma once

#include <vector>

namespace course::baseline {

/// sqrt(sum x[i]^2) by `target teams distribute parallel for reduction(+:sum)`
/// without `simd`: the float sum stays in source order, so on a CPU each
/// thread adds one element per instruction. Lesson 3's norm baseline.
float norm_no_simd(int n, const float *x);

/// y[i] = x[i] / sqrt(1 + x[i]^2) by `target teams distribute parallel for`
/// without `simd`, written as a first version often is, with a double constant
/// (1.0): every element is computed in double. Lesson 3's soft-clip baseline.
void soft_clip_double(int n, const float *x, float *y);

/// Teams and threads per team, as a device granted them.
struct Grant {
  int teams = 0, threads = 0;
};

/// What the device grants a `target teams distribute parallel for` of @p n
/// iterations bounded by num_teams(@p teams) and thread_limit(@p threads):
/// the largest omp_get_num_teams() and omp_get_num_threads() any iteration
/// saw. Lesson 3's tests compare record_owners()'s records with it.
Grant bounded_grant(int n, int teams, int threads);

/// sqrt(sum x[i]^2) accumulated in double on the host.
double norm_reference(int n, const float *x);

/// x[i] / sqrt(1 + x[i]^2) for each element, in double on the host.
std::vector<double> soft_clip_reference(int n, const float *x);

}  // namespace course::baseline
