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

// SNIPPET(shape)
constexpr int BM = final_team_tile, BN = final_team_tile;          // C tile of a team: 128 x 128
constexpr int BK = 16;                                             // depth of the A and B tiles
constexpr int RM = final_register_tile, RN = final_register_tile;  // C block of a thread: 8 x 8
constexpr int TY = BM / RM, TX = BN / RN, THREADS = TY * TX;       // 16 x 16 = 256 threads
constexpr int SHARE_A = BM * BK / THREADS, SHARE_B = BK * BN / THREADS;  // values each thread loads per tile

// Four floats that travel together: a tile made of Vec4 lets one instruction
// read four neighbouring values (a 16-byte shared-memory load on a GPU).
struct alignas(16) Vec4 {
  float v[4];
};

// The A tile is stored transposed, As[k][row], so the 8 rows a thread needs at
// one k are two Vec4; each k-row is padded by one Vec4 so that the transposing
// stores of neighbouring threads fall into different memory banks.
using TileA = Vec4[BK][BM / 4 + 1];
using TileB = Vec4[BK][BN / 4];

// Thread (ty, tx) owns rows 4ty..4ty+3 and 64+4ty..64+4ty+3 of the team's C
// tile, and likewise columns: two groups of four, so that the 16 threads along
// a row of the thread grid read 16 consecutive Vec4 (no bank conflicts).
constexpr int row_of(int ty, int r) { return (r / 4) * 4 * TY + ty * 4 + r % 4; }
constexpr int col_of(int tx, int c) { return (c / 4) * 4 * TX + tx * 4 + c % 4; }
// END SNIPPET

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

// SNIPPET(exact)
// The kernel for a team of exactly THREADS threads (GPUs): each thread owns one
// register tile whose sums stay in registers for the whole k loop, loads a fixed
// share of each tile, and fetches the next tiles into registers while it
// multiplies the current ones. Returns false, having computed nothing, when the
// runtime granted another number of threads.
bool matmul_exact(int n, const float *A, const float *B, float *C) {
  const int per_row = (n + BN - 1) / BN, tiles = ((n + BM - 1) / BM) * per_row;
  const std::size_t nn = (std::size_t)n * n;
  int granted = THREADS;
#pragma omp target teams num_teams(tiles) thread_limit(THREADS) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn]) \
    map(tofrom : granted)
  {
    TileA As;  // team-local, like the tiles of matmul_tiled
    TileB Bs;
#pragma omp parallel num_threads(THREADS)
    {
      const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
      if (nth != THREADS) {
        if (tid == 0) {
#pragma omp atomic write
          granted = nth;
        }
      } else {
        const int ty = tid / TX, tx = tid % TX;
        for (int t = omp_get_team_num(); t < tiles; t += omp_get_num_teams()) {
          const int i0 = (t / per_row) * BM, j0 = (t % per_row) * BN;
          float acc[RM][RN] = {};
          // This thread's share of the next A and B tiles, on its way from
          // device memory: element q is tile element tid + q * THREADS, so 16
          // neighbouring threads read 16 consecutive floats of a row.
          float a_next[SHARE_A], b_next[SHARE_B];
          for (int k0 = 0; k0 < n; k0 += BK) {
            if (k0 == 0) {
#pragma omp unroll full
              for (int q = 0; q < SHARE_A; ++q) {
                const int e = tid + q * THREADS, r = e / BK, c = e % BK;
                a_next[q] = (i0 + r < n && c < n) ? A[(std::size_t)(i0 + r) * n + c] : 0.f;
              }
#pragma omp unroll full
              for (int q = 0; q < SHARE_B; ++q) {
                const int e = tid + q * THREADS, r = e / BN, c = e % BN;
                b_next[q] = (r < n && j0 + c < n) ? B[(std::size_t)r * n + j0 + c] : 0.f;
              }
            }
#pragma omp unroll full
            for (int q = 0; q < SHARE_A; ++q) {
              const int e = tid + q * THREADS, r = e / BK, c = e % BK;
              As[c][r / 4].v[r % 4] = a_next[q];
            }
#pragma omp unroll full
            for (int q = 0; q < SHARE_B; ++q) {
              const int e = tid + q * THREADS, r = e / BN, c = e % BN;
              Bs[r][c / 4].v[c % 4] = b_next[q];
            }
#pragma omp barrier
            // Start loading the next tiles now; the loads complete while this
            // thread multiplies (double buffering through registers).
            const int k1 = k0 + BK;
            if (k1 < n) {
#pragma omp unroll full
              for (int q = 0; q < SHARE_A; ++q) {
                const int e = tid + q * THREADS, r = e / BK, c = e % BK;
                a_next[q] = (i0 + r < n && k1 + c < n) ? A[(std::size_t)(i0 + r) * n + k1 + c] : 0.f;
              }
#pragma omp unroll full
              for (int q = 0; q < SHARE_B; ++q) {
                const int e = tid + q * THREADS, r = e / BN, c = e % BN;
                b_next[q] = (k1 + r < n && j0 + c < n) ? B[(std::size_t)(k1 + r) * n + j0 + c] : 0.f;
              }
            }
            multiply_tiles(acc, As, Bs, ty, tx);
#pragma omp barrier
          }
#pragma omp unroll full
          for (int r = 0; r < RM; ++r) {
            const int i = i0 + row_of(ty, r);
#pragma omp unroll full
            for (int c = 0; c < RN; ++c) {
              const int j = j0 + col_of(tx, c);
              if (i < n && j < n) C[(std::size_t)i * n + j] = acc[r][c];
            }
          }
        }
      }
    }
  }
  return granted == THREADS;
}
// END SNIPPET

}  // namespace

// SNIPPET(any)
void matmul_any_threads(int n, const float *A, const float *B, float *C) {
  const int per_row = (n + BN - 1) / BN, tiles = ((n + BM - 1) / BM) * per_row;
  const std::size_t nn = (std::size_t)n * n;
#pragma omp target teams num_teams(tiles) thread_limit(THREADS) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  {
    TileA As;
    TileB Bs;
#pragma omp parallel num_threads(THREADS)
    {
      const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
      for (int t = omp_get_team_num(); t < tiles; t += omp_get_num_teams()) {
        const int i0 = (t / per_row) * BM, j0 = (t % per_row) * BN;
        for (int k0 = 0; k0 < n; k0 += BK) {
          for (int e = tid; e < BM * BK; e += nth) {
            const int r = e / BK, c = e % BK;
            As[c][r / 4].v[r % 4] = (i0 + r < n && k0 + c < n) ? A[(std::size_t)(i0 + r) * n + k0 + c] : 0.f;
          }
          for (int e = tid; e < BK * BN; e += nth) {
            const int r = e / BN, c = e % BN;
            Bs[r][c / 4].v[c % 4] = (k0 + r < n && j0 + c < n) ? B[(std::size_t)(k0 + r) * n + j0 + c] : 0.f;
          }
#pragma omp barrier
          // A thread owns register tiles s = tid, tid + nth, ...: it cannot keep
          // all their sums in registers, so after each k-tile it adds them into
          // its own elements of C (set at k0 = 0). No other thread touches them.
          for (int s = tid; s < THREADS; s += nth) {
            const int ty = s / TX, tx = s % TX;
            float part[RM][RN] = {};
            multiply_tiles(part, As, Bs, ty, tx);
            for (int r = 0; r < RM; ++r) {
              const int i = i0 + row_of(ty, r);
              for (int c = 0; c < RN; ++c) {
                const int j = j0 + col_of(tx, c);
                if (i < n && j < n) {
                  float &out = C[(std::size_t)i * n + j];
                  out = (k0 == 0 ? 0.f : out) + part[r][c];
                }
              }
            }
          }
#pragma omp barrier
        }
      }
    }
  }
}
// END SNIPPET

void matmul(int n, const float *A, const float *B, float *C) {
  if (!matmul_exact(n, A, B, C)) matmul_any_threads(n, A, B, C);
}

}  // namespace lesson5
