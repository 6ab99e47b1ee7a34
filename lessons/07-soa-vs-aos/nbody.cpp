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
  // TODO(7.1): resize p to bodies.size(), then copy every field of body i into
  // element i of its own array: p.x[i] = bodies[i].x, and the same for y, z,
  // m, vx, vy, vz. The tests fill p with NaN first, so a field you skip shows.
  (void)bodies;
  (void)p;
  // END TODO
}

void to_aos(const Particles &p, std::span<Body> bodies) {
  // TODO(7.2): the reverse: write all eight floats of bodies[i] from element
  // i of p's arrays, with pad = 0.
  (void)p;
  (void)bodies;
  // END TODO
}

namespace {

/// One step on the structure of arrays: reads state @p in, writes state @p out.
using StepFn = void (*)(const float *m, State in, State out, int n);

// SNIPPET(soa-step-head)
// TODO(7.3): write step_aos()'s step for the structure of arrays: read x[j],
// y[j], z[j], m[j] from their own arrays (masses shared by both states), write
// the new positions and velocities into the arrays of `out`, and put
// `#pragma omp simd reduction(+ : ax, ay, az)` on the inner loop so the host
// can give each vector lane its own j. Until then this step does nothing.
void step(const float *m, State in, State out, int n) { (void)m, (void)in, (void)out, (void)n; }
// END TODO
// END SNIPPET

// TODO(7.4): a State (nbody.hpp) is six pointers and a count. This mapper,
// `state`, maps only the struct: `map(mapper(state), tofrom : s)` copies those
// bytes and nothing they point to, so the device copy's pointers still hold
// host addresses and the arrays stay on the host. Make it map, with the
// struct, the s.n elements behind each of the six pointers (array sections),
// so that advance() (7.5) can map a whole state by naming it (README, Concepts:
// 5. The data environment of a C++ type).
#pragma omp declare mapper(state : State s) map(s)
// END TODO

// SNIPPET(advance-soa-head)
// TODO(7.5): advance() runs the AoS step on the device, double-buffered: the
// bodies and a scratch copy stay mapped for all steps, each step reads one and
// writes the other. Make it convert once with to_soa(), keep two SoA states
// on the device (two States with their count, mapped through your mapper:
// `alloc` for the second; the masses apart), call step_fn (your step(), or
// step_tiled()) with the two states swapped every step, bring back the last
// state (`target update from` its arrays when it is the second one) and
// convert back with to_aos(). With LLVM 19 and 21, unmap the two States
// yourself after the region (README, Concepts 5: why).
void advance(std::span<Body> bodies, int steps, StepFn step_fn) {
  (void)step_fn;
  const int n = static_cast<int>(bodies.size());
  if (n == 0 || steps <= 0) return;
  std::vector<Body> scratch(bodies.size());
  Body *a = bodies.data(), *b = scratch.data();
#pragma omp target data map(tofrom : a[0:n]) map(alloc : b[0:n])
  {
    for (int s = 0; s < steps; ++s) {
      if (s % 2 == 0)
        step_aos(a, b, n);
      else
        step_aos(b, a, n);
    }
    if (steps % 2 == 1) {
#pragma omp target update from(b[0:n])
    }
  }
  if (steps % 2 == 1)
    for (std::size_t i = 0; i < bodies.size(); ++i) bodies[i] = scratch[i];
}
// END TODO
// END SNIPPET

// TODO(7.6): optional stretch, not needed to pass the speedup test. Tile the
// inner loop: a team copies a tile of bodies j into team-local memory
// (`#pragma omp allocate(...) allocator(omp_pteam_mem_alloc)` on a GPU), waits
// at a barrier, and its threads read the tile from there. Any thread count
// must work: loop over omp_get_num_threads(). Until then this step does
// nothing, and simulate_tiled's test says so (skip it if you like).
void step_tiled(const float *m, State in, State out, int n) { (void)m, (void)in, (void)out, (void)n; }
// END TODO

}  // namespace

// What the tests ask of this file (given, not edited): it sees your mapper.
#include "probes.inc"

void simulate(std::span<Body> bodies, int steps) { advance(bodies, steps, step); }
void simulate_tiled(std::span<Body> bodies, int steps) { advance(bodies, steps, step_tiled); }

}  // namespace lesson7
