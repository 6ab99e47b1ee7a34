/// @file lessons/04-register-tiles/matmul.hpp
/// @brief Lesson 4 interface: an offloaded matmul in which every device thread
///        computes a TM x TN block of C whose accumulators live in registers.
#pragma once

// lanes (how far apart a thread's columns are) and the graded tile shape
// (graded_tm x graded_tn) live in reference/: the fixed baseline the speedup
// test measures your kernel against uses the same tile.
#include "../../reference/lesson04_tiles_shared.hpp"

namespace lesson4 {

/// C = A x B for @p n x @p n row-major float matrices, offloaded, with each
/// device thread computing a @p TM x @p TN block ("register tile") of C.
///
/// Thread (ti, tj) owns rows ti*TM ... ti*TM + TM - 1 and TN columns spaced
/// lesson4::lanes apart. Element (i, j) of a matrix M is M[i * n + j].
/// The tile shape is a compile-time constant so that every loop over the tile
/// can be fully unrolled and the tile's arrays become registers.
///
/// Maps A and B to and C from the device; when the caller already holds them in
/// a `target data` region the maps find them present and only the kernel runs.
/// C is output only (the tests fill it with NaN first). Correct for every
/// n >= 1, including sizes that are not multiples of the tile.
template <int TM, int TN>
void matmul_tiled(int n, const float *A, const float *B, float *C);

// The shapes the lesson program sweeps, instantiated in matmul.cpp.
/// 1x1: one element per thread, lesson 2's naive kernel again (2 loads per multiply-add).
extern template void matmul_tiled<1, 1>(int, const float *, const float *, float *);
/// 2x2: 4 sums per thread, 1 load per multiply-add.
extern template void matmul_tiled<2, 2>(int, const float *, const float *, float *);
/// 4x4: 16 sums, 0.5 loads per multiply-add.
extern template void matmul_tiled<4, 4>(int, const float *, const float *, float *);
/// 8x8: 64 sums, 0.25 loads per multiply-add; the shape the speedup test grades.
extern template void matmul_tiled<8, 8>(int, const float *, const float *, float *);
/// 16x32: the Intel GFX article's ctile, 512 sums (2 KB): more than an NVIDIA thread's 255 registers.
extern template void matmul_tiled<16, 32>(int, const float *, const float *, float *);

/// For the tests: the tile of one device thread at rows @p i0 ... and columns
/// @p j0, @p j0 + lanes, ..., computed on the host by the same register_tile()
/// the kernel inlines (the interior or the Edge copy, chosen as the kernel
/// chooses), so a test can watch what one tile reads and writes. Instantiated
/// for 8x8 and 16x32 in tiles.inc.
template <int TM, int TN>
void one_tile(int n, int i0, int j0, const float *A, const float *B, float *C);
/// The 8x8 tile, for the tests.
extern template void one_tile<8, 8>(int, int, int, const float *, const float *, float *);
/// The 16x32 tile, for the tests.
extern template void one_tile<16, 32>(int, int, int, const float *, const float *, float *);

/// The source file register_tile() was compiled from (`__BASE_FILE__`: your
/// matmul.cpp, or the copy a build made of it), for a test that compiles it again.
const char *source_file();
/// tiles.inc's own path (`__FILE__`): its folder holds matmul.hpp and tiles.inc.
const char *given_file();

}  // namespace lesson4
