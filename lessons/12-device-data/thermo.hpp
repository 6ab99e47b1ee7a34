/// @file lessons/12-device-data/thermo.hpp
/// @brief Lesson 12 interface: a thermometer array's readings turned into
/// temperatures on the device, driven by three global tables that live in
/// device memory in three different ways (README, concepts 1-3).
///
/// The pipeline, per reading: raw ADC counts -> volts (the physics constants)
/// -> degrees (the calibration polynomial) -> kelvin, then, for data the
/// caller keeps on the device, a fine correction looked up in a large table.
/// The tables are ordinary C++ globals, defined in thermo.cpp; what thermo.cpp
/// says about them decides where the device finds them.
#pragma once

#include <stdexcept>

// kCoefficients (the calibration polynomial's size) and the correction table's
// size and range live in reference/: the double-precision references your
// temperatures are checked against read the tables alike.
#include "../../reference/lesson12_thermo_shared.hpp"

namespace lesson12 {

// The constants below are read by device code too. Clang 19 warns
// (-Wopenmp-target: "declaration is not declared in any declare target
// region") about a constexpr global that device code uses unless it is
// declared target as well, though it folds the value in either way; the
// block silences that (and so does the one in reference/ for the constants it
// holds). The tables after it are yours to place (thermo.cpp).
#pragma omp begin declare target

/// Below this many readings convert() runs on the host, from it on on the
/// device (step 12.4). The lesson's rule, not a measured break-even: on the
/// GPU nodes measured (an H100 and an H200) offloading this kernel paid at
/// no size;
/// the lesson program times both sides of this line on your machine (README,
/// "What was measured").
inline constexpr int kOffloadThreshold = 1 << 16;

/// The physics constants: physics[kVoltsPerCount] volts per ADC count (a
/// 12-bit converter on 3.3 V), physics[kZeroCelsius] kelvin at 0 degrees C.
inline constexpr int kPhysicsSize = 2;
inline constexpr int kVoltsPerCount = 0;  ///< index of volts per ADC count in physics
inline constexpr int kZeroCelsius = 1;    ///< index of kelvin at 0 degrees C in physics

#pragma omp end declare target

/// The tables themselves, defined in thermo.cpp (their sizes: the constants
/// above and kCoefficients, kTableSize in reference/lesson12_thermo_shared.hpp).
extern float physics[kPhysicsSize];
extern float calibration[kCoefficients];  ///< the calibration polynomial's coefficients
extern float correction[kTableSize];      ///< the large correction table

/// Thrown by apply_correction() when the caller did not map the data it
/// must already hold on the device.
struct NotOnDevice : std::logic_error {
  using std::logic_error::logic_error;
};

/// Copies @p coefficients (kCoefficients floats) into the calibration table;
/// the next convert() uses them, wherever it runs (step 12.2).
void set_calibration(const float *coefficients);

/// Copies @p table (kTableSize floats) into the correction table on the host;
/// the next apply_correction() uses it.
void load_correction(const float *table);

/// kelvin[i] = calibration(volts(raw[i])) + physics[kZeroCelsius] for i in
/// [0, @p n): on the offload device from kOffloadThreshold readings on, on
/// the host below (steps 12.1, 12.4). kelvin is output only.
void convert(int n, const int *raw, float *kelvin);

/// kelvin[i] += the correction table's entry for kelvin[i], on the device,
/// for data the CALLER already holds there (a `target data` region around
/// the call): the device copy is the current one, the host copy may be
/// stale, and nothing is copied. Throws NotOnDevice when @p kelvin is not
/// mapped on the default device (step 12.3).
void apply_correction(int n, float *kelvin);

/// The path of the file these functions were compiled from (thermo.cpp, its
/// `__BASE_FILE__`): the tests ask the compiler how that very file declares
/// its tables and its regions (README, steps 12.1, 12.3, 12.4).
const char *source_file();

}  // namespace lesson12
