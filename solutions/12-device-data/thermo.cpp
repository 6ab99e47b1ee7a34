// Lesson 12 -- data that lives on the device: global tables and the
// functions that read them, kept current and checked. Four steps, each a
// marked block below:
//   12.1 tables:     `declare target` for globals (a small table always there,
//                    a large one `link`ed: mapped only when a region needs it)
//                    and for the functions a region calls
//   12.2 recalibrate: `target update to(...)` after the host changes a global
//   12.3 correction: data the caller must have mapped: `omp_target_is_present`,
//                    the `present` map modifier: fail loudly, never on stale data
//   12.4 convert:    `if(target : ...)`: offload only from kOffloadThreshold on
// Run `ctest --preset student -L lesson12` from the repository root after
// each step (it rebuilds your code first); see README.md for hints.
#include <omp.h>

#include <algorithm>
#include <string>

#include "thermo.hpp"

namespace lesson12 {

// SNIPPET(tables-declared)
// SOLUTION(12.1): the small tables and the functions that read them are
// declared on the device in one block: each device gets its own copy of the
// tables when the program's device code is loaded, and the functions can be
// called from any region (also from another file's). The large table is
// `link`: the device holds only a reference to it, filled in while a region
// (or a `target data`) maps the table; without such a map it is not there.
#pragma omp begin declare target
float physics[kPhysicsSize] = {3.3f / 4096.f, 273.15f};
float calibration[kCoefficients] = {-50.f, 100.f, 0.f, 0.f};

// Degrees kelvin of one reading: volts, then the polynomial (Horner).
float to_kelvin(int raw) {
  const float v = (float)raw * physics[kVoltsPerCount];
  const float *c = calibration;
  return ((c[3] * v + c[2]) * v + c[1]) * v + c[0] + physics[kZeroCelsius];
}
#pragma omp end declare target
// END SNIPPET

// SNIPPET(table-linked)
float correction[kTableSize];
#pragma omp declare target link(correction)

#pragma omp begin declare target
// The correction for one temperature: its table entry.
float correction_at(float kelvin) {
  const float step = (kTableHigh - kTableLow) / (float)kTableSize;
  const int j = std::clamp((int)((kelvin - kTableLow) / step), 0, kTableSize - 1);
  return correction[j];
}
#pragma omp end declare target
// END SOLUTION
// END SNIPPET

void set_calibration(const float *coefficients) {
  std::copy(coefficients, coefficients + kCoefficients, calibration);
  // SOLUTION(12.2): the device's copy of a declare-target global is its own:
  // the host's assignment above changed only the host's. Copy it across.
#pragma omp target update to(calibration)
  // END SOLUTION
}

void load_correction(const float *table) { std::copy(table, table + kTableSize, correction); }

const char *source_file() { return __BASE_FILE__; }

void convert(int n, const int *raw, float *kelvin) {
  // SOLUTION(12.4): offload only from kOffloadThreshold readings on; below
  // it the region runs on the host, as plain code: no launch, no copies.
#pragma omp target teams distribute parallel for if (target : n >= kOffloadThreshold) map(to : raw[0:n]) \
    map(from : kelvin[0:n])
  // END SOLUTION
  for (int i = 0; i < n; ++i)
    // SOLUTION(12.1): the functions read the tables the device holds.
    kelvin[i] = to_kelvin(raw[i]);
  // END SOLUTION
}

void apply_correction(int n, float *kelvin) {
  if (n <= 0) return;
  // SOLUTION(12.3): first a check that says what is wrong, then `present` on
  // the map: the runtime stops the program rather than copy the (stale) host
  // array in if even part of kelvin[0:n] is not on the device. The correction
  // table is `link`: this region maps it, once, host to device.
  const int device = omp_get_default_device();
  if (!omp_target_is_present(kelvin, device))
    throw NotOnDevice("apply_correction: kelvin (" + std::to_string(n) + " floats) is not mapped on device " +
                      std::to_string(device) +
                      ": map it (`target data`) before the call; its host copy may be stale");
#pragma omp target teams distribute parallel for map(present, alloc : kelvin[0:n]) map(to : correction)
  // END SOLUTION
  for (int i = 0; i < n; ++i)
    // SOLUTION(12.1): the function reads the linked table the region mapped.
    kelvin[i] += correction_at(kelvin[i]);
  // END SOLUTION
}

}  // namespace lesson12
