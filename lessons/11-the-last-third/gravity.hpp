/// @file lessons/11-the-last-third/gravity.hpp
/// @brief Lesson 11 interface, step 11.3: one N-body step (lesson 7's
///        gravity), in the shape of the classic tiled CUDA kernel, for the
///        last third of the way past it.
///
/// Unlike the sum and the histogram, this kernel does 20 flops for every 16
/// bytes it reads from team-local memory: its ceiling is the arithmetic, and
/// what keeps it below is how many instructions each interaction costs
/// besides its flops (README, Concepts 6 and 7).
#pragma once

#include <omp.h>

#include <cmath>

#include "streaming.hpp"  // Launch, gpu_team_threads

namespace lesson11 {

#pragma omp begin declare target
// Softening and time step: the classic CUDA kernel's
// (report/vendor_nbody.cu), so the two compute the same thing.
/// Softening, squared: keeps the pull of a close pair finite.
inline constexpr float softening_squared = 1e-4f;
/// Time step of one nbody_step().
inline constexpr float delta_time = 1e-3f;
#pragma omp end declare target

/// Flops per interaction, the CUDA samples' count (as lesson 7).
inline constexpr double flops_per_interaction = 20;

/// Bodies j per team-local tile, and threads per team on a GPU.
inline constexpr int tile_bodies = gpu_team_threads;

/// One body j as the tile holds it: position and mass together, 16 bytes,
/// read by one 16-byte load from team-local memory (`ld.shared.v4.f32`).
struct alignas(16) Body4 {
  float x;  ///< position x
  float y;  ///< position y
  float z;  ///< position z
  float m;  ///< mass
};

/// The bodies a step reads: seven arrays of n floats (SoA, as lesson 7).
struct Bodies {
  const float *x;   ///< positions x
  const float *y;   ///< positions y
  const float *z;   ///< positions z
  const float *m;   ///< masses
  const float *vx;  ///< velocities x
  const float *vy;  ///< velocities y
  const float *vz;  ///< velocities z
};

/// Where a step writes the moved bodies: six arrays of n floats.
struct Moved {
  float *x;   ///< new positions x
  float *y;   ///< new positions y
  float *z;   ///< new positions z
  float *vx;  ///< new velocities x
  float *vy;  ///< new velocities y
  float *vz;  ///< new velocities z
};

/// The launch for @p n bodies: on a GPU one team of tile_bodies threads per
/// tile_bodies bodies (the classic kernel's grid); on the host-offload device
/// a team per core, one thread each.
inline Launch nbody_launch(int n) {
#ifdef COURSE_DEVICE_GPU
  const int teams = (n + tile_bodies - 1) / tile_bodies;
  return {teams < 1 ? 1 : teams, tile_bodies};
#else
  const int cores = omp_get_num_procs() > 0 ? omp_get_num_procs() : 1;
  const int want = (n + tile_bodies - 1) / tile_bodies;
  return {want < 1 ? 1 : (want > cores ? cores : want), 1};
#endif
}

/// One step for bodies [0, n): a_i = sum over all j of the pull of j on i,
/// then v_i += a_i dt, x_i += v_i dt (the new v_i), written to @p out.
/// The arrays may already be on the device (a caller's `target data`).
void nbody_step(Bodies in, Moved out, int n, Launch launch = {});

/// The same step with one body per thread and an exact 1 / sqrt: the
/// starter's code, the speed tests' fixed baseline (given, gravity.inc).
void plain_nbody_step(Bodies in, Moved out, int n, Launch launch = {});

#pragma omp begin declare target

/// 1 / sqrt(d2) as a square root and a division, each correctly rounded
/// (IEEE): the same bits on every device, within about an ulp of 1 / sqrt(d2)
/// (two roundings do not make the result itself correctly rounded).
inline float exact_inverse_sqrt(float d2) { return 1.0f / std::sqrt(d2); }

/// 1 / sqrt(d2) by the hardware's approximation where there is one: NVIDIA's
/// `rsqrt.approx.ftz.f32` (relative error below 2^-22; ftz: an input below
/// 2^-126 counts as 0, and d2 >= softening_squared never is one), AMD's
/// `v_rsq_f32`. Both are LLVM builtins, not OpenMP. Elsewhere the exact one.
inline float fast_inverse_sqrt(float d2) {
#if defined(__NVPTX__)
  return __nvvm_rsqrt_approx_ftz_f(d2);
#elif defined(__AMDGCN__)
  return __builtin_amdgcn_rsqf(d2);
#else
  return exact_inverse_sqrt(d2);
#endif
}

/// A thread's group of @p P bodies i: their positions, and their
/// accelerations so far (registers, once the compiler has inlined the code).
template <int P>
struct Group {
  float x[P];   ///< positions x of the group's bodies
  float y[P];   ///< positions y
  float z[P];   ///< positions z
  float ax[P];  ///< accelerations x so far
  float ay[P];  ///< accelerations y so far
  float az[P];  ///< accelerations z so far
};

// SNIPPET(pull)
/// Adds the pull of body @p j on the body at (@p xi, @p yi, @p zi) to
/// (@p ax, @p ay, @p az): m_j d / (|d|^2 + eps^2)^(3/2), d = x_j - x_i.
/// @p Inv computes 1 / sqrt: exact_inverse_sqrt or fast_inverse_sqrt.
template <float (*Inv)(float)>
inline void pull(float xi, float yi, float zi, const Body4 &j, float &ax, float &ay, float &az) {
  const float dx = j.x - xi, dy = j.y - yi, dz = j.z - zi;
  const float d2 = dx * dx + dy * dy + dz * dz + softening_squared;
  const float inv = Inv(d2);
  const float s = j.m * (inv * inv * inv);
  ax += dx * s;
  ay += dy * s;
  az += dz * s;
}
// END SNIPPET

#pragma omp end declare target

}  // namespace lesson11
