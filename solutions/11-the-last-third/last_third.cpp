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
  // SOLUTION(11.1): four Vec16 in flight per thread (64 bytes: 16 floats or
  // ints, 8 doubles), added into four Vec16 partials: independent chains of
  // adds. The elements before b's first 16-byte boundary and after its last
  // whole Vec16 are added one by one, by the first threads.
  constexpr unsigned L = Vec16<T>::lanes;
  const auto addr = reinterpret_cast<std::uintptr_t>(b);
  const unsigned head = addr % sizeof(T) != 0 ? len : static_cast<unsigned>((16 - addr % 16) % 16 / sizeof(T));
  T s = 0;
  if (head >= len) {  // too short for a Vec16, or not even aligned to its own type
    for (unsigned i = tid; i < len; i += nth) s += b[i];
    return s;
  }
  const Vec16<T> *q = reinterpret_cast<const Vec16<T> *>(b + head);
  const unsigned quads = (len - head) / L;
  for (unsigned i = tid; i < head; i += nth) s += b[i];
  for (unsigned i = head + L * quads + tid; i < len; i += nth) s += b[i];
  Vec16<T> p0{}, p1{}, p2{}, p3{};
  unsigned i = tid;
  for (; i + 3 * nth < quads; i += 4 * nth) {
    const Vec16<T> a0 = q[i], a1 = q[i + nth], a2 = q[i + 2 * nth], a3 = q[i + 3 * nth];
    for (unsigned l = 0; l < L; ++l) {
      p0.v[l] += a0.v[l];
      p1.v[l] += a1.v[l];
      p2.v[l] += a2.v[l];
      p3.v[l] += a3.v[l];
    }
  }
  for (; i < quads; i += nth)
    for (unsigned l = 0; l < L; ++l) p0.v[l] += q[i].v[l];
  for (unsigned l = 0; l < L; ++l) s += (p0.v[l] + p1.v[l]) + (p2.v[l] + p3.v[l]);
  return s;
  // END SOLUTION
}

// Step 11.2: count this thread's share of a team's block b[0:len) into the
// team's bins (team-local memory, shared by the team's threads).
void thread_count(const float *b, unsigned len, unsigned tid, unsigned nth, int *bins) {
  // SOLUTION(11.2): two Quads (8 samples) loaded per thread before the
  // first of their 8 atomics; the head and tail one by one, as in 11.1.
  const auto addr = reinterpret_cast<std::uintptr_t>(b);
  const unsigned head = addr % 4 != 0 ? len : static_cast<unsigned>((16 - addr % 16) % 16 / 4);
  const unsigned quads = head >= len ? 0 : (len - head) / 4;
  const unsigned before = quads == 0 ? len : head;  // counted one by one before the Quads
  const unsigned after = quads == 0 ? len : head + 4 * quads;  // and from here on
  for (unsigned i = tid; i < before; i += nth) {
    const int k = bin_of(b[i]);
#pragma omp atomic update
    bins[k] += 1;
  }
  for (unsigned i = after + tid; i < len; i += nth) {
    const int k = bin_of(b[i]);
#pragma omp atomic update
    bins[k] += 1;
  }
  const Quad *q = reinterpret_cast<const Quad *>(b + head);
  unsigned i = tid;
  for (; i + nth < quads; i += 2 * nth) {
    const Quad a0 = q[i], a1 = q[i + nth];
    int k[8];
    for (int l = 0; l < 4; ++l) {
      k[l] = bin_of(a0.v[l]);
      k[4 + l] = bin_of(a1.v[l]);
    }
    for (int l = 0; l < 8; ++l) {
#pragma omp atomic update
      bins[k[l]] += 1;
    }
  }
  for (; i < quads; i += nth)
    for (int l = 0; l < 4; ++l) {
      const int k = bin_of(q[i].v[l]);
#pragma omp atomic update
      bins[k] += 1;
    }
  // END SOLUTION
}

// Step 11.3: add the pull of the tile's bodies tile[q0:q1) on this thread's
// group g of bodies_per_thread bodies. The given kernel hands each thread
// bodies_per_thread bodies of its team's 256 and, where the team has its 256
// threads, splits every tile into bodies_per_thread parts [q0, q1), one per
// thread of a group's bodies, so a team still does 256 x 256 interactions per
// tile; it adds up the parts' accelerations at the end.
// SOLUTION(11.3): four bodies per thread, so each 16-byte team-local load
// of a body j serves four interactions, and the hardware's 1 / sqrt: one
// instruction instead of a square root and a division. The sums live in
// local arrays so that on a CPU `simd reduction` can give each vector lane
// its own copy (the tile's bodies j become the lanes). Not on a GPU: there
// the threads are the lanes, and LLVM 19 compiles the clause into extra
// copies of the sums (ptxas -v: 138 registers instead of 78).
constexpr int bodies_per_thread = 4;

inline void tile_forces(const Body4 *tile, int q0, int q1, Group<bodies_per_thread> &g) {
  constexpr int P = bodies_per_thread;
  float ax[P], ay[P], az[P];
  for (int p = 0; p < P; ++p) ax[p] = ay[p] = az[p] = 0.0f;
#if !defined(__NVPTX__) && !defined(__AMDGCN__)
#pragma omp simd reduction(+ : ax, ay, az)
#endif
  for (int q = q0; q < q1; ++q) {
    const Body4 j = tile[q];
    for (int p = 0; p < P; ++p) pull<fast_inverse_sqrt>(g.x[p], g.y[p], g.z[p], j, ax[p], ay[p], az[p]);
  }
  for (int p = 0; p < P; ++p) {
    g.ax[p] += ax[p];
    g.ay[p] += ay[p];
    g.az[p] += az[p];
  }
}
// END SOLUTION

// Step 11.4: the register tile of the SGEMM kernel (gemm.inc): how many rows
// of C each thread owns (columns: 8), and one k-tile's product for its block.
// The given kernel has copied the team's tiles into team-local memory: As
// transposed, As[k][g] holding rows 4g..4g+3 at depth k, and Bs[k][g]
// columns 4g..4g+3. Thread (ty, tx) owns rows GemmShape::row_of(ty, r) and
// columns col_of(tx, c) of the team's C tile; acc holds its sums so far.
// SOLUTION(11.4): 16 rows, cuBLAS's shape (a 256 x 128 team tile): per k
// four Vec4 of A and two of B from team-local memory feed 128
// multiply-adds, where lesson 5's 8 x 8 tile gets 64 from four. Every index
// into acc is a constant once the loops are unrolled, so acc stays in
// registers (ptxas -v: 255 registers, none spilled; README, Concepts 8).
constexpr int gemm_rows_per_thread = 16;

[[gnu::always_inline]] inline void multiply_tile(float (&acc)[gemm_rows_per_thread][8],
                                                 const GemmShape<gemm_rows_per_thread>::TileA &As,
                                                 const GemmShape<gemm_rows_per_thread>::TileB &Bs, int ty, int tx) {
  using S = GemmShape<gemm_rows_per_thread>;
#pragma omp unroll full
  for (int k = 0; k < S::BK; ++k) {
    float a[gemm_rows_per_thread], b[S::RN];
#pragma omp unroll full
    for (int g = 0; g < gemm_rows_per_thread / 4; ++g) {
      const Vec4 v = As[k][g * S::TY + ty];
      for (int l = 0; l < 4; ++l) a[4 * g + l] = v.v[l];
    }
#pragma omp unroll full
    for (int g = 0; g < S::RN / 4; ++g) {
      const Vec4 v = Bs[k][g * S::TX + tx];
      for (int l = 0; l < 4; ++l) b[4 * g + l] = v.v[l];
    }
#pragma omp unroll full
    for (int r = 0; r < gemm_rows_per_thread; ++r)
#pragma omp unroll full
      for (int c = 0; c < S::RN; ++c) acc[r][c] += a[r] * b[c];
  }
}
// END SOLUTION

#pragma omp end declare target

}  // namespace

// sum(), histogram() and the plain baselines (given): the team kernels.
#include "given.inc"
// nbody_step() and its plain baseline (given): the N-body team kernel.
#include "gravity.inc"
// matmul() and its plain baseline (given): the SGEMM team kernel.
#include "gemm.inc"

}  // namespace lesson11
