/// @file tools/perf-explore/check.hpp
/// @brief Host-side verification helpers of course_perf_explore: parallel
///        compares that name the first wrong element, and a device-side
///        poison so that an element no variant writes can never pass.
#pragma once

#include <omp.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "perf.hpp"

namespace perf {

/// First index in [0, n) where @p bad(i) holds, or n (parallel on the host).
template <class Bad>
std::size_t first_bad(std::size_t n, Bad bad) {
  std::size_t first = n;
#pragma omp parallel for reduction(min : first) schedule(static)
  for (std::size_t i = 0; i < n; ++i)
    if (i < first && bad(i)) first = i;
  return first;
}

/// got == want exactly (bit patterns, so a NaN poison never passes).
template <class T>
Verdict check_exact(const T *got, const T *want, std::size_t n, const std::string &what) {
  const std::size_t i =
      first_bad(n, [&](std::size_t k) { return std::memcmp(got + k, want + k, sizeof(T)) != 0; });
  if (i == n) return {};
  return {false, what + ": element " + std::to_string(i) + " of " + std::to_string(n) + ": expected " +
                     std::to_string(static_cast<double>(want[i])) + ", got " + std::to_string(static_cast<double>(got[i]))};
}

/// |got - want| <= rtol |want| + atol for every element (NaN fails).
inline Verdict check_close(const float *got, const float *want, std::size_t n, double rtol, double atol,
                           const std::string &what) {
  const std::size_t i = first_bad(n, [&](std::size_t k) {
    const double g = got[k], w = want[k];
    return !(std::fabs(g - w) <= rtol * std::fabs(w) + atol);
  });
  if (i == n) return {};
  return {false, what + ": element " + std::to_string(i) + " of " + std::to_string(n) + ": expected " +
                     std::to_string(want[i]) + ", got " + std::to_string(got[i])};
}

/// Fills the device copy of @p p[0:n] (already mapped) with @p value.
template <class T>
void poison_device(T *p, std::size_t n, T value) {
#pragma omp target teams distribute parallel for map(alloc : p[0:n])
  for (std::size_t i = 0; i < n; ++i) p[i] = value;
}

/// Quiet NaN of float / double, or a sentinel for integers.
template <class T>
T poison_value() {
  if constexpr (std::numeric_limits<T>::has_quiet_NaN)
    return std::numeric_limits<T>::quiet_NaN();
  else
    return static_cast<T>(0x5a5a5a5a);
}

/// The row of one variant from its times and verdict; prints the verdict's
/// message as a note when it failed.
inline Row make_row(Recorder &rec, const std::string &kernel, const std::string &variant, const std::string &size,
                    const Times &t, double work, const std::string &unit, double ceiling, const Verdict &v) {
  Row r{kernel, variant, size, t.median_ms, t.best_ms, 0, unit, 0, v.ok ? "ok" : "WRONG"};
  // work: bytes for GB/s, flops for GFLOP/s; both per millisecond / 1e6.
  r.rate = t.median_ms > 0 ? work / (t.median_ms * 1e6) : 0;
  r.pct = ceiling > 0 ? 100.0 * r.rate / ceiling : 0;
  if (!v.ok) rec.note("WRONG " + kernel + " / " + variant + " / " + size + ": " + v.what);
  rec.add(r);
  return r;
}

}  // namespace perf
