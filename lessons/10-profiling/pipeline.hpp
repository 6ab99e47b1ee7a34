/// @file pipeline.hpp
/// @brief Lesson 10's program to profile: a small image pipeline (a row
///        normalisation and a row blur, repeated for a number of steps) that
///        gives the right answer slowly. The lesson is finding why with the
///        runtime's own tools, then fixing it; see README.md.
///
/// All grids are row-major, @p rows x @p cols floats. Each function maps what
/// it reads `to` and what it writes `from` the device, so called inside a
/// caller's `target data` region it finds its arrays present and copies
/// nothing.
#pragma once

// coefs_per_row, how many coefficients each row owns, lives in reference/:
// the slow pipeline your fixes are timed against reads them alike.
#include "../../reference/lesson10_profiling_shared.hpp"

namespace lesson10 {

/// y[r][c] = x[r][c] / w(r), where w(r) is the sum of the row's 8
/// coefficients, added in order k = 0..7 in float. A row whose weight is
/// exactly 0 is copied unscaled (w = 1), and a warning is printed.
void normalize(int rows, int cols, const float *coef, const float *x, float *y);

/// out[r][c] = (in[r][c-1] + in[r][c] + in[r][c+1]) / 3 along each row, the
/// edge element repeated past both ends (c-1 and c+1 clamped to the row).
void blur(int rows, int cols, const float *in, float *out);

/// @p steps times: normalize(grid -> scratch), then blur(scratch -> grid).
/// @p grid is the input and the result.
void run(int rows, int cols, int steps, const float *coef, float *grid);

/// The relative error norm (course::check_close) allowed after @p steps steps
/// of run() against the double reference (one normalize() or blur() alone:
/// tolerance(1)), in the tests and the lesson program alike. Division and a
/// 3-point average are correctly rounded or nearly so: a few float ulps per
/// step, so 1e-5 relative per step catches any wrong element (the blur mixes
/// neighbours: a wrong one moves the norm far more).
inline constexpr double tolerance(int steps) { return 1e-5 * (steps + 1); }

/// The path of the file these functions were compiled from (its `__FILE__`):
/// the tests ask the compiler about that very file (README, "compiler remarks").
const char *source_file();

}  // namespace lesson10
