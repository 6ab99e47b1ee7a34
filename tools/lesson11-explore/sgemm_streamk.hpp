// sgemm_streamk.hpp (exploration, not part of the course): what the harness
// sgemm_streamk.cpp calls in sgemm_streamk_kernel.cpp.
#pragma once

#include "lesson11_gemm_shared.hpp"

namespace lesson11 {

// Device scratch of the stream-K kernel, made once per n (and device), kept
// across calls; all zero between calls: part[t * 32768 + e] the partial sums
// of C tile t (element e = (r * 8 + c) * 256 + thread: each thread's register
// tile, neighbouring threads at neighbouring addresses), ticket[t] the k-trips
// of tile t added so far; info[0:3] the league and team size the kernel got
// and 1 where the 256-thread kernel ran, 0 where the any-thread one did
// (written every call).
struct StreamKScratch {
  float *part = nullptr;
  int *ticket = nullptr;
  int *info = nullptr;
  int n = -1, dev = -1, tiles = 0;
  long long floats = 0;  // entries of part
};

// C = A x B (n x n, row-major; A, B and C may already be on the device, C
// output only), the solution's multiply_tile in gemm_exact's k loop, the
// (tile, k-trip) work split into `teams` equal contiguous ranges
// (sgemm_streamk_kernel.cpp); with dp_waves > 0 the first dp_waves waves of
// whole tiles (at most the league's whole waves) are handed out as
// gemm_exact does and only the tiles after them are split. teams >= 1,
// dp_waves >= 0.
void streamk_gemm(int n, const float *A, const float *B, float *C, int teams, int dp_waves = 0);

// The scratch streamk_gemm uses for n (made if need be).
const StreamKScratch &streamk_scratch(int n);

}  // namespace lesson11
