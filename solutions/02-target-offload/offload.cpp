// Lesson 2 -- target offload and data mapping: move loops to the device and
// decide what crosses between host and device memory. Four steps, each a
// marked block below:
//   2.1 add_exp:   a loop on the device, `target teams distribute parallel for`, map(to:/from:)
//   2.2 matmul:    one device thread per element of C with collapse(2)
//   2.3 heat:      keep data on the device across many kernels: `target data`, `target update`
//   2.4 normalize: hand device memory to a library that takes device addresses: `use_device_ptr`
// Run `ctest --preset student -L lesson2` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "devlib.hpp"  // the device library of step 2.4 (given)
#include "offload.hpp"

namespace lesson2 {

void add_exp(int n, const float *first, const float *second, float *result) {
  // SNIPPET(add-exp-head)
  // SOLUTION(2.1): one combined construct runs the loop on the device; the
  // maps copy the inputs in and only the result out (nothing is copied to
  // `result` on the way in: its old contents do not matter).
  // The rest is launch shape, for GPUs (the host device ignores it): each
  // iteration handles kPerThread elements `rows` apart and loads all of them
  // before storing any, so every thread has 2 x kPerThread loads in flight
  // while neighbouring threads still touch neighbouring addresses; teams of
  // 256 threads. On an H200 this shape moved 3073 GB/s and the runtime's
  // default 1246 GB/s; against the vendor's own copy (cuMemcpyDtoD) that is
  // 71-89 % by size and GPU (README, "Going further: launch shape").
  constexpr int kThreads = 256, kPerThread = 4;
  const int rows = (n + kPerThread - 1) / kPerThread;
  // END SNIPPET
  // SNIPPET(add-exp-loop)
#pragma omp target teams distribute parallel for thread_limit(kThreads) map(to : first[0:n], second[0:n]) \
    map(from : result[0:n])
  for (int r = 0; r < rows; ++r) {
    float a[kPerThread], b[kPerThread];
    for (int e = 0; e < kPerThread; ++e) {
      const int i = r + e * rows;
      a[e] = i < n ? first[i] : 0.f;
      b[e] = i < n ? second[i] : 0.f;
    }
    for (int e = 0; e < kPerThread; ++e) {
      const int i = r + e * rows;
      if (i < n) result[i] = a[e] + std::exp(b[e]);
    }
  }
  // END SOLUTION
  // END SNIPPET
}

void matmul(int n, const float *A, const float *B, float *C) {
  // SOLUTION(2.2): the (i, j) loops collapsed into one space of n*n
  // iterations spread over teams and threads; each iteration owns C[i][j],
  // so no two threads write the same element.
  const std::size_t nn = (std::size_t)n * n;
#pragma omp target teams distribute parallel for collapse(2) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < n; ++k) sum += A[(std::size_t)i * n + k] * B[(std::size_t)k * n + j];
      C[(std::size_t)i * n + j] = sum;
    }
  // END SOLUTION
}

// sweep(): one heat step on the device (given; read it before step 2.3).
#include "sweep.inc"

void heat(int nx, int ny, int steps, float *u, int every, const HeatObserver &observe) {
  const std::size_t n = (std::size_t)nx * ny;
  std::vector<float> other_grid(u, u + n);  // the second grid needs u's fixed boundary
  float *other = other_grid.data();
  float *cur = u, *next = other;
  // SOLUTION(2.3): both grids stay on the device for the whole loop: u goes
  // in and comes back once (tofrom), the second grid only goes in (it carries
  // the boundary). Observers get a host copy refreshed with `target update`;
  // if the last step wrote the second grid, a device-side copy moves it into
  // u before the region ends and copies u back.
#pragma omp target data map(tofrom : u[0:n]) map(to : other[0:n])
  {
    for (int s = 1; s <= steps; ++s) {
      sweep(nx, ny, cur, next);
      std::swap(cur, next);
      if (every > 0 && s % every == 0 && observe) {
#pragma omp target update from(cur[0:n])
        observe(s, cur);
      }
    }
    if (cur != u) {
#pragma omp target teams distribute parallel for map(to : cur[0:n]) map(tofrom : u[0:n])
      for (std::size_t i = 0; i < n; ++i) u[i] = cur[i];
    }
  }
  // END SOLUTION
}

void normalize(int n, float *v) {
  // SOLUTION(2.4): the region maps v once, tofrom: the library reads it and
  // rewrites it, and the host needs the result. use_device_ptr makes v,
  // inside the region, hold the device address of that mapped copy (the
  // conversion happens after the region's maps), which is what the
  // library's is_device_ptr kernels expect. Both calls work on the same
  // device copy; nothing is copied between them.
#pragma omp target data map(tofrom : v[0:n]) use_device_ptr(v)
  {
    const float length = devlib::norm2(n, v);
    devlib::scale(n, 1.f / length, v);
  }
  // END SOLUTION
}

}  // namespace lesson2
