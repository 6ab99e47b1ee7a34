/// @file reference/lesson11_pinned_shared.hpp
/// @brief Pinned host memory for lesson 11's given team kernels:
///        `pinned_array<T>(count)`, memory a kernel stores its result into and
///        the host reads, with nothing mapped. Used by the sums' partials and
///        the histogram's counts (reference/lesson11_streaming_shared.hpp) and by
///        SGEMM's granted thread count (reference/lesson11_gemm_shared.hpp).
///        Given code: read it, do not edit it.
#pragma once

#include <omp.h>

#include <cstddef>
#include <new>

namespace lesson11 {

/// @p count uninitialised objects of type T in pinned host memory; throws
/// std::bad_alloc when there is no such memory.
///
/// Why pinned: LLVM's llvm_omp_target_host_mem_alloc (lesson 9.4) gives
/// page-locked host memory at one address for host and GPU, so a kernel
/// stores its result straight into it and a call is one kernel launch and one
/// wait, as a CUB call is, with no copy of a result before or after it. On an
/// H200 a map(tofrom) of a 4-byte result cost 10-15 us a call for the sum
/// (docs/results/h200-2026-11-29-kernels.md) and tens of microseconds for
/// SGEMM's thread count (docs/results/h200-2026-12-04-goals.md).
///
/// The callers keep theirs for the whole program and never free it (LLVM's
/// runtime may be gone by the time a static destructor would free it); a
/// block that is replaced goes back with
/// `omp_free(p, llvm_omp_target_host_mem_alloc)`.
template <class T>
T *pinned_array(std::size_t count) {
  T *p = static_cast<T *>(omp_alloc(sizeof(T) * count, llvm_omp_target_host_mem_alloc));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace lesson11
