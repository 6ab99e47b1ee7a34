/// @file baselines.hpp
/// @brief Fixed reference implementations: the baselines speedups are
///        measured against and the double-precision references correctness is
///        checked against. Never the student's code.
#pragma once

#include <string>
#include <vector>

namespace course::baseline {

/// C = A x B for n x n row-major float matrices, the serial i-j-k triple loop
/// (lesson 1's baseline: the C++ AMP article's 1024^2 took 7350 ms this way).
void matmul_serial(int n, const float *A, const float *B, float *C);

/// The same loop with the k and j loops swapped (i-k-j): unit-stride access to
/// B and C. Lesson 1's "loop order only" variant for the report.
void matmul_serial_ikj(int n, const float *A, const float *B, float *C);

/// The same i-k-j loop with vector instructions forbidden (one float per
/// instruction): what lesson 1's matmul is without step 1.3, whatever the
/// compiler would have done on its own.
void matmul_serial_ikj_scalar(int n, const float *A, const float *B, float *C);

/// The i-j-k loop with only `omp parallel for` on i (the Intel GFX article's
/// 5.12 s -> 2.689 s on two cores). Lesson 1's "threads only" variant.
void matmul_parallel_ijk(int n, const float *A, const float *B, float *C);

/// The naive offloaded matmul: one device thread per element of C, the two
/// outer loops collapsed (`target teams distribute parallel for collapse(2)`).
/// Lesson 2's result and the baseline of lessons 4 and 5. Maps A and B to and
/// C from the device; when the caller already holds them in a `target data`
/// region the maps find them present and only the kernel is timed.
void matmul_naive_offload(int n, const float *A, const float *B, float *C);

/// Double-precision reference of C = A x B, accumulated in double.
std::vector<double> matmul_reference(int n, const float *A, const float *B);

/// One matmul problem of the lesson programs (lessons 1, 4 and 5): the same
/// seeded inputs everywhere, so every variant at size n multiplies the same
/// matrices, and the double-precision reference they are checked against.
struct MatmulProblem {
  std::vector<float> A;     ///< n x n, row-major, uniform in [-1, 1] (seed course::default_seed)
  std::vector<float> B;     ///< n x n, row-major, uniform in [-1, 1] (the next seed)
  std::vector<double> ref;  ///< matmul_reference() of A and B
  std::string size;         ///< "NxN", the rows' size column
};

/// The problem of size @p n; says on stdout that the reference is computed
/// (seconds at n = 4096).
MatmulProblem matmul_problem(int n);

/// The seed table that the matmul rows of lessons 1, 2, 4 and 5 fill in
/// together (course::ResultRow::seed): the report sets rows of one seed side
/// by side, so every lesson names it with this one string.
inline constexpr const char *matmul_seed = "1024² fp32 matmul across the course (C++ AMP and Intel GFX articles)";

}  // namespace course::baseline
