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

/// sqrt(sum x[i]^2) accumulated in double on the host.
double norm_reference(int n, const float *x);

/// x[i] / sqrt(1 + x[i]^2) for each element, in double on the host.
std::vector<double> soft_clip_reference(int n, const float *x);

}  // namespace course::baseline
