// repro.cpp: `reduction(+ : s)` over doubles, LLVM 21.1.8 -foffload-lto vs LLVM 19 (sm_90).
// In lesson 6's LLVM 21 LTO link the double kernel CALLs the in-team combine
// __kmpc_nvptx_parallel_reduce_nowait_v2 (partial through local memory), 2.17x slower on an H200.
// Guess tested here: the 256-bin array reduction in the same link causes it. build.sh builds this
// with and without -DWITH_ARRAY_REDUCTION (clang 19 / 21) and reads the SASS: compiled, not run,
// LLVM 21 inlines the combine into sum() in both, so this program does NOT reproduce the call
// (docs/results/llvm21-sass-2026-12-04.md). Run: ./repro [n]  (n a multiple of 1024, default 2^28).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

// The slow kernel (lesson 6's reduction_clause<double>, s mapped explicitly).
double sum(const double *x, std::size_t n) {
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(tofrom : s)
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

#ifdef WITH_ARRAY_REDUCTION
// Lesson 6's count_bins_reduction: a 256-bin array reduction, the guessed cause.
constexpr int bins = 256;
void count_bins(const double *x, std::size_t n, int *hist) {
#pragma omp target teams distribute parallel for reduction(+ : hist[0:bins])
  for (std::size_t i = 0; i < n; ++i) hist[static_cast<int>(x[i] * bins)] += 1;
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
#pragma omp target data map(to : x[0:n])  // x stays on the device: each call times the kernel
  {
#ifdef WITH_ARRAY_REDUCTION
    std::vector<int> hv(256, 0);
    int *hist = hv.data();
#pragma omp target data map(tofrom : hist[0:256])
    count_bins(x, n, hist);  // called once so that it is linked and not dead
    std::printf("array reduction: hist[0] = %d (want %zu)\n", hist[0], n / 256);
    if (hist[0] != static_cast<int>(n / 256)) rc = 1;
#endif
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
