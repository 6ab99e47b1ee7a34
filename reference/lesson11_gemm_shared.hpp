/// @file reference/lesson11_gemm_shared.hpp
/// @brief What lesson 11's step 11.4 (gemm.cpp) builds on: the register-tile shape
///        `GemmShape`, `Vec4` and the team kernel `gemm`. Shared by the student's
///        file (through lessons/11-matching-the-vendor/gemm.hpp) and the baselines
///        (reference/lesson11_plain_gemm.cpp), so that a speedup measures the step
///        alone. Given code: read it, do not edit it.
#pragma once

#include <omp.h>

#include <cstddef>
#include <cstdint>

#include "lesson11_pinned_shared.hpp"  // pinned_array: where the kernel reports its threads

namespace lesson11 {

#pragma omp begin declare target

/// Four floats that travel together (one 16-byte load or store).
struct alignas(16) Vec4 {
  float v[4];  ///< the four floats, in memory order
};

/// The tiles of the SGEMM kernel for a register tile of @p RM x 8: a team of
/// 16 x 16 threads computes a (16 RM) x 128 tile of C from BK-deep (8) tiles
/// of A and B in team-local memory; thread (ty, tx) owns rows row_of(ty, r) and
/// columns col_of(tx, c) of it.
template <int RM>
struct GemmShape {
  static_assert(RM % 4 == 0, "a register tile's rows come in Vec4: 4, 8, 12, 16");
  static constexpr int RN = 8;                           ///< columns of C per thread
  static constexpr int TY = 16;                          ///< rows of the team's thread grid
  static constexpr int TX = 16;                          ///< columns of the team's thread grid
  static constexpr int THREADS = TY * TX;                ///< 256
  static constexpr int BM = RM * TY;                     ///< rows of the team's C tile
  static constexpr int BN = RN * TX;                     ///< columns of the team's C tile
  /// Depth of the A and B tiles: 8, so that two of each (the kernel's double
  /// buffer, 2 x 12.4 KB for the 16-row tile) fit the 48 KB of team-local
  /// memory a kernel may declare; at 16 deep two would need 49.7 KB.
  static constexpr int BK = 8;
  /// A tile, transposed (As[k][row], four rows per Vec4); each k-row padded by
  /// one Vec4 so the transposing stores of neighbouring threads miss each
  /// other's memory banks.
  using TileA = Vec4[BK][BM / 4 + 1];
  using TileB = Vec4[BK][BN / 4];  ///< B tile: Bs[k][column / 4]
  /// Row of the team's C tile that the thread in grid row @p ty owns as its
  /// r-th: groups of four, TY groups apart, so that the threads of a warp
  /// read neighbouring Vec4.
  static constexpr int row_of(int ty, int r) { return (r / 4) * 4 * TY + ty * 4 + r % 4; }
  /// Column of the team's C tile that the thread in grid column @p tx owns as its c-th.
  static constexpr int col_of(int tx, int c) { return (c / 4) * 4 * TX + tx * 4 + c % 4; }
};

#pragma omp end declare target

// ---- the team kernel around step 11.4 (given) ----------------------------
//
// Lesson 5's final kernel for any register tile RM x 8, with its team-local
// tiles doubled. Each team of 256 threads computes one (16 RM) x 128 tile of
// C at a time; per k-tile its threads start loading their share of the next
// A and B tiles into registers, multiply the current pair (multiply_tile),
// store the next tiles into the other pair of team-local tiles, and wait
// once (lesson 11's README, Concepts 8). Global loads
// are 16 bytes (four neighbouring floats of a row) where n % 4 == 0 and the
// device addresses of A and B are multiples of 16; otherwise one float at a
// time. Where the runtime grants a team fewer than 256 threads (the host
// device, an odd launch) a second kernel runs: every thread takes whole
// register tiles in turn and parks their sums in C after each k-tile
// (lesson 5's any-thread path). A template over the register tile and its
// product: gemm.inc instantiates it with your gemm_rows_per_thread and
// multiply_tile, the reference library (reference/lesson11_plain_gemm.cpp) with
// lesson 5's 8 x 8 tile, the speed test's baseline. In an unnamed namespace,
// as if written in each file that instantiates it: the compiler inlines the
// product into the kernel there.

namespace {

template <int RM>
using Multiply = void (*)(float (&)[RM][8], const typename GemmShape<RM>::TileA &,
                          const typename GemmShape<RM>::TileB &, int, int);

#pragma omp begin declare target

// Four neighbouring floats M[row][col..col+3] of an n x n matrix (col a
// multiple of 4), zeros past its edges. Vec: one 16-byte load, for when
// n % 4 == 0 and M is 16-byte aligned (then every row starts aligned, and
// col < n means all four are inside); otherwise one float at a time.
template <bool Vec>
inline Vec4 load4(const float *M, int n, int row, int col) {
  Vec4 q = {{0.f, 0.f, 0.f, 0.f}};
  if (row >= n || col >= n) return q;
  const float *p = M + static_cast<std::size_t>(row) * n + col;
  if (Vec) return *reinterpret_cast<const Vec4 *>(p);
#pragma omp unroll full
  for (int l = 0; l < 4; ++l)
    if (col + l < n) q.v[l] = p[l];
  return q;
}

#pragma omp end declare target

// This thread's share of the A and B tiles at depth k0: Vec4 number
// tid + q * THREADS of each tile, row by row (neighbouring threads,
// neighbouring addresses).
// (With RM = 4 or 12 a tile's Vec4 do not split evenly over the 256 threads:
// the last round is only partly taken, `e < NA4`; a test the compiler drops
// where the split is even.)
template <int RM, bool Vec>
struct Share {
  using S = GemmShape<RM>;
  static constexpr int NA4 = S::BM * S::BK / 4, NB4 = S::BK * S::BN / 4;  // Vec4 per tile
  static constexpr int A4 = (NA4 + S::THREADS - 1) / S::THREADS, B4 = (NB4 + S::THREADS - 1) / S::THREADS;
  Vec4 a[A4], b[B4];
  void fetch_a(int n, const float *A, int i0, int k0, int tid) {
#pragma omp unroll full
    for (int q = 0; q < A4; ++q) {
      const int e = tid + q * S::THREADS, r = e / (S::BK / 4), c = e % (S::BK / 4) * 4;
      if (NA4 % S::THREADS == 0 || e < NA4) a[q] = load4<Vec>(A, n, i0 + r, k0 + c);
    }
  }
  void fetch_b(int n, const float *B, int j0, int k0, int tid) {
#pragma omp unroll full
    for (int q = 0; q < B4; ++q) {
      const int e = tid + q * S::THREADS, r = e / (S::BN / 4), c = e % (S::BN / 4) * 4;
      if (NB4 % S::THREADS == 0 || e < NB4) b[q] = load4<Vec>(B, n, k0 + r, j0 + c);
    }
  }
  // The same loads and stores in either order; only ptxas's schedule of the
  // k loop tells them apart, and each toolchain gets its faster order (H100,
  // 4096^2, per call). Fetch: B first is 2.3 % faster with LLVM 21, A first
  // 0.4 % with LLVM 19. Store: B first is 2.0 % faster with LLVM 21 and
  // 4.5-5.0 % slower with LLVM 19; A's rounds stored last-first (two rounds
  // at RM = 12 or 16, one at RM = 4 or 8) are 1.0-1.9 % faster with LLVM 19,
  // and with LLVM 21 the same as first-first once B goes first (alone 0.6-0.9 %
  // slower). docs/results/h100-2026-12-05.md and llvm21-h100-2026-12-06.md.
  // b_first says the order once, for fetch and store.
#if defined(__clang_major__) && __clang_major__ >= 20
  static constexpr bool b_first = true;
#else
  static constexpr bool b_first = false;
#endif
  void fetch(int n, const float *A, const float *B, int i0, int j0, int k0, int tid) {
    if constexpr (b_first) fetch_b(n, B, j0, k0, tid);
    fetch_a(n, A, i0, k0, tid);
    if constexpr (!b_first) fetch_b(n, B, j0, k0, tid);
  }
  void store_a(typename S::TileA &As, int tid) const {
#pragma omp unroll full
    for (int qq = 0; qq < A4; ++qq) {  // A transposed: four k-rows, one float each
      const int q = A4 - 1 - qq, e = tid + q * S::THREADS, r = e / (S::BK / 4), c = e % (S::BK / 4) * 4;
      if (NA4 % S::THREADS == 0 || e < NA4)
        for (int l = 0; l < 4; ++l) As[c + l][r / 4].v[r % 4] = a[q].v[l];
    }
  }
  void store_b(typename S::TileB &Bs, int tid) const {
#pragma omp unroll full
    for (int q = 0; q < B4; ++q) {
      const int e = tid + q * S::THREADS;
      if (NB4 % S::THREADS == 0 || e < NB4) Bs[e / (S::BN / 4)][e % (S::BN / 4)] = b[q];
    }
  }
  void store(typename S::TileA &As, typename S::TileB &Bs, int tid) const {
    if constexpr (b_first) store_b(Bs, tid);
    store_a(As, tid);
    if constexpr (!b_first) store_b(Bs, tid);
  }
};

// A pinned host int (pinned_array, lesson11_pinned_shared.hpp: why pinned), the
// same one on every call: the kernel reports there how many threads its
// teams got. Made on the first call, never freed.
inline int *granted_flag() {
  static int *flag = pinned_array<int>(1);
  return flag;
}

// SNIPPET(gemm-team)
// The kernel for teams of exactly 256 threads (GPUs): one register tile per
// thread, its sums in registers for the whole k loop, and two of each
// team-local tile. While the team multiplies one pair, every thread has its
// share of the next k-tile in flight from global memory and stores it into
// the other pair afterwards: one barrier per k-tile, where one pair needs
// two (stored, wait, multiplied, wait). Returns false, having computed
// nothing, when the runtime granted another number of threads.
template <int RM, Multiply<RM> multiply, bool Vec>
bool gemm_exact(int n, const float *A, const float *B, float *C) {
  using S = GemmShape<RM>;
  const int per_row = (n + S::BN - 1) / S::BN, tiles = ((n + S::BM - 1) / S::BM) * per_row;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  int *granted = granted_flag();
#pragma omp atomic write
  *granted = S::THREADS;
#pragma omp target teams num_teams(tiles) thread_limit(S::THREADS) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn]) \
    is_device_ptr(granted)
  {
    typename S::TileA As0, As1;  // team-local: two pairs of tiles
    typename S::TileB Bs0, Bs1;
#if defined(__NVPTX__)
#pragma omp allocate(As0, As1, Bs0, Bs1) allocator(omp_pteam_mem_alloc)
#endif
    // firstprivate: each thread its own copy of the team's scalars. Shared,
    // LLVM 21 keeps them in team-local memory and loads n again after every
    // barrier (docs/results/llvm21-sass-2026-12-04.md).
#pragma omp parallel num_threads(S::THREADS) firstprivate(n, tiles, per_row)
    {
      const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
      if (nth != S::THREADS) {
        if (tid == 0) {
#pragma omp atomic write
          *granted = nth;
        }
      } else {
        // Said so that LLVM 21's whole-program build keeps LLVM 19's unsigned
        // index arithmetic (fewer registers live in the loop).
        __builtin_assume(tid >= 0 && tid < S::THREADS);
        const int ty = tid / S::TX, tx = tid % S::TX;
        for (int t = omp_get_team_num(); t < tiles; t += omp_get_num_teams()) {
          const int i0 = (t / per_row) * S::BM, j0 = (t % per_row) * S::BN;
          float acc[RM][S::RN] = {};
          Share<RM, Vec> next;
          next.fetch(n, A, B, i0, j0, 0, tid);
          next.store(As0, Bs0, tid);
#pragma omp barrier
          // Two k-tiles a trip, one in each pair, so that which pair is which
          // is known when the code is compiled (an index computed at run time
          // costs address arithmetic in the multiply-adds). The loads go out
          // before the multiply-adds and are stored after them: ptxas keeps
          // no load below a barrier, and the stores wait on the loads. Past
          // the last k-tile load4 reads nothing and gives zeros, which add
          // nothing.
          for (int k0 = 0; k0 < n; k0 += 2 * S::BK) {
            next.fetch(n, A, B, i0, j0, k0 + S::BK, tid);
            multiply(acc, As0, Bs0, ty, tx);
            next.store(As1, Bs1, tid);  // the pair nobody reads since the last barrier
#pragma omp barrier
            next.fetch(n, A, B, i0, j0, k0 + 2 * S::BK, tid);
            multiply(acc, As1, Bs1, ty, tx);
            next.store(As0, Bs0, tid);
#pragma omp barrier
          }
#pragma omp unroll full
          for (int r = 0; r < RM; ++r)
#pragma omp unroll full
            for (int c = 0; c < S::RN; ++c) {
              const int i = i0 + S::row_of(ty, r), j = j0 + S::col_of(tx, c);
              if (i < n && j < n) C[static_cast<std::size_t>(i) * n + j] = acc[r][c];
            }
        }
      }
    }
  }
  int got;
#pragma omp atomic read
  got = *granted;
  return got == S::THREADS;
}
// END SNIPPET

// Any thread count (the host device, an odd launch): each thread takes whole
// register tiles in turn and parks their sums in C after each k-tile.
template <int RM, Multiply<RM> multiply>
void gemm_any_threads(int n, const float *A, const float *B, float *C) {
  using S = GemmShape<RM>;
  const int per_row = (n + S::BN - 1) / S::BN, tiles = ((n + S::BM - 1) / S::BM) * per_row;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
#pragma omp target teams num_teams(tiles) thread_limit(S::THREADS) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  {
    typename S::TileA As;
    typename S::TileB Bs;
#pragma omp parallel num_threads(S::THREADS)
    {
      const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
      for (int t = omp_get_team_num(); t < tiles; t += omp_get_num_teams()) {
        const int i0 = (t / per_row) * S::BM, j0 = (t % per_row) * S::BN;
        for (int k0 = 0; k0 < n; k0 += S::BK) {
          for (int e = tid; e < S::THREADS; e += nth) {
            Share<RM, false> mine;
            mine.fetch(n, A, B, i0, j0, k0, e);
            mine.store(As, Bs, e);
          }
#pragma omp barrier
          for (int s = tid; s < S::THREADS; s += nth) {
            const int ty = s / S::TX, tx = s % S::TX;
            float part[RM][S::RN] = {};
            multiply(part, As, Bs, ty, tx);
            for (int r = 0; r < RM; ++r)
              for (int c = 0; c < S::RN; ++c) {
                const int i = i0 + S::row_of(ty, r), j = j0 + S::col_of(tx, c);
                if (i < n && j < n) {
                  float &out = C[static_cast<std::size_t>(i) * n + j];
                  out = (k0 == 0 ? 0.f : out) + part[r][c];
                }
              }
          }
#pragma omp barrier
        }
      }
    }
  }
}

template <int RM, Multiply<RM> multiply>
void gemm(int n, const float *A, const float *B, float *C) {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const auto aligned = [](const float *p) { return p != nullptr && reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  // The 16-byte loads read the device's copies, and OpenMP promises nothing
  // about their alignment (nor where in a caller's mapping A starts): map A
  // and B first, then test their device addresses (lesson 11's README,
  // Concepts 3), asked of the runtime with omp_get_mapped_ptr (OpenMP 5.1):
  // a lookup, where a `target data use_device_ptr` region also waits for
  // the device at its end.
#pragma omp target data map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  {
    const int dev = omp_get_default_device();
    const bool vec = n % 4 == 0 && aligned(static_cast<const float *>(omp_get_mapped_ptr(A, dev))) &&
                     aligned(static_cast<const float *>(omp_get_mapped_ptr(B, dev)));
    const bool done = vec ? gemm_exact<RM, multiply, true>(n, A, B, C) : gemm_exact<RM, multiply, false>(n, A, B, C);
    if (!done) gemm_any_threads<RM, multiply>(n, A, B, C);
  }
}

}  // namespace

}  // namespace lesson11
