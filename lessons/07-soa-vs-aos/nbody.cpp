// Lesson 7 -- SoA vs AoS: the same N-body step on particles stored as an array
// of structures (the article's Body) and as a structure of arrays (Particles).
// Five marked steps:
//   7.1, 7.2 convert between the layouts (once per simulation, not per step)
//   7.3      the step kernel on the seven arrays, `omp simd` on the inner loop
//   7.4      simulate(): SoA on the device for every step, double-buffered
//   7.5      optional stretch: tile the inner loop through team-local memory
// Run `ctest -L lesson7` after each step; see README.md for hints.
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

// TODO(7.3): this is the article's step on an array of Body structs: thread i
// walks over every body j, and the four floats it needs from body j sit in a
// 32-byte struct, next to a velocity it does not need. Write the same step
// for the structure of arrays declared in nbody.hpp: each field of body j
// comes from its own array, and the new state goes into a second set of
// arrays. Then let the host give each vector lane its own j: the inner loop
// sums three floats, so think back to lesson 3's norm.
void step(const Body *in, Body *out, int n) {
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
// END TODO

}  // namespace

// TODO(7.4): simulate() runs the AoS step on the device, double-buffered: the
// bodies and a scratch copy stay mapped for all steps, each step reads one and
// writes the other. Do the same with your SoA step: convert once (7.1, 7.2),
// keep two SoA states on the device for the whole loop, and swap them every
// step. Which state holds the answer after an odd number of steps, and is its
// host copy up to date? (Lesson 2's heat loop met the same question.)
void simulate(std::span<Body> bodies, int steps) {
  const int n = static_cast<int>(bodies.size());
  if (n == 0 || steps <= 0) return;
  std::vector<Body> scratch(bodies.size());
  Body *a = bodies.data(), *b = scratch.data();
#pragma omp target data map(tofrom : a[0:n]) map(alloc : b[0:n])
  {
    for (int s = 0; s < steps; ++s) {
      if (s % 2 == 0)
        step(a, b, n);
      else
        step(b, a, n);
    }
    if (steps % 2 == 1) {
#pragma omp target update from(b[0:n])
    }
  }
  if (steps % 2 == 1)
    for (std::size_t i = 0; i < bodies.size(); ++i) bodies[i] = scratch[i];
}
// END TODO

// TODO(7.5): optional stretch, not needed to pass the speedup test. Tile the
// inner loop: a team copies a tile of bodies j into team-local memory
// (`#pragma omp allocate(...) allocator(omp_pteam_mem_alloc)` on a GPU), waits
// at a barrier, and its threads read the tile from there. Any thread count
// must work: loop over omp_get_num_threads(). Until then it runs simulate().
void simulate_tiled(std::span<Body> bodies, int steps) { simulate(bodies, steps); }
// END TODO

}  // namespace lesson7
