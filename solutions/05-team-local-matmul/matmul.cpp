// Lesson 5 -- team-local memory: copy tiles of A and B into memory that all
// threads of a team share (GPU shared memory), so that each value is read from
// device memory once per tile instead of once per product. Three steps, each a
// marked block below:
//   5.1 tiles:    fill the team-local tiles cooperatively, whatever the
//                 number of threads the runtime granted
//   5.2 barriers: wait until the tiles are full before reading them, and until
//                 everyone is done with them before they are overwritten
//   5.3 final:    the register-tile product inside the course's fastest matmul
// Run `ctest --preset student -L lesson5` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include <omp.h>

#include <cstddef>

#include "matmul.hpp"

namespace lesson5 {

// SNIPPET(tiled)
template <int T>
void matmul_tiled(int n, const float *A, const float *B, float *C) {
  const int per_row = (n + T - 1) / T, tiles = per_row * per_row;
  const std::size_t nn = (std::size_t)n * n;
#pragma omp target teams num_teams(tiles) thread_limit(T * T) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  {
    // Declared in the teams region, outside the parallel region: one copy per
    // team, shared by the team's threads. On a GPU this is shared memory; on
    // the host device it is the team's stack. As and Bs hold the current
    // tiles of A and B; Cs the running sums of this team's tile of C (a thread
    // may own several elements, see below).
    float As[T][T], Bs[T][T], Cs[T][T];
#pragma omp parallel num_threads(T * T)
    {
      // The runtime may grant fewer than T*T threads (the host device gives 1
      // or 2), so every loop over the tile's elements strides by the threads
      // actually granted.
      const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
      for (int t = omp_get_team_num(); t < tiles; t += omp_get_num_teams()) {
        const int i0 = (t / per_row) * T, j0 = (t % per_row) * T;
        for (int e = tid; e < T * T; e += nth) Cs[e / T][e % T] = 0;
        for (int k0 = 0; k0 < n; k0 += T) {
          // SOLUTION(5.1): each thread copies its share of both tiles; zeros
          // past the matrix edge let the product loop ignore the edge.
          for (int e = tid; e < T * T; e += nth) {
            const int r = e / T, c = e % T;
            As[r][c] = (i0 + r < n && k0 + c < n) ? A[(std::size_t)(i0 + r) * n + k0 + c] : 0.f;
            Bs[r][c] = (k0 + r < n && j0 + c < n) ? B[(std::size_t)(k0 + r) * n + j0 + c] : 0.f;
          }
          // END SOLUTION
          // SOLUTION(5.2): nobody reads the tiles before every thread has
          // written its share.
#pragma omp barrier
          // END SOLUTION
          for (int e = tid; e < T * T; e += nth) {
            const int r = e / T, c = e % T;
            float sum = Cs[r][c];
            // T products, all from the fast team-local copies.
            for (int k = 0; k < T; ++k) sum += As[r][k] * Bs[k][c];
            Cs[r][c] = sum;
          }
          // SOLUTION(5.2): nobody overwrites the tiles (next k0) while a
          // slower thread still multiplies from them.
#pragma omp barrier
          // END SOLUTION
        }
        for (int e = tid; e < T * T; e += nth) {
          const int r = e / T, c = e % T;
          if (i0 + r < n && j0 + c < n) C[(std::size_t)(i0 + r) * n + j0 + c] = Cs[r][c];
        }
      }
    }
  }
}
// END SNIPPET

template void matmul_tiled<2>(int, const float *, const float *, float *);
template void matmul_tiled<4>(int, const float *, const float *, float *);
template void matmul_tiled<8>(int, const float *, const float *, float *);
template void matmul_tiled<16>(int, const float *, const float *, float *);
template void matmul_tiled<32>(int, const float *, const float *, float *);

// ---------------------------------------------------------------------------
// The final kernel: team tiles + register tiles.
// ---------------------------------------------------------------------------
namespace {

// The tiles of the final kernel (given): BM x BN team tiles, BK deep, RM x RN
// register tiles, Vec4, TileA/TileB, row_of/col_of.
#include "final_shape.inc"

// SNIPPET(multiply)
// acc += (this thread's 8 rows of As) x (its 8 columns of Bs), over the BK-deep
// tiles: per k, 4 Vec4 loads feed 64 multiply-adds whose sums stay in registers.
// always_inline: a call would pass acc through memory, and every index into
// acc must be a compile-time constant for acc to live in registers.
[[gnu::always_inline]] inline void multiply_tiles(float (&acc)[RM][RN], const TileA &As, const TileB &Bs, int ty,
                                                  int tx) {
  // SOLUTION(5.3): per k, load the thread's 8 A values and 8 B values as Vec4,
  // then the 8 x 8 outer product. Fully unrolled: constant indices only.
#pragma omp unroll full
  for (int k = 0; k < BK; ++k) {
    float a[RM], b[RN];
#pragma omp unroll full
    for (int g = 0; g < RM / 4; ++g) {
      const Vec4 v = As[k][g * TY + ty];
      for (int r = 0; r < 4; ++r) a[g * 4 + r] = v.v[r];
    }
#pragma omp unroll full
    for (int g = 0; g < RN / 4; ++g) {
      const Vec4 v = Bs[k][g * TX + tx];
      for (int c = 0; c < 4; ++c) b[g * 4 + c] = v.v[c];
    }
#pragma omp unroll full
    for (int r = 0; r < RM; ++r)
#pragma omp unroll full
      for (int c = 0; c < RN; ++c) acc[r][c] += a[r] * b[c];
  }
  // END SOLUTION
}
// END SNIPPET

}  // namespace

// The final kernel around multiply_tiles (given; read it at step 5.3, after 5.1
// and 5.2): matmul_exact, matmul_any_threads, matmul.
#include "final_kernels.inc"

}  // namespace lesson5
