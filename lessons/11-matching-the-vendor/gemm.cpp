// Lesson 11 -- matching the vendor, SGEMM: lesson 5's kernel (the team kernel
// is in reference/lesson11_gemm_shared.hpp), to be taken to about 90 % of cuBLAS. Like N-body it is
// limited by instructions: what is left is how many multiply-adds each
// team-local load feeds. One step, a marked block below:
//   11.4 multiply_tile: a taller register tile, more multiply-adds per load
// Run `ctest --preset student -L lesson11` from the repository root after the
// step (it rebuilds your code first); see README.md for hints.
#include "gemm.hpp"

namespace lesson11 {
namespace {

#pragma omp begin declare target

// Step 11.4: the register tile of the SGEMM kernel (`gemm`): how many rows
// of C each thread owns (columns: 8), and one k-tile's product for its block.
// The given kernel has copied the team's tiles into team-local memory: As
// transposed, As[k][v] holding rows 4v..4v+3 at depth k, and Bs[k][v]
// columns 4v..4v+3 (GemmShape and Vec4: reference/lesson11_gemm_shared.hpp).
// Thread (ty, tx) owns rows GemmShape<gemm_rows_per_thread>::row_of(ty, r)
// and columns ...::col_of(tx, c) of the team's C tile; acc holds its sums so
// far.
// SNIPPET(tile-16x8-head)
// TODO(11.4): Give each thread a taller block of C, 16 rows instead of lesson
// 5's 8, so that each Vec4 read from team-local memory feeds more
// multiply-adds; then add this k-tile's product into acc: per k, the
// thread's rows of As and columns of Bs as Vec4, then every acc[r][c] +=
// a[r] * b[c] (README, Steps: 11.4). Until then C comes out zero.
constexpr int gemm_rows_per_thread = 8;

[[gnu::always_inline]] inline void multiply_tile(float (&acc)[gemm_rows_per_thread][8],
                                                 const GemmShape<gemm_rows_per_thread>::TileA &As,
                                                 const GemmShape<gemm_rows_per_thread>::TileB &Bs, int ty, int tx) {
  (void)acc, (void)As, (void)Bs, (void)ty, (void)tx;
}
// END TODO
// END SNIPPET

#pragma omp end declare target

}  // namespace

// matmul() (given): the team kernel with your multiply_tile inside.
#include "gemm.inc"

}  // namespace lesson11
