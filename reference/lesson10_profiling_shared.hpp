/// @file reference/lesson10_profiling_shared.hpp
/// @brief What lesson 10's pipeline and its fixed baselines share: how many
///        coefficients a row owns. lessons/10-profiling/pipeline.hpp includes
///        it, so a student sees lesson10::coefs_per_row; reference/ keeps it so
///        that the slow pipeline and the references (lesson10_profiling.cpp)
///        read the coefficients alike without reaching into the lesson
///        (reference/ never includes lessons/).
// A guard, not #pragma once: the lesson's header reaches this file by its path,
// reference/ by name, and one program may include both.
#ifndef COURSE_REFERENCE_LESSON10_PROFILING_SHARED_HPP
#define COURSE_REFERENCE_LESSON10_PROFILING_SHARED_HPP

namespace lesson10 {

/// Coefficients per row of normalize(): row r owns coef[8 r .. 8 r + 7].
inline constexpr int coefs_per_row = 8;

}  // namespace lesson10

#endif  // COURSE_REFERENCE_LESSON10_PROFILING_SHARED_HPP
