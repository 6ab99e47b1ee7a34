// Lesson 11 -- the last third: a float sum and a 256-bin histogram, each
// already split the way lesson 6 taught (team partials, team-local bins; the
// kernels are in given.inc), and lesson 7's N-body step in the shape of the
// classic tiled CUDA kernel (gravity.inc). What is left is inside each
// thread: how many bytes it asks memory for before it needs the first of
// them, and how many instructions an interaction costs. Three steps, each a
// marked block below:
//   11.1 thread_sum:   16-byte loads, several in flight, independent partials
//   11.2 thread_count: the same for the histogram's samples, before its atomics
//   11.3 tile_forces:  an N-body step: several bodies per thread, a fast 1 / sqrt
// Run `ctest --preset student -L lesson11` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include "gravity.hpp"
#include "streaming.hpp"

#include <omp.h>

#include <cstddef>
#include <cstdint>

namespace lesson11 {
namespace {

#pragma omp begin declare target

// Step 11.1: this thread's share of a team's block b[0:len): the elements
// tid, tid + nth, tid + 2 nth, ... added up. The given kernel adds the shares
// of a team, then the teams'.
float thread_sum(const float *b, unsigned len, unsigned tid, unsigned nth) {
  // TODO(11.1): Have more bytes in flight per thread. Read the block as Quads
  // (16 bytes, one load instruction) where b allows it, start several
  // independent loads before the first add needs one, and keep independent
  // partial sums so no add waits for the one before it. b's device address
  // need not be a multiple of 16: the elements before the first boundary,
  // and after the last whole Quad, still count (README, Steps: 11.1).
  float s = 0;
  for (unsigned i = tid; i < len; i += nth) s += b[i];
  return s;
  // END TODO
}

// Step 11.2: count this thread's share of a team's block b[0:len) into the
// team's bins (team-local memory, shared by the team's threads).
void thread_count(const float *b, unsigned len, unsigned tid, unsigned nth, int *bins) {
  // TODO(11.2): The same for the histogram: Quad loads where b allows it,
  // and all of several loads issued before the first atomic waits on one.
  // The atomics stay: the team's threads share the bins (README, Steps: 11.2).
  for (unsigned i = tid; i < len; i += nth) {
    const int k = bin_of(b[i]);
#pragma omp atomic update
    bins[k] += 1;
  }
  // END TODO
}

// Step 11.3: add the pull of the tile's bodies tile[q0:q1) on this thread's
// group g of bodies_per_thread bodies. The given kernel hands each thread
// bodies_per_thread bodies of its team's 256 and, where the team has its 256
// threads, splits every tile into bodies_per_thread parts [q0, q1), one per
// thread of a group's bodies, so a team still does 256 x 256 interactions per
// tile; it adds up the parts' accelerations at the end.
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

#pragma omp end declare target

}  // namespace

// sum(), histogram() and the plain baselines (given): the team kernels.
#include "given.inc"
// nbody_step() and its plain baseline (given): the N-body team kernel.
#include "gravity.inc"

}  // namespace lesson11
