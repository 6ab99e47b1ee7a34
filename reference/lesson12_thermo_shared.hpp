/// @file reference/lesson12_thermo_shared.hpp
/// @brief What lesson 12's conversion and its references share: the size of
///        the calibration polynomial and the correction table's size and
///        range. lessons/12-device-data/thermo.hpp includes it, so a student
///        sees lesson12::kCoefficients and lesson12::kTableSize; reference/
///        keeps it so that the references (lesson12_thermo.hpp) read the same
///        tables without reaching into the lesson (reference/ never includes
///        lessons/).
// A guard, not #pragma once: the lesson's header reaches this file by its path,
// reference/ by name, and one program may include both.
#ifndef COURSE_REFERENCE_LESSON12_THERMO_SHARED_HPP
#define COURSE_REFERENCE_LESSON12_THERMO_SHARED_HPP

namespace lesson12 {

// Device code reads these too: declared target, as thermo.hpp explains for
// its own constants (clang 19's -Wopenmp-target warning otherwise).
#pragma omp begin declare target

/// The calibration polynomial, degrees C from volts: c0 + c1 v + c2 v^2 + c3 v^3.
/// Its host copy changes only through set_calibration().
inline constexpr int kCoefficients = 4;

/// The large correction table: correction[j] is added to a temperature in
/// [kTableLow + j * step, kTableLow + (j + 1) * step), step = (kTableHigh -
/// kTableLow) / kTableSize; temperatures outside use the first or last
/// entry. 4 MiB: the device holds it only while a region maps it.
inline constexpr int kTableSize = 1 << 20;
inline constexpr float kTableLow = 200.f;   ///< the table's lowest temperature (K)
inline constexpr float kTableHigh = 400.f;  ///< the end of the table's range (K)

#pragma omp end declare target

}  // namespace lesson12

#endif  // COURSE_REFERENCE_LESSON12_THERMO_SHARED_HPP
