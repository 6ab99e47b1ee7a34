/// @file lesson04_tiles.hpp
/// @brief Lesson 4 baseline for step 4.2: the 8x8 register tile with its tile
///        loops left rolled, so the tile's arrays are indexed at run time.
#pragma once

// lesson4::lanes and the graded tile shape: the baseline is the lesson's tile.
#include "lesson04_tiles_shared.hpp"

namespace course::baseline {

/// C = A x B (n x n, row-major), one device thread per 8 x 8 tile of C, the
/// tile's sums in `float c[8][8]` as in lesson 4's solution, but without
/// `#pragma omp unroll full`: what the student's kernel is without step 4.2.
/// Same tile shape, column spacing (lesson4::lanes) and edge clamps, so a
/// comparison against it measures only what constant indices buy. Maps A, B
/// to and C from the device (present copies are used as they are).
void matmul_tile8_rolled(int n, const float *A, const float *B, float *C);

}  // namespace course::baseline
