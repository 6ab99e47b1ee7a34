// Lesson 11 -- the last third: a sum (floats, ints, doubles) and a 256-bin histogram, each
// already split the way lesson 6 taught (team partials, team-local bins; the
// kernels are in given.inc), and lesson 7's N-body step in the shape of the
// classic tiled CUDA kernel (gravity.inc), and lesson 5's SGEMM kernel
// (gemm.inc). What is left is inside each thread: how many bytes it asks
// memory for before it needs the first of them, and how many instructions an
// interaction or a multiply-add costs. Four steps, each a marked block below:
//   11.1 thread_sum:   16-byte loads, several in flight, independent partials
//                      (one template for floats, ints and doubles)
//   11.2 thread_count: the same for the histogram's samples, before its atomics
//   11.3 tile_forces:  an N-body step: several bodies per thread, a fast 1 / sqrt
//   11.4 multiply_tile: SGEMM: a taller register tile, more multiply-adds per load
// Run `ctest --preset student -L lesson11` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include "gemm.hpp"
#include "gravity.hpp"
#include "streaming.hpp"

#include <omp.h>

#include <cstddef>
#include <cstdint>

namespace lesson11 {
namespace {

#pragma omp begin declare target

// Step 11.1: this thread's share of a team's block b[0:len) of floats, ints
// or doubles: the elements tid, tid + nth, tid + 2 nth, ... added up. The
// given kernel adds the shares of a team, then the teams'.
template <class T>
T thread_sum(const T *b, unsigned len, unsigned tid, unsigned nth) {
  // TODO(11.1): Have more bytes in flight per thread. Read the block as
  // Vec16<T> (16 bytes, one load instruction: four floats or ints, two
  // doubles) where b allows it, start several independent loads before the
  // first add needs one, and keep independent partial sums so no add waits
  // for the one before it. b's device address need not be a multiple of 16:
  // the elements before the first boundary, and after the last whole Vec16,
  // still count (README, Steps: 11.1).
  T s = 0;
  for (unsigned i = tid; i < len; i += nth) s += b[i];
  return s;
  // END TODO
}

// Step 11.2: count this thread's share of a team's block b[0:len) into the
// team's bins (team-local memory, shared by the team's threads).
void thread_count(const float *b, unsigned len, unsigned tid, unsigned nth, int *bins) {
  // TODO(11.2): The same for the histogram: Quad loads where b allows it,
  // and all of several loads issued before the first atomic waits on one.
  // The atomics stay: the team's threads share the bins (README, Steps: 11.2).
  for (unsigned i = tid; i < len; i += nth) {
    const int k = bin_of(b[i]);
#pragma omp atomic update
    bins[k] += 1;
  }
  // END TODO
}

// Step 11.3: add the pull of the tile's bodies tile[q0:q1) on this thread's
// group g of bodies_per_thread bodies. The given kernel hands each thread
// bodies_per_thread bodies of its team's 256 and, where the team has its 256
// threads, splits every tile into bodies_per_thread parts [q0, q1), one per
// thread of a group's bodies, so a team still does 256 x 256 interactions per
// tile; it adds up the parts' accelerations at the end.
// TODO(11.3): Make each team-local load serve several bodies: raise
// bodies_per_thread (it must divide 256) and sweep the tile once, pulling all
// of the group's bodies with each body j before the next. And ask for the
// hardware's 1 / sqrt, not a square root and a division (README, Steps: 11.3).
constexpr int bodies_per_thread = 1;

inline void tile_forces(const Body4 *tile, int q0, int q1, Group<bodies_per_thread> &g) {
  for (int p = 0; p < bodies_per_thread; ++p)
    for (int q = q0; q < q1; ++q) pull<exact_inverse_sqrt>(g.x[p], g.y[p], g.z[p], tile[q], g.ax[p], g.ay[p], g.az[p]);
}
// END TODO

// Step 11.4: the register tile of the SGEMM kernel (gemm.inc): how many rows
// of C each thread owns (columns: 8), and one k-tile's product for its block.
// The given kernel has copied the team's tiles into team-local memory: As
// transposed, As[k][g] holding rows 4g..4g+3 at depth k, and Bs[k][g]
// columns 4g..4g+3. Thread (ty, tx) owns rows GemmShape::row_of(ty, r) and
// columns col_of(tx, c) of the team's C tile; acc holds its sums so far.
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

#pragma omp end declare target

}  // namespace

// sum(), histogram() and the plain baselines (given): the team kernels.
#include "given.inc"
// nbody_step() and its plain baseline (given): the N-body team kernel.
#include "gravity.inc"
// matmul() and its plain baseline (given): the SGEMM team kernel.
#include "gemm.inc"

}  // namespace lesson11
