// Lesson 11 -- matching the vendor, N-body: lesson 7's step in the shape of
// the classic tiled CUDA kernel (the team kernel is in
// reference/lesson11_gravity_shared.hpp), to be
// taken past that kernel. Here the ceiling is the arithmetic: what is left is
// how many instructions an interaction costs besides its flops. One step, a
// marked block below:
//   11.3 tile_forces: several bodies per thread, the hardware's 1 / sqrt
// Run `ctest --preset student -L lesson11` from the repository root after the
// step (it rebuilds your code first); see README.md for hints.
#include "gravity.hpp"

namespace lesson11 {
namespace {

#pragma omp begin declare target

// Step 11.3: add the pull of the tile's bodies tile[q0:q1) on this thread's
// group g of bodies_per_thread bodies; it is called once per tile, so add to
// g's sums. The given kernel hands each thread bodies_per_thread bodies of its
// team's 256 and, where the team has its 256 threads, splits every tile into
// bodies_per_thread parts, one per thread of a group's bodies, so each body j
// still pulls every body of the team once; it adds up the parts'
// accelerations at the end. A part arrives as a range [q0, q1), which starts
// past 0 only in a last, partial tile.
// SNIPPET(bodies-per-thread)
// TODO(11.3): Make each team-local load serve several bodies: raise
// bodies_per_thread (it must divide 256) and sweep the tile once, pulling all
// of the group's bodies with each body j before the next. And ask for the
// hardware's 1 / sqrt, not a square root and a division (README, Steps: 11.3).
constexpr int bodies_per_thread = 1;

inline void tile_forces(const Body4 *tile, int q0, int q1, Group<bodies_per_thread> &g) {
  for (int p = 0; p < bodies_per_thread; ++p)
    for (int q = q0; q < q1; ++q) pull<exact_inverse_sqrt>(g.x[p], g.y[p], g.z[p], tile[q], g.ax[p], g.ay[p], g.az[p]);
}
// END TODO
// END SNIPPET

#pragma omp end declare target

}  // namespace

// nbody_step() and tile_forces_once() (given): the team kernel with your
// tile_forces inside, and one call of it for the tests.
#include "gravity.inc"

}  // namespace lesson11
