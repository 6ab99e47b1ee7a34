// matmul.cpp -- lesson 5's final matmul (solutions/05-team-local-matmul/
// matmul.cpp: lesson5::matmul, whose GPU path is matmul_exact: 128 x 128 team
// tiles, 16-deep k tiles, 8 x 8 register tiles, 256 threads, the next tiles
// fetched into registers while the current ones are multiplied, two barriers
// per k step) against cuBLAS SGEMM, and variants of the same kernel with the
// same contract (lesson5::matmul(n, A, B, C), C = A x B, row-major, any n;
// a variant that is not granted its team's threads computes nothing, returns
// false and its row says SKIP: a drop-in would fall back to the solution's
// matmul_any_threads, as lesson5::matmul does):
//   BMxBN kBK rRMxRN tT   team tile, k-tile depth, register tile, threads
//   vec     16-byte global loads of the A and B tiles and 16-byte C stores
//           (when n % 4 == 0 and the device addresses are aligned)
//   dbuf    two copies of the team-local tiles: the next tile is stored into
//           the other copy while the current one is read, one barrier per
//           k step instead of two
//   swz     tiles visited in groups of 8 tile-rows (L2 reuse of B panels)
//   lb2     launch_bounds(threads, 2): at most 128 registers, 2 teams per SM
//   pteam   the tiles in `allocate(omp_pteam_mem_alloc)` memory (always
//           shared memory); without it the compiler decides (the solution)
#include <omp.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "check.hpp"
#include "matmul.hpp"
#include "perf.hpp"

namespace perf {
namespace {

struct alignas(16) Vec4 {
  float v[4];
};

template <int BM, int BN, int BK, int RM, int RN>
struct Shape {
  static constexpr int TY = BM / RM, TX = BN / RN, THREADS = TY * TX;
  static constexpr int SHARE_A = BM * BK / THREADS, SHARE_B = BK * BN / THREADS;  // floats per thread per tile
  static constexpr int SHARE_A4 = SHARE_A / 4, SHARE_B4 = SHARE_B / 4;            // as Vec4
  static_assert(RM % 4 == 0 && RN % 4 == 0, "register tiles are groups of 4");
  static_assert(BM * BK % THREADS == 0 && BK * BN % THREADS == 0, "tiles split evenly over threads");
  static_assert(SHARE_A % 4 == 0 && SHARE_B % 4 == 0 && BK % 4 == 0, "vector loads split evenly");
  using TileA = Vec4[BK][BM / 4 + 1];  // transposed, each k-row padded by one Vec4 (banks)
  using TileB = Vec4[BK][BN / 4];
  static constexpr int row_of(int ty, int r) { return (r / 4) * 4 * TY + ty * 4 + r % 4; }
  static constexpr int col_of(int tx, int c) { return (c / 4) * 4 * TX + tx * 4 + c % 4; }
};

// The register-tile product of one k tile (the solution's multiply_tiles, any shape).
template <class S, int BK, int RM, int RN>
[[gnu::always_inline]] inline void multiply(float (&acc)[RM][RN], const typename S::TileA &As,
                                            const typename S::TileB &Bs, int ty, int tx) {
#pragma unroll
  for (int k = 0; k < BK; ++k) {
    float a[RM], b[RN];
#pragma unroll
    for (int g = 0; g < RM / 4; ++g) {
      const Vec4 v = As[k][g * S::TY + ty];
#pragma unroll
      for (int r = 0; r < 4; ++r) a[g * 4 + r] = v.v[r];
    }
#pragma unroll
    for (int g = 0; g < RN / 4; ++g) {
      const Vec4 v = Bs[k][g * S::TX + tx];
#pragma unroll
      for (int c = 0; c < 4; ++c) b[g * 4 + c] = v.v[c];
    }
#pragma unroll
    for (int r = 0; r < RM; ++r)
#pragma unroll
      for (int c = 0; c < RN; ++c) acc[r][c] += a[r] * b[c];
  }
}

// This thread's share of the A and B tiles at depth k0, into registers.
template <class S, int BM, int BN, int BK, bool VEC>
[[gnu::always_inline]] inline void fetch(int n, const float *A, const float *B, int i0, int j0, int k0, int tid,
                                         bool vec_ok, float (&a)[S::SHARE_A], float (&b)[S::SHARE_B]) {
  if (VEC && vec_ok) {
#pragma unroll
    for (int q = 0; q < S::SHARE_A4; ++q) {
      const int e = tid + q * S::THREADS, r = e / (BK / 4), c = (e % (BK / 4)) * 4;
      Vec4 v = {{0.f, 0.f, 0.f, 0.f}};
      if (i0 + r < n && k0 + c < n) v = *reinterpret_cast<const Vec4 *>(A + (std::size_t)(i0 + r) * n + k0 + c);
#pragma unroll
      for (int l = 0; l < 4; ++l) a[q * 4 + l] = v.v[l];
    }
#pragma unroll
    for (int q = 0; q < S::SHARE_B4; ++q) {
      const int e = tid + q * S::THREADS, r = e / (BN / 4), c = (e % (BN / 4)) * 4;
      Vec4 v = {{0.f, 0.f, 0.f, 0.f}};
      if (k0 + r < n && j0 + c < n) v = *reinterpret_cast<const Vec4 *>(B + (std::size_t)(k0 + r) * n + j0 + c);
#pragma unroll
      for (int l = 0; l < 4; ++l) b[q * 4 + l] = v.v[l];
    }
  } else {
#pragma unroll
    for (int q = 0; q < S::SHARE_A; ++q) {
      const int e = tid + q * S::THREADS, r = e / BK, c = e % BK;
      a[q] = (i0 + r < n && k0 + c < n) ? A[(std::size_t)(i0 + r) * n + k0 + c] : 0.f;
    }
#pragma unroll
    for (int q = 0; q < S::SHARE_B; ++q) {
      const int e = tid + q * S::THREADS, r = e / BN, c = e % BN;
      b[q] = (k0 + r < n && j0 + c < n) ? B[(std::size_t)(k0 + r) * n + j0 + c] : 0.f;
    }
  }
}

// Registers -> team-local tiles (A transposed), with the element order fetch used.
template <class S, int BM, int BN, int BK, bool VEC>
[[gnu::always_inline]] inline void store(typename S::TileA &As, typename S::TileB &Bs, int tid, bool vec_ok,
                                         const float (&a)[S::SHARE_A], const float (&b)[S::SHARE_B]) {
  if (VEC && vec_ok) {
#pragma unroll
    for (int q = 0; q < S::SHARE_A4; ++q) {
      const int e = tid + q * S::THREADS, r = e / (BK / 4), c = (e % (BK / 4)) * 4;
#pragma unroll
      for (int l = 0; l < 4; ++l) As[c + l][r / 4].v[r % 4] = a[q * 4 + l];
    }
#pragma unroll
    for (int q = 0; q < S::SHARE_B4; ++q) {
      const int e = tid + q * S::THREADS, r = e / (BN / 4), c4 = e % (BN / 4);
      Bs[r][c4] = Vec4{{b[q * 4], b[q * 4 + 1], b[q * 4 + 2], b[q * 4 + 3]}};
    }
  } else {
#pragma unroll
    for (int q = 0; q < S::SHARE_A; ++q) {
      const int e = tid + q * S::THREADS, r = e / BK, c = e % BK;
      As[c][r / 4].v[r % 4] = a[q];
    }
#pragma unroll
    for (int q = 0; q < S::SHARE_B; ++q) {
      const int e = tid + q * S::THREADS, r = e / BN, c = e % BN;
      Bs[r][c / 4].v[c % 4] = b[q];
    }
  }
}

// The body every thread of a team runs (granted exactly S::THREADS threads).
template <int BM, int BN, int BK, int RM, int RN, bool VEC, bool DBUF, bool SWZ, class S = Shape<BM, BN, BK, RM, RN>>
[[gnu::always_inline]] inline void team_body(int n, const float *A, const float *B, float *C, typename S::TileA *As,
                                             typename S::TileB *Bs, int tid) {
  const int per_row = (n + BN - 1) / BN, per_col = (n + BM - 1) / BM, tiles = per_row * per_col;
  const int ty = tid / S::TX, tx = tid % S::TX;
  const bool vec_ok = VEC && n % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C);
  for (int t = omp_get_team_num(); t < tiles; t += omp_get_num_teams()) {
    int ti = t / per_row, tj = t % per_row;
    if (SWZ) {  // groups of 8 tile-rows, walked column by column
      constexpr int G = 8;
      const int group = t / (G * per_row), first = group * G;
      const int rows = per_col - first < G ? per_col - first : G;
      ti = first + (t % (G * per_row)) % rows;
      tj = (t % (G * per_row)) / rows;
    }
    const int i0 = ti * BM, j0 = tj * BN;
    float acc[RM][RN] = {};
    float a_next[S::SHARE_A], b_next[S::SHARE_B];
    fetch<S, BM, BN, BK, VEC>(n, A, B, i0, j0, 0, tid, vec_ok, a_next, b_next);
    if (DBUF) {
      store<S, BM, BN, BK, VEC>(As[0], Bs[0], tid, vec_ok, a_next, b_next);
#pragma omp barrier
      int cur = 0;
      for (int k0 = 0; k0 < n; k0 += BK) {
        const bool more = k0 + BK < n;
        if (more) fetch<S, BM, BN, BK, VEC>(n, A, B, i0, j0, k0 + BK, tid, vec_ok, a_next, b_next);
        multiply<S, BK, RM, RN>(acc, As[cur], Bs[cur], ty, tx);
        // The other copy was last read before the previous barrier: free to fill.
        if (more) store<S, BM, BN, BK, VEC>(As[cur ^ 1], Bs[cur ^ 1], tid, vec_ok, a_next, b_next);
#pragma omp barrier
        cur ^= 1;
      }
    } else {
      for (int k0 = 0; k0 < n; k0 += BK) {
        store<S, BM, BN, BK, VEC>(As[0], Bs[0], tid, vec_ok, a_next, b_next);
#pragma omp barrier
        if (k0 + BK < n) fetch<S, BM, BN, BK, VEC>(n, A, B, i0, j0, k0 + BK, tid, vec_ok, a_next, b_next);
        multiply<S, BK, RM, RN>(acc, As[0], Bs[0], ty, tx);
#pragma omp barrier
      }
    }
#pragma unroll
    for (int r = 0; r < RM; ++r) {
      const int i = i0 + S::row_of(ty, r);
      if (vec_ok) {
#pragma unroll
        for (int g = 0; g < RN / 4; ++g) {
          const int j = j0 + S::col_of(tx, g * 4);
          if (i < n && j < n)
            *reinterpret_cast<Vec4 *>(C + (std::size_t)i * n + j) =
                Vec4{{acc[r][g * 4], acc[r][g * 4 + 1], acc[r][g * 4 + 2], acc[r][g * 4 + 3]}};
        }
      } else {
#pragma unroll
        for (int c = 0; c < RN; ++c) {
          const int j = j0 + S::col_of(tx, c);
          if (i < n && j < n) C[(std::size_t)i * n + j] = acc[r][c];
        }
      }
    }
  }
}

// One variant: the kernel with its clauses; false (nothing computed) when the
// runtime did not grant the team's threads.
template <int BM, int BN, int BK, int RM, int RN, bool VEC, bool DBUF, bool SWZ, bool PTEAM, int MINB>
bool matmul_variant(int n, const float *A, const float *B, float *C) {
  using S = Shape<BM, BN, BK, RM, RN>;
  constexpr int T = S::THREADS, NB = DBUF ? 2 : 1;
  const int tiles = ((n + BM - 1) / BM) * ((n + BN - 1) / BN);
  const std::size_t nn = (std::size_t)n * n;
  int granted = T;
#define PERF_MM_BODY                                                                       \
  {                                                                                        \
    typename S::TileA As[NB];                                                              \
    typename S::TileB Bs[NB];                                                              \
    PERF_MM_ALLOC                                                                          \
    _Pragma("omp parallel num_threads(T)") {                                               \
      const int nth = omp_get_num_threads(), tid = omp_get_thread_num();                   \
      if (nth != T) {                                                                      \
        if (tid == 0) {                                                                    \
          _Pragma("omp atomic write") granted = nth;                                       \
        }                                                                                  \
      } else {                                                                             \
        team_body<BM, BN, BK, RM, RN, VEC, DBUF, SWZ>(n, A, B, C, As, Bs, tid);            \
      }                                                                                    \
    }                                                                                      \
  }
#if defined(__NVPTX__)
#define PERF_MM_ALLOC _Pragma("omp allocate(As, Bs) allocator(omp_pteam_mem_alloc)")
#else
#define PERF_MM_ALLOC
#endif
  // launch_bounds takes literals: clang 19 crashes on template-dependent
  // arguments inside ompx_attribute.
  static_assert(MINB == 0 || (T == 256 && (MINB == 2 || MINB == 3)), "launch_bounds variants: 256 threads, 2 or 3");
  if constexpr (MINB == 2) {
#pragma omp target teams num_teams(tiles) thread_limit(T) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn]) \
    map(tofrom : granted) ompx_attribute(__attribute__((launch_bounds(256, 2))))
    PERF_MM_BODY
  } else if constexpr (MINB == 3) {
#pragma omp target teams num_teams(tiles) thread_limit(T) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn]) \
    map(tofrom : granted) ompx_attribute(__attribute__((launch_bounds(256, 3))))
    PERF_MM_BODY
  } else if constexpr (PTEAM) {
#pragma omp target teams num_teams(tiles) thread_limit(T) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn]) \
    map(tofrom : granted)
    PERF_MM_BODY
  } else {
#undef PERF_MM_ALLOC
#define PERF_MM_ALLOC
#pragma omp target teams num_teams(tiles) thread_limit(T) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn]) \
    map(tofrom : granted)
    PERF_MM_BODY
  }
#undef PERF_MM_ALLOC
#undef PERF_MM_BODY
  return granted == T;
}

struct MatmulVariant {
  std::string name;
  std::function<bool(int, const float *, const float *, float *)> run;
};

std::vector<MatmulVariant> matmul_variants() {
  std::vector<MatmulVariant> v;
  v.push_back({"current solution (lesson5::matmul)", [](int n, const float *A, const float *B, float *C) {
                 lesson5::matmul(n, A, B, C);
                 return true;
               }});
  // name: team tile, k depth, register tile, threads, flags
  v.push_back({"128x128 k16 r8x8 t256 (solution's schedule, no pteam)",
               matmul_variant<128, 128, 16, 8, 8, false, false, false, false, 0>});
  v.push_back({"128x128 k16 r8x8 t256 pteam", matmul_variant<128, 128, 16, 8, 8, false, false, false, true, 0>});
  v.push_back({"128x128 k16 r8x8 t256 vec", matmul_variant<128, 128, 16, 8, 8, true, false, false, true, 0>});
  v.push_back({"128x128 k16 r8x8 t256 dbuf", matmul_variant<128, 128, 16, 8, 8, false, true, false, true, 0>});
  v.push_back({"128x128 k16 r8x8 t256 vec dbuf", matmul_variant<128, 128, 16, 8, 8, true, true, false, true, 0>});
  v.push_back({"128x128 k16 r8x8 t256 vec dbuf swz", matmul_variant<128, 128, 16, 8, 8, true, true, true, true, 0>});
  v.push_back({"128x128 k16 r8x8 t256 vec dbuf lb2", matmul_variant<128, 128, 16, 8, 8, true, true, false, true, 2>});
  v.push_back({"128x128 k8 r8x8 t256 vec dbuf", matmul_variant<128, 128, 8, 8, 8, true, true, false, true, 0>});
  v.push_back({"128x128 k8 r8x8 t256 vec", matmul_variant<128, 128, 8, 8, 8, true, false, false, true, 0>});
  v.push_back({"128x128 k32 r8x8 t256 vec", matmul_variant<128, 128, 32, 8, 8, true, false, false, true, 0>});
  v.push_back({"64x64 k16 r4x4 t256 vec dbuf", matmul_variant<64, 64, 16, 4, 4, true, true, false, true, 0>});
  v.push_back({"128x64 k16 r8x4 t256 vec dbuf", matmul_variant<128, 64, 16, 8, 4, true, true, false, true, 0>});
  v.push_back({"64x128 k16 r4x8 t256 vec dbuf", matmul_variant<64, 128, 16, 4, 8, true, true, false, true, 0>});
  v.push_back({"128x128 k16 r8x4 t512 vec dbuf", matmul_variant<128, 128, 16, 8, 4, true, true, false, true, 0>});
  v.push_back({"256x128 k16 r8x8 t512 vec", matmul_variant<256, 128, 16, 8, 8, true, false, false, true, 0>});
  v.push_back({"128x256 k16 r8x8 t512 vec", matmul_variant<128, 256, 16, 8, 8, true, false, false, true, 0>});
  v.push_back({"128x64 k16 r8x4 t256 vec dbuf lb3", matmul_variant<128, 64, 16, 8, 4, true, true, false, true, 3>});
  return v;
}

// Reference entries in double: (value, sum of |a_ik b_kj|) for the error bound.
std::pair<double, double> entry(int n, const std::vector<float> &A, const std::vector<float> &B, int i, int j) {
  double s = 0, m = 0;
  for (int k = 0; k < n; ++k) {
    const double p = (double)A[(std::size_t)i * n + k] * B[(std::size_t)k * n + j];
    s += p;
    m += std::fabs(p);
  }
  return {s, m};
}

// Checks C at the given (i, j): |c - ref| <= 1e-5 sqrt(n) sum|a b| + 1e-30.
Verdict check_entries(int n, const std::vector<float> &A, const std::vector<float> &B, const float *C,
                      const std::vector<std::pair<int, int>> &at, const std::string &what) {
  const std::size_t bad = first_bad(at.size(), [&](std::size_t q) {
    const auto [i, j] = at[q];
    const auto [s, m] = entry(n, A, B, i, j);
    const double c = C[(std::size_t)i * n + j];
    return !(std::fabs(c - s) <= 1e-5 * std::sqrt((double)n) * m + 1e-30);
  });
  if (bad == at.size()) return {};
  const auto [i, j] = at[bad];
  return {false, what + ": n " + std::to_string(n) + ", C[" + std::to_string(i) + "][" + std::to_string(j) +
                     "]: expected " + std::to_string(entry(n, A, B, i, j).first) + ", got " +
                     std::to_string(C[(std::size_t)i * n + j])};
}

// Entries to check: all of them for small n, else every tile edge region and a random sample.
std::vector<std::pair<int, int>> entries(int n) {
  std::vector<std::pair<int, int>> at;
  if ((std::size_t)n * n <= 300u * 300u) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) at.push_back({i, j});
    return at;
  }
  for (int q = 0; q < 4096; ++q)
    at.push_back({static_cast<int>(mix(2 * q) % n), static_cast<int>(mix(2 * q + 1) % n)});
  for (int e : {0, 1, 3, 4, 7, 8, 63, 64, 127, 128, 255, 256})  // tile and register-tile edges
    for (int f : {0, 5, 63, 64, 127, 128, 129}) {
      if (e < n && f < n) {
        at.push_back({e, f});
        at.push_back({n - 1 - e, n - 1 - f});
      }
    }
  return at;
}

struct Problem {
  int n;
  std::vector<float> A, B, C;
  explicit Problem(int n_) : n(n_), A((std::size_t)n_ * n_), B(A.size()), C(A.size()) {
    fill_parallel(A, [](std::size_t i) { return 2.f * unit_float(5, i) - 1.f; });
    fill_parallel(B, [](std::size_t i) { return 2.f * unit_float(6, i) - 1.f; });
  }
};

}  // namespace

void run_matmul(const Options &o, Ceilings &c, Recorder &rec) {
  // The timed size, and a small odd size every variant must also get right
  // (not a multiple of any tile; n % 4 != 0 takes the scalar-load path).
  const int n = o.tiny ? 130 : 4096, n_edge = o.tiny ? 67 : 257;
  Problem P(n), E(n_edge);
  const auto at = entries(n), at_edge = entries(n_edge);
  const std::size_t nn = (std::size_t)n * n, ne = (std::size_t)n_edge * n_edge;
  float *A = P.A.data(), *B = P.B.data(), *C = P.C.data();
  float *EA = E.A.data(), *EB = E.B.data(), *EC = E.C.data();
  const double flops = 2.0 * n * (double)n * n;
#pragma omp target enter data map(to : A[0:nn], B[0:nn], EA[0:ne], EB[0:ne]) map(alloc : C[0:nn], EC[0:ne])
  {  // cuBLAS SGEMM: the vendor's ceiling, verified like the variants.
    std::string why;
    Times t;
    poison_device(C, nn, poison_value<float>());
#pragma omp target data use_device_ptr(A, B, C)
    t = vendor_sgemm(n, A, B, C, o.reps, o.warmup, why, o.cublas);
    if (t.median_ms > 0) {
#pragma omp target update from(C[0:nn])
      const Row r = make_row(rec, "ceiling", "cuBLAS SGEMM (FP32, CUBLAS_DEFAULT_MATH)", std::to_string(n), t, flops,
                             "GFLOP/s", 0, check_entries(n, P.A, P.B, C, at, "cuBLAS"));
      if (r.ok == "ok") c.sgemm_gflops = r.rate;
    } else {
      rec.note("cuBLAS SGEMM skipped: " + why);
    }
  }
  const double ceiling = c.sgemm_gflops > 0 ? c.sgemm_gflops : c.fp32_peak_gflops;
  rec.note(std::string("matmul pct_of_ceiling: % of ") + (c.sgemm_gflops > 0 ? "cuBLAS SGEMM" : "FP32 peak"));
  for (const auto &v : matmul_variants()) {
    // The small odd size first (correctness only), then the timed size.
    poison_device(EC, ne, poison_value<float>());
    if (!v.run(n_edge, EA, EB, EC)) {
      // A team was granted fewer threads than the variant needs (the host
      // device grants 1-2): the variant computed nothing.
      rec.add({"matmul", v.name, std::to_string(n), 0, 0, 0, "GFLOP/s", 0, "SKIP"});
      rec.note("SKIP matmul / " + v.name + ": a team was granted fewer threads than the variant needs");
      continue;
    }
#pragma omp target update from(EC[0:ne])
    Verdict verdict = check_entries(n_edge, E.A, E.B, EC, at_edge, v.name);
    poison_device(C, nn, poison_value<float>());
    bool ran = true;
    const Times t = time_it([&] { ran = v.run(n, A, B, C) && ran; }, o.reps, o.warmup);
#pragma omp target update from(C[0:nn])
    if (verdict.ok) verdict = check_entries(n, P.A, P.B, C, at, v.name);
    if (!ran) verdict = {false, v.name + ": a team was granted fewer threads at n " + std::to_string(n)};
    make_row(rec, "matmul", v.name, std::to_string(n), t, flops, "GFLOP/s", ceiling, verdict);
  }
#pragma omp target exit data map(delete : A[0:nn], B[0:nn], C[0:nn], EA[0:ne], EB[0:ne], EC[0:ne])
}

}  // namespace perf
