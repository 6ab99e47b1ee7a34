/// @file lessons/11-matching-the-vendor/streaming.hpp
/// @brief Lesson 11 interface, steps 11.1 and 11.2 (streaming.cpp): a sum (of
///        floats, ints or doubles) and a 256-bin histogram that stream their
///        input once, in the shape lesson 6 left them, taken to CUB's level.
///
/// Both kernels read every byte once and do almost no arithmetic, so the
/// copy's bandwidth is their ceiling. What keeps them below it is how many
/// bytes each thread has on the way from memory at a time: the lesson's two
/// steps raise that number (README, Concepts).
#pragma once

#include <cstddef>

// The types, constants and team kernels this interface builds on live in
// reference/: the baselines your code is timed against run the same kernels.
#include "../../reference/lesson11_streaming_shared.hpp"

namespace lesson11 {

/// Sum of x[0..n), n < 2^31. Tests allow 4 sqrt(n) 2^-24 relative error for
/// floats, 4 sqrt(n) 2^-53 for doubles; ints are exact (the sum must fit an
/// int). x may already be on the device (a caller's `target data` region),
/// and its device address need not be a multiple of 16.
float sum(const float *x, std::size_t n, Launch launch = {});

/// Sum of the ints x[0..n), exact; the sum must fit an int (as the float sum).
int sum(const int *x, std::size_t n, Launch launch = {});

/// Sum of the doubles x[0..n), 4 sqrt(n) 2^-53 relative error (as the float sum).
double sum(const double *x, std::size_t n, Launch launch = {});

/// Histogram of x[0..n) into hist[0..hist_bins), n < 2^31. hist is output
/// only. x may already be on the device; its address need not be aligned.
void histogram(const float *x, std::size_t n, int *hist, Launch launch = {});

/// The path of the file sum() and histogram() were compiled from
/// (streaming.cpp, or a step's or a mistake's copy of it).
const char *streaming_source_file();

}  // namespace lesson11
