/// @file lessons/07-soa-vs-aos/nbody.hpp
/// @brief Lesson 7 interface: an all-pairs N-body step on particles stored as
///        an array of structures (Body, the article's layout) or as a
///        structure of arrays (Particles, the layout you move to).
///
/// The physics follows the C++ AMP N-body sample: every body is pulled by
/// every other body (softened gravity), then its velocity and position are
/// advanced by one time step (symplectic Euler: velocity first, then the
/// position with the new velocity). The sample used one PARTICLE_MASS for all
/// bodies; here the mass sits in the fourth float of the position, as in
/// NVIDIA's CUDA N-body sample, so total momentum is a real check.
#pragma once

#include <cstddef>
#include <span>

#include "course/data.hpp"

// Body (the article's layout), the physics' constants (softening_squared,
// delta_time), bodybody_interaction() and the article's step on Body
// (step_aos) live in reference/: the baselines your simulation is timed and
// checked against run the same arithmetic on the same type.
#include "../../reference/lesson07_nbody_shared.hpp"

namespace lesson7 {

/// Floating-point operations counted per body-body interaction: the CUDA
/// samples' convention, used for every GFLOP/s figure in this lesson.
inline constexpr double flops_per_interaction = 20.0;

/// The relative error norms (course::check_close) that float positions and
/// velocities after a few steps may have against the double reference, in
/// the tests and the lesson program alike. Each acceleration is a sum of n
/// float terms (on a GPU each with an approximate inverse square root,
/// relative error < 2^-22). Measured on the host: at most 5e-8 relative for
/// positions and 2.5e-7 for velocities (n = 2 to 4096, 3 or 4 steps). They
/// leave 20x room for other devices and summation orders, and still catch a
/// step that reads half-updated positions (velocity error 8e-5 to 1e-3), a
/// skipped body (2e-4 and more), m_i used for m_j (0.04 and more) or
/// positions moved with the old velocity (position error 1.5e-5).
inline constexpr double position_tolerance = 1e-6;
/// See position_tolerance.
inline constexpr double velocity_tolerance = 5e-6;

// SNIPPET(particles)
/// The same bodies as a structure of arrays, one array per field of Body:
/// element i of every array belongs to body i, and each array is contiguous
/// and 64-byte aligned.
struct Particles {
  course::aligned_vector<float> x;   ///< positions, x
  course::aligned_vector<float> y;   ///< positions, y
  course::aligned_vector<float> z;   ///< positions, z
  course::aligned_vector<float> m;   ///< masses
  course::aligned_vector<float> vx;  ///< velocities, x
  course::aligned_vector<float> vy;  ///< velocities, y
  course::aligned_vector<float> vz;  ///< velocities, z

  Particles() = default;
  /// Seven arrays of @p n zeros.
  explicit Particles(std::size_t n) { resize(n); }
  /// Resizes every array to @p n elements (new elements are 0).
  void resize(std::size_t n) {
    for (auto *a : {&x, &y, &z, &m, &vx, &vy, &vz}) a->resize(n);
  }
  /// Number of bodies.
  std::size_t size() const { return x.size(); }
};
// END SNIPPET

// SNIPPET(state)
/// One state of the simulation as a step sees it: where the positions and
/// velocities of @ref n bodies are (the masses never change and stay apart).
/// A State holds no floats, only six pointers and a count: mapping it copies
/// those bytes, not the arrays they point to, unless a mapper for State
/// (nbody.cpp, step 7.4) says which arrays belong to it.
struct State {
  float *x;   ///< positions, x
  float *y;   ///< positions, y
  float *z;   ///< positions, z
  float *vx;  ///< velocities, x
  float *vy;  ///< velocities, y
  float *vz;  ///< velocities, z
  int n;      ///< number of bodies: the length of each of the six arrays
};
// END SNIPPET

/// Copies every body into the structure of arrays: p.x[i] = bodies[i].x and
/// so on for all seven fields. Resizes @p p to bodies.size() first, and
/// overwrites every element (the tests fill @p p with NaN beforehand).
void to_soa(std::span<const Body> bodies, Particles &p);

/// The reverse of to_soa(): writes all eight fields of bodies[i] from element
/// i of @p p, with @c pad = 0. @p bodies must have p.size() elements.
void to_aos(const Particles &p, std::span<Body> bodies);

/// Advances @p bodies by @p steps steps on the offload device (steps = 0
/// leaves them unchanged). Each step reads only the previous step's state
/// (double buffering): for every body i,
///   a_i  = sum over all j of bodybody_interaction(body i, body j)
///   v_i += a_i * delta_time;  x_i += v_i * delta_time   (the new v_i)
/// Masses and @c pad stay as they are (pad may be written as 0).
void simulate(std::span<Body> bodies, int steps);

/// The same simulation with the inner loop tiled through team-local memory
/// (optional stretch, step 7.6). Must give the same result as simulate().
void simulate_tiled(std::span<Body> bodies, int steps);

/// For the tests (given, probes.inc): maps @p s through nbody.cpp's mapper
/// `state` alone and returns which of its arrays reached the device: bit k
/// when array k of x, y, z, vx, vy, vz is there whole (s.n elements), bit
/// 8 + k when its first element is. Leaves nothing mapped.
unsigned state_mapper_arrays(State s);

/// For the tests (given, probes.inc): one call of nbody.cpp's step_tiled()
/// (step 7.6), reading state @p in and the masses @p m, writing state @p out.
void step_tiled_once(const float *m, State in, State out, int n);

/// The source file nbody.cpp was compiled from (`__BASE_FILE__`: yours, or
/// the copy a build made of it), for a test that compiles it again.
const char *source_file();

}  // namespace lesson7
