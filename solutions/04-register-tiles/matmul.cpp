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
  // SOLUTION(4.1): the tile's sums live in c[TM][TN]; per k, TM loads of A
  // and TN of B feed TM*TN multiply-adds.
  const float *a_row[TM];  // start of each of the tile's rows of A
  int col[TN];             // the tile's column numbers
  // SOLUTION(4.2): every loop over the tile is fully unrolled, so c[m][t] is
  // one named register, never memory.
#pragma omp unroll full
  // END SOLUTION
  for (int m = 0; m < TM; ++m) {
    int i = i0 + m;
    // SOLUTION(4.3): edge tiles clamp their rows and columns to n-1: the loads
    // stay in bounds and the k loop has no branches.
    if (Edge) i = std::min(i, n - 1);
    // END SOLUTION
    a_row[m] = A + (std::size_t)i * n;
  }
  // SOLUTION(4.2)
#pragma omp unroll full
  // END SOLUTION
  for (int t = 0; t < TN; ++t) {
    int j = j0 + t * lanes;
    // SOLUTION(4.3)
    if (Edge) j = std::min(j, n - 1);
    // END SOLUTION
    col[t] = j;
  }
  // END SNIPPET
  // SNIPPET(register-tile-k)
  float c[TM][TN] = {};
  for (int k = 0; k < n; ++k) {
    const float *b_row = B + (std::size_t)k * n;
    float a[TM], b[TN];
    // SOLUTION(4.2)
#pragma omp unroll full
    // END SOLUTION
    for (int m = 0; m < TM; ++m) a[m] = a_row[m][k];
    // SOLUTION(4.2)
#pragma omp unroll full
    // END SOLUTION
    for (int t = 0; t < TN; ++t) b[t] = b_row[col[t]];
    // SOLUTION(4.2)
#pragma omp unroll full
    // END SOLUTION
    for (int m = 0; m < TM; ++m)
      // SOLUTION(4.2)
#pragma omp unroll full
      // END SOLUTION
      for (int t = 0; t < TN; ++t) c[m][t] += a[m] * b[t];
  }
  // SOLUTION(4.2)
#pragma omp unroll full
  // END SOLUTION
  for (int m = 0; m < TM; ++m)
    // SOLUTION(4.2)
#pragma omp unroll full
    // END SOLUTION
    for (int t = 0; t < TN; ++t) {
      // SOLUTION(4.3): the clamped duplicates are not stored.
      if (Edge && (i0 + m >= n || j0 + t * lanes >= n)) continue;
      // END SOLUTION
      C[(std::size_t)(i0 + m) * n + j0 + t * lanes] = c[m][t];
    }
  // END SOLUTION
  // END SNIPPET
}

}  // namespace

// The offloaded loop over tiles and the shapes the lesson sweeps (given).
#include "tiles.inc"

}  // namespace lesson4
