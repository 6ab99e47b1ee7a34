// Lesson 11 -- matching the vendor, streaming: a sum (floats, ints, doubles)
// and a 256-bin histogram, each already split the way lesson 6 taught (team
// partials, team-local bins: the team kernels are in
// reference/lesson11_streaming_shared.hpp), to be
// taken to the level of CUB's. Both read each byte once: what is left is
// inside each thread, how many bytes it asks memory for before it needs the
// first of them. Two steps, each a marked block below:
//   11.1 thread_sum:   16-byte loads, several in flight, independent partials
//                      (one template for floats, ints and doubles)
//   11.2 thread_count: the same for the histogram's samples, before its atomics
// Steps 11.3 and 11.4 are in gravity.cpp and gemm.cpp. Run
// `ctest --preset student -L lesson11` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include "streaming.hpp"

#include <omp.h>

#include <cstddef>
#include <cstdint>

namespace lesson11 {
namespace {

#pragma omp begin declare target

// Step 11.1: this thread's share of a team's block b[0:len) of floats, ints
// or doubles: the elements tid, tid + nth, tid + 2 nth, ... added up. The
// given kernel adds the shares of a team, then the teams'.
template <class T>
T thread_sum(const T *b, unsigned len, unsigned tid, unsigned nth) {
  // SNIPPET(thread-sum-edges)
  // TODO(11.1): Have more bytes in flight per thread. Read the block as
  // Vec16<T> (16 bytes, one load instruction: four floats or ints, two
  // doubles) where b allows it, start several independent loads before the
  // first add needs one, and keep independent partial sums so no add waits
  // for the one before it. b's device address need not be a multiple of 16:
  // the elements before the first boundary, and after the last whole Vec16,
  // still count (README, Steps: 11.1).
  T s = 0;
  for (unsigned i = tid; i < len; i += nth) s += b[i];
  return s;
  // END TODO
  // END SNIPPET
}

// Step 11.2: count this thread's share of a team's block b[0:len) into the
// team's bins (team-local memory, shared by the team's threads).
void thread_count(const float *b, unsigned len, unsigned tid, unsigned nth, int *bins) {
  // SNIPPET(thread-count-edges)
  // TODO(11.2): The same for the histogram: Quad loads where b allows it,
  // and all of several loads issued before the first atomic waits on one.
  // The atomics stay: the team's threads share the bins (README, Steps: 11.2).
  for (unsigned i = tid; i < len; i += nth) {
    const int k = bin_of(b[i]);
#pragma omp atomic update
    bins[k] += 1;
  }
  // END TODO
  // END SNIPPET
}

#pragma omp end declare target

}  // namespace

// sum() and histogram() (given): the team kernels with your functions inside.
#include "streaming.inc"

}  // namespace lesson11
