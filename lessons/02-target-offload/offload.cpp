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
  // TODO(2.1): this loop runs on the host. Run it on the device, its
  // iterations spread over teams of device threads: look up the combined
  // construct `target teams distribute parallel for`. Then say with `map`
  // clauses which arrays travel, and which way: which does the device only
  // read, and which does the host need back? (A bare pointer in a map clause
  // maps only the pointer: look up array sections.)
  // (Going further, for GPUs: the launch shape. See README.md.)
  for (int i = 0; i < n; ++i) result[i] = first[i] + std::exp(second[i]);
  // END TODO
  // END SNIPPET
}

void matmul(int n, const float *A, const float *B, float *C) {
  // TODO(2.2): offload this matmul with one device thread per element of C.
  // The i loop alone gives only n iterations, far too few to fill a GPU: look
  // up the `collapse` clause. Map as in 2.1 (how many elements does an n x n
  // matrix hold?); the k loop stays inside one thread. Why?
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < n; ++k) sum += A[(std::size_t)i * n + k] * B[(std::size_t)k * n + j];
      C[(std::size_t)i * n + j] = sum;
    }
  // END TODO
}

// sweep(): one heat step on the device (given; read it before step 2.3).
#include "sweep.inc"

void heat(int nx, int ny, int steps, float *u, int every, const HeatObserver &observe) {
  const std::size_t n = (std::size_t)nx * ny;
  std::vector<float> other_grid(u, u + n);  // the second grid needs u's fixed boundary
  float *other = other_grid.data();
  float *cur = u, *next = other;
  // TODO(2.3): every sweep() copies both grids to the device and back: three
  // grid copies per step, for a kernel that reads and writes each cell once.
  // Keep both grids on the device for the whole loop:
  //   - wrap the loop in `#pragma omp target data map(...)` for u and other
  //     (what must go in? what must come out at the end?); sweep()'s maps then
  //     find the grids present and copy nothing;
  //   - before observe() reads the host copy, refresh it from the device
  //     with `#pragma omp target update from(...)`;
  //   - the last step may leave the answer in `other` on the device: the host
  //     copy of `other` is stale there. Get the final grid into u correctly.
  for (int s = 1; s <= steps; ++s) {
    sweep(nx, ny, cur, next);
    std::swap(cur, next);
    if (every > 0 && s % every == 0 && observe) observe(s, cur);
  }
  if (cur != u) std::copy(cur, cur + n, u);
  // END TODO
}

void normalize(int n, float *v) {
  // TODO(2.4): do this with the device library of devlib.hpp instead of host
  // loops: devlib::norm2, then devlib::scale. Its functions take DEVICE
  // addresses (their kernels use the pointer as given: is_device_ptr), so
  // passing v itself, a host address, is wrong even where it seems to work.
  //   - keep v on the device for both calls with `target data` (which way
  //     must it travel?);
  //   - inside, get v's device address (look up `use_device_ptr`: it needs
  //     v already mapped) and hand that to the library.
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += (double)v[i] * v[i];
  const float inverse = (float)(1 / std::sqrt(sum));
  for (int i = 0; i < n; ++i) v[i] *= inverse;
  // END TODO
}

}  // namespace lesson2
