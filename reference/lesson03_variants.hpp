/// @file lesson03_variants.hpp
/// @brief The fixed variants lesson03 measures beside yours, one idea each:
///        simd alone, simd with an alignment promise, float without simd, and
///        table lookups (gathers) against computing the value. They live here,
///        not in lessons/03-simd, because the "simd" variants are answers to
///        steps 3.1-3.3: try the lesson before reading them.
#pragma once

#include <cmath>
#include <cstdint>

namespace lesson3::variants {

/// sqrt(sum x^2) with `simd`: the reordered float sum in vector lanes.
inline float norm_simd(int n, const float *x) {
  float sum = 0;
#pragma omp target teams distribute parallel for simd reduction(+ : sum) map(to : x[0:n])
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  return std::sqrt(sum);
}

// SNIPPET(aligned)
/// norm_simd plus aligned(x : 16). The promise is about the address the
/// device sees, not the host array: the host-offload device copies mapped
/// arrays into memory aligned to 16 bytes only (measured; CUDA gives 256), so
/// 16 is the most that is true everywhere this course runs.
inline float norm_simd_aligned(int n, const float *x) {
  float sum = 0;
#pragma omp target teams distribute parallel for simd reduction(+ : sum) aligned(x : 16) map(to : x[0:n])
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  return std::sqrt(sum);
}
// END SNIPPET

#pragma omp declare target
#pragma omp declare simd notinbranch
/// The lesson's small function in float: x / sqrt(1 + x^2).
inline float soft_clip(float x) { return x / std::sqrt(1.0f + x * x); }
#pragma omp end declare target

/// Float soft clip without `simd`: what the compiler vectorizes on its own.
inline void soft_clip_float(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; ++i) y[i] = soft_clip(x[i]);
}

/// Float soft clip with `simd`.
inline void soft_clip_simd(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for simd map(to : x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; ++i) y[i] = soft_clip(x[i]);
}

/// Float soft clip with `simd` and aligned(x, y : 16) (see norm_simd_aligned).
inline void soft_clip_simd_aligned(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for simd aligned(x, y : 16) map(to : x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; ++i) y[i] = soft_clip(x[i]);
}

/// The value an 8-bit sample s stands for: (s - 128) / 32, in [-4, 4).
#pragma omp declare target
#pragma omp declare simd notinbranch
inline float sample_value(int s) { return static_cast<float>(s - 128) * (1.0f / 32); }
#pragma omp end declare target

/// y[i] = table[s[i]]: soft clip of 8-bit samples by a 256-entry lookup table.
/// Each lane loads from its own address (a gather); T is the sample type, so
/// the same gather is done with 1-byte and with 4-byte indices.
template <class T>
void soft_clip_table(int n, const T *s, const float *table, float *y) {
#pragma omp target teams distribute parallel for simd map(to : s[0:n], table[0:256]) map(from : y[0:n])
  for (int i = 0; i < n; ++i) y[i] = table[s[i]];
}

/// y[i] = soft_clip(value of s[i]): the same result computed, no gather.
template <class T>
void soft_clip_computed(int n, const T *s, float *y) {
#pragma omp target teams distribute parallel for simd map(to : s[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; ++i) y[i] = soft_clip(sample_value(s[i]));
}

}  // namespace lesson3::variants
