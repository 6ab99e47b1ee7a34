// Lesson 10 -- profiling: this pipeline gives the right answer, slowly, for
// three reasons. Find each one with the tools before you change anything
// (README.md says which tool shows what), then fix it:
//   10.1 normalize: a kernel the GPU runs in generic mode
//   10.2 run:       copies inside the step loop that nothing needs
//   10.3 blur:      launches far too small to fill the device
// Run `ctest -L lesson10` after each step; see README.md for hints.
#include "pipeline.hpp"

#include <omp.h>

#include <cstddef>
#include <cstdio>
#include <vector>

namespace lesson10 {

void normalize(int rows, int cols, const float *coef, const float *x, float *y) {
  const std::size_t n = (std::size_t)rows * cols;
  const int nc = rows * coefs_per_row;
  // SOLUTION(10.1): no code between `teams distribute` and `parallel for`, so
  // the kernel is SPMD: one combined construct over every element. Each
  // thread adds its row's 8 weights itself (the threads of a row read the
  // same 8 floats: one cached load); the printf, a side effect the compiler
  // cannot run on every thread, moved to the host, which counts zero rows
  // with the same float sum.
  int zero_rows = 0;
  for (int r = 0; r < rows; ++r) {
    float w = 0.f;
    for (int k = 0; k < coefs_per_row; ++k) w += coef[r * coefs_per_row + k];
    zero_rows += w == 0.f;
  }
  if (zero_rows > 0) std::printf("normalize: %d rows have weight 0, left unscaled\n", zero_rows);
#pragma omp target teams distribute parallel for collapse(2) map(to : coef[0:nc], x[0:n]) map(from : y[0:n])
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      float w = 0.f;
      for (int k = 0; k < coefs_per_row; ++k) w += coef[r * coefs_per_row + k];
      if (w == 0.f) w = 1.f;
      y[(std::size_t)r * cols + c] = x[(std::size_t)r * cols + c] / w;
    }
  // END SOLUTION
}

void blur(int rows, int cols, const float *in, float *out) {
  // SOLUTION(10.3): one launch over rows x cols: rows times more work per
  // launch, and one launch's overhead instead of `rows`.
  const std::size_t n = (std::size_t)rows * cols;
#pragma omp target teams distribute parallel for collapse(2) map(to : in[0:n]) map(from : out[0:n])
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const float *src = in + (std::size_t)r * cols;
      out[(std::size_t)r * cols + c] =
          (src[c > 0 ? c - 1 : 0] + src[c] + src[c + 1 < cols ? c + 1 : cols - 1]) / 3.f;
    }
  // END SOLUTION
}

void run(int rows, int cols, int steps, const float *coef, float *grid) {
  const std::size_t n = (std::size_t)rows * cols;
  const int nc = rows * coefs_per_row;
  std::vector<float> scratch(n);  // normalize()'s output, blur()'s input
  float *tmp = scratch.data();
  // SOLUTION(10.2): one data region around the whole loop. grid goes in once
  // and comes back once; coef goes in once; tmp lives only on the device
  // (alloc: never copied). The kernels' own maps find all three present.
#pragma omp target data map(tofrom : grid[0:n]) map(alloc : tmp[0:n]) map(to : coef[0:nc])
  for (int s = 0; s < steps; ++s) {
    normalize(rows, cols, coef, grid, tmp);
    blur(rows, cols, tmp, grid);
  }
  // END SOLUTION
}

const char *source_file() { return __FILE__; }

}  // namespace lesson10
