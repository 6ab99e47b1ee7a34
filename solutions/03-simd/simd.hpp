/// @file lessons/03-simd/simd.hpp
/// @brief Lesson 3 interface: a float reduction and an elementwise kernel that
///        calls a small function, both run on the offload device.
#pragma once

namespace lesson3 {

/// The Euclidean norm sqrt(x[0]^2 + ... + x[n-1]^2) of @p n floats, summed in
/// float on the default device.
///
/// @p x is a host pointer; map it to the device (the tests and the lesson
/// program may already hold it in a `target data` region, so the map then
/// finds it present and copies nothing). The additions may happen in any
/// order. Must be correct for every n >= 1.
float norm(int n, const float *x);

/// y[i] = x[i] / sqrt(1 + x[i]^2) for i < @p n, on the default device: a
/// smooth limiter that maps any x into (-1, 1).
///
/// @p x and @p y are host pointers to arrays that do not overlap; y is output
/// only (the tests fill it with NaN first). Must be correct for every n >= 1.
void soft_clip_all(int n, const float *x, float *y);

}  // namespace lesson3
