/// @file lessons/11-the-last-third/gemm.hpp
/// @brief Lesson 11 interface, step 11.4: SGEMM, C = A x B, in lesson 5's
///        final kernel with a taller register tile: the shape cuBLAS's own
///        kernel has on an H100 (README, Concepts 8).
///
/// Lesson 5's kernel gives each of a team's 16 x 16 threads an 8 x 8 block of
/// C: per k it reads 4 Vec4 (16 bytes each) from team-local memory for 64
/// multiply-adds. With 16 x 8 blocks a thread reads 6 Vec4 for 128: a quarter
/// fewer team-local loads per multiply-add (6/128 against 4/64), in a 256 x
/// 128 team tile.
#pragma once

#include <omp.h>

namespace lesson11 {

#pragma omp begin declare target

/// Four floats that travel together (one 16-byte load or store).
struct alignas(16) Vec4 {
  float v[4];  ///< the four floats, in memory order
};

/// The tiles of the SGEMM kernel for a register tile of @p RM x 8: a team of
/// 16 x 16 threads computes a (16 RM) x 128 tile of C from 16-deep tiles of A
/// and B in team-local memory; thread (ty, tx) owns rows row_of(ty, r) and
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
  static constexpr int BK = 16;                          ///< depth of the A and B tiles
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

/// C = A x B for n x n row-major matrices (n >= 1), with the register tile of
/// step 11.4 (last_third.cpp). A, B and C may already be on the device (a
/// caller's `target data`); C is output only.
void matmul(int n, const float *A, const float *B, float *C);

/// The same kernel with lesson 5's 8 x 8 register tile (128 x 128 team
/// tiles): the speed test's fixed baseline (given, gemm.inc).
void plain_matmul(int n, const float *A, const float *B, float *C);

/// Rows of C per thread in matmul() (step 11.4's gemm_rows_per_thread): the
/// tests name a wrong entry of C by its row and column in a thread's block.
int matmul_rows_per_thread();

}  // namespace lesson11
