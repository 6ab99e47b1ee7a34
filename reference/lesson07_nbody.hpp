/// @file lesson07_nbody.hpp
/// @brief Lesson 7 baselines: the article's array-of-structures N-body step
///        (the speedup baseline), the extra layouts the lesson program
///        compares, seeded initial bodies and the double-precision reference.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

// The Body type, the constants, bodybody_interaction() and the article's AoS
// step, which the lesson's interface header includes too: baselines and
// student code run the same arithmetic.
#include "lesson07_nbody_shared.hpp"

namespace course::baseline {

/// @p n bodies from @p seed: positions uniform in [-1, 1]^3, velocities
/// uniform in [-0.02, 0.02]^3, masses uniform in [0.5, 1.5] / n (total about
/// 1), pad 0. Tests and the lesson program share it.
std::vector<lesson7::Body> nbody_initial(int n, std::uint64_t seed);

/// A simulation state in double precision, three values per body:
/// pos[3 * i + axis] and vel[3 * i + axis] (axis 0, 1, 2 = x, y, z).
struct NBodyState {
  std::vector<double> pos;  ///< positions, interleaved x, y, z
  std::vector<double> vel;  ///< velocities, interleaved x, y, z
};

/// The double-precision reference: @p steps steps of lesson7::simulate()'s
/// physics from @p initial, every quantity in double, exact square root.
NBodyState nbody_reference(std::span<const lesson7::Body> initial, int steps);

/// One step of the double-precision reference for the bodies listed in
/// @p which only (entry k of the result is body which[k]): O(n) per body, so
/// the lesson program can check large runs cheaply.
NBodyState nbody_reference_one_step(std::span<const lesson7::Body> initial, std::span<const int> which);

/// The speedup baseline: the article's layout (an array of Body), one
/// `target teams distribute parallel for` over bodies, the inner loop over
/// all bodies as plain code (lesson7::step_aos, the step the starter runs).
/// Double-buffered like lesson7::simulate().
void nbody_simulate_aos(std::span<lesson7::Body> bodies, int steps);

/// The same AoS kernel with `omp simd reduction` on the inner loop: what
/// vectorizing buys without changing the layout (lesson 7's extra variant).
void nbody_simulate_aos_simd(std::span<lesson7::Body> bodies, int steps);

/// Structure of arrays without `omp simd`: what the layout buys without
/// asking for vectors (lesson 7's extra variant).
void nbody_simulate_soa_plain(std::span<lesson7::Body> bodies, int steps);

/// Positions and masses packed as 16-byte float4 records (the CUDA sample's
/// layout), velocities as separate arrays, `omp simd` on the inner loop: on a
/// GPU every thread of a warp reads the same body j, so one 16-byte load can
/// replace four 4-byte ones (lesson 7's extra variant).
void nbody_simulate_packed(std::span<lesson7::Body> bodies, int steps);

}  // namespace course::baseline
