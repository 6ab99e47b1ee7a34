// Lesson 7 -- SoA vs AoS: the same N-body step on particles stored as an array
// of structures (the article's Body) and as a structure of arrays (Particles).
// Six marked steps:
//   7.1, 7.2 convert between the layouts (once per simulation, not per step)
//   7.3      step(): the step kernel on the seven arrays, `omp simd` on the inner loop
//   7.4      a mapper for State, so that mapping a state maps its arrays
//   7.5      advance(): SoA on the device for every step, double-buffered
//   7.6      optional stretch: step_tiled(), the inner loop tiled through team-local memory
// Run `ctest --preset student -L lesson7` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include <cstddef>
#include <span>

#include <omp.h>

#include "course/device.hpp"
#include "nbody.hpp"

namespace lesson7 {

void to_soa(std::span<const Body> bodies, Particles &p) {
  // SOLUTION(7.1): one pass over the bodies, one store per field.
  const std::size_t n = bodies.size();
  p.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.x[i] = bodies[i].x;
    p.y[i] = bodies[i].y;
    p.z[i] = bodies[i].z;
    p.m[i] = bodies[i].m;
    p.vx[i] = bodies[i].vx;
    p.vy[i] = bodies[i].vy;
    p.vz[i] = bodies[i].vz;
  }
  // END SOLUTION
}

void to_aos(const Particles &p, std::span<Body> bodies) {
  // SOLUTION(7.2): the reverse; the unused float is written too.
  for (std::size_t i = 0; i < bodies.size(); ++i)
    bodies[i] = {p.x[i], p.y[i], p.z[i], p.m[i], p.vx[i], p.vy[i], p.vz[i], 0.0f};
  // END SOLUTION
}

namespace {

/// One step on the structure of arrays: reads state @p in, writes state @p out.
using StepFn = void (*)(const float *m, State in, State out, int n);

// SNIPPET(soa-step-head)
// SOLUTION(7.3): one step on the arrays. Lane (or thread) j of the inner loop
// reads x[j], y[j], z[j], m[j]: consecutive addresses, so the host loads four
// bodies with one vector load per field instead of gathering them 32 bytes
// apart. `simd reduction` lets the compiler keep one partial sum per lane.
void step(const float *m, State in, State out, int n) {
  const float *x = in.x, *y = in.y, *z = in.z, *vx = in.vx, *vy = in.vy, *vz = in.vz;
  float *xo = out.x, *yo = out.y, *zo = out.z, *vxo = out.vx, *vyo = out.vy, *vzo = out.vz;
  // END SNIPPET
  // SNIPPET(soa-step-loop)
#pragma omp target teams distribute parallel for map(to : m[0:n], x[0:n], y[0:n], z[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  for (int i = 0; i < n; ++i) {
    const float xi = x[i], yi = y[i], zi = z[i];
    float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
    for (int j = 0; j < n; ++j) bodybody_interaction(xi, yi, zi, x[j], y[j], z[j], m[j], ax, ay, az);
    const float nvx = vx[i] + ax * delta_time, nvy = vy[i] + ay * delta_time, nvz = vz[i] + az * delta_time;
    vxo[i] = nvx;
    vyo[i] = nvy;
    vzo[i] = nvz;
    xo[i] = xi + nvx * delta_time;
    yo[i] = yi + nvy * delta_time;
    zo[i] = zi + nvz * delta_time;
  }
}
// END SOLUTION
// END SNIPPET

// SOLUTION(7.4): `map(mapper(state), ...)` of a State now maps the struct and
// the s.n elements behind each of its six pointers, under the clause's map
// type (tofrom, to, alloc, ...), and attaches the device copy's pointers to
// the device arrays.
#pragma omp declare mapper(state : State s) \
    map(s, s.x[0:s.n], s.y[0:s.n], s.z[0:s.n], s.vx[0:s.n], s.vy[0:s.n], s.vz[0:s.n])
// END SOLUTION

// SNIPPET(advance-soa-head)
// SOLUTION(7.5): convert once, keep both states on the device for all steps
// and swap their roles each step; only the last state comes back. Mapping a
// State through the mapper (7.4) maps its arrays, so step()'s own maps find
// them present.
void advance(std::span<Body> bodies, int steps, StepFn step_fn) {
  const int n = static_cast<int>(bodies.size());
  if (n == 0 || steps <= 0) return;
  Particles a;
  to_soa(bodies, a);
  Particles b = a;  // same masses; the first step overwrites everything else
  const float *m = a.m.data();
  State sa{a.x.data(), a.y.data(), a.z.data(), a.vx.data(), a.vy.data(), a.vz.data(), n};
  State sb{b.x.data(), b.y.data(), b.z.data(), b.vx.data(), b.vy.data(), b.vz.data(), n};
  // END SNIPPET
  // SNIPPET(advance-soa-loop)
#pragma omp target data map(to : m[0:n]) map(mapper(state), tofrom : sa) map(mapper(state), alloc : sb)
  {
    for (int s = 0; s < steps; ++s) step_fn(m, s % 2 == 0 ? sa : sb, s % 2 == 0 ? sb : sa, n);
    // The arrays by name, not `from(mapper(state) : sb)`: LLVM 19 leaves them
    // mapped after a `target update` through a mapper.
    if (steps % 2 == 1) {
#pragma omp target update from(sb.x[0:n], sb.y[0:n], sb.z[0:n], sb.vx[0:n], sb.vy[0:n], sb.vz[0:n])
    }
  }
  // LLVM 19 and 21 leave a struct mapped through a mapper on the device after
  // its region (llvm-project#60106, fixed in 2026): the next call's
  // States, elsewhere on the stack, would overlap it. Unmapped here by a map
  // without the mapper (a no-op where the runtime already did it).
#pragma omp target exit data map(delete : sa, sb)
  to_aos(steps % 2 == 1 ? b : a, bodies);
}
// END SOLUTION
// END SNIPPET

// SOLUTION(7.6): a team owns a block of `tile` bodies i. For each tile of
// bodies j it copies the tile into team-local memory, waits at a barrier,
// and its threads share out the block's bodies, each reading the whole tile
// from there. Any thread count works: threads stride over the tile and the
// block by omp_get_num_threads(). On a GPU both arrays live in shared memory
// (omp_pteam_mem_alloc); the host device has none (and says so once per
// team), so there they are plain arrays on the team's stack.
constexpr int tile = 256;
void step_tiled(const float *m, State in, State out, int n) {
  const float *x = in.x, *y = in.y, *z = in.z, *vx = in.vx, *vy = in.vy, *vz = in.vz;
  float *xo = out.x, *yo = out.y, *zo = out.z, *vxo = out.vx, *vyo = out.vy, *vzo = out.vz;
  // A GPU gets one team per block; the host device one team whose threads
  // are the cores (more teams would only take turns on the same cores).
  const int teams = course::device_info().is_gpu() ? (n + tile - 1) / tile : 1;
#pragma omp target teams num_teams(teams) thread_limit(tile) \
    map(to : m[0:n], x[0:n], y[0:n], z[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  {
    float tx[tile], ty[tile], tz[tile], tm[tile];  // the current tile of bodies j
    float sx[tile], sy[tile], sz[tile];            // accelerations of the block's bodies i
#if defined(__NVPTX__)
#pragma omp allocate(tx, ty, tz, tm, sx, sy, sz) allocator(omp_pteam_mem_alloc)
#endif
#pragma omp parallel
    {
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      const int league = omp_get_num_teams(), team = omp_get_team_num();
      for (int first = team * tile; first < n; first += league * tile) {  // same trip count for the whole team
        const int count = n - first < tile ? n - first : tile;
        for (int k = t; k < count; k += nt) sx[k] = sy[k] = sz[k] = 0.0f;
        for (int j0 = 0; j0 < n; j0 += tile) {
          const int len = n - j0 < tile ? n - j0 : tile;
#pragma omp barrier
          for (int k = t; k < len; k += nt) {  // nobody still reads the previous tile
            tx[k] = x[j0 + k];
            ty[k] = y[j0 + k];
            tz[k] = z[j0 + k];
            tm[k] = m[j0 + k];
          }
#pragma omp barrier
          for (int k = t; k < count; k += nt) {  // this thread's bodies of the block
            const int i = first + k;
            const float xi = x[i], yi = y[i], zi = z[i];
            float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
            for (int q = 0; q < len; ++q) bodybody_interaction(xi, yi, zi, tx[q], ty[q], tz[q], tm[q], ax, ay, az);
            sx[k] += ax;
            sy[k] += ay;
            sz[k] += az;
          }
        }
        for (int k = t; k < count; k += nt) {  // only this thread touched sx[k], sy[k], sz[k]
          const int i = first + k;
          const float nvx = vx[i] + sx[k] * delta_time, nvy = vy[i] + sy[k] * delta_time,
                      nvz = vz[i] + sz[k] * delta_time;
          vxo[i] = nvx;
          vyo[i] = nvy;
          vzo[i] = nvz;
          xo[i] = x[i] + nvx * delta_time;
          yo[i] = y[i] + nvy * delta_time;
          zo[i] = z[i] + nvz * delta_time;
        }
      }
    }
  }
}
// END SOLUTION

}  // namespace

// What the tests ask of this file (given, not edited): it sees your mapper.
#include "probes.inc"

void simulate(std::span<Body> bodies, int steps) { advance(bodies, steps, step); }
void simulate_tiled(std::span<Body> bodies, int steps) { advance(bodies, steps, step_tiled); }

}  // namespace lesson7
