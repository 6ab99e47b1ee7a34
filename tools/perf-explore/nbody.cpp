// nbody.cpp -- lesson 7's tiled N-body step (solutions/07-soa-vs-aos/
// nbody.cpp: step_tiled, behind lesson7::simulate_tiled; and the untiled
// step behind lesson7::simulate), timed one step at a time on device-resident
// SoA arrays, against variants with step_tiled's signature and contract
// (any n, any number of threads granted):
//   Wnnn   threads per team and bodies j per team-local tile
//   Pk     bodies i per thread (their accelerations in registers, each tile
//          value read once from team-local memory serves k bodies)
//   Sk     the tile split in k parts over k threads per body (k x more threads
//          in flight when P > 1 would leave too few), partials combined once
//          through team-local memory
//   vec4   the tile kept as x, y, z, m together (one 16-byte team-local load
//          per interaction) instead of four arrays
//   exact  1 / sqrt() instead of the hardware rsqrt (what the approximation saves)
// Both layouts stay SoA in device memory (the lesson's point); only the
// team-local tile is packed.
#include <omp.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "check.hpp"
#include "course/device.hpp"
#include "nbody.hpp"
#include "perf.hpp"

namespace perf {
namespace {

using lesson7::bodybody_interaction;
using lesson7::delta_time;

struct State {
  float *x, *y, *z, *vx, *vy, *vz;
};

// ---- copies of the current solution's kernels (anonymous namespace there) ----

// Copy of solutions/07-soa-vs-aos/nbody.cpp step() (lesson7::simulate).
void step_untiled(const float *m, State in, State out, int n) {
  const float *x = in.x, *y = in.y, *z = in.z, *vx = in.vx, *vy = in.vy, *vz = in.vz;
  float *xo = out.x, *yo = out.y, *zo = out.z, *vxo = out.vx, *vyo = out.vy, *vzo = out.vz;
#pragma omp target teams distribute parallel for map(to : m[0:n], x[0:n], y[0:n], z[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  for (int i = 0; i < n; ++i) {
    const float xi = x[i], yi = y[i], zi = z[i];
    float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
    for (int j = 0; j < n; ++j) bodybody_interaction(xi, yi, zi, x[j], y[j], z[j], m[j], ax, ay, az);
    const float nvx = vx[i] + ax * delta_time, nvy = vy[i] + ay * delta_time, nvz = vz[i] + az * delta_time;
    vxo[i] = nvx;
    vyo[i] = nvy;
    vzo[i] = nvz;
    xo[i] = xi + nvx * delta_time;
    yo[i] = yi + nvy * delta_time;
    zo[i] = zi + nvz * delta_time;
  }
}

// Copy of solutions/07-soa-vs-aos/nbody.cpp step_tiled() (lesson7::simulate_tiled).
constexpr int tile = 256;
void step_tiled_current(const float *m, State in, State out, int n) {
  const float *x = in.x, *y = in.y, *z = in.z, *vx = in.vx, *vy = in.vy, *vz = in.vz;
  float *xo = out.x, *yo = out.y, *zo = out.z, *vxo = out.vx, *vyo = out.vy, *vzo = out.vz;
  const int teams = course::device_info().is_gpu() ? (n + tile - 1) / tile : 1;
#pragma omp target teams num_teams(teams) thread_limit(tile) \
    map(to : m[0:n], x[0:n], y[0:n], z[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  {
    float tx[tile], ty[tile], tz[tile], tm[tile];
    float sx[tile], sy[tile], sz[tile];
#if defined(__NVPTX__)
#pragma omp allocate(tx, ty, tz, tm, sx, sy, sz) allocator(omp_pteam_mem_alloc)
#endif
#pragma omp parallel
    {
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      const int league = omp_get_num_teams(), team = omp_get_team_num();
      for (int first = team * tile; first < n; first += league * tile) {
        const int count = n - first < tile ? n - first : tile;
        for (int k = t; k < count; k += nt) sx[k] = sy[k] = sz[k] = 0.0f;
        for (int j0 = 0; j0 < n; j0 += tile) {
          const int len = n - j0 < tile ? n - j0 : tile;
#pragma omp barrier
          for (int k = t; k < len; k += nt) {
            tx[k] = x[j0 + k];
            ty[k] = y[j0 + k];
            tz[k] = z[j0 + k];
            tm[k] = m[j0 + k];
          }
#pragma omp barrier
          for (int k = t; k < count; k += nt) {
            const int i = first + k;
            const float xi = x[i], yi = y[i], zi = z[i];
            float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
            for (int q = 0; q < len; ++q) bodybody_interaction(xi, yi, zi, tx[q], ty[q], tz[q], tm[q], ax, ay, az);
            sx[k] += ax;
            sy[k] += ay;
            sz[k] += az;
          }
        }
        for (int k = t; k < count; k += nt) {
          const int i = first + k;
          const float nvx = vx[i] + sx[k] * delta_time, nvy = vy[i] + sy[k] * delta_time,
                      nvz = vz[i] + sz[k] * delta_time;
          vxo[i] = nvx;
          vyo[i] = nvy;
          vzo[i] = nvz;
          xo[i] = x[i] + nvx * delta_time;
          yo[i] = y[i] + nvy * delta_time;
          zo[i] = z[i] + nvz * delta_time;
        }
      }
    }
  }
}

// ---- variants ----

struct alignas(16) Body4 {
  float x, y, z, m;
};

// bodybody_interaction with an exact 1 / sqrt.
inline void interaction_exact(float xi, float yi, float zi, float xj, float yj, float zj, float mj, float &ax,
                              float &ay, float &az) {
  const float dx = xj - xi, dy = yj - yi, dz = zj - zi;
  const float d2 = dx * dx + dy * dy + dz * dz + lesson7::softening_squared;
  const float inv = 1.0f / std::sqrt(d2);
  const float s = mj * (inv * inv * inv);
  ax += dx * s;
  ay += dy * s;
  az += dz * s;
}

template <bool EXACT>
inline void interact(float xi, float yi, float zi, float xj, float yj, float zj, float mj, float &ax, float &ay,
                     float &az) {
  if constexpr (EXACT)
    interaction_exact(xi, yi, zi, xj, yj, zj, mj, ax, ay, az);
  else
    bodybody_interaction(xi, yi, zi, xj, yj, zj, mj, ax, ay, az);
}

// Team-local tile of bodies j: packed (Body4) or four arrays.
template <int W, bool VT>
struct Tile;
template <int W>
struct Tile<W, true> {
  Body4 b[W];
  void put(int k, float x, float y, float z, float m) { b[k] = {x, y, z, m}; }
  Body4 get(int k) const { return b[k]; }
};
template <int W>
struct Tile<W, false> {
  float x[W], y[W], z[W], m[W];
  void put(int k, float x_, float y_, float z_, float m_) {
    x[k] = x_;
    y[k] = y_;
    z[k] = z_;
    m[k] = m_;
  }
  Body4 get(int k) const { return {x[k], y[k], z[k], m[k]}; }
};

// The P bodies of this thread against tile entries [q0, q1).
template <int P, bool EXACT, class TileT>
[[gnu::always_inline]] inline void sweep(const TileT &tl, int q0, int q1, const float (&xi)[P], const float (&yi)[P],
                                         const float (&zi)[P], float (&ax)[P], float (&ay)[P], float (&az)[P]) {
  for (int q = q0; q < q1; ++q) {
    const Body4 b = tl.get(q);
#pragma unroll
    for (int p = 0; p < P; ++p) interact<EXACT>(xi[p], yi[p], zi[p], b.x, b.y, b.z, b.m, ax[p], ay[p], az[p]);
  }
}

template <int W, int P, int S, bool VT, bool EXACT>
void step_variant(const float *m, State in, State out, int n) {
  const float *x = in.x, *y = in.y, *z = in.z, *vx = in.vx, *vy = in.vy, *vz = in.vz;
  float *xo = out.x, *yo = out.y, *zo = out.z, *vxo = out.vx, *vyo = out.vy, *vzo = out.vz;
  constexpr int SLOTS = W / S, PER_TEAM = SLOTS * P, RED = S > 1 ? S - 1 : 1;
  static_assert(W % S == 0, "the tile splits evenly");
  const int teams = course::device_info().is_gpu() ? (n + PER_TEAM - 1) / PER_TEAM : 1;
#pragma omp target teams num_teams(teams) thread_limit(W) \
    map(to : m[0:n], x[0:n], y[0:n], z[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  {
    Tile<W, VT> tl;                     // the current tile of bodies j
    float red[RED][3][PER_TEAM];        // partial accelerations of parts 1..S-1
#if defined(__NVPTX__)
#pragma omp allocate(tl, red) allocator(omp_pteam_mem_alloc)
#endif
#pragma omp parallel
    {
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      const int league = omp_get_num_teams(), team = omp_get_team_num();
      // With the threads asked for, S parts of SLOTS threads; with any other
      // count (the host device), one part of nt threads and several rounds.
      const bool exact = nt == W;
      const int parts = exact ? S : 1, slots = exact ? SLOTS : nt;
      const int slot = t % slots, part = t / slots, per_round = slots * P;
      for (int first = team * PER_TEAM; first < n; first += league * PER_TEAM) {  // same trips for the team
        const int count = n - first < PER_TEAM ? n - first : PER_TEAM;
        for (int base = 0; base < count; base += per_round) {
          float xi[P], yi[P], zi[P], ax[P], ay[P], az[P];
#pragma unroll
          for (int p = 0; p < P; ++p) {
            const int k = base + slot + p * slots, i = first + (k < count ? k : 0);
            xi[p] = x[i];
            yi[p] = y[i];
            zi[p] = z[i];
            ax[p] = ay[p] = az[p] = 0.f;
          }
          for (int j0 = 0; j0 < n; j0 += W) {
            const int len = n - j0 < W ? n - j0 : W;
#pragma omp barrier
            for (int k = t; k < len; k += nt) tl.put(k, x[j0 + k], y[j0 + k], z[j0 + k], m[j0 + k]);
#pragma omp barrier
            if (exact && len == W) {
              // A whole tile: this part's W/S entries, a constant trip count.
              constexpr int L = W / S;
              const int q0 = part * L;
#pragma unroll 4
              for (int q = 0; q < L; ++q) {
                const Body4 b = tl.get(q0 + q);
#pragma unroll
                for (int p = 0; p < P; ++p)
                  interact<EXACT>(xi[p], yi[p], zi[p], b.x, b.y, b.z, b.m, ax[p], ay[p], az[p]);
              }
            } else {
              const int q0 = part * len / parts, q1 = (part + 1) * len / parts;
              sweep<P, EXACT>(tl, q0, q1, xi, yi, zi, ax, ay, az);
            }
          }
          if (parts > 1) {
            if (part > 0)
#pragma unroll
              for (int p = 0; p < P; ++p) {
                red[part - 1][0][slot * P + p] = ax[p];
                red[part - 1][1][slot * P + p] = ay[p];
                red[part - 1][2][slot * P + p] = az[p];
              }
#pragma omp barrier
            if (part == 0)
              for (int s = 0; s < parts - 1; ++s)
#pragma unroll
                for (int p = 0; p < P; ++p) {
                  ax[p] += red[s][0][slot * P + p];
                  ay[p] += red[s][1][slot * P + p];
                  az[p] += red[s][2][slot * P + p];
                }
          }
          if (part == 0)
#pragma unroll
            for (int p = 0; p < P; ++p) {
              const int k = base + slot + p * slots;
              if (k < count) {
                const int i = first + k;
                const float nvx = vx[i] + ax[p] * delta_time, nvy = vy[i] + ay[p] * delta_time,
                            nvz = vz[i] + az[p] * delta_time;
                vxo[i] = nvx;
                vyo[i] = nvy;
                vzo[i] = nvz;
                xo[i] = xi[p] + nvx * delta_time;
                yo[i] = yi[p] + nvy * delta_time;
                zo[i] = zi[p] + nvz * delta_time;
              }
            }
        }
      }
    }
  }
}

struct NbodyVariant {
  std::string name;
  std::function<void(const float *, State, State, int)> run;
};

std::vector<NbodyVariant> nbody_variants() {
  std::vector<NbodyVariant> v;
  v.push_back({"current solution tiled (copy of step_tiled: W256, SoA tile, sums in team memory)", step_tiled_current});
  v.push_back({"current untiled simd (copy of step)", step_untiled});
  v.push_back({"W256 P1 S1 soa", step_variant<256, 1, 1, false, false>});
  v.push_back({"W256 P1 S1 vec4", step_variant<256, 1, 1, true, false>});
  v.push_back({"W128 P1 S1 vec4", step_variant<128, 1, 1, true, false>});
  v.push_back({"W512 P1 S1 vec4", step_variant<512, 1, 1, true, false>});
  v.push_back({"W128 P2 S1 vec4", step_variant<128, 2, 1, true, false>});
  v.push_back({"W256 P1 S2 vec4", step_variant<256, 1, 2, true, false>});
  v.push_back({"W256 P2 S2 vec4", step_variant<256, 2, 2, true, false>});
  v.push_back({"W128 P2 S2 vec4", step_variant<128, 2, 2, true, false>});
  v.push_back({"W256 P2 S4 vec4", step_variant<256, 2, 4, true, false>});
  v.push_back({"W256 P4 S4 vec4", step_variant<256, 4, 4, true, false>});
  v.push_back({"W256 P2 S2 soa", step_variant<256, 2, 2, false, false>});
  v.push_back({"W256 P2 S2 vec4 exact 1/sqrt", step_variant<256, 2, 2, true, true>});
  return v;
}

struct Bodies {
  int n;
  std::vector<float> m, x, y, z, vx, vy, vz, xo, yo, zo, vxo, vyo, vzo;
  explicit Bodies(int n_) : n(n_) {
    for (auto *a : {&m, &x, &y, &z, &vx, &vy, &vz, &xo, &yo, &zo, &vxo, &vyo, &vzo}) a->resize(n);
    fill_parallel(m, [&](std::size_t i) { return (0.5f + unit_float(7, i)) / n; });
    fill_parallel(x, [](std::size_t i) { return 2.f * unit_float(8, i) - 1.f; });
    fill_parallel(y, [](std::size_t i) { return 2.f * unit_float(9, i) - 1.f; });
    fill_parallel(z, [](std::size_t i) { return 2.f * unit_float(10, i) - 1.f; });
    fill_parallel(vx, [](std::size_t i) { return 0.2f * unit_float(11, i) - 0.1f; });
    fill_parallel(vy, [](std::size_t i) { return 0.2f * unit_float(12, i) - 0.1f; });
    fill_parallel(vz, [](std::size_t i) { return 0.2f * unit_float(13, i) - 0.1f; });
  }
  State in() { return {x.data(), y.data(), z.data(), vx.data(), vy.data(), vz.data()}; }
  State out() { return {xo.data(), yo.data(), zo.data(), vxo.data(), vyo.data(), vzo.data()}; }
  void enter() {
    float *pm = m.data(), *px = x.data(), *py = y.data(), *pz = z.data(), *pvx = vx.data(), *pvy = vy.data(),
          *pvz = vz.data(), *qx = xo.data(), *qy = yo.data(), *qz = zo.data(), *qvx = vxo.data(),
          *qvy = vyo.data(), *qvz = vzo.data();
#pragma omp target enter data map(to : pm[0:n], px[0:n], py[0:n], pz[0:n], pvx[0:n], pvy[0:n], pvz[0:n]) \
    map(alloc : qx[0:n], qy[0:n], qz[0:n], qvx[0:n], qvy[0:n], qvz[0:n])
  }
  void poison() {
    for (auto *a : {&xo, &yo, &zo, &vxo, &vyo, &vzo}) poison_device(a->data(), n, poison_value<float>());
  }
  void fetch() {
    float *qx = xo.data(), *qy = yo.data(), *qz = zo.data(), *qvx = vxo.data(), *qvy = vyo.data(), *qvz = vzo.data();
#pragma omp target update from(qx[0:n], qy[0:n], qz[0:n], qvx[0:n], qvy[0:n], qvz[0:n])
  }
  void exit() {
    float *pm = m.data(), *px = x.data(), *py = y.data(), *pz = z.data(), *pvx = vx.data(), *pvy = vy.data(),
          *pvz = vz.data(), *qx = xo.data(), *qy = yo.data(), *qz = zo.data(), *qvx = vxo.data(),
          *qvy = vyo.data(), *qvz = vzo.data();
#pragma omp target exit data map(delete : pm[0:n], px[0:n], py[0:n], pz[0:n], pvx[0:n], pvy[0:n], pvz[0:n], \
                                     qx[0:n], qy[0:n], qz[0:n], qvx[0:n], qvy[0:n], qvz[0:n])
  }

  // Checks bodies `sample` of the output against a double-precision step:
  // each acceleration component within 2e-5 of the sum of its terms'
  // magnitudes (one missing tile of 256 bodies is about 16 x that), and the
  // position update consistent with the velocity written.
  Verdict check(const std::vector<int> &sample, const std::string &what) const {
    const std::size_t bad = first_bad(sample.size(), [&](std::size_t s) {
      const int i = sample[s];
      double a[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
      for (int j = 0; j < n; ++j) {
        const double d[3] = {(double)x[j] - x[i], (double)y[j] - y[i], (double)z[j] - z[i]};
        const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + lesson7::softening_squared;
        const double f = m[j] / (d2 * std::sqrt(d2));
        for (int c = 0; c < 3; ++c) {
          a[c] += d[c] * f;
          mag[c] += std::fabs(d[c] * f);
        }
      }
      const float v0[3] = {vx[i], vy[i], vz[i]}, v1[3] = {vxo[i], vyo[i], vzo[i]};
      const float p0[3] = {x[i], y[i], z[i]}, p1[3] = {xo[i], yo[i], zo[i]};
      for (int c = 0; c < 3; ++c) {
        const double want_v = v0[c] + a[c] * delta_time;
        if (!(std::fabs(v1[c] - want_v) <= 2e-5 * mag[c] * delta_time + 1e-6 * std::fabs(v0[c]) + 1e-30)) return true;
        const double want_p = p0[c] + (double)v1[c] * delta_time;
        if (!(std::fabs(p1[c] - want_p) <= 1e-6 * (std::fabs(p0[c]) + std::fabs(v1[c] * delta_time)) + 1e-30))
          return true;
      }
      return false;
    });
    if (bad == sample.size()) return {};
    const int i = sample[bad];
    return {false, what + ": n " + std::to_string(n) + ", body " + std::to_string(i) + ": got v (" +
                       std::to_string(vxo[i]) + ", " + std::to_string(vyo[i]) + ", " + std::to_string(vzo[i]) +
                       "), x (" + std::to_string(xo[i]) + ", ...)"};
  }
};

std::vector<int> sample_of(int n, int want) {
  std::vector<int> s;
  if (n <= want) {
    for (int i = 0; i < n; ++i) s.push_back(i);
    return s;
  }
  for (int q = 0; q < want; ++q) s.push_back(static_cast<int>(mix(q + 99) % n));
  for (int i : {0, 1, 255, 256, 511, 512, n - 1}) s.push_back(i);  // tile edges, the last body
  return s;
}

}  // namespace

void run_nbody(const Options &o, const Ceilings &c, Recorder &rec) {
  const int n = o.tiny ? 600 : 65536, n_edge = o.tiny ? 77 : 1000;
  Bodies b(n), e(n_edge);
  const auto sample = sample_of(n, o.tiny ? 600 : 512), sample_edge = sample_of(n_edge, 1000);
  b.enter();
  e.enter();
  const double flops = lesson7::flops_per_interaction * n * (double)n;
  for (const auto &v : nbody_variants()) {
    // A size that is no multiple of any tile, checked once, then the timed size.
    e.poison();
    v.run(e.m.data(), e.in(), e.out(), n_edge);
    e.fetch();
    Verdict verdict = e.check(sample_edge, v.name);
    b.poison();
    const Times t = time_it([&] { v.run(b.m.data(), b.in(), b.out(), n); }, o.reps, o.warmup);
    b.fetch();
    if (verdict.ok) verdict = b.check(sample, v.name);
    make_row(rec, "nbody step", v.name, std::to_string(n), t, flops, "GFLOP/s", c.fp32_peak_gflops, verdict);
  }
  b.exit();
  e.exit();
}

}  // namespace perf
