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
// The offloaded loop over tiles is given; you write register_tile() below.
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
}

}  // namespace

// SNIPPET(tiles)
template <int TM, int TN>
void matmul_tiled(int n, const float *A, const float *B, float *C) {
  const std::size_t nn = (std::size_t)n * n;
  // Tiles down: ceil(n / TM). Across: groups of `lanes` tiles, each group
  // covering lanes*TN columns (for lanes = 1 simply ceil(n / TN) tiles).
  const int tiles_i = (n + TM - 1) / TM;
  const int tiles_j = (n + lanes * TN - 1) / (lanes * TN) * lanes;
  // One device thread per tile; consecutive threads take consecutive tj.
#pragma omp target teams distribute parallel for collapse(2) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  for (int ti = 0; ti < tiles_i; ++ti)
    for (int tj = 0; tj < tiles_j; ++tj) {
      const int i0 = ti * TM;
      const int j0 = tj / lanes * (lanes * TN) + tj % lanes;  // first of this thread's columns
      if (i0 + TM <= n && j0 + (TN - 1) * lanes < n)
        register_tile<TM, TN, false>(n, i0, j0, A, B, C);  // the whole tile is inside C
      else
        register_tile<TM, TN, true>(n, i0, j0, A, B, C);  // part of it sticks out
    }
}
// END SNIPPET

template void matmul_tiled<1, 1>(int, const float *, const float *, float *);
template void matmul_tiled<2, 2>(int, const float *, const float *, float *);
template void matmul_tiled<4, 4>(int, const float *, const float *, float *);
template void matmul_tiled<8, 8>(int, const float *, const float *, float *);
// The Intel GFX article's ctile: 512 sums, 2 KB per thread. A GPU thread has at
// most 255 registers, so expect spills here (README: "Reading the compiler's report").
template void matmul_tiled<16, 32>(int, const float *, const float *, float *);

}  // namespace lesson4
