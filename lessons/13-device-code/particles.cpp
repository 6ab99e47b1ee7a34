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
// TODO(13.1): these functions exist on the device (`declare target`), but a
// kernel reaches them only through a function pointer the host made: the
// device needs a table from each host address to its own copy of the
// function, or no pointer to them works there (device_updates() finds none).
// Look up which clause of `declare target` makes a function callable through
// a pointer.
#pragma omp begin declare target
// END TODO
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
  // TODO(13.2): a warp whose 32 lanes call three different rules runs each
  // rule in turn with the other lanes idle. Reorder the particles so each kind
  // is contiguous (0s first), a stable sort by kind: count each kind, compute
  // where each kind starts, move every particle -- all four of its fields --
  // to its place.
  (void)p;
  // END TODO
}

// Step 13.3: the potential of every particle, a team staging `tile`
// positions at a time. potential() (given) checks tile, maps x and phi
// (device addresses here) and gives each team a slice of `scratch` (tile
// floats per team, device memory) for where the device has no team-local
// memory to give.
void potential_kernel(const float *x, int n, int tile, float *phi, float *scratch, int teams, int threads) {
  // SNIPPET(stage)
  // TODO(13.3): the stage below is an array whose size is fixed when the
  // kernel is compiled, so the tile the caller chose at run time cannot be
  // larger. LLVM lets a kernel ask for team-local memory at launch: look up
  // the `ompx_dyn_cgroup_mem` clause and llvm_omp_target_dynamic_shared_alloc()
  // (README, concept 3), and what that call returns on the host device.
  constexpr int kStaticTile = 256;
  if (tile > kStaticTile)
    throw std::invalid_argument("tile " + std::to_string(tile) + " > " + std::to_string(kStaticTile) +
                                ": the kernel's team-local stage is a fixed array (step 13.3)");
  (void)scratch;
#pragma omp target teams num_teams(teams) thread_limit(threads) is_device_ptr(x, phi)
  {
    float stage[kStaticTile];  // a variable of the teams region: team-local
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
  // END TODO
}

// Step 13.4: add_then_scale() (given) has launched a kernel on y as a
// `nowait` task with depend(out : y[0:n]); y_device is y's device copy.
Handoff hand_off(float *y, float *y_device, int n, float a) {
  Handoff h;
  // TODO(13.4): a library that runs on a vendor runtime (cuBLAS, cuFFT) wants
  // that runtime's stream, and must not start before the kernel is done. Make
  // an interop object for `targetsync` on interop_device() that waits for the
  // kernel (depend), note in h what it holds (created, omp_ipr_fr_id,
  // omp_ipr_device_num and, where interop_has_stream(), the omp_ipr_targetsync
  // stream), hand the stream to lib::scale, then destroy the object.
#pragma omp taskwait
  lib::scale(nullptr, y_device, n, a);
  (void)y;
  // END TODO
  return h;
}

// Given: make_particles, the rules' tables, advance, potential,
// add_then_scale, the library and the interop facts.
#include "given.inc"

}  // namespace lesson13
