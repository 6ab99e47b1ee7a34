// escape_hatch.cpp -- the escape hatch, to read (README, Concepts 5): lesson
// 11's sum and histogram as LLVM's `ompx_bare` kernels, CUDA's model in
// OpenMP syntax; the lesson program times them beside your streaming.cpp on
// GPUs. Not OpenMP: an LLVM extension (clang 17 and later), which GCC and
// NVIDIA's nvc++ reject (AMD's compiler is built on LLVM and accepts it), and
// which LLVM 19 cannot run on its host-offload device (its host fallback of a
// bare region crashed here).
// What it buys: no parallel region, so no outlined function that receives
// the team's bins through a generic pointer; the bins are a `.shared` array
// and each count is one `atom.shared.add` (ptxas shows it; README, "The
// escape hatch").
// Its sibling clause `ompx_attribute(...)` hands a CUDA attribute to an
// otherwise standard kernel (LLVM only too), but not all of it: clang 19
// turns `launch_bounds(threads, teams_per_sm)` into `.maxntid threads` alone
// and drops the second argument (no `.minnctapersm` in the PTX).
#include "escape_hatch.hpp"

#include <omp.h>

#include "streaming.hpp"

#ifdef COURSE_DEVICE_GPU
#include <ompx.h>

#include <cstdint>

namespace lesson11_bare {
namespace {
constexpr int kThreads = 256;
int teams_for(int per_sm) {
  const int sms = course::device_info().multiprocessors;
  return (sms > 0 ? sms : 64) * per_sm;
}
}  // namespace

bool available() { return true; }

float sum(const float *x, std::size_t n) {
  float total = 0;
  const int teams = teams_for(16);
  // SNIPPET(bare-sum)
#pragma omp target teams ompx_bare num_teams(teams) thread_limit(kThreads) map(to : x[0:n]) map(tofrom : total)
  {
    const std::size_t gid = std::size_t(ompx_block_id_x()) * kThreads + ompx_thread_id_x();
    const std::size_t grid = std::size_t(ompx_grid_dim_x()) * kThreads;
    // Quads from the first 16-byte boundary of x; the head and tail one by one.
    const std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(x) % 16) % 16 / 4;
    const std::size_t quads = n > head ? (n - head) / 4 : 0;
    const lesson11::Quad *q = reinterpret_cast<const lesson11::Quad *>(x + (head < n ? head : n));
    float s = 0;
    for (std::size_t i = gid; i < n; i += grid)
      if (i < head || i >= head + 4 * quads) s += x[i];
    lesson11::Quad p0{}, p1{}, p2{}, p3{};
    std::size_t i = gid;
    for (; i + 3 * grid < quads; i += 4 * grid) {
      const lesson11::Quad a0 = q[i], a1 = q[i + grid], a2 = q[i + 2 * grid], a3 = q[i + 3 * grid];
      for (int l = 0; l < 4; ++l) {
        p0.v[l] += a0.v[l];
        p1.v[l] += a1.v[l];
        p2.v[l] += a2.v[l];
        p3.v[l] += a3.v[l];
      }
    }
    for (; i < quads; i += grid)
      for (int l = 0; l < 4; ++l) p0.v[l] += q[i].v[l];
    for (int l = 0; l < 4; ++l) s += (p0.v[l] + p1.v[l]) + (p2.v[l] + p3.v[l]);
    // A warp combines its 32 partials through registers (shuffles), then
    // one lane per warp adds to the total: 8 atomics per team.
    for (int d = 16; d > 0; d /= 2) s += ompx_shfl_down_sync_f(~0ul, s, d, 32);
    if (ompx_thread_id_x() % 32 == 0) {
#pragma omp atomic update
      total += s;
    }
  }
  // END SNIPPET
  return total;
}

void histogram(const float *x, std::size_t n, int *hist) {
  const int teams = teams_for(8);
  // SNIPPET(bare-histogram)
#pragma omp target teams ompx_bare num_teams(teams) thread_limit(kThreads) map(to : x[0:n]) \
    map(tofrom : hist[0:lesson11::hist_bins])
  {
    // One per team: `.shared` on NVIDIA, LDS on AMD. Uninitialized (zeroed
    // below): AMD's team memory can hold no initial value, and a static is
    // zero-initialized unless clang is told otherwise.
    [[clang::loader_uninitialized]] static int bins[lesson11::hist_bins];
#pragma omp allocate(bins) allocator(omp_pteam_mem_alloc)
    const int tid = ompx_thread_id_x();
    for (int b = tid; b < lesson11::hist_bins; b += kThreads) bins[b] = 0;
    ompx_sync_block_acq_rel();
    // END SNIPPET
    const std::size_t gid = std::size_t(ompx_block_id_x()) * kThreads + tid;
    const std::size_t grid = std::size_t(ompx_grid_dim_x()) * kThreads;
    const std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(x) % 16) % 16 / 4;
    const std::size_t quads = n > head ? (n - head) / 4 : 0;
    const lesson11::Quad *q = reinterpret_cast<const lesson11::Quad *>(x + (head < n ? head : n));
    for (std::size_t i = gid; i < n; i += grid)
      if (i < head || i >= head + 4 * quads) {
        const int k = lesson11::bin_of(x[i]);
#pragma omp atomic update
        bins[k] += 1;
      }
    std::size_t i = gid;
    for (; i + grid < quads; i += 2 * grid) {
      const lesson11::Quad a0 = q[i], a1 = q[i + grid];
      int k[8];
      for (int l = 0; l < 4; ++l) {
        k[l] = lesson11::bin_of(a0.v[l]);
        k[4 + l] = lesson11::bin_of(a1.v[l]);
      }
      for (int l = 0; l < 8; ++l) {
#pragma omp atomic update
        bins[k[l]] += 1;
      }
    }
    for (; i < quads; i += grid)
      for (int l = 0; l < 4; ++l) {
        const int k = lesson11::bin_of(q[i].v[l]);
#pragma omp atomic update
        bins[k] += 1;
      }
    ompx_sync_block_acq_rel();
    for (int b = tid; b < lesson11::hist_bins; b += kThreads)
      if (bins[b] != 0) {
#pragma omp atomic update
        hist[b] += bins[b];
      }
  }
}

}  // namespace lesson11_bare

#else  // the host-offload device: no bare kernels

namespace lesson11_bare {
bool available() { return false; }
float sum(const float *, std::size_t) { return 0; }
void histogram(const float *, std::size_t, int *) {}
}  // namespace lesson11_bare

#endif
