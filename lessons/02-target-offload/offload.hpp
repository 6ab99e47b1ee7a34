/// @file lessons/02-target-offload/offload.hpp
/// @brief Lesson 2 interface: three kernels you move to the offload device,
/// and a vector you hand to a device library.
///
/// All pointers are ordinary host arrays. Each function copies what it needs
/// to the device and the results back (map clauses), so a caller needs no
/// OpenMP; a caller that already holds the arrays on the device (a `target
/// data` region around the call) gets no copies, because the maps find the
/// data present. That is how the lesson program times kernels alone.
#pragma once

#include <functional>

// heat_alpha, the coefficient heat() steps the grid with, lives in reference/:
// the fixed baselines the tests compare heat() against step with it too.
#include "../../reference/lesson02_offload_shared.hpp"

namespace lesson2 {

/// result[i] = first[i] + exp(second[i]) for i in [0, @p n), computed on the
/// offload device (the C++ AMP article's VectorAddExpPointwise).
///
/// @p first and @p second are inputs; @p result is output only: its old
/// contents must not matter (the tests fill it with NaN first), and it must
/// hold the answer in host memory when the function returns.
void add_exp(int n, const float *first, const float *second, float *result);

/// The relative error norm (course::check_close) add_exp's float result may
/// have against the double reference, in the tests and the lesson program
/// alike. exp is correctly rounded to within 2 ulp on GPUs and CPUs, plus one
/// rounding for the sum, so a correct kernel stays far below 1e-6 (about
/// 8 ulp), while one wrong element of a 1009-element vector already exceeds it.
inline constexpr double add_exp_tolerance = 1e-6;

/// C = A x B for @p n x @p n row-major float matrices, on the device, one
/// device thread per element of C. Element (i, j) of M is M[i * n + j]. C is
/// output only. This naive kernel is the baseline of lessons 4 and 5.
void matmul(int n, const float *A, const float *B, float *C);

/// Called by heat() with the HOST copy of the grid after @p step steps. The
/// pointer is valid during the call only.
using HeatObserver = std::function<void(int step, const float *grid)>;

/// @p steps explicit heat-diffusion steps on the @p ny x @p nx grid @p u
/// (row-major, u[y * nx + x]), on the device.
///
/// One step replaces every interior cell by
/// `c + heat_alpha * (left + right + up + down - 4 c)`, all cells reading the
/// previous step's values (Jacobi). Boundary cells (first and last row and
/// column) are fixed. On return @p u holds the grid after all steps. When
/// @p every > 0 and @p observe is set, observe(s, grid) is called after each
/// step s that is a multiple of @p every, with the host's copy of that step's
/// grid (the report asks for snapshots this way; the tests check them).
void heat(int nx, int ny, int steps, float *u, int every = 0, const HeatObserver &observe = {});

/// The relative error norm heat()'s grid may have against the double run, in
/// the tests and the lesson program alike. Each step averages neighbours, so
/// float rounding errors do not grow from step to step: after 20 to 101 steps
/// the error is 2e-8 to 6e-8 (measured). 1e-6 leaves 15x room and still fails
/// a grid that is one step short (2e-3 or more at the tests' sizes).
inline constexpr double heat_tolerance = 1e-6;

/// Scales @p v (n floats) to Euclidean length 1 on the device, with the
/// device library of devlib.hpp (devlib::norm2, devlib::scale), whose
/// functions take device addresses. @p v must hold a nonzero element. On
/// return the host copy of @p v holds the result. Called while the caller
/// already holds @p v on the device (a `target data` region around the
/// call), it works on that device copy and copies nothing.
void normalize(int n, float *v);

}  // namespace lesson2
