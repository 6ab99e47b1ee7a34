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
  // TODO(1.2): share the work among threads: look up `omp parallel for`. Which
  // loop can be split so that no two threads ever write the same element?
  // END TODO
  for (int i = 0; i < n; ++i) {
    // TODO(1.1): the innermost loop below walks B down a column: B[k*n + j]
    // jumps n floats each step, so nearly every load misses the cache. Which
    // order of the loops makes the innermost one walk along a row of B and a
    // row of C? (C then collects partial sums: where must it start?)
    // TODO(1.3): give that innermost loop vector lanes: look up `omp simd`.
    // END TODO
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < n; ++k) sum += A[(std::size_t)i * n + k] * B[(std::size_t)k * n + j];
      C[(std::size_t)i * n + j] = sum;
    }
    // END TODO
  }
}
// END SNIPPET

}  // namespace lesson1
