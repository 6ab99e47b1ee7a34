// Lesson 3 -- SIMD vectorization: make every device thread use the vector
// lanes of the core it runs on. On the host-offload device target regions run
// on CPU cores, where one SSE or NEON instruction works on 4 floats; on an NVIDIA
// GPU clang maps `simd` to nothing (LLVM's choice), so there it must cost nothing.
// Four steps, each a marked block below:
//   3.1 a float reduction:  `target teams distribute parallel for simd reduction(+:...)`
//   3.2 a small function called from a vector loop: `declare simd`, 4-byte arithmetic
//   3.3 the elementwise loop that calls it, on the device, with `simd`
//   3.4 the bridge to lesson 4: say which team and thread run which iteration
// After each step: `ctest --preset student -L lesson3`; README.md: the -Rpass remarks.
#include <cmath>
#include <omp.h>

#include "simd.hpp"

namespace lesson3 {

float norm(int n, const float *x) {
  float sum = 0;
  // TODO(3.1): this is lesson 1's kind of loop: host threads, one element per
  // instruction. Move it to the device as in lesson 2, with a combined
  // construct that also puts each thread's iterations into vector lanes (look
  // up `simd` as the last part of that construct). Two questions: which way
  // must x travel, and what keeps `sum` right once lanes add at the same time?
  // Without permission to reorder, the compiler keeps float additions in
  // source order, one after the other, and cannot spread them over lanes.
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  // END TODO
  return std::sqrt(sum);
}

namespace {

// TODO(3.2): the small function every element goes through. Two things:
// (a) make it callable from a vector loop on the device: look up
// `declare target` (compile it for the device) and `declare simd` (every lane
// calls it with its own x); (b) the 4-byte rule: something on the line below
// is computed in double, so a 16-byte register holds 2 lanes instead of 4
// (the compiler's remark: "floating point conversion changes vector width").
// Find it.
float soft_clip(float x) { return x / std::sqrt(1.0 + x * x); }
// END TODO

}  // namespace

void soft_clip_all(int n, const float *x, float *y) {
  // TODO(3.3): run this loop on the device with vector lanes, as in 3.1. There
  // is no sum this time, but x and y travel in different directions.
#pragma omp parallel for
  for (int i = 0; i < n; ++i) y[i] = soft_clip(x[i]);
  // END TODO
}

void record_owners(int n, int teams, int threads, int chunk, Owner *owner) {
  // TODO(3.4): who runs iteration i is left to the implementation here (on
  // the host device LLVM gives each thread a block of iterations). Make it
  // the assignment simd.hpp describes, with four clauses on this construct:
  // two that bound the league and the team (at most `teams` teams of at most
  // `threads` threads), and two that deal out the iterations: chunks of
  // `chunk` to the teams in turn (look up `dist_schedule`), and inside a
  // chunk one iteration per thread in turn (look up `schedule` and its chunk
  // size). README: "How the device runs a loop".
  (void)teams, (void)threads, (void)chunk;  // unused until your clauses use them
#pragma omp target teams distribute parallel for map(from : owner[0:n])
  for (int i = 0; i < n; ++i)
    owner[i] = {omp_get_team_num(), omp_get_thread_num(), omp_get_num_teams(), omp_get_num_threads()};
  // END TODO
}

// This file's path as it was compiled (yours, or the copy a build made of
// it): the tests compile it again to ask the compiler what it made of it.
const char *source_file() { return __BASE_FILE__; }

}  // namespace lesson3
