// Lesson 4 -- register tiles: each device thread computes a TM x TN block of C
// and keeps its TM*TN running sums in registers, the fastest memory there is.
// Per step k it loads TM values of A and TN values of B and does TM*TN
// multiply-adds with them, instead of 2 loads per multiply-add.
//   4.1 accumulate: sums in a local array, k outermost, A and B loaded once per k
//   4.2 unroll:     `#pragma omp unroll full` on every loop over the tile, so each
//                   array index is a compile-time constant and the arrays can live
//                   in registers (a run-time index sends them to slow memory)
//   4.3 edges:      clamp the indices of edge tiles so every load is in bounds,
//                   and store only the elements that exist
// The offloaded loop over tiles is given (tiles.inc); you write register_tile() below.
// Run `ctest --preset student -L lesson4` from the repository root after each
// step (it rebuilds your code first); README.md shows how to see registers
// and spills in the compiler's report for the GPU code.
#include <algorithm>
#include <cstddef>

#include "matmul.hpp"

namespace lesson4 {
namespace {

// One thread's tile: rows i0 .. i0+TM-1, columns j0, j0+lanes, ..., j0+(TN-1)*lanes.
// Edge is true for tiles that stick out past row or column n-1 (compiled as a
// second copy, so interior tiles carry no bounds checks). always_inline puts
// the tile in the kernel itself: the compiler's register report then describes it.
template <int TM, int TN, bool Edge>
[[gnu::always_inline]] inline void register_tile(int n, int i0, int j0, const float *A, const float *B, float *C) {
  // SNIPPET(register-tile-rows)
  // TODO(4.1): accumulate the tile in registers. Declare `float c[TM][TN] = {}`,
  // make k the outer loop, and per k load the tile's TM values of A (column k)
  // into a[TM] and its TN values of B (row k) into b[TN]; then c[m][t] += a[m] * b[t]
  // for every m and t. Store c into C after the k loop. The code below computes
  // one element at a time: correct, but it reloads a whole row of A and column
  // of B per element.
  // TODO(4.2): put `#pragma omp unroll full` on every loop over m or t (not on k),
  // so that every index into a, b and c is a compile-time constant.
  // END TODO
  // TODO(4.3): keep the bounds checks out of the k loop: for Edge tiles clamp
  // the row and column numbers to n-1 before the loop (the loads stay inside A
  // and B), and check only when storing.
  // END TODO
  for (int m = 0; m < TM; ++m)
    for (int t = 0; t < TN; ++t) {
      const int i = i0 + m, j = j0 + t * lanes;
      if (Edge && (i >= n || j >= n)) continue;
      float sum = 0;
      for (int k = 0; k < n; ++k) sum += A[(std::size_t)i * n + k] * B[(std::size_t)k * n + j];
      C[(std::size_t)i * n + j] = sum;
    }
  // END TODO
  // END SNIPPET
}

}  // namespace

// The offloaded loop over tiles and the shapes the lesson sweeps (given).
#include "tiles.inc"

}  // namespace lesson4
