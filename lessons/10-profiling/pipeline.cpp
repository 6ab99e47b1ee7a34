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
  // TODO(10.1): LIBOMPTARGET_INFO=16 on a GPU says this kernel runs in
  // "Generic" mode (on any machine, the compiler remarks in README.md say
  // why). Make it one SPMD kernel: every thread of every team busy from the
  // start, the whole rows x cols grid handed out at once. The warning about a
  // zero weight can be printed by the host, which has coef too.
#pragma omp target teams distribute map(to : coef[0:nc], x[0:n]) map(from : y[0:n])
  for (int r = 0; r < rows; ++r) {
    // The team's first thread works out the row's weight alone...
    float w = 0.f;
    for (int k = 0; k < coefs_per_row; ++k) w += coef[r * coefs_per_row + k];
    if (w == 0.f) {
#if !defined(__AMDGPU__)  // AMD: no device printf without ROCm's device library (Debian has none)
      printf("normalize: row %d has weight 0, left unscaled\n", r);
#endif
      w = 1.f;
    }
    // ...then wakes the team's other threads for this one row.
#pragma omp parallel for
    for (int c = 0; c < cols; ++c) y[(std::size_t)r * cols + c] = x[(std::size_t)r * cols + c] / w;
  }
  // END TODO
}

void blur(int rows, int cols, const float *in, float *out) {
  // TODO(10.3): LIBOMPTARGET_INFO=16 prints one kernel launch per row here,
  // each with only `cols` iterations of work. Launch one kernel for the
  // whole grid.
  for (int r = 0; r < rows; ++r) {
    const float *src = in + (std::size_t)r * cols;
    float *dst = out + (std::size_t)r * cols;
#pragma omp target teams distribute parallel for map(to : src[0:cols]) map(from : dst[0:cols])
    for (int c = 0; c < cols; ++c)
      dst[c] = (src[c > 0 ? c - 1 : 0] + src[c] + src[c + 1 < cols ? c + 1 : cols - 1]) / 3.f;
  }
  // END TODO
}

void run(int rows, int cols, int steps, const float *coef, float *grid) {
  const std::size_t n = (std::size_t)rows * cols;
  const int nc = rows * coefs_per_row;
  std::vector<float> scratch(n);  // normalize()'s output, blur()'s input
  float *tmp = scratch.data();
  // TODO(10.2): LIBOMPTARGET_INFO=32 (or the LIBOMPTARGET_PROFILE timeline)
  // shows every step copying grid and tmp to the device and back, and coef
  // in. Which of those copies does the answer need, and how often?
  for (int s = 0; s < steps; ++s) {
#pragma omp target data map(tofrom : grid[0:n], tmp[0:n]) map(to : coef[0:nc])
    {
      normalize(rows, cols, coef, grid, tmp);
      blur(rows, cols, tmp, grid);
    }
  }
  // END TODO
}

const char *source_file() { return __FILE__; }

}  // namespace lesson10
