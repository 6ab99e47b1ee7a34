/// @file reference/lesson11_gravity_shared.hpp
/// @brief What lesson 11's step 11.3 (gravity.cpp) builds on: the bodies' layout,
///        the launch, the interaction `pull` with its two 1 / sqrt, and the team
///        kernel `team_step`. Shared by the student's file (through
///        lessons/11-matching-the-vendor/gravity.hpp) and the baselines
///        (reference/lesson11_plain_gravity.cpp), so that a speedup measures the step
///        alone. Given code: read it, do not edit it.
#pragma once

#include <omp.h>

#include <cmath>

#include "lesson11_streaming_shared.hpp"  // Launch, gpu_team_threads

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

#pragma omp begin declare target
/// Bodies j per team-local tile, and threads per team on a GPU.
inline constexpr int tile_bodies = gpu_team_threads;
#pragma omp end declare target

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
  // The softening first: the sum is then three multiply-adds in a chain,
  // where added last it costs a multiply, two multiply-adds and an add.
  const float d2 = softening_squared + dx * dx + dy * dy + dz * dz;
  const float inv = Inv(d2);
  const float s = j.m * (inv * inv * inv);
  ax += dx * s;
  ay += dy * s;
  az += dz * s;
}
// END SNIPPET

#pragma omp end declare target

// ---- the team kernel around step 11.3 (given) ----------------------------
//
// Each team takes 256 bodies i at a time; for every tile of bodies j its
// threads first copy the tile into team-local memory (one Body4, 16 bytes,
// per body), wait, and then each thread adds the tile's pull on its bodies.
// With P = bodies_per_thread and the team's 256 threads, thread t takes the
// P bodies slot, slot + 256/P, ... (slot = t mod 256/P) and part t / (256/P)
// of each tile; the P parts of a body meet in team-local memory at the end.
// With P = 1 this is the classic CUDA kernel (report/vendor_nbody.cu): tiles
// of 256. With P > 1 a tile holds 512 bodies j, and where the team has its
// 256 threads each part's range is a constant: the waits, the copy and the
// start and end of tile_forces are then paid once per 512 / P bodies j a
// thread pulls with, and no division runs per tile (kernel 2.25 -> 2.14 ms
// on an H200 at 65,536 bodies, docs/results/h200-2026-12-04-goals.md). With
// any other thread count (the host device, an odd launch) every thread takes
// P bodies and whole tiles. A template over the per-thread function:
// gravity.inc instantiates it with your tile_forces, the reference library
// (reference/lesson11_plain_gravity.cpp) with the starter's, the speed test's
// baseline. In an unnamed namespace, as if written in each file that
// instantiates it: the compiler inlines the per-thread function there.

namespace {

template <int P>
using TileForces = void (*)(const Body4 *, int, int, Group<P> &);

template <int P, TileForces<P> forces>
void team_step(Bodies in, Moved out, int n, Launch launch) {
  static_assert(P >= 1 && tile_bodies % P == 0, "bodies_per_thread must divide 256: 1, 2, 4, 8, ...");
  if (launch.teams <= 0 || launch.threads <= 0) launch = nbody_launch(n);
  const float *x = in.x, *y = in.y, *z = in.z, *m = in.m, *vx = in.vx, *vy = in.vy, *vz = in.vz;
  float *xo = out.x, *yo = out.y, *zo = out.z, *vxo = out.vx, *vyo = out.vy, *vzo = out.vz;
  constexpr int W = tile_bodies, RED = P > 1 ? P - 1 : 1, TW = P > 1 ? 2 * W : W;  // TW: bodies j per tile
#pragma omp target teams num_teams(launch.teams) thread_limit(launch.threads) \
    map(to : m[0:n], x[0:n], y[0:n], z[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  {
    Body4 tile[TW];            // the current tile of bodies j
    float red[RED][3][W];      // accelerations of parts 1..P-1, per body of the team
#if defined(__NVPTX__)
#pragma omp allocate(tile, red) allocator(omp_pteam_mem_alloc)
#endif
#pragma omp parallel
    {
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      const int league = omp_get_num_teams(), team = omp_get_team_num();
      const bool split = nt == W;  // the 256 threads asked for: P parts per tile
      const int parts = split ? P : 1, slots = split ? W / P : nt;
      const int slot = t % slots, part = t / slots;
      for (int first = team * W; first < n; first += league * W) {  // the same trips for the whole team
        const int count = n - first < W ? n - first : W;
        for (int base = 0; base < count; base += slots * P) {
          Group<P> g;
          for (int p = 0; p < P; ++p) {
            const int k = base + slot + p * slots, i = first + (k < count ? k : 0);
            g.x[p] = x[i];
            g.y[p] = y[i];
            g.z[p] = z[i];
            g.ax[p] = g.ay[p] = g.az[p] = 0.0f;
          }
          for (int j0 = 0; j0 < n; j0 += TW) {
            const int len = n - j0 < TW ? n - j0 : TW;
#pragma omp barrier
            for (int k = t; k < len; k += nt) tile[k] = Body4{x[j0 + k], y[j0 + k], z[j0 + k], m[j0 + k]};
#pragma omp barrier
            // A whole tile: the part's range is known when compiled. Passed as its
            // own tile from 0, so the loop counts 0..TW/P: LLVM 21 then steps the
            // count in a uniform register, as LLVM 19 does (its code is unchanged;
            // docs/results/llvm21-nbody-2026-12-05.md).
            if (split && len == TW)
              forces(tile + part * (TW / P), 0, TW / P, g);
            else
              forces(tile, part * len / parts, (part + 1) * len / parts, g);
          }
          if (parts > 1) {  // parts 1..P-1 hand their sums to part 0
            if (part > 0)
              for (int p = 0; p < P; ++p) {
                red[part - 1][0][slot * P + p] = g.ax[p];
                red[part - 1][1][slot * P + p] = g.ay[p];
                red[part - 1][2][slot * P + p] = g.az[p];
              }
#pragma omp barrier
            if (part == 0)
              for (int s = 0; s < parts - 1; ++s)
                for (int p = 0; p < P; ++p) {
                  g.ax[p] += red[s][0][slot * P + p];
                  g.ay[p] += red[s][1][slot * P + p];
                  g.az[p] += red[s][2][slot * P + p];
                }
          }
          if (part == 0)
            for (int p = 0; p < P; ++p) {
              const int k = base + slot + p * slots;
              if (k < count) {
                const int i = first + k;
                const float nvx = vx[i] + g.ax[p] * delta_time, nvy = vy[i] + g.ay[p] * delta_time,
                            nvz = vz[i] + g.az[p] * delta_time;
                vxo[i] = nvx;
                vyo[i] = nvy;
                vzo[i] = nvz;
                xo[i] = g.x[p] + nvx * delta_time;
                yo[i] = g.y[p] + nvy * delta_time;
                zo[i] = g.z[p] + nvz * delta_time;
              }
            }
        }
      }
    }
  }
}

}  // namespace

}  // namespace lesson11
