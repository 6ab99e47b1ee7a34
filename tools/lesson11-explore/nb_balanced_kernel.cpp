// nb_balanced_kernel.cpp (exploration, not part of the course): the balanced
// variant of lesson 11's N-body team kernel; nb_balanced.cpp (the harness)
// says why and what. Its own file so that ptxas can hold it to 128 registers
// (-maxrregcount=128, build_nb_balanced.sh): clang 19 + ptxas 11.8 give it
// 142 without, and 256 threads x 142 registers leave one team per SM
// instead of two; the current kernel (team_step, 128 registers on its own)
// stays in nb_balanced.cpp, compiled as the course compiles it (the cap
// changes its SASS a little).
//
// The solution's tile_forces and bodies_per_thread, from its own file. Its
// last line includes gravity.inc (nbody_step: team_step with tile_forces);
// build_nb_balanced.sh puts an empty gravity.inc first on this file's
// -iquote path, because team_step's offload entry is named after the header
// it is written in and the line, so a second instance of it (this file's and
// the harness's) would be one kernel twice at the link.
#include "../../solutions/11-matching-the-vendor/gravity.cpp"

#include <omp.h>

#include <new>

#include "nb_balanced.hpp"

namespace lesson11 {
namespace {

// The scratch (nb_balanced.hpp): omp_target_alloc and a zeroing kernel once
// per n and device; the old block (all zeros) freed.
Scratch &scratch_for(int n) {
  static Scratch s;
  const int dev = omp_get_default_device();
  if (s.n == n && s.dev == dev) return s;
  if (s.acc != nullptr) omp_target_free(s.acc, s.dev);
  if (s.cnt != nullptr) omp_target_free(s.cnt, s.dev);
  if (s.info != nullptr) omp_target_free(s.info, s.dev);
  const int nb = (n + tile_bodies - 1) / tile_bodies, na = 3 * nb * tile_bodies;
  s.acc = static_cast<float *>(omp_target_alloc(sizeof(float) * (na > 0 ? na : 1), dev));
  s.cnt = static_cast<int *>(omp_target_alloc(sizeof(int) * (nb > 0 ? nb : 1), dev));
  s.info = static_cast<int *>(omp_target_alloc(sizeof(int) * 2, dev));
  if (s.acc == nullptr || s.cnt == nullptr || s.info == nullptr) throw std::bad_alloc();
  float *acc = s.acc;
  int *cnt = s.cnt, *info = s.info;
  // The zeroing kernel: once per n; each call's finalising teams zero again.
#pragma omp target teams distribute parallel for is_device_ptr(acc) device(dev)
  for (int k = 0; k < na; ++k) acc[k] = 0.0f;
#pragma omp target teams distribute parallel for is_device_ptr(cnt, info) device(dev)
  for (int k = 0; k < nb; ++k) {
    cnt[k] = 0;
    if (k < 2) info[k] = 0;
  }
  s.n = n;
  s.dev = dev;
  return s;
}

// team_step's work cut into (block of W bodies i) x (tile of TW bodies j)
// units, block-major, in omp_get_num_teams() equal contiguous ranges. Per
// block segment the team does what team_step does for a block (same Group<P>,
// parts, tile copy and team-local reduction of the parts), restricted to the
// segment's tiles.
template <int P, TileForces<P> forces>
void balanced_step(Bodies in, Moved out, int n, Launch launch) {
  static_assert(P >= 1 && tile_bodies % P == 0, "bodies_per_thread must divide 256: 1, 2, 4, 8, ...");
  if (launch.teams <= 0 || launch.threads <= 0) launch = nbody_launch(n);
  Scratch &s = scratch_for(n);
  float *const acc = s.acc;
  int *const cnt = s.cnt, *const info = s.info;
  const float *x = in.x, *y = in.y, *z = in.z, *m = in.m, *vx = in.vx, *vy = in.vy, *vz = in.vz;
  float *xo = out.x, *yo = out.y, *zo = out.z, *vxo = out.vx, *vyo = out.vy, *vzo = out.vz;
  constexpr int W = tile_bodies, RED = P > 1 ? P - 1 : 1, TW = P > 1 ? 2 * W : W;
  const int NB = (n + W - 1) / W, NT = (n + TW - 1) / TW;  // blocks of bodies i, tiles of bodies j
  const long long units = static_cast<long long>(NB) * NT;
#pragma omp target teams num_teams(launch.teams) thread_limit(launch.threads) is_device_ptr(acc, cnt, info) \
    map(to : m[0:n], x[0:n], y[0:n], z[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  {
    Body4 tile[TW];
    float red[RED][3][W];
#if defined(__NVPTX__)
#pragma omp allocate(tile, red) allocator(omp_pteam_mem_alloc)
#endif
    int last;  // this team completed the block: set by thread 0 before the team reads it
#pragma omp parallel
    {
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      const int league = omp_get_num_teams(), team = omp_get_team_num();
      if (team == 0 && t == 0) {
#pragma omp atomic write
        info[0] = league;
#pragma omp atomic write
        info[1] = nt;
      }
      const bool split = nt == W;
      const int parts = split ? P : 1, slots = split ? W / P : nt;
      const int slot = t % slots, part = t / slots;
      const long long u0 = units * team / league, u1 = units * (team + 1) / league;
      for (long long u = u0; u < u1;) {  // one block segment per trip, the same for the whole team
        const int blk = static_cast<int>(u / NT), t0 = static_cast<int>(u % NT);
        const int t1 = static_cast<int>(u1 - u < NT - t0 ? t0 + (u1 - u) : NT);
        u += t1 - t0;
        const bool whole = t0 == 0 && t1 == NT;  // the block's whole j range: write directly
        const int first = blk * W, count = n - first < W ? n - first : W;
        for (int base = 0; base < count; base += slots * P) {
          Group<P> g;
          for (int p = 0; p < P; ++p) {
            const int k = base + slot + p * slots, i = first + (k < count ? k : 0);
            g.x[p] = x[i];
            g.y[p] = y[i];
            g.z[p] = z[i];
            g.ax[p] = g.ay[p] = g.az[p] = 0.0f;
          }
          for (int tj = t0; tj < t1; ++tj) {
            const int j0 = tj * TW, len = n - j0 < TW ? n - j0 : TW;
#pragma omp barrier
            for (int k = t; k < len; k += nt) tile[k] = Body4{x[j0 + k], y[j0 + k], z[j0 + k], m[j0 + k]};
#pragma omp barrier
            if (split && len == TW)
              forces(tile, part * (TW / P), (part + 1) * (TW / P), g);
            else
              forces(tile, part * len / parts, (part + 1) * len / parts, g);
          }
          if (parts > 1) {
            if (part > 0)
              for (int p = 0; p < P; ++p) {
                red[part - 1][0][slot * P + p] = g.ax[p];
                red[part - 1][1][slot * P + p] = g.ay[p];
                red[part - 1][2][slot * P + p] = g.az[p];
              }
#pragma omp barrier
            if (part == 0)
              for (int sp = 0; sp < parts - 1; ++sp)
                for (int p = 0; p < P; ++p) {
                  g.ax[p] += red[sp][0][slot * P + p];
                  g.ay[p] += red[sp][1][slot * P + p];
                  g.az[p] += red[sp][2][slot * P + p];
                }
          }
          // Part 0 writes the moved bodies (the whole j range) or adds its
          // sums into the block's accumulators. Two loops, each small enough
          // for clang 19 to unroll as team_step's: one loop with both bodies
          // stays a loop, g is then indexed and goes to local memory (192
          // bytes of stack, ld/st.local at every tile).
          if (part == 0 && whole)
            for (int p = 0; p < P; ++p) {
              const int k = base + slot + p * slots;
              if (k < count) {
                const int i = first + k;
                const float nvx = vx[i] + g.ax[p] * delta_time, nvy = vy[i] + g.ay[p] * delta_time,
                            nvz = vz[i] + g.az[p] * delta_time;
                vxo[i] = nvx;
                vyo[i] = nvy;
                vzo[i] = nvz;
                xo[i] = g.x[p] + nvx * delta_time;
                yo[i] = g.y[p] + nvy * delta_time;
                zo[i] = g.z[p] + nvz * delta_time;
              }
            }
          if (part == 0 && !whole)
            for (int p = 0; p < P; ++p) {
              const int k = base + slot + p * slots;
              if (k < count) {  // relaxed: atomic so that no add is lost; the ticket orders them
                const int i = first + k;
#pragma omp atomic update
                acc[3 * i + 0] += g.ax[p];
#pragma omp atomic update
                acc[3 * i + 1] += g.ay[p];
#pragma omp atomic update
                acc[3 * i + 2] += g.az[p];
              }
            }
        }
        if (!whole) {
          // The ticket, as team_histogram's: the barrier (a flush) puts every
          // thread's adds before thread 0's ticket; acq_rel makes the ticket a
          // release (this team's adds) and an acquire (every earlier ticket's
          // adds: each ticket reads the one before). clang 19 compiles the
          // acq_rel capture for NVIDIA GPUs to a relaxed atom.add, so the
          // release and acquire flushes (membar.gl / fence) say it there.
#pragma omp barrier
          if (t == 0) {
            int done;
#pragma omp flush release
#pragma omp atomic capture acq_rel
            {
              done = cnt[blk];
              cnt[blk] += t1 - t0;
            }
#pragma omp flush acquire
            last = done + (t1 - t0) == NT;
          }
          // The barrier hands thread 0's acquire to the team's other threads.
#pragma omp barrier
          if (last) {
            // Every tile of the block is added and no team touches these
            // sums again in this call: relaxed atomic reads and writes.
            for (int k = t; k < count; k += nt) {
              const int i = first + k;
              float a[3];
              for (int c = 0; c < 3; ++c) {
#pragma omp atomic read
                a[c] = acc[3 * i + c];
#pragma omp atomic write
                acc[3 * i + c] = 0.0f;
              }
              const float nvx = vx[i] + a[0] * delta_time, nvy = vy[i] + a[1] * delta_time,
                          nvz = vz[i] + a[2] * delta_time;
              vxo[i] = nvx;
              vyo[i] = nvy;
              vzo[i] = nvz;
              xo[i] = x[i] + nvx * delta_time;
              yo[i] = y[i] + nvy * delta_time;
              zo[i] = z[i] + nvz * delta_time;
            }
            if (t == 0) {
#pragma omp atomic write
              cnt[blk] = 0;
            }
          }
          // No thread may still read `last` when thread 0 sets it for the next segment.
#pragma omp barrier
        }
      }
    }
  }
}

}  // namespace

void balanced_nbody_step(Bodies in, Moved out, int n, Launch launch) {
  balanced_step<bodies_per_thread, tile_forces>(in, out, n, launch);
}
const Scratch &balanced_scratch(int n) { return scratch_for(n); }

}  // namespace lesson11
