// escape_hatch.cpp -- the escape hatch, to read (README, Concepts 5 and 8):
// lesson 11's sum, histogram and SGEMM as LLVM's `ompx_bare` kernels, CUDA's model in
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
    // END SNIPPET
    // SNIPPET(bare-sum-combine)
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

// ---- SGEMM with asynchronous copies ----------------------------------------
// Lesson 11's SGEMM shape (a 256 x 128 tile of C per team of 256 threads, a
// 16 x 8 register tile each, 8-deep k-tiles; gemm.cpp and
// reference/lesson11_gemm_shared.hpp) with what the standard kernel cannot
// say: NVIDIA's `cp.async` copies global memory straight into `.shared`,
// without registers, and the thread waits for them only when it needs them.
// So three k-tiles live in team-local memory: the one multiplied and the next
// two in flight, where the standard kernel keeps one in flight in registers.
// Every copy moves 16 bytes, so A is kept in rows (As[row][k]) and read four
// k at a time; transposing it on the way needs 4-byte copies, and those
// (measured on an H200) crowd the shared-memory pipe the multiply-adds read
// from. On anything but NVIDIA sm_80 or later the copies are plain loads and
// stores (AMD, the host pass of the compile); only GPU builds run it.
namespace {
#pragma omp begin declare target
// Declared target: device code uses them by address too (clang 19 warns otherwise).
constexpr int GM = 256, GN = 128, GK = 8, GStages = 3, GT = 256;

#if defined(__NVPTX__) && __CUDA_ARCH__ >= 800
#define LESSON11_CP_ASYNC 1
// Pointers into `.shared` (clang's address space 3 on NVPTX): their loads are
// `ld.shared`, where a generic pointer's would be generic loads.
#define TEAM __attribute__((address_space(3)))
#else
#define TEAM
#endif
typedef float Float4 __attribute__((ext_vector_type(4)));  // one 16-byte load

// The team-local address of p, through an asm the optimizer cannot see
// into. Why: the copies below write team-local memory inside asm, and clang
// 19's OpenMP optimizer, seeing no store to the arrays, folded every load
// of them away (and with them the kernel's multiply-adds).
inline TEAM float *team_pointer(float *p) {
#ifdef LESSON11_CP_ASYNC
  unsigned long long a;
  asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p));
  return (TEAM float *)a;
#else
  return p;
#endif
}
// Copies four floats from global memory to team-local memory, or four zeros
// where `inside` is false (past the matrix's edge).
inline void copy_async(TEAM float *dst, const float *src, bool inside) {
#ifdef LESSON11_CP_ASYNC
  // .cg: through L2 only (each tile is read once per team); src-size 0
  // fills zeros and reads nothing.
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"l"((unsigned long long)dst), "l"(src),
               "r"(inside ? 16 : 0)
               : "memory");
#else
  for (int l = 0; l < 4; ++l) dst[l] = inside ? src[l] : 0.f;
#endif
}
// Closes this thread's group of copies issued since the last commit.
inline void commit_copies() {
#ifdef LESSON11_CP_ASYNC
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
// Waits until at most Pending of this thread's groups are still in flight.
template <int Pending>
inline void wait_copies() {
#ifdef LESSON11_CP_ASYNC
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
#endif
}

// The tiles, as offsets in floats: As[stage][row][k] and Bs[stage][k][column].
constexpr int a_at(int s, int row, int k) { return (s * GM + row) * GK + k; }
constexpr int b_at(int s, int k, int col) { return (s * GK + k) * GN + col; }

// This thread's copies of k-tile kt (A rows i0.., B columns j0..) into stage
// s: two groups of four floats of A, one of B. Edges false: n is a multiple
// of the tiles, and only k-tiles past the last one (the pipeline's run-out)
// are outside. (The tiles travel as plain pointers: passed as arrays,
// `float (&)[N]`, clang 19's OpenMP optimizer deleted the whole kernel.)
template <bool Edges>
[[gnu::always_inline]] inline void issue_tile(TEAM float *as, TEAM float *bs, int s, int n, const float *A,
                                              const float *B, int i0, int j0, int kt, int tid) {
  const int k0 = kt * GK;
#pragma omp unroll full
  for (int q = 0; q < GM * GK / 4 / GT; ++q) {
    const int e = tid + q * GT, r = e / (GK / 4), c = e % (GK / 4) * 4;
    const bool inside = Edges ? i0 + r < n && k0 + c < n : k0 < n;
    copy_async(as + a_at(s, r, c), inside ? A + static_cast<std::size_t>(i0 + r) * n + k0 + c : A, inside);
  }
  const int r = tid / (GN / 4), c = tid % (GN / 4) * 4;
  const bool inside = Edges ? k0 + r < n && j0 + c < n : k0 < n;
  copy_async(bs + b_at(s, r, c), inside ? B + static_cast<std::size_t>(k0 + r) * n + j0 + c : B, inside);
}

// One k-tile's product for thread (ty, tx), rows and columns as in gemm.cpp:
// per four k, one Float4 of A per row, then per k two of B and 128
// multiply-adds.
[[gnu::always_inline]] inline void multiply_stage(float (&acc)[16][8], const TEAM float *as, const TEAM float *bs,
                                                  int s, int ty, int tx) {
#pragma omp unroll full
  for (int k4 = 0; k4 < GK; k4 += 4) {
    Float4 a[16];
#pragma omp unroll full
    for (int r = 0; r < 16; ++r)
      a[r] = *reinterpret_cast<const TEAM Float4 *>(as + a_at(s, (r / 4) * 64 + ty * 4 + r % 4, k4));
#pragma omp unroll full
    for (int kk = 0; kk < 4; ++kk) {
      float b[8];
#pragma omp unroll full
      for (int g = 0; g < 2; ++g) {
        const Float4 v = *reinterpret_cast<const TEAM Float4 *>(bs + b_at(s, k4 + kk, g * 64 + tx * 4));
        for (int l = 0; l < 4; ++l) b[4 * g + l] = v[l];
      }
#pragma omp unroll full
      for (int r = 0; r < 16; ++r)
#pragma omp unroll full
        for (int c = 0; c < 8; ++c) acc[r][c] += a[r][kk] * b[c];
    }
  }
}
#pragma omp end declare target
}  // namespace

namespace {
// The kernel; Edges false where n is a multiple of the team's tile. (In an
// unnamed namespace: its static tiles are then the kernel's own `.shared`;
// as weak symbols ptxas counted them for no kernel.)
template <bool Edges>
void sgemm_teams(int n, const float *A, const float *B, float *C) {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const int per_row = (n + GN - 1) / GN, tiles = ((n + GM - 1) / GM) * per_row;
  // SNIPPET(bare-sgemm)
#pragma omp target teams ompx_bare num_teams(tiles) thread_limit(GT) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  {
    [[clang::loader_uninitialized]] static float As[a_at(GStages, 0, 0)];  // 36 KB of `.shared` in all
    [[clang::loader_uninitialized]] static float Bs[b_at(GStages, 0, 0)];
#pragma omp allocate(As, Bs) allocator(omp_pteam_mem_alloc)
    TEAM float *const as = team_pointer(As), *const bs = team_pointer(Bs);
    const int tid = ompx_thread_id_x(), ty = tid / 16, tx = tid % 16;
    const int tile = ompx_block_id_x(), i0 = (tile / per_row) * GM, j0 = (tile % per_row) * GN;
    const int ktiles = (n + GK - 1) / GK;
    float acc[16][8] = {};
    issue_tile<Edges>(as, bs, 0, n, A, B, i0, j0, 0, tid);
    commit_copies();
    issue_tile<Edges>(as, bs, 1, n, A, B, i0, j0, 1, tid);
    commit_copies();
    // Three k-tiles a trip, one per stage, so that each stage's addresses are
    // constants. Per k-tile: wait for this thread's copies of it, one barrier
    // (everybody's copies have landed, and nobody still reads the stage
    // refilled next), send the copies two k-tiles ahead, multiply. Past the
    // last k-tile the copies fill zeros, which add nothing.
    for (int kt = 0; kt < ktiles; kt += GStages) {
      wait_copies<1>();
      ompx_sync_block_acq_rel();
      issue_tile<Edges>(as, bs, 2, n, A, B, i0, j0, kt + 2, tid);
      commit_copies();
      multiply_stage(acc, as, bs, 0, ty, tx);
      wait_copies<1>();
      ompx_sync_block_acq_rel();
      issue_tile<Edges>(as, bs, 0, n, A, B, i0, j0, kt + 3, tid);
      commit_copies();
      multiply_stage(acc, as, bs, 1, ty, tx);
      wait_copies<1>();
      ompx_sync_block_acq_rel();
      issue_tile<Edges>(as, bs, 1, n, A, B, i0, j0, kt + 4, tid);
      commit_copies();
      multiply_stage(acc, as, bs, 2, ty, tx);
    }
    wait_copies<0>();  // no copy still landing when the team leaves
    // END SNIPPET
    // (`omp unroll` may not stand directly in a teams region: clang's own pragma)
#pragma unroll
    for (int r = 0; r < 16; ++r)
#pragma unroll
      for (int g = 0; g < 2; ++g) {
        const int i = i0 + (r / 4) * 64 + ty * 4 + r % 4, j = j0 + g * 64 + tx * 4;
        if (i < n && j < n) {
          lesson11::Quad v;
          for (int l = 0; l < 4; ++l) v.v[l] = acc[r][4 * g + l];
          *reinterpret_cast<lesson11::Quad *>(C + static_cast<std::size_t>(i) * n + j) = v;
        }
      }
  }
}
}  // namespace

bool sgemm(int n, const float *A, const float *B, float *C) {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  if (n <= 0 || n % 4 != 0) return false;
  bool done = false;
  // As gemm.cpp's kernel: map, then test the device copies' alignment (the
  // copies move 16 bytes, the results are stored 16 at a time).
#pragma omp target data map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  {
    const int dev = omp_get_default_device();
    const auto aligned = [&](const float *p) {
      return reinterpret_cast<std::uintptr_t>(omp_get_mapped_ptr(p, dev)) % 16 == 0;
    };
    if (aligned(A) && aligned(B) && aligned(C)) {
      if (n % GM == 0 && n % GN == 0)
        sgemm_teams<false>(n, A, B, C);
      else
        sgemm_teams<true>(n, A, B, C);
      done = true;
    }
  }
  return done;
}

}  // namespace lesson11_bare

#else  // the host-offload device: no bare kernels

namespace lesson11_bare {
bool available() { return false; }
float sum(const float *, std::size_t) { return 0; }
void histogram(const float *, std::size_t, int *) {}
bool sgemm(int, const float *, const float *, float *) { return false; }
}  // namespace lesson11_bare

#endif
