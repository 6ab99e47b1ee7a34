// Lesson 3 -- SIMD vectorization: make every device thread use the vector
// lanes of the core it runs on. On the host-offload device target regions run
// on CPU cores, where one SSE instruction works on 4 floats; on an NVIDIA GPU
// `simd` maps to nothing (one lane per thread) and must at least cost nothing.
// Three steps, each a marked block below:
//   3.1 a float reduction:  `target teams distribute parallel for simd reduction(+:...)`
//   3.2 a small function called from a vector loop: `declare simd`, 4-byte arithmetic
//   3.3 the elementwise loop that calls it, on the device, with `simd`
// Run `ctest --preset student -L lesson3` from the repository root after each
// step (it rebuilds your code first). README.md shows how to read the
// compiler's own account of what it vectorized (-Rpass=loop-vectorize).
#include <cmath>

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

}  // namespace lesson3
