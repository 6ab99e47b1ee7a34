// nbody_repro.cpp -- a standalone reproducer (one file, no course headers) of
// clang 21's slower N-body kernel in lesson 11, for LLVM developers: the given
// team kernel team_step<8> with the solution's tile_forces, written out (a copy on
// purpose: one file that builds without the course; reference/lesson11_gravity_shared.hpp
// stays the course's source). Its
// PTX has the course's instruction counts, opcode for opcode, and its kernel
// behaves as the course's does. Measured on an H100 with ncu
// (docs/results/h200-2026-12-05.md):
//   clang 19.1.7:                 2.1345 ms, 1.8051e9 warp instructions, issue
//                                 slots busy 83.3 %, MIO-throttle stall 144 k
//   clang 21.1.8 -foffload-lto:   2.2448 ms (5 % slower), 1.8065e9, 79.6 %,
//                                 MIO-throttle stall 336 k (2.3x)
// The same work and nearly the same instructions, and the same PTX arithmetic in
// the hot loop, instruction for instruction; not ptxas either: clang 21's PTX
// through CUDA 11.8's ptxas (clang 19's) gives 2.228 ms (within 1 %) and 336 k.
// What differs is how the hot loop (a whole tile's part, 64 bodies j, unrolled by
// 4) counts. clang 19 counts a byte offset from 0 to 1024 and adds it to a
// pointer of the thread's: ptxas keeps the offset in a uniform register
// (LDS.128 [R6+UR9]). clang 21 counts the index itself, from part * 64 to
// part * 64 + 64, and computes each address from it (mul.wide.u32, add): ptxas
// keeps it in a per-thread register (a LEA a trip) and schedules the loop
// otherwise, its MUFU.RSQ closer together. Counting from 0 (-DCOUNTLOOP=int)
// steps clang 21's count in a uniform register (UIADD3; the exit test and the
// address stay per thread) and closes 45 % of the kernel's gap (H100, ncu
// medians: 2.190 against 2.236 ms in one call, clang 19's 2.135 in another;
// docs/results/llvm21-nbody-2026-12-05.md).
// Passing the part as its own tile from 0 (-DSHIFTED, as lesson 11's given kernel
// now does) does the same for clang 21, in another schedule (not yet run on a
// GPU), and gives clang 19 a byte-identical cubin. A pointer loop (-DPTRLOOP) is
// no faster; n firstprivate (-DFIRSTPRIVATE_N: n in a register, not team-local
// memory) is 0.4 % slower.
//
// The kernel: a team of 256 threads takes 256 bodies i; each tile of 512 bodies
// j is copied into team-local memory (16 bytes a body), and each thread adds the
// pull of 64 of them on its 8 bodies i (8 parts per tile, summed in team-local
// memory at the end). 20 flops per interaction (the CUDA samples' count), one
// rsqrt.approx each.
//   -DFIRSTPRIVATE   the team's pointers firstprivate on the parallel (changes
//                    nothing here under either clang)
//   -DFIRSTPRIVATE_N n firstprivate instead (0.4 % slower under clang 21)
//   -DDBUF           two tiles (with -DSHIFTED's form): the next tile is copied
//                    while this one is used, one barrier a tile instead of two.
//                    Slower under clang 19: 2.19 against 2.14 ms, issue slots
//                    busy 81.4 against 83.3 % (H100, ncu, 2026-12-06; fewer
//                    barrier stalls, more waiting on the copy's global loads)
//   -DPTRLOOP        the inner loop over a pointer instead of an index (slower
//                    under clang 19, no faster under clang 21)
//   -DCOUNTLOOP=T    the inner loop counts k = 0..q1-q0 in type T (int: 2 %
//                    faster under clang 21)
//   -DSHIFTED        the kernel passes a whole tile's part as tile + q0, 0, 64
//   nbody_repro [n]  n a multiple of 512 (default 65536): median of 20 calls
//                    (host steady clock, data resident), GFLOP/s, and a check of
//                    64 bodies against a double-precision step; exit 1 on FAIL.
// Build and measure (CUDA's ptxas: LLVM 19's runtime loads cubins of ptxas <= 12.6):
//   clang++-NN -O3 -std=c++20 -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda
//     [-foffload-lto for clang >= 20] nbody_repro.cpp -o nbody_repro
//   ncu --clock-control none -k regex:step -s 3 -c 3 --metrics gpu__time_duration.sum,
//     smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio ./nbody_repro
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct alignas(16) B4 {
  float x, y, z, m;
};
#pragma omp begin declare target
constexpr int W = 256, P = 8, TW = 2 * W;  // threads a team, bodies per thread, bodies j a tile
constexpr float eps2 = 1e-4f, dt = 1e-3f;
static inline float rsqrt_fast(float d2) {
#if defined(__NVPTX__)
  return __nvvm_rsqrt_approx_ftz_f(d2);
#else
  return 1.0f / std::sqrt(d2);
#endif
}
#pragma omp end declare target

#if defined(FIRSTPRIVATE_N)
#define TEAM_POINTERS firstprivate(n)
#elif defined(FIRSTPRIVATE)
#define TEAM_POINTERS firstprivate(x, y, z, m, vx, vy, vz, xo, yo, zo, vxo, vyo, vzo)
#else
#define TEAM_POINTERS
#endif

// The pull of tile[q0:q1) on a thread's P bodies: sums per tile, added at the end (as lesson 11's
// tile_forces). FORM: 0 index loop, 1 pointer loop.
struct Group {
  float x[P], y[P], z[P], ax[P], ay[P], az[P];
};
#pragma omp begin declare target
static inline void tile_forces(const B4 *tile, int q0, int q1, Group &g) {
  float ax[P], ay[P], az[P];
  for (int p = 0; p < P; ++p) ax[p] = ay[p] = az[p] = 0.0f;
#if defined(PTRLOOP)
  const B4 *const qe = tile + q1;
#pragma omp unroll partial(4)
  for (const B4 *q = tile + q0; q < qe; ++q) {
    const B4 j = *q;
#elif defined(COUNTLOOP)
  const B4 *const tq = tile + q0;
  const COUNTLOOP len = q1 - q0;
#pragma omp unroll partial(4)
  for (COUNTLOOP k = 0; k < len; ++k) {
    const B4 j = tq[k];
#else
#pragma omp unroll partial(4)
  for (int q = q0; q < q1; ++q) {
    const B4 j = tile[q];
#endif
    for (int p = 0; p < P; ++p) {
      const float dx = j.x - g.x[p], dy = j.y - g.y[p], dz = j.z - g.z[p];
      const float d2 = eps2 + dx * dx + dy * dy + dz * dz;
      const float inv = rsqrt_fast(d2), s = j.m * (inv * inv * inv);
      ax[p] += dx * s, ay[p] += dy * s, az[p] += dz * s;
    }
  }
  for (int p = 0; p < P; ++p) g.ax[p] += ax[p], g.ay[p] += ay[p], g.az[p] += az[p];
}
#pragma omp end declare target

// The team kernel: lesson 11's team_step<8> with its GPU path (a team of W threads in P parts).
// threads: W, passed at run time as lesson 11's launch is (a constant thread_limit gives the
// kernel .maxntid and another register allocation and code).
void step(int n, int threads, const float *x, const float *y, const float *z, const float *m, const float *vx,
          const float *vy, const float *vz, float *xo, float *yo, float *zo, float *vxo, float *vyo, float *vzo) {
  const int teams = (n + W - 1) / W;
#pragma omp target teams num_teams(teams) thread_limit(threads) \
    map(to : x[0:n], y[0:n], z[0:n], m[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  {
#ifdef DBUF
    B4 tile[2 * TW];
#else
    B4 tile[TW];
#endif
    float red[P - 1][3][W];
#if defined(__NVPTX__)
#pragma omp allocate(tile, red) allocator(omp_pteam_mem_alloc)
#endif
#pragma omp parallel TEAM_POINTERS
    {
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      const int league = omp_get_num_teams(), team = omp_get_team_num();
      const bool split = nt == W;
      const int parts = split ? P : 1, slots = split ? W / P : nt;
      const int slot = t % slots, part = t / slots;
      for (int first = team * W; first < n; first += league * W) {
        const int count = n - first < W ? n - first : W;
        for (int base = 0; base < count; base += slots * P) {
          Group g;
          for (int p = 0; p < P; ++p) {
            const int k = base + slot + p * slots, i = first + (k < count ? k : 0);
            g.x[p] = x[i], g.y[p] = y[i], g.z[p] = z[i];
            g.ax[p] = g.ay[p] = g.az[p] = 0.0f;
          }
#ifdef DBUF
#pragma omp barrier
          {  // the first tile
            const int len = n < TW ? n : TW;
            for (int k = t; k < len; k += nt) tile[k] = B4{x[k], y[k], z[k], m[k]};
          }
#endif
          for (int j0 = 0; j0 < n; j0 += TW) {
            const int len = n - j0 < TW ? n - j0 : TW;
#ifdef DBUF
            // two tiles: copy the next while this one is used; one barrier a tile
            B4 *const cur = tile + ((j0 / TW) & 1) * TW, *const nxt = tile + (((j0 / TW) & 1) ^ 1) * TW;
#pragma omp barrier
            if (j0 + TW < n) {
              const int jn = j0 + TW, ln = n - jn < TW ? n - jn : TW;
              for (int k = t; k < ln; k += nt) nxt[k] = B4{x[jn + k], y[jn + k], z[jn + k], m[jn + k]};
            }
#else
            B4 *const cur = tile;
#pragma omp barrier
            for (int k = t; k < len; k += nt) cur[k] = B4{x[j0 + k], y[j0 + k], z[j0 + k], m[j0 + k]};
#pragma omp barrier
#endif
            if (split && len == TW)
#if defined(SHIFTED) || defined(DBUF)
              tile_forces(cur + part * (TW / P), 0, TW / P, g);
#else
              tile_forces(cur, part * (TW / P), (part + 1) * (TW / P), g);
#endif
            else
              tile_forces(cur, part * len / parts, (part + 1) * len / parts, g);
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
              for (int s = 0; s < parts - 1; ++s)
                for (int p = 0; p < P; ++p) {
                  g.ax[p] += red[s][0][slot * P + p];
                  g.ay[p] += red[s][1][slot * P + p];
                  g.az[p] += red[s][2][slot * P + p];
                }
          }
          if (part == 0)
            for (int p = 0; p < P; ++p) {
              const int k = base + slot + p * slots;
              if (k < count) {
                const int i = first + k;
                const float nvx = vx[i] + g.ax[p] * dt, nvy = vy[i] + g.ay[p] * dt, nvz = vz[i] + g.az[p] * dt;
                vxo[i] = nvx, vyo[i] = nvy, vzo[i] = nvz;
                xo[i] = g.x[p] + nvx * dt, yo[i] = g.y[p] + nvy * dt, zo[i] = g.z[p] + nvz * dt;
              }
            }
        }
      }
    }
  }
}

int main(int argc, char **argv) {
  char *end = nullptr;
  const long nl = argc > 1 ? std::strtol(argv[1], &end, 10) : 65536;
  if ((argc > 1 && *end) || nl < TW || nl % TW || nl > (1 << 22)) {
    std::fprintf(stderr, "nbody_repro: n must be a multiple of %d in [%d, 4194304], got '%s'\n", TW, TW,
                 argc > 1 ? argv[1] : "");
    return 2;
  }
  const int n = static_cast<int>(nl);
  const int threads = W;
  // No second target region in this file: another kernel changes how LLVM tunes the device runtime
  // to the file, and this kernel's code with it (twice the code, 12 % slower; docs/results/h200-2026-12-05.md).
  std::vector<float> in[7], out[6];
  unsigned r = 12345;
  auto rnd = [&r] { return (r = r * 1664525u + 1013904223u) / 4294967296.0f; };
  for (auto &a : in) a.resize(n);
  for (auto &a : out) a.assign(n, 0.0f);
  for (int i = 0; i < n; ++i) {
    in[0][i] = 2 * rnd() - 1, in[1][i] = 2 * rnd() - 1, in[2][i] = 2 * rnd() - 1, in[3][i] = 0.5f + rnd() / n;
    in[4][i] = rnd() - 0.5f, in[5][i] = rnd() - 0.5f, in[6][i] = rnd() - 0.5f;
  }
  const float *x = in[0].data(), *y = in[1].data(), *z = in[2].data(), *m = in[3].data(), *vx = in[4].data(),
              *vy = in[5].data(), *vz = in[6].data();
  float *xo = out[0].data(), *yo = out[1].data(), *zo = out[2].data(), *vxo = out[3].data(),
        *vyo = out[4].data(), *vzo = out[5].data();
#pragma omp target enter data map(to : x[0:n], y[0:n], z[0:n], m[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(alloc : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  for (int w = 0; w < 3; ++w) step(n, threads, x, y, z, m, vx, vy, vz, xo, yo, zo, vxo, vyo, vzo);
  std::vector<double> ms;
  for (int k = 0; k < 20; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    step(n, threads, x, y, z, m, vx, vy, vz, xo, yo, zo, vxo, vyo, vzo);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
#pragma omp target update from(xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  // 64 bodies against a double step; the bound: rsqrt.approx's 2^-22 and float sums of n terms.
  int bad = 0;
  for (int c = 0; c < 64; ++c) {
    const int i = static_cast<int>((static_cast<long>(c) * 7919) % n);
    double a[3] = {0, 0, 0}, mag = 0;
    for (int j = 0; j < n; ++j) {
      const double d[3] = {double(x[j]) - x[i], double(y[j]) - y[i], double(z[j]) - z[i]};
      const double d2 = eps2 + d[0] * d[0] + d[1] * d[1] + d[2] * d[2], s = m[j] / (d2 * std::sqrt(d2));
      for (int e = 0; e < 3; ++e) a[e] += d[e] * s;
      mag += s * std::sqrt(d2 - eps2);
    }
    const double v[3] = {vx[i] + a[0] * dt, vy[i] + a[1] * dt, vz[i] + a[2] * dt};
    const float got[3] = {vxo[i], vyo[i], vzo[i]};
    for (int e = 0; e < 3; ++e)
      if (std::fabs(got[e] - v[e]) > 2e-5 * mag * dt + 1e-6 * std::fabs(v[e]) + 1e-7) ++bad;
    if (std::fabs(xo[i] - (x[i] + vxo[i] * dt)) > 1e-6 * (std::fabs(x[i]) + 1)) ++bad;
  }
  std::sort(ms.begin(), ms.end());
  const double med = ms[ms.size() / 2], gflops = 20.0 * n * double(n) / (med * 1e6);
  std::printf("nbody_repro n=%d (%s%s%s): median %.4f ms (min %.4f) per call, %.1f GFLOP/s  %s\n", n,
#if defined(FIRSTPRIVATE_N)
              "firstprivate n",
#elif defined(FIRSTPRIVATE)
              "firstprivate pointers",
#else
              "shared pointers",
#endif
#if defined(PTRLOOP)
              ", pointer loop",
#elif defined(COUNTLOOP)
              ", count loop",
#else
              ", index loop",
#endif
#ifdef DBUF
              ", two tiles, one barrier",
#elif defined(SHIFTED)
              ", each part its own tile",
#else
              "",
#endif
              med, ms.front(), gflops, bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
