/// @file reference/lesson07_nbody_shared.hpp
/// @brief What lesson 7's simulation and its fixed baselines share: the
///        article's Body, the physics' constants, the body-body interaction
///        and the article's step on an array of Body.
///        lessons/07-soa-vs-aos/nbody.hpp includes it, so a student sees
///        lesson7::Body, lesson7::bodybody_interaction and so on; reference/
///        keeps it so that the baselines (lesson07_nbody.cpp) run the student's
///        arithmetic on the student's type without reaching into the lesson
///        (reference/ never includes lessons/).
// A guard, not #pragma once: the lesson's header reaches this file by its path,
// reference/ by name, and one program may include both.
#ifndef COURSE_REFERENCE_LESSON07_NBODY_SHARED_HPP
#define COURSE_REFERENCE_LESSON07_NBODY_SHARED_HPP

#include <cmath>

namespace lesson7 {

#pragma omp declare target
/// Softening length squared: keeps the force finite when two bodies meet
/// (and makes a body's pull on itself exactly zero, with no branch).
inline constexpr float softening_squared = 1e-3f;
/// Time step of one simulation step (the article's DELTA_TIME).
inline constexpr float delta_time = 0.005f;
#pragma omp end declare target

// SNIPPET(body)
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

#endif  // COURSE_REFERENCE_LESSON07_NBODY_SHARED_HPP
