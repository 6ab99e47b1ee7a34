// escape_hatch.hpp -- the lesson's sum, histogram and SGEMM written as LLVM
// `ompx_bare` kernels (escape_hatch.cpp): measured beside your code on GPUs,
// to show what the last few percent cost (README, "The escape hatch").
#pragma once

#include <cstddef>

namespace lesson11_bare {

/// Whether this build has the bare kernels (GPU builds; LLVM 19 cannot run an
/// `ompx_bare` region on its host-offload device).
bool available();
/// Sum of x[0..n) (x already on the device), or 0 where not available.
float sum(const float *x, std::size_t n);
/// Histogram of x[0..n) into hist[0..256) (x already on the device).
void histogram(const float *x, std::size_t n, int *hist);
/// C = A x B for n x n row-major matrices (A, B and C already on the device),
/// the k-tiles copied with NVIDIA's asynchronous copies (`cp.async`, sm_80
/// and later). False, having computed nothing, where this build or the shape
/// cannot: n % 4 != 0, device copies not 16-byte aligned, another GPU.
bool sgemm(int n, const float *A, const float *B, float *C);

}  // namespace lesson11_bare
