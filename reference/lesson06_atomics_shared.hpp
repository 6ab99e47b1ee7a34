/// @file reference/lesson06_atomics_shared.hpp
/// @brief What lesson 6's histograms and its fixed baselines share: the number
///        of bins and the bin of a value. lessons/06-atomic-reductions/atomics.hpp
///        includes it, so a student sees lesson6::hist_bins and lesson6::bin_of;
///        reference/ keeps it so that every histogram, yours and the
///        baselines', bins alike without reaching into the lesson (reference/
///        never includes lessons/).
// A guard, not #pragma once: the lesson's header reaches this file by its path,
// reference/ by name, and one program may include both.
#ifndef COURSE_REFERENCE_LESSON06_ATOMICS_SHARED_HPP
#define COURSE_REFERENCE_LESSON06_ATOMICS_SHARED_HPP

namespace lesson6 {

/// Bins of every histogram in this lesson. A compile-time constant because
/// `reduction(+ : hist[0:bins])` needs one on a GPU (see README).
inline constexpr int hist_bins = 256;

/// The bin of a value in [0, 1): floor(256 x). x * 256 is exact in float, so
/// every implementation that uses this function agrees on every value. Values
/// outside [0, 1) land in the first or last bin.
inline int bin_of(float x) {
  const int b = static_cast<int>(x * static_cast<float>(hist_bins));
  return b < 0 ? 0 : (b >= hist_bins ? hist_bins - 1 : b);
}

}  // namespace lesson6

#endif  // COURSE_REFERENCE_LESSON06_ATOMICS_SHARED_HPP
