// lesson05_team_local.cpp -- lesson 5's two spellings of team-local memory,
// the same tile-16 kernel each, so the lesson program can time them side by side.
#include "lesson05_team_local.hpp"

#include <omp.h>

#include <cstddef>

namespace course::baseline {
namespace {

constexpr int T = 16;

// The shared body: the team's threads fill As and Bs cooperatively, meet at a
// barrier, accumulate into Cs, and meet again before the next fill.
[[gnu::always_inline]] inline void tiled_team(int n, const float *A, const float *B, float *C, int per_row, int tiles, float (*As)[T],
                       float (*Bs)[T], float (*Cs)[T]) {
  const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
  for (int t = omp_get_team_num(); t < tiles; t += omp_get_num_teams()) {
    const int i0 = (t / per_row) * T, j0 = (t % per_row) * T;
    for (int e = tid; e < T * T; e += nth) Cs[e / T][e % T] = 0;
    for (int k0 = 0; k0 < n; k0 += T) {
      for (int e = tid; e < T * T; e += nth) {
        const int r = e / T, c = e % T;
        As[r][c] = (i0 + r < n && k0 + c < n) ? A[(std::size_t)(i0 + r) * n + k0 + c] : 0.f;
        Bs[r][c] = (k0 + r < n && j0 + c < n) ? B[(std::size_t)(k0 + r) * n + j0 + c] : 0.f;
      }
#pragma omp barrier
      for (int e = tid; e < T * T; e += nth) {
        const int r = e / T, c = e % T;
        float sum = Cs[r][c];
        for (int k = 0; k < T; ++k) sum += As[r][k] * Bs[k][c];
        Cs[r][c] = sum;
      }
#pragma omp barrier
    }
    for (int e = tid; e < T * T; e += nth) {
      const int r = e / T, c = e % T;
      if (i0 + r < n && j0 + c < n) C[(std::size_t)(i0 + r) * n + j0 + c] = Cs[r][c];
    }
  }
}

}  // namespace

void matmul_tiled16_teams_local(int n, const float *A, const float *B, float *C) {
  const int per_row = (n + T - 1) / T, tiles = per_row * per_row;
  const std::size_t nn = (std::size_t)n * n;
#pragma omp target teams num_teams(tiles) thread_limit(T * T) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  {
    float As[T][T], Bs[T][T], Cs[T][T];
#pragma omp parallel num_threads(T * T)
    tiled_team(n, A, B, C, per_row, tiles, As, Bs, Cs);
  }
}

void matmul_tiled16_pteam_alloc(int n, const float *A, const float *B, float *C) {
  const int per_row = (n + T - 1) / T, tiles = per_row * per_row;
  const std::size_t nn = (std::size_t)n * n;
#pragma omp target teams num_teams(tiles) thread_limit(T * T) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  {
    float As[T][T], Bs[T][T], Cs[T][T];
#pragma omp allocate(As, Bs, Cs) allocator(omp_pteam_mem_alloc)
#pragma omp parallel num_threads(T * T)
    tiled_team(n, A, B, C, per_row, tiles, As, Bs, Cs);
  }
}

}  // namespace course::baseline
