/// @file lesson09_async.hpp
/// @brief Lesson 9 baselines and references: add-exp with @c terms series
///        terms per element, run synchronously on one device (the speedup
///        baselines of the pipeline and of the all-devices split), split into
///        its copy-in / kernel / copy-out parts for the lesson program, and
///        its double-precision reference. Fixed code, never the student's.
#pragma once

#include <cstddef>
#include <vector>

// lesson9::exp_series: the baselines run the lesson's arithmetic.
#include "lesson09_async_shared.hpp"

namespace course::baseline::lesson9 {

/// result[i] = first[i] + exp(second[i]) in double: the reference. For
/// |second[i]| <= 1 and terms >= 16 the series has converged, so the
/// reference does not depend on the number of terms.
std::vector<double> add_exp_reference(int n, const float *first, const float *second);

/// The synchronous version: map both inputs to @p device, one kernel over all
/// n elements, map the result back. Nothing overlaps: copy in, then compute,
/// then copy out. The pipeline's speedup baseline.
void add_exp_sync(int n, const float *first, const float *second, float *result, int terms, int device);

/// The synchronous version chunk by chunk (chunks of ceil(n / chunks)
/// elements, each mapped, computed and copied back before the next starts):
/// what a pipeline costs when its stages do not overlap.
void add_exp_sync_chunked(int n, const float *first, const float *second, float *result, int terms, int chunks,
                          int device);

/// @name The synchronous version in its three parts, for timing each alone
///@{
void enter_inputs(int n, const float *first, const float *second, float *result, int device);  ///< inputs in, result allocated
void kernel_present(int n, const float *first, const float *second, float *result, int terms, int device);  ///< kernel on present data
void exit_result(int n, const float *first, const float *second, float *result, int device);  ///< result out, all released
///@}

/// The add-exp loop on ONE thread of @p device, over device arrays (pointers
/// from omp_target_alloc on that device): the baseline that shows whether a
/// kernel spreads its loop over the device's threads.
void add_exp_one_thread(int n, const float *first, const float *second, float *result, int terms, int device);

/// @p n floats of LLVM's pinned host memory (omp_alloc with
/// llvm_omp_target_host_mem_alloc, an LLVM extension), null if none: the
/// memory the pipeline's speed test runs on, so that on a GPU it measures the
/// overlap and not the driver's staging of pageable copies (lesson 9, step 9.4).
float *pinned_floats(std::size_t n);

/// Frees memory from pinned_floats() (null: nothing).
void free_pinned_floats(float *p);

}  // namespace course::baseline::lesson9
