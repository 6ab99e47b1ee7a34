/// @file lesson06_atomics.hpp
/// @brief Lesson 6 baselines and references: the global-atomic and
///        `reduction`-clause sums and histograms the report compares against,
///        the copy kernel whose bandwidth is the ceiling, the inputs, and the
///        exact or double-precision references. Fixed code, never the student's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

// lesson6::hist_bins and lesson6::bin_of: every histogram bins alike.
#include "lesson06_atomics_shared.hpp"

namespace course::baseline::lesson6 {

/// @name Global atomic: every element is one `#pragma omp atomic` on one address
/// The oneAPI chapter's first kernel and lesson 6's speedup baseline. Each maps
/// x to the device (inside a caller's `target data` region it is found present).
///@{
int sum_global_atomic(const int *x, std::size_t n);        ///< int: native atomics everywhere
float sum_global_atomic(const float *x, std::size_t n);    ///< float: native on NVIDIA, emulated on some GPUs
double sum_global_atomic(const double *x, std::size_t n);  ///< double: native on NVIDIA sm_60+
///@}

/// @name OpenMP's own answer: `target teams distribute parallel for reduction(+:total)`
///@{
int sum_reduction_clause(const int *x, std::size_t n);        ///< int sum with the reduction clause
float sum_reduction_clause(const float *x, std::size_t n);    ///< float sum with the reduction clause
double sum_reduction_clause(const double *x, std::size_t n);  ///< double sum with the reduction clause
///@}

/// 256-bin histogram of values in [0, 1) (bin = int(x * 256)), one global
/// `atomic` increment per element. @p hist (256 ints) is output only.
void histogram_global_atomic(const float *x, std::size_t n, int *hist);

/// The ceiling: dst[i] = src[i] for n floats, `target teams distribute
/// parallel for`, one element per iteration, the runtime's launch shape.
/// Reads and writes 8n bytes.
void copy(const float *src, float *dst, std::size_t n);

/// The same copy asking for one thread per element, in teams of 256
/// (`num_teams(ceil(n / 256)) thread_limit(256)`). For GPUs: clang 19's
/// runtime launches the plain copy with too few threads to reach the
/// memory's bandwidth. (On the host device it would only earn a warning.)
void copy_one_per_thread(const float *src, float *dst, std::size_t n);

/// Largest value the int inputs of size @p n hold, so that no partial sum of
/// n of them can overflow an int: min(100, INT_MAX / n), at least 1.
int int_input_max(std::size_t n);

/// Sum inputs: ints uniform in [0, int_input_max(n)], floating point uniform
/// in [0, 1). Positive data: the relative error of a sum means something.
template <class T>
std::vector<T> sum_input(std::size_t n, std::uint64_t seed);

/// Histogram inputs: floats in [0, 1) that are multiples of 2^-24, so no value
/// rounds up to 1 and every bin is computed exactly.
std::vector<float> histogram_input(std::size_t n, std::uint64_t seed);

/// Exact sum of ints (64-bit accumulator).
long long sum_reference(const int *x, std::size_t n);
/// Sum of floats accumulated in double: exact enough to judge a float sum.
double sum_reference(const float *x, std::size_t n);
/// Sum of doubles accumulated in long double (x87, 64-bit mantissa).
double sum_reference(const double *x, std::size_t n);

/// The exact 256-bin histogram, serial.
std::vector<int> histogram_reference(const float *x, std::size_t n);

}  // namespace course::baseline::lesson6
