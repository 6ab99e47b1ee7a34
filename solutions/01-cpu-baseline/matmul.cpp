// Lesson 1 -- CPU baseline: make a matrix multiply fast on the CPU before any
// offloading. Three steps, each a marked block below:
//   1.1 loop order: make the innermost loop walk memory contiguously
//   1.2 threads:    split the rows across cores with `omp parallel for`
//   1.3 simd:       ask for vector instructions in the innermost loop
// Run `ctest --preset student -L '^lesson1$'` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include <cstddef>

#include "matmul.hpp"

namespace lesson1 {

// SNIPPET(matmul)
void matmul(int n, const float *A, const float *B, float *C) {
  // SOLUTION(1.2): rows are independent, so threads take whole rows.
#pragma omp parallel for schedule(static)
  // END SOLUTION
  for (int i = 0; i < n; ++i) {
    // SOLUTION(1.1): i-k-j order, so the inner loop streams a row of B into a
    // row of C; the row is cleared first because it is accumulated over k.
    float *c = C + (std::size_t)i * n;
    for (int j = 0; j < n; ++j) c[j] = 0;
    for (int k = 0; k < n; ++k) {
      const float a = A[(std::size_t)i * n + k];
      const float *b = B + (std::size_t)k * n;
      // SOLUTION(1.3): no dependence between iterations of the j loop, so
      // it may run in vector lanes.
#pragma omp simd
      // END SOLUTION
      for (int j = 0; j < n; ++j) c[j] += a * b[j];
    }
    // END SOLUTION
  }
}
// END SNIPPET

}  // namespace lesson1
