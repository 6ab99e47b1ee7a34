// sgemm_streamk_kernel.cpp (exploration, not part of the course): lesson 11's
// SGEMM team kernel (gemm_exact, reference/lesson11_gemm_shared.hpp) with a
// stream-K split of its work; sgemm_streamk.cpp (the harness) says why.
//
// The work is (tile of C, k-trip) units, tile-major: a tile is 256 x 128 of C
// (16 x 8 register tiles x 256 threads), a k-trip one trip of gemm_exact's k
// loop (two 8-deep k-tiles, one in each pair of team-local tiles). The league
// (as many teams as SMs by default) splits the units into equal contiguous
// ranges, so every team does the same number of k-trips (+-1): no last wave.
// A team runs its range as segments (one tile each, any first and last
// k-trip), each with gemm_exact's k loop unchanged (same Share fetch and
// store, same double-buffered pair of team-local tiles, one barrier per
// k-tile, the solution's multiply_tile). A tile covered whole by one team is
// stored into C directly, as gemm_exact does. A tile split between teams is
// summed in device scratch: each contributing team adds its partial register
// tiles atomically and takes a ticket (k-trips done, release/acquire flushes
// as team_histogram's, reference/lesson11_streaming_shared.hpp); the team
// whose ticket completes the tile's k-trips reads the sums, writes C, zeroes
// the scratch and the ticket for the next call. No team ever waits for
// another, so any residency works. With dp_waves > 0 (--dp-waves) the teams
// first take that many waves of whole tiles in gemm_exact's order, and only
// the tiles after them are split (Work, next_segment).
//
// The solution's multiply_tile and gemm_rows_per_thread, from its own file.
// Its last line includes gemm.inc (matmul: gemm's instances of gemm_exact);
// build_sgemm_streamk.sh puts an empty gemm.inc first on this file's -iquote
// path: gemm_exact's offload entry is named after the header it is written in
// and the line, so this file's instance and the harness's would be one kernel
// twice at the link.
//
// SGK_MUTANT (build_sgemm_streamk.sh, MUTANT=k) breaks one thing on purpose,
// for proving that the harness catches it: 1 the completing team does not
// write C, 2 it does not zero the scratch, 3 every team's range ends one
// k-trip early.
#include "../../solutions/11-matching-the-vendor/gemm.cpp"

#include <omp.h>

#include <new>
#include <vector>

#include "sgemm_streamk.hpp"

#ifndef SGK_MUTANT
#define SGK_MUTANT 0
#endif

namespace lesson11 {
namespace {

using SK = GemmShape<gemm_rows_per_thread>;
constexpr int tile_floats = SK::BM * SK::BN;  // one tile of C: RM x 8 per thread x 256 threads

// The scratch (sgemm_streamk.hpp): omp_target_alloc and zeros copied in once
// per n and device; the old one (all zeros) freed.
StreamKScratch &scratch_for(int n) {
  static StreamKScratch s;
  const int dev = omp_get_default_device();
  if (s.n == n && s.dev == dev) return s;
  if (s.part != nullptr) omp_target_free(s.part, s.dev);
  if (s.ticket != nullptr) omp_target_free(s.ticket, s.dev);
  if (s.info != nullptr) omp_target_free(s.info, s.dev);
  const int tiles = ((n + SK::BM - 1) / SK::BM) * ((n + SK::BN - 1) / SK::BN);
  const long long floats = static_cast<long long>(tiles) * tile_floats;
  s.part = static_cast<float *>(omp_target_alloc(sizeof(float) * floats, dev));
  s.ticket = static_cast<int *>(omp_target_alloc(sizeof(int) * tiles, dev));
  s.info = static_cast<int *>(omp_target_alloc(sizeof(int) * 3, dev));
  if (s.part == nullptr || s.ticket == nullptr || s.info == nullptr) throw std::bad_alloc();
  // Zeros copied in, once per n; each call's completing teams zero again.
  // Copies, not a zeroing kernel: clang 19 then fails to fold the runtime's
  // SPMD-mode tests in one of the 256-thread kernels in this file (a second
  // copy of its k loop, for generic mode, and 255 registers with spills).
  const std::vector<float> zeros(static_cast<std::size_t>(floats), 0.0f);
  const std::vector<int> izeros(static_cast<std::size_t>(tiles) + 3, 0);
  const int host = omp_get_initial_device();
  if (omp_target_memcpy(s.part, zeros.data(), sizeof(float) * floats, 0, 0, dev, host) != 0 ||
      omp_target_memcpy(s.ticket, izeros.data(), sizeof(int) * tiles, 0, 0, dev, host) != 0 ||
      omp_target_memcpy(s.info, izeros.data(), sizeof(int) * 3, 0, 0, dev, host) != 0)
    throw std::bad_alloc();
  s.n = n;
  s.dev = dev;
  s.tiles = tiles;
  s.floats = floats;
  return s;
}

#pragma omp begin declare target

// This team's units [u0, u1) of `units` over `league` teams: the first
// units % league teams take one more. 32-bit: a 64-bit division (as in
// units * team / league) is a call on NVIDIA GPUs (__cuda_sm20_div_s64), and
// ptxas then no longer knows the k loop's bounds to be the same in every
// thread (a WARPSYNC and a few more instructions per k-trip).
inline void team_range(int units, int team, int league, int &u0, int &u1) {
  const int per = units / league, extra = units % league;
  u0 = team * per + (team < extra ? team : extra);
  u1 = u0 + per + (team < extra ? 1 : 0);
#if SGK_MUTANT == 3
  u1 -= 1;  // mutant: the range's last k-trip dropped
#endif
}

// The segment starting at unit u of a range ending at u1: tile t, k-trips
// [kt0, kt1) of it.
inline void segment(int u, int u1, int trips, int &t, int &kt0, int &kt1) {
  t = u / trips;
  kt0 = u % trips;
  kt1 = u1 - u < trips - kt0 ? kt0 + (u1 - u) : trips;
}

// A team's work: first `dpw` whole tiles, team + w x league for w < dpw
// (gemm_exact's order: the league a wave at a time), then its stream-K range
// of the (tile, k-trip) units of the tiles after them. dpw: the waves asked
// (--dp-waves; 0, pure stream-K, by default), at most the league's whole
// waves, so that every team gets as many.
struct Work {
  int dpw, i, u, u1;
};
[[gnu::always_inline]] inline void work_begin(int tiles, int trips, int dp_waves, int team, int league, Work &w) {
  w.dpw = dp_waves < tiles / league ? dp_waves : tiles / league;
  const int base = w.dpw * league * trips;
  team_range(tiles * trips - base, team, league, w.u, w.u1);
  w.u += base;
  w.u1 += base;
  w.i = 0;
}
// The team's next segment (tile t, k-trips [kt0, kt1)); false when none is left.
[[gnu::always_inline]] inline bool next_segment(Work &w, int team, int league, int trips, int &t, int &kt0,
                                                int &kt1) {
  if (w.i < w.dpw) {
    t = team + w.i * league;
    kt0 = 0;
    kt1 = trips;
    ++w.i;
    return true;
  }
  if (w.u >= w.u1) return false;
  segment(w.u, w.u1, trips, t, kt0, kt1);
  w.u += kt1 - kt0;
  return true;
}

#pragma omp end declare target

// The 256-thread kernel. Returns false, having computed nothing, when the
// runtime granted another number of threads (as gemm_exact; a launch gives
// every team the same number, so either all teams ran this or none did: the
// harness's check that the scratch is zero after the calls would see a mix).
template <int RM, Multiply<RM> multiply, bool Vec>
bool streamk_exact(int n, const float *A, const float *B, float *C, int teams, int dp_waves, StreamKScratch &s) {
  using S = GemmShape<RM>;
  static_assert(S::BM * S::BN == tile_floats, "the scratch is laid out for the solution's register tile");
  const int per_row = (n + S::BN - 1) / S::BN, tiles = ((n + S::BM - 1) / S::BM) * per_row;
  const int trips = (n + 2 * S::BK - 1) / (2 * S::BK);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  float *const part = s.part;
  int *const ticket = s.ticket, *const info = s.info;
  int *granted = granted_flag();
#pragma omp atomic write
  *granted = S::THREADS;
#pragma omp target teams num_teams(teams) thread_limit(S::THREADS) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn]) \
    is_device_ptr(granted, part, ticket, info)
  {
    typename S::TileA As0, As1;  // team-local: two pairs of tiles
    typename S::TileB Bs0, Bs1;
#if defined(__NVPTX__)
#pragma omp allocate(As0, As1, Bs0, Bs1) allocator(omp_pteam_mem_alloc)
#endif
    int last;  // this team completed the tile: set by thread 0 before the team reads it
#pragma omp parallel num_threads(S::THREADS) firstprivate(n, per_row, tiles, trips, dp_waves)
    {
      const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
      const int league = omp_get_num_teams(), team = omp_get_team_num();
      if (team == 0 && tid == 0) {
#pragma omp atomic write
        info[0] = league;
#pragma omp atomic write
        info[1] = nth;
#pragma omp atomic write
        info[2] = nth == S::THREADS ? 1 : 0;
      }
      if (nth != S::THREADS) {
        if (tid == 0) {
#pragma omp atomic write
          *granted = nth;
        }
      } else {
        __builtin_assume(tid >= 0 && tid < S::THREADS);  // as gemm_exact
        const int ty = tid / S::TX, tx = tid % S::TX;
        Work w;
        work_begin(tiles, trips, dp_waves, team, league, w);
        int t, kt0, kt1;
        while (next_segment(w, team, league, trips, t, kt0, kt1)) {  // the same segments for the whole team
          const int i0 = (t / per_row) * S::BM, j0 = (t % per_row) * S::BN;
          const int kend = kt1 * 2 * S::BK;
          float acc[RM][S::RN] = {};
          Share<RM, Vec> next;
          next.fetch(n, A, B, i0, j0, kt0 * 2 * S::BK, tid);
          next.store(As0, Bs0, tid);
#pragma omp barrier
          // gemm_exact's k loop, over this segment's k-trips. A segment that
          // ends inside the tile loads the next segment's first k-tile at its
          // last fetch and never multiplies it.
          for (int k0 = kt0 * 2 * S::BK; k0 < kend; k0 += 2 * S::BK) {
            next.fetch(n, A, B, i0, j0, k0 + S::BK, tid);
            multiply(acc, As0, Bs0, ty, tx);
            next.store(As1, Bs1, tid);  // the pair nobody reads since the last barrier
#pragma omp barrier
            next.fetch(n, A, B, i0, j0, k0 + 2 * S::BK, tid);
            multiply(acc, As1, Bs1, ty, tx);
            next.store(As0, Bs0, tid);
#pragma omp barrier
          }
          if (kt0 == 0 && kt1 == trips) {  // the whole tile: C directly, as gemm_exact
#pragma omp unroll full
            for (int r = 0; r < RM; ++r)
#pragma omp unroll full
              for (int c = 0; c < S::RN; ++c) {
                const int i = i0 + S::row_of(ty, r), j = j0 + S::col_of(tx, c);
                if (i < n && j < n) C[static_cast<std::size_t>(i) * n + j] = acc[r][c];
              }
          } else {
            // Relaxed atomic adds (none lost; the ticket orders them), a
            // warp's 32 at 32 neighbouring floats.
            float *const mine = part + static_cast<std::size_t>(t) * tile_floats + tid;
#pragma omp unroll full
            for (int r = 0; r < RM; ++r)
#pragma omp unroll full
              for (int c = 0; c < S::RN; ++c) {
#pragma omp atomic update
                mine[(r * S::RN + c) * S::THREADS] += acc[r][c];
              }
            // The ticket, as team_histogram's: the barrier (a flush) puts
            // every thread's adds before thread 0's ticket; acq_rel makes the
            // ticket a release (this team's adds) and an acquire (every
            // earlier ticket's adds: each ticket reads the one before). clang
            // 19 compiles the acq_rel capture for NVIDIA GPUs to a relaxed
            // atom.add, so the release and acquire flushes say it there.
#pragma omp barrier
            if (tid == 0) {
              int done;
#pragma omp flush release
#pragma omp atomic capture acq_rel
              {
                done = ticket[t];
                ticket[t] += kt1 - kt0;
              }
#pragma omp flush acquire
              last = done + (kt1 - kt0) == trips;
            }
            // The barrier hands thread 0's acquire to the team's other threads.
#pragma omp barrier
            if (last) {
              // Every k-trip of the tile is added and no team touches these
              // sums again in this call: relaxed atomic reads and writes.
#pragma omp unroll full
              for (int r = 0; r < RM; ++r)
#pragma omp unroll full
                for (int c = 0; c < S::RN; ++c) {
                  float v;
#pragma omp atomic read
                  v = mine[(r * S::RN + c) * S::THREADS];
#if SGK_MUTANT != 2
#pragma omp atomic write
                  mine[(r * S::RN + c) * S::THREADS] = 0.0f;
#endif
                  const int i = i0 + S::row_of(ty, r), j = j0 + S::col_of(tx, c);
#if SGK_MUTANT != 1
                  if (i < n && j < n) C[static_cast<std::size_t>(i) * n + j] = v;
#else
                  (void)v, (void)i, (void)j;
#endif
                }
              if (tid == 0) {
#pragma omp atomic write
                ticket[t] = 0;
              }
            }
            // No thread may still read `last` when thread 0 sets it for the next split tile.
#pragma omp barrier
          }
        }
      }
    }
  }
  int got;
#pragma omp atomic read
  got = *granted;
  return got == S::THREADS;
}

// Any thread count (the host device, an odd launch): the same units, ranges,
// scratch and tickets; per k-tile every thread takes whole register tiles in
// turn (gemm_any_threads's way) and adds their sums into C (a whole tile) or
// atomically into the scratch (a split one).
template <int RM, Multiply<RM> multiply>
void streamk_any_threads(int n, const float *A, const float *B, float *C, int teams, int dp_waves, StreamKScratch &s) {
  using S = GemmShape<RM>;
  const int per_row = (n + S::BN - 1) / S::BN, tiles = ((n + S::BM - 1) / S::BM) * per_row;
  const int trips = (n + 2 * S::BK - 1) / (2 * S::BK);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  float *const part = s.part;
  int *const ticket = s.ticket, *const info = s.info;
#pragma omp target teams num_teams(teams) thread_limit(S::THREADS) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn]) \
    is_device_ptr(part, ticket, info)
  {
    typename S::TileA As;
    typename S::TileB Bs;
    int last;
#pragma omp parallel num_threads(S::THREADS) firstprivate(dp_waves)
    {
      const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
      const int league = omp_get_num_teams(), team = omp_get_team_num();
      if (team == 0 && tid == 0) {
#pragma omp atomic write
        info[0] = league;
#pragma omp atomic write
        info[1] = nth;
#pragma omp atomic write
        info[2] = 0;
      }
      Work w;
      work_begin(tiles, trips, dp_waves, team, league, w);
      int t, kt0, kt1;
      while (next_segment(w, team, league, trips, t, kt0, kt1)) {
        const int i0 = (t / per_row) * S::BM, j0 = (t % per_row) * S::BN;
        const bool whole = kt0 == 0 && kt1 == trips;
        float *const tile = part + static_cast<std::size_t>(t) * tile_floats;
        for (int kk = 2 * kt0; kk < 2 * kt1; ++kk) {  // the segment's k-tiles
          const int k0 = kk * S::BK;
          for (int e = tid; e < S::THREADS; e += nth) {
            Share<RM, false> share;
            share.fetch(n, A, B, i0, j0, k0, e);
            share.store(As, Bs, e);
          }
#pragma omp barrier
          for (int th = tid; th < S::THREADS; th += nth) {
            const int ty = th / S::TX, tx = th % S::TX;
            float p[RM][S::RN] = {};
            multiply(p, As, Bs, ty, tx);
            for (int r = 0; r < RM; ++r)
              for (int c = 0; c < S::RN; ++c) {
                if (whole) {
                  const int i = i0 + S::row_of(ty, r), j = j0 + S::col_of(tx, c);
                  if (i < n && j < n) {
                    float &out = C[static_cast<std::size_t>(i) * n + j];
                    out = (kk == 0 ? 0.f : out) + p[r][c];
                  }
                } else {
#pragma omp atomic update
                  tile[(r * S::RN + c) * S::THREADS + th] += p[r][c];
                }
              }
          }
#pragma omp barrier
        }
        if (!whole) {  // the ticket, as the 256-thread kernel's
          if (tid == 0) {
            int done;
#pragma omp flush release
#pragma omp atomic capture acq_rel
            {
              done = ticket[t];
              ticket[t] += kt1 - kt0;
            }
#pragma omp flush acquire
            last = done + (kt1 - kt0) == trips;
          }
#pragma omp barrier
          if (last) {
            for (int th = tid; th < S::THREADS; th += nth) {
              const int ty = th / S::TX, tx = th % S::TX;
              for (int r = 0; r < RM; ++r)
                for (int c = 0; c < S::RN; ++c) {
                  float v;
#pragma omp atomic read
                  v = tile[(r * S::RN + c) * S::THREADS + th];
#if SGK_MUTANT != 2
#pragma omp atomic write
                  tile[(r * S::RN + c) * S::THREADS + th] = 0.0f;
#endif
                  const int i = i0 + S::row_of(ty, r), j = j0 + S::col_of(tx, c);
#if SGK_MUTANT != 1
                  if (i < n && j < n) C[static_cast<std::size_t>(i) * n + j] = v;
#else
                  (void)v, (void)i, (void)j;
#endif
                }
            }
            if (tid == 0) {
#pragma omp atomic write
              ticket[t] = 0;
            }
          }
#pragma omp barrier
        }
      }
    }
  }
}

}  // namespace

void streamk_gemm(int n, const float *A, const float *B, float *C, int teams, int dp_waves) {
  constexpr int RM = gemm_rows_per_thread;
  StreamKScratch &s = scratch_for(n);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const auto aligned = [](const float *p) { return p != nullptr && reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  // gemm's alignment test, on the device copies (reference/lesson11_gemm_shared.hpp says why).
#pragma omp target data map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  {
    const int dev = omp_get_default_device();
    const bool vec = n % 4 == 0 && aligned(static_cast<const float *>(omp_get_mapped_ptr(A, dev))) &&
                     aligned(static_cast<const float *>(omp_get_mapped_ptr(B, dev)));
    const bool done = vec ? streamk_exact<RM, multiply_tile, true>(n, A, B, C, teams, dp_waves, s)
                          : streamk_exact<RM, multiply_tile, false>(n, A, B, C, teams, dp_waves, s);
    if (!done) streamk_any_threads<RM, multiply_tile>(n, A, B, C, teams, dp_waves, s);
  }
}

const StreamKScratch &streamk_scratch(int n) { return scratch_for(n); }

}  // namespace lesson11
