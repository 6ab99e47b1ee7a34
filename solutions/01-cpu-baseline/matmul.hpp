/// @file lessons/01-cpu-baseline/matmul.hpp
/// @brief Lesson 1 interface: the matrix multiply you make fast on the CPU.
#pragma once

namespace lesson1 {

/// C = A x B for @p n x @p n row-major float matrices.
///
/// Element (i, j) of a matrix M is M[i * n + j]. C is output only: its old
/// contents must not matter (the tests fill it with NaN first). Must be
/// correct for every n >= 1.
void matmul(int n, const float *A, const float *B, float *C);

}  // namespace lesson1
