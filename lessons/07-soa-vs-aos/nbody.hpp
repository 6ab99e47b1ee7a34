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
// An include guard, not #pragma once: reference/ includes this header by its
// path and the lesson's files by name, and a test includes both; the guard
// makes the second a no-op whichever path it came by.
#ifndef COURSE_LESSON07_NBODY_HPP
#define COURSE_LESSON07_NBODY_HPP

#include <cmath>
#include <cstddef>
#include <span>

#include "course/data.hpp"

namespace lesson7 {

#pragma omp declare target
/// Softening length squared: keeps the force finite when two bodies meet
/// (and makes a body's pull on itself exactly zero, with no branch).
inline constexpr float softening_squared = 1e-3f;
/// Time step of one simulation step (the article's DELTA_TIME).
inline constexpr float delta_time = 0.005f;
/// Floating-point operations counted per body-body interaction: the CUDA
/// samples' convention, used for every GFLOP/s figure in this lesson.
inline constexpr double flops_per_interaction = 20.0;
#pragma omp end declare target

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

// SNIPPET(layouts)
/// One body in the article's layout: a float4 position whose fourth float is
/// the mass, and a float4 velocity whose fourth float is unused (32 bytes).
struct Body {
  float x;    ///< position, x
  float y;    ///< position, y
  float z;    ///< position, z
  float m;    ///< mass
  float vx;   ///< velocity, x
  float vy;   ///< velocity, y
  float vz;   ///< velocity, z
  float pad;  ///< unused (written as 0): keeps the velocity a float4
};

/// The same bodies as a structure of arrays: element i of every array
/// belongs to body i, and each array is contiguous and 64-byte aligned.
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

#pragma omp declare target
/// 1 / sqrt(@p d2). On NVIDIA GPUs this is the hardware approximation
/// (rsqrt.approx, relative error below 2^-22), what the article's `rsqrt` and
/// CUDA's `rsqrtf` compile to; an exact square root and a division would
/// cost several times more. On the host device it is the exact expression.
inline float inverse_sqrt(float d2) {
#if defined(__NVPTX__)
  return __nv_rsqrtf(d2);
#else
  return 1.0f / std::sqrt(d2);
#endif
}

// SNIPPET(interaction)
/// Adds the pull of body j (at @p xj, @p yj, @p zj, mass @p mj) on a body at
/// (@p xi, @p yi, @p zi) to the acceleration (@p ax, @p ay, @p az): the
/// article's bodybody_interaction. 20 flops by the CUDA samples' count.
/// Every variant in this lesson calls it, so they differ only in layout.
inline void bodybody_interaction(float xi, float yi, float zi, float xj, float yj, float zj, float mj, float &ax,
                                 float &ay, float &az) {
  const float dx = xj - xi, dy = yj - yi, dz = zj - zi;
  const float d2 = dx * dx + dy * dy + dz * dz + softening_squared;
  const float inv = inverse_sqrt(d2);
  const float s = mj * (inv * inv * inv);  // m_j / (r^2 + eps^2)^(3/2)
  ax += dx * s;
  ay += dy * s;
  az += dz * s;
}
// END SNIPPET
#pragma omp end declare target

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

// SNIPPET(aos-step)
/// The article's step on an array of Body structs: thread i walks over every
/// body j, and the four floats it needs from body j sit in a 32-byte struct,
/// next to a velocity it does not need. The starter's advance() runs it until step 7.5;
/// it lives here, once, so starter, solution and the speedup baseline
/// (reference/lesson07_nbody.cpp) share it.
inline void step_aos(const Body *in, Body *out, int n) {
#pragma omp target teams distribute parallel for map(to : in[0:n]) map(from : out[0:n])
  for (int i = 0; i < n; ++i) {
    const float xi = in[i].x, yi = in[i].y, zi = in[i].z;
    float ax = 0, ay = 0, az = 0;
    for (int j = 0; j < n; ++j) bodybody_interaction(xi, yi, zi, in[j].x, in[j].y, in[j].z, in[j].m, ax, ay, az);
    Body b = in[i];
    b.vx += ax * delta_time;
    b.vy += ay * delta_time;
    b.vz += az * delta_time;
    b.x += b.vx * delta_time;
    b.y += b.vy * delta_time;
    b.z += b.vz * delta_time;
    out[i] = b;
  }
}
// END SNIPPET

}  // namespace lesson7

#endif  // COURSE_LESSON07_NBODY_HPP
