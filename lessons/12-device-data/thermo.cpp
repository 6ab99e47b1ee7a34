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
// TODO(12.1): the kernels below pass these tables to every function they
// call, so every launch maps them again, both ways (look at the OMPT test's
// message, or LIBOMPTARGET_INFO=32). Keep them on the device instead:
//   - put the small tables and the functions a region calls between
//     `#pragma omp begin declare target` and `#pragma omp end declare target`
//     (clang 19 spells the clause form `declare target to(...)`; see README);
//   - the 4 MiB correction table should take device memory only while a
//     region needs it: look up the `link` clause (and what a region that
//     uses a linked table must then do);
//   - let the functions read the tables themselves (no table parameters).
float physics[kPhysicsSize] = {3.3f / 4096.f, 273.15f};
float calibration[kCoefficients] = {-50.f, 100.f, 0.f, 0.f};
float correction[kTableSize];

// Degrees kelvin of one reading: volts, then the polynomial (Horner).
float to_kelvin(int raw, const float *phys, const float *c) {
  const float v = (float)raw * phys[kVoltsPerCount];
  return ((c[3] * v + c[2]) * v + c[1]) * v + c[0] + phys[kZeroCelsius];
}

// The correction for one temperature: its table entry.
float correction_at(float kelvin, const float *table) {
  const float step = (kTableHigh - kTableLow) / (float)kTableSize;
  const int j = std::clamp((int)((kelvin - kTableLow) / step), 0, kTableSize - 1);
  return table[j];
}
// END TODO
// END SNIPPET

void set_calibration(const float *coefficients) {
  std::copy(coefficients, coefficients + kCoefficients, calibration);
  // TODO(12.2): once calibration lives on the device (12.1), the line above
  // changes only the HOST's copy: the device keeps computing with the old
  // polynomial. Copy the new one across (one directive; which direction?).
  // END TODO
}

void load_correction(const float *table) { std::copy(table, table + kTableSize, correction); }

const char *source_file() { return __BASE_FILE__; }

void convert(int n, const int *raw, float *kelvin) {
  // TODO(12.4): a launch and its copies cost tens of microseconds; a few
  // thousand readings take less on the host. Offload only from
  // kOffloadThreshold readings on: look up the `if` clause with the
  // `target` modifier (README: what runs where when it is false).
#pragma omp target teams distribute parallel for map(to : raw[0:n]) map(from : kelvin[0:n])
  // END TODO
  for (int i = 0; i < n; ++i)
    // TODO(12.1): then call the functions without the tables.
    kelvin[i] = to_kelvin(raw[i], physics, calibration);
  // END TODO
}

void apply_correction(int n, float *kelvin) {
  if (n <= 0) return;
  // TODO(12.3): the caller holds kelvin on the device and its host copy may
  // be stale. This map quietly copies the host copy in (and back) when the
  // caller forgot: wrong numbers, no error. Make it fail loudly instead:
  //   - before the region, ask the runtime whether kelvin is on the default
  //     device (look up omp_target_is_present) and throw NotOnDevice with a
  //     message that says what to do;
  //   - on the region, the `present` map modifier: the runtime stops if
  //     kelvin[0:n] is not all there; and nothing needs copying (map type?).
#pragma omp target teams distribute parallel for map(tofrom : kelvin[0:n]) map(to : correction)
  // END TODO
  for (int i = 0; i < n; ++i)
    // TODO(12.1): here too.
    kelvin[i] += correction_at(kelvin[i], correction);
  // END TODO
}

}  // namespace lesson12
