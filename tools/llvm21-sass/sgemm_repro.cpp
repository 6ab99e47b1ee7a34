// sgemm_repro.cpp -- an OpenMP target SGEMM (C = A B, n x n, row-major) in the
// shape of a CUDA shared-memory kernel: a team of 16 x 16 threads computes a
// 256 x 128 tile of C, each thread a 16 x 8 register tile, from 16-deep tiles
// of A (transposed) and B staged in team-local memory; the next tiles' global
// loads are issued before the barrier. clang 19 keeps n in a register; clang 21
// keeps the team's scalars (n, tiles, per_row) in shared memory and reloads n
// after each barrier of the k loop. -DFIX: firstprivate(n, tiles, per_row) on
// the parallel and an assumption that tid < 256.
#include <omp.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct alignas(16) V4 { float v[4]; };
constexpr int RM = 16, RN = 8, TY = 16, TX = 16, NT = TY * TX, BM = RM * TY, BN = RN * TX, BK = 16;
constexpr int A4 = BM * BK / 4 / NT, B4 = BK * BN / 4 / NT;  // Vec4 per thread per tile: 4 and 2

#pragma omp begin declare target
static inline V4 load4(const float *M, int n, int row, int col) {
  if (row >= n || col >= n) return V4{{0.f, 0.f, 0.f, 0.f}};
  return *reinterpret_cast<const V4 *>(M + static_cast<size_t>(row) * n + col);
}
#pragma omp end declare target

void sgemm(int n, const float *A, const float *B, float *C) {  // n % 128 == 0, 16-byte aligned
  const int per_row = n / BN, tiles = (n / BM) * per_row;
  const size_t nn = static_cast<size_t>(n) * n;
#pragma omp target teams num_teams(tiles) thread_limit(NT) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  {
    V4 As[BK][BM / 4 + 1], Bs[BK][BN / 4];
#pragma omp allocate(As, Bs) allocator(omp_pteam_mem_alloc)
#ifdef FIX
#pragma omp parallel num_threads(NT) firstprivate(n, tiles, per_row)
#else
#pragma omp parallel num_threads(NT)
#endif
    {
      const int tid = omp_get_thread_num();
#ifdef FIX
      __builtin_assume(tid >= 0 && tid < NT);
#endif
      const int ty = tid / TX, tx = tid % TX;
      for (int t = omp_get_team_num(); t < tiles; t += omp_get_num_teams()) {
        const int i0 = (t / per_row) * BM, j0 = (t % per_row) * BN;
        float acc[RM][RN] = {};
        V4 a[A4], b[B4];
        auto fetch = [&](int k0) {
#pragma unroll
          for (int q = 0; q < A4; ++q) { const int e = tid + q * NT; a[q] = load4(A, n, i0 + e / 4, k0 + e % 4 * 4); }
#pragma unroll
          for (int q = 0; q < B4; ++q) { const int e = tid + q * NT; b[q] = load4(B, n, k0 + e / 32, j0 + e % 32 * 4); }
        };
        fetch(0);
        for (int k0 = 0; k0 < n; k0 += BK) {
#pragma unroll
          for (int q = 0; q < A4; ++q) {  // A transposed into As[k][row / 4].v[row % 4]
            const int e = tid + q * NT, r = e / 4, c = e % 4 * 4;
#pragma unroll
            for (int l = 0; l < 4; ++l) As[c + l][r / 4].v[r % 4] = a[q].v[l];
          }
#pragma unroll
          for (int q = 0; q < B4; ++q) { const int e = tid + q * NT; Bs[e / 32][e % 32] = b[q]; }
          fetch(k0 + BK);  // next tiles' loads before the barrier
#pragma omp barrier
#pragma unroll
          for (int k = 0; k < BK; ++k) {
            float x[RM], y[RN];
#pragma unroll
            for (int g = 0; g < RM / 4; ++g) { const V4 v = As[k][g * TY + ty]; for (int l = 0; l < 4; ++l) x[4 * g + l] = v.v[l]; }
#pragma unroll
            for (int g = 0; g < RN / 4; ++g) { const V4 v = Bs[k][g * TX + tx]; for (int l = 0; l < 4; ++l) y[4 * g + l] = v.v[l]; }
#pragma unroll
            for (int r = 0; r < RM; ++r)
#pragma unroll
              for (int c = 0; c < RN; ++c) acc[r][c] += x[r] * y[c];
          }
#pragma omp barrier
        }
#pragma unroll
        for (int r = 0; r < RM; ++r)
#pragma unroll
          for (int c = 0; c < RN; ++c)
            C[static_cast<size_t>(i0 + r / 4 * 4 * TY + ty * 4 + r % 4) * n + j0 + c / 4 * 4 * TX + tx * 4 + c % 4] = acc[r][c];
      }
    }
  }
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096, reps = 20;
  if (n % 256 != 0) { std::fprintf(stderr, "n must be a multiple of 256\n"); return 2; }
  const size_t nn = static_cast<size_t>(n) * n;
  std::vector<float> A(nn), B(nn), C(nn);
  unsigned s = 12345;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return static_cast<float>(s >> 8) / 16777216.f - 0.5f; };
  for (auto &v : A) v = rnd();
  for (auto &v : B) v = rnd();
  float *a = A.data(), *b = B.data(), *c = C.data();
  std::vector<double> ms;
#pragma omp target data map(to : a[0:nn], b[0:nn]) map(alloc : c[0:nn])
  {
    for (int r = 0; r < reps + 1; ++r) {  // the first call (image load) is not counted
      const double t0 = omp_get_wtime();
      sgemm(n, a, b, c);
      const double t1 = omp_get_wtime();
      if (r > 0) ms.push_back((t1 - t0) * 1e3);
    }
#pragma omp target update from(c[0:nn])
  }
  std::sort(ms.begin(), ms.end());
  double worst = 0;  // 64 sampled elements against double precision, relative to sum |a||b|
  for (int k = 0; k < 64; ++k) {
    const int i = (k * 977) % n, j = (k * 1453 + 7) % n;
    double ref = 0, mag = 0;
    for (int l = 0; l < n; ++l) { ref += double(A[size_t(i) * n + l]) * B[size_t(l) * n + j]; mag += std::abs(double(A[size_t(i) * n + l]) * B[size_t(l) * n + j]); }
    worst = std::max(worst, std::abs(C[size_t(i) * n + j] - ref) / mag);
  }
  const double med = ms[ms.size() / 2];
  std::printf("n %d: median of %d calls %.3f ms (%.1f TFLOP/s), worst relative error %.2e %s\n", n, reps, med,
              2.0 * n * n * double(n) / med / 1e9, worst, worst < 1e-5 ? "OK" : "WRONG");
  return worst < 1e-5 ? 0 : 1;
}
