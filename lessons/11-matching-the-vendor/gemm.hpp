/// @file lessons/11-matching-the-vendor/gemm.hpp
/// @brief Lesson 11 interface, step 11.4 (gemm.cpp): SGEMM, C = A x B, in
///        lesson 5's final kernel with a taller register tile, the shape
///        cuBLAS's own kernel has on an H100 (README, Concepts 8).
///
/// Lesson 5's kernel gives each of a team's 16 x 16 threads an 8 x 8 block of
/// C: per k it reads 4 Vec4 (16 bytes each) from team-local memory for 64
/// multiply-adds. With 16 x 8 blocks a thread reads 6 Vec4 for 128: a quarter
/// fewer team-local loads per multiply-add (6/128 against 4/64), in a 256 x
/// 128 team tile.
#pragma once

#include <cstddef>

// The types, constants and team kernels this interface builds on live in
// reference/: the baselines your code is timed against run the same kernels.
#include "../../reference/lesson11_gemm_shared.hpp"

namespace lesson11 {

/// C = A x B for n x n row-major matrices (n >= 1), with the register tile of
/// step 11.4 (gemm.cpp). A, B and C may already be on the device (a caller's
/// `target data`); C is output only.
void matmul(int n, const float *A, const float *B, float *C);

/// Rows of C per thread in matmul() (step 11.4's gemm_rows_per_thread): the
/// tests name a wrong entry of C by its row and column in a thread's block.
int matmul_rows_per_thread();

/// The path of the file matmul() was compiled from (gemm.cpp, or a step's or
/// a mistake's copy of it).
const char *gemm_source_file();

}  // namespace lesson11
