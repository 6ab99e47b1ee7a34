// repro_min.cpp: the smallest program found that makes LLVM 21.1.8 (-foffload-lto, sm_90) CALL the
// in-team combine __kmpc_nvptx_parallel_reduce_nowait_v2 out of line from a `reduction(+ : s)` kernel
// over doubles (lesson 6's reduction_clause<double>), while LLVM 19 inlines it.
// Three kernels: the same reduction over int, then over double, then one generic-mode `omp target`
// (no parallel in it; lesson 6's link has one: common/src/device.cpp's probe_offload).
// Why (LLVM 21's LTO inliner remarks: opt -passes='lto<O3>' -pass-remarks-missed=inline on the
// linked bitcode, as build_min.sh prints): the combine costs 2940 for the double kernel against
// the NVPTX threshold 2750 (for int 2140: inlined; in lesson 6's link 2990 vs 2190 for int/float).
// Without the generic kernel it costs 1915 (a guess, not checked: with only SPMD kernels OpenMPOpt
// can fold the runtime's generic-mode paths out of it). It would still be inlined if the double
// kernel held its last call (LLVM's last-call-to-a-static-function bonus, -15000); it does not when
// another reduction kernel is processed after it. Any one switch below and the double kernel inlines it:
//   -DNO_GENERIC (no generic kernel: cost 1915), -DNO_INT (the only caller: bonus), -DDOUBLE_FIRST
//   (the double kernel first in the file: it gets the last call, bonus). Compiled, not run (no GPU here).
// Build (build_min.sh does it all, as root, and prints the facts below):
//   clang++-19 -O3 -std=c++20 -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda \
//     [-foffload-lto] -save-temps repro_min.cpp -o repro_min          (LLVM 19)
//   clang++ (LLVM 21, Debian 13 root) the same flags with -foffload-lto --cuda-path=<CUDA 13>
// Look for, in the SASS of __omp_offloading_*_Z3sumPKdm_l* (nvdisasm -c of the linked cubin):
//   LLVM 21: a CALL (relocation to __kmpc_nvptx_parallel_reduce_nowait_v2, which exists as its own
//   function with LDL/STL: its partial goes through local memory at each shuffle step);
//   LLVM 19: no CALL, the shuffles (SHFL.DOWN) inline in the kernel, no LDL/STL.
// Run (GPU): ./repro_min [n]  (n a multiple of 1024, default 2^28): median ms of 20 double sums.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifdef DOUBLE_FIRST
double sum(const double *x, std::size_t n) {
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : x[0:n])
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}
#endif

#ifndef NO_INT
int sum(const int *x, std::size_t n) {  // the other caller of the combine (lesson 6: int and float)
  int s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : x[0:n])
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}
#endif

#ifndef DOUBLE_FIRST
// The slow kernel.
double sum(const double *x, std::size_t n) {
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : x[0:n])
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}
#endif

#ifndef NO_GENERIC
int on_host() {  // a generic-mode kernel: `target` with no parallel region in it
  int initial = 1;
#pragma omp target map(from : initial)
  initial = omp_is_initial_device();
  return initial;
}
#endif

int main(int argc, char **argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (std::size_t{1} << 28);
  // x[i] = (i % 1024) / 1024: every partial sum is a multiple of 2^-10 below 2^43, so the sum
  // is exact in any order and can be compared with ==.
  std::vector<double> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<double>(i % 1024) / 1024.0;
  const double want = static_cast<double>(n / 1024) * 511.5;
  const double *x = h.data();
  int rc = 0;
#ifndef NO_GENERIC
  std::printf("on the host: %d\n", on_host());
#endif
#ifndef NO_INT
  std::vector<int> hi(1024, 1);
  if (sum(hi.data(), hi.size()) != 1024) rc = 1;
#endif
#pragma omp target data map(to : x[0:n])  // x stays on the device: each call times the kernel
  {
    std::vector<double> ms;
    double got = 0;
    for (int r = 0; r < 21; ++r) {  // the first call loads the image: not timed
      const auto t0 = std::chrono::steady_clock::now();
      got = sum(x, n);
      const auto t1 = std::chrono::steady_clock::now();
      if (r > 0) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      if (got != want) rc = 1;
    }
    std::sort(ms.begin(), ms.end());
    const double med = (ms[9] + ms[10]) / 2;  // median of 20 calls
    std::printf("sum of %zu doubles: %.3f ms, %.1f GB/s, sum %s (%.1f, want %.1f)\n", n, med,
                n * sizeof(double) / (med * 1e6), got == want ? "ok" : "WRONG", got, want);
  }
  return rc;
}
