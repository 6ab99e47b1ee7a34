/// @file lesson12_thermo.hpp
/// @brief Lesson 12's references, in double, for its lesson program and its
///        tests: the temperature of each reading, a correction table and the
///        corrected temperatures. Never the student's code.
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

// The tables' sizes and the correction table's range, as thermo.hpp has them.
#include "lesson12_thermo_shared.hpp"

namespace course::lesson12_ref {

/// A calibration polynomial of its own, for the recalibration checks: the
/// default one (-50 + 100 v) with another slope and a small curvature.
inline const float kOtherCalibration[lesson12::kCoefficients] = {-45.f, 95.f, 1.5f, -0.25f};

/// The default calibration (what thermo.cpp starts with).
inline const float kDefaultCalibration[lesson12::kCoefficients] = {-50.f, 100.f, 0.f, 0.f};

/// Kelvin at 0 degrees C, as thermo.cpp's physics table starts.
inline constexpr float kZeroCelsius = 273.15f;

/// Kelvin of each reading with the calibration @p c, in double; @p zero is
/// the physics table's kelvin at 0 degrees C (a test changes it on the
/// device only, to see which copy a kernel read).
inline std::vector<double> kelvin(const std::vector<int> &raw, const float *c, float zero = kZeroCelsius) {
  std::vector<double> out(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const double v = raw[i] * (double)(3.3f / 4096.f);
    out[i] = ((c[3] * v + c[2]) * v + c[1]) * v + c[0] + (double)zero;
  }
  return out;
}

/// A smooth correction table (a few hundredths of a kelvin): neighbouring
/// entries differ by under 1e-6 K, so a reading that rounds to the next
/// entry on the device stays within any tolerance. @p salt changes its phase.
inline std::vector<float> correction_table(int salt = 0) {
  std::vector<float> t(lesson12::kTableSize);
  for (int j = 0; j < lesson12::kTableSize; ++j)
    t[j] = (float)(0.05 * std::sin(2 * std::numbers::pi * (3.0 * j / lesson12::kTableSize) + salt));
  return t;
}

/// @p kelvin plus its entry of @p table, the entry found as thermo.hpp says.
inline std::vector<double> corrected(const std::vector<float> &kelvin, const std::vector<float> &table) {
  const double step = (lesson12::kTableHigh - lesson12::kTableLow) / (double)lesson12::kTableSize;
  std::vector<double> out(kelvin.size());
  for (std::size_t i = 0; i < kelvin.size(); ++i) {
    const int j = std::clamp((int)std::floor((kelvin[i] - lesson12::kTableLow) / step), 0, lesson12::kTableSize - 1);
    out[i] = kelvin[i] + (double)table[j];
  }
  return out;
}

}  // namespace course::lesson12_ref
