/// @file lesson11_plain.hpp
/// @brief Lesson 11 baselines: the lesson's team kernels with the starter's
///        per-thread code inside (one element or one body at a time, an
///        exact 1 / sqrt, lesson 5's 8 x 8 register tile), what the speed
///        tests and the lesson program time the student's code against.
///        Fixed code, never the student's.
///
/// Each baseline runs the same team kernel as the student's function (the
/// templates in reference/lesson11_*_shared.hpp), so a speedup measures the step alone.
/// They are compiled one file per topic, as the student's code is
/// (lesson11_plain_streaming.cpp, _gravity.cpp, _gemm.cpp): LLVM compiles a
/// file's kernels together with its device runtime and tunes that runtime to
/// every kernel in the file, so a kernel's speed depends on its neighbours.
/// On an H200 the same counting kernel ran 0.22 ms in a file of sums and
/// histograms and 0.40 ms in one that also held the N-body and SGEMM kernels
/// (docs/results/h200-2026-11-29-baselines.md).
#pragma once

#include <cstddef>

// The types and the team kernels the student's code and these share.
#include "lesson11_gemm_shared.hpp"
#include "lesson11_gravity_shared.hpp"
#include "lesson11_streaming_shared.hpp"

namespace course::baseline::lesson11 {

/// @name Steps 11.1 and 11.2: one 4-byte load at a time per thread
/// The starter's per-thread loops in lesson11::sum()'s and histogram()'s
/// team kernels. On a CPU the sums' loop has `simd reduction` (lesson 3),
/// so that step 11.1 is timed against what one line gives a vectorising
/// compiler. Same contracts as lesson11::sum() and lesson11::histogram().
///@{
float plain_sum(const float *x, std::size_t n, ::lesson11::Launch launch = {});    ///< floats
int plain_sum(const int *x, std::size_t n, ::lesson11::Launch launch = {});        ///< ints
double plain_sum(const double *x, std::size_t n, ::lesson11::Launch launch = {});  ///< doubles
/// The histogram with one 4-byte load per atomic.
void plain_histogram(const float *x, std::size_t n, int *hist, ::lesson11::Launch launch = {});
///@}

/// Step 11.3's baseline: lesson11::nbody_step() with one body per thread and
/// an exact 1 / sqrt (the classic CUDA kernel's shape); on a CPU with `simd
/// reduction` over the tile.
void plain_nbody_step(::lesson11::Bodies in, ::lesson11::Moved out, int n, ::lesson11::Launch launch = {});

/// Step 11.4's baseline: lesson11::matmul() with lesson 5's 8 x 8 register
/// tile (128 x 128 team tiles).
void plain_matmul(int n, const float *A, const float *B, float *C);

}  // namespace course::baseline::lesson11
