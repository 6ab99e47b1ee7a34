// Lesson 1 -- CPU baseline: make a matrix multiply fast on the CPU before any
// offloading. Three steps, each a marked block below:
//   1.1 loop order: make the innermost loop walk memory contiguously
//   1.2 threads:    split the rows across cores with `omp parallel for`
//   1.3 simd:       ask for vector instructions in the innermost loop
// Run `ctest -L lesson1` after each step; see README.md for hints.
#include <cstddef>

#include "matmul.hpp"

namespace lesson1 {

void matmul(int n, const float *A, const float *B, float *C) {
  // SOLUTION(1.1, 1.2, 1.3): rows split across threads (1.2); i-k-j order so
  // the inner loop streams a row of B into a row of C (1.1); that inner loop
  // has no dependence between iterations, so simd is safe (1.3).
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) {
    float *c = C + (std::size_t)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0;
    for (int k = 0; k < n; ++k) {
      const float a = A[(std::size_t)i * n + k];
      const float *b = B + (std::size_t)k * n;
#pragma omp simd
      for (int j = 0; j < n; ++j) c[j] += a * b[j];
    }
  }
  // END SOLUTION
}

}  // namespace lesson1
