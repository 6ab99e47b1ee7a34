/// @file lessons/11-matching-the-vendor/gravity.hpp
/// @brief Lesson 11 interface, step 11.3 (gravity.cpp): one N-body step
///        (lesson 7's gravity) in the shape of the classic tiled CUDA
///        kernel, taken past that kernel.
///
/// Unlike the sum and the histogram, this kernel does 20 flops for every 16
/// bytes it reads from team-local memory: its ceiling is the arithmetic, and
/// what keeps it below is how many instructions each interaction costs
/// besides its flops (README, Concepts 6 and 7).
#pragma once

#include <cstddef>

// The types, constants and team kernels this interface builds on live in
// reference/: the baselines your code is timed against run the same kernels.
#include "../../reference/lesson11_gravity_shared.hpp"

namespace lesson11 {

/// One step for bodies [0, n): a_i = sum over all j of the pull of j on i,
/// then v_i += a_i dt, x_i += v_i dt (the new v_i), written to @p out.
/// The arrays may already be on the device (a caller's `target data`).
void nbody_step(Bodies in, Moved out, int n, Launch launch = {});

/// The path of the file nbody_step() was compiled from (gravity.cpp, or a
/// step's or a mistake's copy of it).
const char *gravity_source_file();

/// For the tests: adds the pull of tile[q0:q1) on the first bodies_per_thread
/// bodies at @p xyz (x, y, z each) to their accelerations @p acc (ax, ay, az
/// each) by one call of tile_forces, on the host, and returns
/// bodies_per_thread. Room for tile_bodies bodies is always enough (team_step
/// asserts that bodies_per_thread divides it).
int tile_forces_once(const Body4 *tile, int q0, int q1, const float *xyz, float *acc);

}  // namespace lesson11
