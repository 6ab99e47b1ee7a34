/// @file lesson10_profiling.hpp
/// @brief Lesson 10 baselines: the slow pipeline as the lesson hands it out
///        (a generic-mode normalize, a blur launched once per row, copies
///        inside the step loop), and double-precision references. Fixed code,
///        never the student's.
#pragma once

#include <vector>

// lesson10::coefs_per_row: the baselines read the lesson's coefficients.
#include "lesson10_profiling_shared.hpp"

namespace course::baseline {

/// lesson10::normalize as the starter has it: `target teams distribute` over
/// rows, the row's weight worked out by the team's first thread (with a
/// printf for a zero weight), then `parallel for` over the row. Generic mode
/// on a GPU; on the host device a parallel region forked per row.
void l10_normalize_generic(int rows, int cols, const float *coef, const float *x, float *y);

/// lesson10::blur as the starter has it: one kernel launch per row.
void l10_blur_per_row(int rows, int cols, const float *in, float *out);

/// lesson10::run as the starter has it, calling the two kernels above: every
/// step maps grid and scratch tofrom and coef to the device.
void l10_run_slow(int rows, int cols, int steps, const float *coef, float *grid);

/// normalize() in double (the weight summed in float, as specified).
std::vector<double> l10_normalize_reference(int rows, int cols, const float *coef, const float *x);

/// blur() in double.
std::vector<double> l10_blur_reference(int rows, int cols, const double *in);

/// run() in double: @p steps of normalize then blur, from @p grid.
std::vector<double> l10_run_reference(int rows, int cols, int steps, const float *coef, const float *grid);

}  // namespace course::baseline
