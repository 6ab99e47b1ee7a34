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
  // SOLUTION(11.1): four Vec16 in flight per thread (64 bytes: 16 floats or
  // ints, 8 doubles), added into four Vec16 partials: independent chains of
  // adds. The elements before b's first 16-byte boundary and after its last
  // whole Vec16 are added one by one, by the first threads.
  constexpr unsigned L = Vec16<T>::lanes;
  const auto addr = reinterpret_cast<std::uintptr_t>(b);
  const unsigned head = addr % sizeof(T) != 0 ? len : static_cast<unsigned>((16 - addr % 16) % 16 / sizeof(T));
  T s = 0;
  if (head >= len) {  // too short for a Vec16, or not even aligned to its own type
    for (unsigned i = tid; i < len; i += nth) s += b[i];
    return s;
  }
  const Vec16<T> *q = reinterpret_cast<const Vec16<T> *>(b + head);
  const unsigned quads = (len - head) / L;
  for (unsigned i = tid; i < head; i += nth) s += b[i];
  for (unsigned i = head + L * quads + tid; i < len; i += nth) s += b[i];
  // END SNIPPET
  // SNIPPET(thread-sum-vec16)
  Vec16<T> p0{}, p1{}, p2{}, p3{};
  unsigned i = tid;
  for (; i + 3 * nth < quads; i += 4 * nth) {
    const Vec16<T> a0 = q[i], a1 = q[i + nth], a2 = q[i + 2 * nth], a3 = q[i + 3 * nth];
    for (unsigned l = 0; l < L; ++l) {
      p0.v[l] += a0.v[l];
      p1.v[l] += a1.v[l];
      p2.v[l] += a2.v[l];
      p3.v[l] += a3.v[l];
    }
  }
  for (; i < quads; i += nth)
    for (unsigned l = 0; l < L; ++l) p0.v[l] += q[i].v[l];
  for (unsigned l = 0; l < L; ++l) s += (p0.v[l] + p1.v[l]) + (p2.v[l] + p3.v[l]);
  return s;
  // END SOLUTION
  // END SNIPPET
}

// Step 11.2: count this thread's share of a team's block b[0:len) into the
// team's bins (team-local memory, shared by the team's threads).
void thread_count(const float *b, unsigned len, unsigned tid, unsigned nth, int *bins) {
  // SNIPPET(thread-count-edges)
  // SOLUTION(11.2): two Quads (8 samples) loaded per thread before the
  // first of their 8 atomics; the head and tail one by one, as in 11.1.
  const auto addr = reinterpret_cast<std::uintptr_t>(b);
  const unsigned head = addr % 4 != 0 ? len : static_cast<unsigned>((16 - addr % 16) % 16 / 4);
  const unsigned quads = head >= len ? 0 : (len - head) / 4;
  const unsigned before = quads == 0 ? len : head;  // counted one by one before the Quads
  const unsigned after = quads == 0 ? len : head + 4 * quads;  // and from here on
  for (unsigned i = tid; i < before; i += nth) {
    const int k = bin_of(b[i]);
#pragma omp atomic update
    bins[k] += 1;
  }
  for (unsigned i = after + tid; i < len; i += nth) {
    const int k = bin_of(b[i]);
#pragma omp atomic update
    bins[k] += 1;
  }
  // END SNIPPET
  // SNIPPET(thread-count-quads)
  const Quad *q = reinterpret_cast<const Quad *>(b + head);
  unsigned i = tid;
  for (; i + nth < quads; i += 2 * nth) {
    const Quad a0 = q[i], a1 = q[i + nth];
    int k[8];
    for (int l = 0; l < 4; ++l) {
      k[l] = bin_of(a0.v[l]);
      k[4 + l] = bin_of(a1.v[l]);
    }
    for (int l = 0; l < 8; ++l) {
#pragma omp atomic update
      bins[k[l]] += 1;
    }
  }
  for (; i < quads; i += nth)
    for (int l = 0; l < 4; ++l) {
      const int k = bin_of(q[i].v[l]);
#pragma omp atomic update
      bins[k] += 1;
    }
  // END SOLUTION
  // END SNIPPET
}

#pragma omp end declare target

}  // namespace

// sum() and histogram() (given): the team kernels with your functions inside.
#include "streaming.inc"

}  // namespace lesson11
