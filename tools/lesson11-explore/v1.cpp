// Double-buffered team-local tiles, BK = 8: one barrier per k-tile; the
// buffer index is a compile-time constant (the k loop unrolled by two).
#include "lesson11_gemm_shared.hpp"
#include <omp.h>
#include <ompx.h>
namespace lesson11 { namespace {
#pragma omp begin declare target
#ifndef BKV
#define BKV 8
#endif
#ifndef DYN
#define DYN 0
#endif
constexpr int R = 16, BK = BKV, TY = 16, TX = 16, BM = 256, BN = 128, T = 256;
using TA = Vec4[BK][BM / 4 + 1];
using TB = Vec4[BK][BN / 4];
constexpr int NA4 = BM * BK / 4, NB4 = BK * BN / 4, A4 = (NA4 + T - 1) / T, B4 = (NB4 + T - 1) / T;
// field by field: a struct copy would be a memcpy, two 8-byte loads
inline Vec4 ld4(const float *p) { const Vec4 *v = reinterpret_cast<const Vec4 *>(p); return Vec4{{v->v[0], v->v[1], v->v[2], v->v[3]}}; }
struct Stage {
  Vec4 a[A4], b[B4];
  template <bool Edge = true>
  void fetch(int n, const float *A, const float *B, int i0, int j0, int k0, int tid) {
    if constexpr (!Edge) {
#pragma omp unroll full
      for (int q = 0; q < A4; ++q) { const int e = tid + q * T, r = e / (BK / 4), c = e % (BK / 4) * 4; const float *p = static_cast<const float *>(__builtin_assume_aligned(A + static_cast<std::size_t>(i0 + r) * n + k0 + c, 16)); for (int l = 0; l < 4; ++l) a[q].v[l] = p[l]; }
#pragma omp unroll full
      for (int q = 0; q < B4; ++q) { const int e = tid + q * T, r = e / (BN / 4), c = e % (BN / 4) * 4; const float *p = static_cast<const float *>(__builtin_assume_aligned(B + static_cast<std::size_t>(k0 + r) * n + j0 + c, 16)); for (int l = 0; l < 4; ++l) b[q].v[l] = p[l]; }
      return;
    }
#pragma omp unroll full
    for (int q = 0; q < A4; ++q) { const int e = tid + q * T, r = e / (BK / 4), c = e % (BK / 4) * 4; if (NA4 % T == 0 || e < NA4) a[q] = load4<true>(A, n, i0 + r, k0 + c); }
#pragma omp unroll full
    for (int q = 0; q < B4; ++q) { const int e = tid + q * T, r = e / (BN / 4), c = e % (BN / 4) * 4; if (NB4 % T == 0 || e < NB4) b[q] = load4<true>(B, n, k0 + r, j0 + c); }
  }
  void store(TA &As, TB &Bs, int tid) const {
#pragma omp unroll full
    for (int q = 0; q < A4; ++q) { const int e = tid + q * T, r = e / (BK / 4), c = e % (BK / 4) * 4; if (NA4 % T == 0 || e < NA4) for (int l = 0; l < 4; ++l) As[c + l][r / 4].v[r % 4] = a[q].v[l]; }
#pragma omp unroll full
    for (int q = 0; q < B4; ++q) { const int e = tid + q * T; if (NB4 % T == 0 || e < NB4) Bs[e / (BN / 4)][e % (BN / 4)] = b[q]; }
  }
};
[[gnu::always_inline]] inline void mul(float (&acc)[R][8], const TA &As, const TB &Bs, int ty, int tx) {
#pragma omp unroll full
  for (int k = 0; k < BK; ++k) {
    float a[R], b[8];
#pragma omp unroll full
    for (int g = 0; g < R / 4; ++g) { const Vec4 v = As[k][g * TY + ty]; for (int l = 0; l < 4; ++l) a[4 * g + l] = v.v[l]; }
#pragma omp unroll full
    for (int g = 0; g < 2; ++g) { const Vec4 v = Bs[k][g * TX + tx]; for (int l = 0; l < 4; ++l) b[4 * g + l] = v.v[l]; }
#pragma omp unroll full
    for (int r = 0; r < R; ++r)
#pragma omp unroll full
      for (int c = 0; c < 8; ++c) acc[r][c] += a[r] * b[c];
  }
}
#pragma omp end declare target
}
#ifndef VNAME
#define VNAME v1
#endif
#ifndef WL
#define WL 0
#endif
#ifndef NOEDGE
#define NOEDGE 0
#endif
bool VNAME(int n, const float *A, const float *B, float *C) {
  const int per_row = (n + BN - 1) / BN, tiles = ((n + BM - 1) / BM) * per_row;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  int granted = T;
#if DYN
#pragma omp target teams num_teams(tiles) thread_limit(T) map(present, to : A[0:nn], B[0:nn]) map(present, from : C[0:nn]) map(tofrom : granted) ompx_dyn_cgroup_mem(2 * (sizeof(TA) + sizeof(TB)))
#else
#pragma omp target teams num_teams(tiles) thread_limit(T) map(present, to : A[0:nn], B[0:nn]) map(present, from : C[0:nn]) map(tofrom : granted)
#endif
  {
#if DYN
    char *dyn = static_cast<char *>(llvm_omp_target_dynamic_shared_alloc());
    TA &As0 = *reinterpret_cast<TA *>(dyn), &As1 = *reinterpret_cast<TA *>(dyn + sizeof(TA));
    TB &Bs0 = *reinterpret_cast<TB *>(dyn + 2 * sizeof(TA)), &Bs1 = *reinterpret_cast<TB *>(dyn + 2 * sizeof(TA) + sizeof(TB));
#else
    TA As0, As1; TB Bs0, Bs1;
#pragma omp allocate(As0, As1, Bs0, Bs1) allocator(omp_pteam_mem_alloc)
#endif
#pragma omp parallel num_threads(T)
    {
      const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
      if (nth != T) { if (tid == 0) {
#pragma omp atomic write
          granted = nth; }
      } else {
        // WL: cuBLAS's warp shape, 4 x 2 warps of 4 x 8 lanes (each warp a 64 x 64 block of C)
        const int w = tid / 32, l = tid % 32;
        const int ty = WL ? (w / 2) * 4 + l / 8 : tid / TX, tx = WL ? (w % 2) * 8 + l % 8 : tid % TX;
        for (int t = omp_get_team_num(); t < tiles; t += omp_get_num_teams()) {
          const int i0 = (t / per_row) * BM, j0 = (t % per_row) * BN;
          float acc[R][8] = {};
          Stage s;
          s.fetch<!NOEDGE>(n, A, B, i0, j0, 0, tid);
          s.store(As0, Bs0, tid);
#pragma omp barrier
          for (int k0 = 0; k0 < n; k0 += 2 * BK) {
            s.fetch<!NOEDGE>(n, A, B, i0, j0, k0 + BK, tid);  // k0 + BK < n: n % 16 == 0
            mul(acc, As0, Bs0, ty, tx);
            s.store(As1, Bs1, tid);
#pragma omp barrier
            s.fetch<!NOEDGE>(n, A, B, i0, j0, NOEDGE && k0 + 2 * BK >= n ? 0 : k0 + 2 * BK, tid);  // past the end: any tile, unused
            mul(acc, As1, Bs1, ty, tx);
            s.store(As0, Bs0, tid);
#pragma omp barrier
          }
#pragma omp unroll full
          for (int r = 0; r < R; ++r)
#pragma omp unroll full
            for (int c = 0; c < 8; ++c) {
              const int i = i0 + GemmShape<R>::row_of(ty, r), j = j0 + GemmShape<R>::col_of(tx, c);
              if (NOEDGE) { if (c % 4 == 0) { Vec4 *o = reinterpret_cast<Vec4 *>(C + static_cast<std::size_t>(i) * n + j); o->v[0] = acc[r][c]; o->v[1] = acc[r][c + 1]; o->v[2] = acc[r][c + 2]; o->v[3] = acc[r][c + 3]; } }
              else if (i < n && j < n) C[static_cast<std::size_t>(i) * n + j] = acc[r][c];
            }
        }
      }
    }
  }
  return granted == T;
}
}
