/// @file reference/lesson09_async_shared.hpp
/// @brief What lesson 9's jobs and its fixed baselines share: the arithmetic of
///        one element, exp by its series. lessons/09-async-and-devices/async.hpp
///        includes it, so a student sees lesson9::exp_series; reference/ keeps
///        it so that the synchronous baselines (lesson09_async.cpp) do the same
///        work per element without reaching into the lesson (reference/ never
///        includes lessons/).
// A guard, not #pragma once: the lesson's header reaches this file by its path,
// reference/ by name, and one program may include both.
#ifndef COURSE_REFERENCE_LESSON09_ASYNC_SHARED_HPP
#define COURSE_REFERENCE_LESSON09_ASYNC_SHARED_HPP

namespace lesson9 {

#pragma omp declare target
/// exp(@p x) from its Taylor series 1 + x + x^2/2! + ... + x^terms/terms!,
/// summed in Horner form (one division and one multiply-add per term). More
/// terms give the same answer for |x| <= 1 and cost more: @p terms is the
/// lesson's knob for "how much arithmetic per element", so the same job can be
/// copy-bound (16 terms) or compute-bound (thousands).
inline float exp_series(float x, int terms) {
  float p = 1.f;
  for (int k = terms; k >= 1; --k) p = 1.f + x / (float)k * p;
  return p;
}
#pragma omp end declare target

}  // namespace lesson9

#endif  // COURSE_REFERENCE_LESSON09_ASYNC_SHARED_HPP
