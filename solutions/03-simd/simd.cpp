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
  // SOLUTION(3.1): teams and threads share the iterations and each thread runs
  // its share in vector lanes. reduction(+) allows the reordered float sum:
  // every lane keeps a partial sum, combined once at the end.
#pragma omp target teams distribute parallel for simd reduction(+ : sum) map(to : x[0:n])
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  // END SOLUTION
  return std::sqrt(sum);
}

namespace {

// SOLUTION(3.2): compiled for the device (declare target), promised to vector
// loops (declare simd; notinbranch: never called under a condition), and float
// throughout, so 4 lanes fit in a 16-byte register. Defined here, where the
// loop can see it: clang inlines it into the vector loop.
#pragma omp declare target
#pragma omp declare simd notinbranch
float soft_clip(float x) { return x / std::sqrt(1.0f + x * x); }
#pragma omp end declare target
// END SOLUTION

}  // namespace

void soft_clip_all(int n, const float *x, float *y) {
  // SOLUTION(3.3): the same combined construct as 3.1; elementwise, so no
  // reduction, and each lane calls soft_clip on its own element.
#pragma omp target teams distribute parallel for simd map(to : x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; ++i) y[i] = soft_clip(x[i]);
  // END SOLUTION
}

void record_owners(int n, int teams, int threads, int chunk, Owner *owner) {
  // SOLUTION(3.4): num_teams and thread_limit bound the league and the team
  // (the device may grant fewer); dist_schedule deals chunks of `chunk`
  // iterations to the teams in turn, and a chunk size of 1 in the schedule
  // deals each chunk out one iteration per thread: neighbouring threads run
  // neighbouring iterations, by OpenMP's rules rather than a compiler's
  // default. (LLVM 19's host device breaks this in teams of one thread: README.)
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(threads) \
    dist_schedule(static, chunk) schedule(static, 1) map(from : owner[0:n])
  for (int i = 0; i < n; ++i)
    owner[i] = {omp_get_team_num(), omp_get_thread_num(), omp_get_num_teams(), omp_get_num_threads()};
  // END SOLUTION
}

// This file's path as it was compiled (yours, or the copy a build made of
// it): the tests compile it again to ask the compiler what it made of it.
const char *source_file() { return __BASE_FILE__; }

}  // namespace lesson3
