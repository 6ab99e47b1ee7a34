// Lesson 13 -- device code: particles of three kinds, each with its own rule,
// and what a kernel needs beyond loops. Four steps, each a marked block below:
//   13.1 the rules:       callable on the device through a function pointer
//   13.2 group_by_kind:   warps that agree on which rule they call
//   13.3 potential_kernel: team-local memory whose size is chosen at run time
//   13.4 hand_off:        a vendor runtime's stream for a library, via interop
// Run `ctest --preset student -L lesson13` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include "particles.hpp"

#include <omp.h>

#include <array>
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace lesson13 {

// Step 13.1: each kind's rule. advance() (given, in given.inc) keeps a table
// of them and calls the one a particle's kind names, inside a kernel.
// SOLUTION(13.1): `indirect` registers each function in the device's table
// of host -> device addresses, which omp_get_mapped_ptr() reads.
#pragma omp begin declare target indirect
// END SOLUTION
void drift(float &x, float &v, float dt) { x += v * dt; }
void spring(float &x, float &v, float dt) {
  v -= 4.f * x * dt;  // pulled back to 0, stiffness 4
  x += v * dt;
}
void drag(float &x, float &v, float dt) {
  v -= 0.5f * v * dt;  // slowed by the medium, 0.5 per unit time
  x += v * dt;
}
#pragma omp end declare target

// Step 13.2: the kernel of advance() runs consecutive particles on the lanes
// of one warp; make_particles() interleaves the kinds (0, 1, 2, 0, ...).
void group_by_kind(Particles &p) {
  // SOLUTION(13.2): a counting sort, stable: kind k's particles go, in
  // their order, to start[k], start[k] + 1, ...
  const std::size_t n = p.size();
  std::array<std::size_t, kinds + 1> start{};
  for (int k : p.kind) ++start[k + 1];
  for (int k = 0; k < kinds; ++k) start[k + 1] += start[k];
  Particles out;
  out.x.resize(n), out.v.resize(n), out.kind.resize(n), out.id.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t to = start[p.kind[i]]++;
    out.x[to] = p.x[i], out.v[to] = p.v[i], out.kind[to] = p.kind[i], out.id[to] = p.id[i];
  }
  p = std::move(out);
  // END SOLUTION
}

// Step 13.3: the potential of every particle, a team staging `tile`
// positions at a time. potential() (given) checks tile, maps x and phi
// (device addresses here) and gives each team a slice of `scratch` (tile
// floats per team, device memory) for where the device has no team-local
// memory to give.
void potential_kernel(const float *x, int n, int tile, float *phi, float *scratch, int teams, int threads) {
  // SNIPPET(stage)
  // SOLUTION(13.3): the stage's size is a launch argument (LLVM's
  // ompx_dyn_cgroup_mem, in bytes); the kernel finds it with
  // llvm_omp_target_dynamic_shared_alloc(), or falls back to its slice of
  // scratch where that returns nullptr.
#pragma omp target teams num_teams(teams) thread_limit(threads) is_device_ptr(x, phi, scratch) \
    ompx_dyn_cgroup_mem(tile * static_cast<int>(sizeof(float)))
  {
    // LLVM's: the team's share of the bytes ompx_dyn_cgroup_mem asked for,
    // or nullptr where the device has none to give (the host device).
    float *stage = static_cast<float *>(llvm_omp_target_dynamic_shared_alloc());
    if (!stage) stage = scratch + static_cast<std::size_t>(omp_get_team_num()) * tile;
    // END SNIPPET
    // SNIPPET(tile_loop)
#pragma omp parallel
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const int blocks = (n + tile - 1) / tile;
      for (int b = omp_get_team_num(); b < blocks; b += omp_get_num_teams()) {
        const int end = (b + 1) * tile < n ? (b + 1) * tile : n;
        for (int i = b * tile + t; i < end; i += nt) phi[i] = 0.f;
        for (int j0 = 0; j0 < n; j0 += tile) {
          const int len = n - j0 < tile ? n - j0 : tile;
          for (int k = t; k < len; k += nt) stage[k] = x[j0 + k];
#pragma omp barrier
          for (int i = b * tile + t; i < end; i += nt) {
            float s = 0.f;
            for (int k = 0; k < len; ++k) s += 1.f / (1.f + (x[i] - stage[k]) * (x[i] - stage[k]));
            phi[i] += s;
          }
#pragma omp barrier
        }
      }
    }
    // END SNIPPET
  }
  // END SOLUTION
}

// Step 13.4: add_then_scale() (given) has launched a kernel on y as a
// `nowait` task with depend(out : y[0:n]); y_device is y's device copy.
Handoff hand_off(float *y, float *y_device, int n, float a) {
  Handoff h;
  // SOLUTION(13.4): the object waits for the kernel (depend), hands its
  // stream to the library, and is destroyed once the library has it.
  omp_interop_t obj = omp_interop_none;
  const int dev = interop_device();
#pragma omp interop init(targetsync : obj) device(dev) depend(in : y[0:n])
  h.created = obj != omp_interop_none;
  if (h.created) {
    int rc = 0;
    h.fr_id = static_cast<long>(omp_get_interop_int(obj, omp_ipr_fr_id, &rc));
    h.device_num = static_cast<long>(omp_get_interop_int(obj, omp_ipr_device_num, &rc));
    if (interop_has_stream()) h.stream = omp_get_interop_ptr(obj, omp_ipr_targetsync, &rc);
  }
  lib::scale(h.stream, y_device, n, a);
  if (h.created) {
#pragma omp interop destroy(obj)
    h.destroyed = obj == omp_interop_none;
  }
  // END SOLUTION
  return h;
}

// Given: make_particles, the rules' tables, advance, potential,
// add_then_scale, the library and the interop facts.
#include "given.inc"

}  // namespace lesson13
