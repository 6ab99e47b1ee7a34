/// @file reference/lesson02_offload_shared.hpp
/// @brief What lesson 2's kernels and its fixed baselines share: the heat
///        scheme's coefficient. lessons/02-target-offload/offload.hpp includes
///        it, so a student sees it as lesson2::heat_alpha; reference/ keeps it
///        so that its baselines step the same grid without reaching into the
///        lesson (reference/ never includes lessons/).
// A guard, not #pragma once: the lesson's header reaches this file by its path,
// reference/ by name, and one program may include both.
#ifndef COURSE_REFERENCE_LESSON02_OFFLOAD_SHARED_HPP
#define COURSE_REFERENCE_LESSON02_OFFLOAD_SHARED_HPP

namespace lesson2 {

/// The heat-diffusion coefficient alpha * dt / dx^2 (stable up to 0.25).
inline constexpr float heat_alpha = 0.2f;

}  // namespace lesson2

#endif  // COURSE_REFERENCE_LESSON02_OFFLOAD_SHARED_HPP
