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
// SOLUTION(11.3): eight bodies per thread, so each 16-byte team-local load
// of a body j serves eight interactions, and the hardware's 1 / sqrt: one
// instruction instead of a square root and a division. The sums live in
// local arrays so that on a CPU `simd reduction` can give each vector lane
// its own copy (the tile's bodies j become the lanes). Not on a GPU: there
// the threads are the lanes, and LLVM 19 compiles the clause into extra
// copies of the sums; there the loop is unrolled by 4 instead, so that its
// counting and branching are paid once per four bodies j (README,
// Concepts 7: what each of the two gives).
constexpr int bodies_per_thread = 8;

inline void tile_forces(const Body4 *tile, int q0, int q1, Group<bodies_per_thread> &g) {
  constexpr int P = bodies_per_thread;
  float ax[P], ay[P], az[P];
  for (int p = 0; p < P; ++p) ax[p] = ay[p] = az[p] = 0.0f;
// END SNIPPET
// SNIPPET(tile-forces-loop)
#if !defined(__NVPTX__) && !defined(__AMDGCN__)
#pragma omp simd reduction(+ : ax, ay, az)
#else
#pragma omp unroll partial(4)
#endif
  for (int q = q0; q < q1; ++q) {
    const Body4 j = tile[q];
    for (int p = 0; p < P; ++p) pull<fast_inverse_sqrt>(g.x[p], g.y[p], g.z[p], j, ax[p], ay[p], az[p]);
  }
  for (int p = 0; p < P; ++p) {
    g.ax[p] += ax[p];
    g.ay[p] += ay[p];
    g.az[p] += az[p];
  }
}
// END SOLUTION
// END SNIPPET

#pragma omp end declare target

}  // namespace

// nbody_step() and tile_forces_once() (given): the team kernel with your
// tile_forces inside, and one call of it for the tests.
#include "gravity.inc"

}  // namespace lesson11
