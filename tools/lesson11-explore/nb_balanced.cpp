// nb_balanced (exploration, not part of the course): lesson 11's N-body team
// kernel (team_step, reference/lesson11_gravity_shared.hpp) against a
// balanced variant of it, both with the solution's tile_forces.
//
// Why: team_step gives each team 256 bodies i, so n = 65,536 makes 256 teams
// of 8 warps for 132 SMs x 2 places: 8 SMs hold one team, not two, for the
// whole call (about 3 % of the H200 lost). Any split over bodies i alone
// keeps equal-size warps (2,048 warps / 528 schedulers = 3.88 rounds). The
// variant splits the (256 bodies i) x (512 bodies j) units instead: L = 2 x
// SMs teams, each a contiguous equal range of units in block-major order, so
// every team does the same number of tiles (+-1).
// A block (256 bodies i) whose tiles span several teams is summed through
// device scratch: each team adds its partial accelerations atomically and
// takes a ticket (tiles done); the team whose ticket completes the block
// writes the moved bodies and zeroes the scratch for the next call, as
// team_histogram's last team does (reference/lesson11_streaming_shared.hpp).
//
// The current kernel is the solution's nbody_step itself: this file includes
// solutions/11-matching-the-vendor/gravity.cpp (tile_forces, bodies_per_thread
// and gravity.inc's nbody_step), compiled with the course's flags. The
// variant (nb_balanced_kernel.cpp) includes it too, so it inlines the same
// tile_forces; it is compiled with -maxrregcount=128 (that file says why).
//
//   nb_balanced [--n 1,97,1000,4099,65536] [--teams L] [--threads T] [--reps R]
// Verifies every body of both against a double-precision step with the
// course's bound (tests/lesson11_matching_the_vendor.cpp, nbody_body_error:
// velocity within 2e-5 x the sum of the terms' magnitudes x dt + 1e-6 |v0|,
// position consistent with the velocity written) and the balanced one against
// the current one with the same bound; after the first call and after the
// timed calls (the scratch must be clean between calls), then that the
// scratch is all zero. Times the median of R calls (default 20) of each,
// data resident, omp_get_wtime (as main.cpp), in the order current, balanced,
// current, balanced. Prints CSV lines and PASS or FAIL.
#include "../../solutions/11-matching-the-vendor/gravity.cpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "course/device.hpp"
#include "nb_balanced.hpp"

using namespace lesson11;

namespace {

constexpr float unwritten = -1.0e30f;

std::vector<int> parse_list(const char *s) {
  std::vector<int> v;
  for (const char *p = s; *p;) {
    char *e;
    const long x = std::strtol(p, &e, 10);
    if (e == p) break;
    v.push_back(static_cast<int>(x));
    p = *e == ',' ? e + 1 : e;
  }
  return v;
}

struct Set {
  int n;
  std::vector<float> a[13];  // x y z m vx vy vz | xo yo zo vxo vyo vzo
  std::vector<double> want[3], mag[3];
  explicit Set(int n_) : n(n_) {
    for (auto &v : a) v.assign(static_cast<std::size_t>(n), unwritten);
    for (int i = 0; i < n; ++i) {  // the unit cube, masses (0.5 to 1.5) / n, small velocities (as the tests)
      const unsigned h = static_cast<unsigned>(i) * 2654435761u, h2 = h * 40503u + 7u;
      a[0][i] = static_cast<float>(h % 2000) / 1000.f - 1;
      a[1][i] = static_cast<float>((h >> 11) % 2000) / 1000.f - 1;
      a[2][i] = static_cast<float>((h >> 7) % 1999) / 1000.f - 1;
      a[3][i] = (0.5f + static_cast<float>(h2 % 1000) / 1000.f) / static_cast<float>(n);
      a[4][i] = static_cast<float>((h2 >> 5) % 2001) / 10000.f - 0.1f;
      a[5][i] = static_cast<float>((h2 >> 9) % 2001) / 10000.f - 0.1f;
      a[6][i] = static_cast<float>((h2 >> 13) % 2001) / 10000.f - 0.1f;
    }
    // The double-precision step's accelerations and the sums of their terms'
    // magnitudes, for every body (tests/lesson11_matching_the_vendor.cpp's
    // nbody_body_error for all bodies, on the host's threads).
    for (int c = 0; c < 3; ++c) want[c].assign(n, 0.0), mag[c].assign(n, 0.0);
#pragma omp parallel for schedule(dynamic, 64)
    for (int i = 0; i < n; ++i) {
      double s[3] = {0, 0, 0}, g[3] = {0, 0, 0};
      for (int j = 0; j < n; ++j) {
        const double d[3] = {double(a[0][j]) - a[0][i], double(a[1][j]) - a[1][i], double(a[2][j]) - a[2][i]};
        const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + softening_squared;
        const double f = a[3][j] / (d2 * std::sqrt(d2));
        for (int c = 0; c < 3; ++c) s[c] += d[c] * f, g[c] += std::fabs(d[c] * f);
      }
      for (int c = 0; c < 3; ++c) want[c][i] = s[c], mag[c][i] = g[c];
    }
  }
  Bodies in() { return {a[0].data(), a[1].data(), a[2].data(), a[3].data(), a[4].data(), a[5].data(), a[6].data()}; }
  Moved out() { return {a[7].data(), a[8].data(), a[9].data(), a[10].data(), a[11].data(), a[12].data()}; }
  float *o(int k) { return a[7 + k].data(); }
  // Fills the device's outputs with `unwritten` (a step must write every body).
  void poison() {
    for (int k = 0; k < 6; ++k) std::fill(a[7 + k].begin(), a[7 + k].end(), unwritten);
    float *p0 = o(0), *p1 = o(1), *p2 = o(2), *p3 = o(3), *p4 = o(4), *p5 = o(5);
#pragma omp target update to(p0[0:n], p1[0:n], p2[0:n], p3[0:n], p4[0:n], p5[0:n])
  }
  std::vector<float> fetch() {
    float *p0 = o(0), *p1 = o(1), *p2 = o(2), *p3 = o(3), *p4 = o(4), *p5 = o(5);
#pragma omp target update from(p0[0:n], p1[0:n], p2[0:n], p3[0:n], p4[0:n], p5[0:n])
    std::vector<float> r;
    for (int k = 0; k < 6; ++k) r.insert(r.end(), a[7 + k].begin(), a[7 + k].end());
    return r;
  }
};

// The course's bound on body i's velocity: 2e-5 x the terms' magnitudes x dt + 1e-6 |v0|.
double bound(const Set &s, int c, int i) { return 2e-5 * s.mag[c][i] * delta_time + 1e-6 * std::fabs(s.a[4 + c][i]) + 1e-30; }

// "" or the first body that breaks the course's bound against the double step
// (and, where `ref` is given, against that result: the current kernel's).
std::string check(const Set &s, const std::vector<float> &got, const std::vector<float> *ref) {
  const int n = s.n;
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      const float v1 = got[(3 + c) * n + i], p1 = got[c * n + i], v0 = s.a[4 + c][i], p0 = s.a[c][i];
      const double want_v = v0 + s.want[c][i] * delta_time;
      char buf[256];
      if (!(std::fabs(v1 - want_v) <= bound(s, c, i))) {
        std::snprintf(buf, sizeof buf, "body %d component %d: v %.9g, double step %.9g (bound %.3g)%s", i, c, v1, want_v,
                      bound(s, c, i), v1 == unwritten ? " never written" : "");
        return buf;
      }
      if (ref != nullptr && !(std::fabs(v1 - (*ref)[(3 + c) * n + i]) <= bound(s, c, i))) {
        std::snprintf(buf, sizeof buf, "body %d component %d: v %.9g, current kernel %.9g (bound %.3g)", i, c, v1,
                      (*ref)[(3 + c) * n + i], bound(s, c, i));
        return buf;
      }
      const double want_p = p0 + double(v1) * delta_time;
      if (!(std::fabs(p1 - want_p) <= 1e-6 * (std::fabs(p0) + std::fabs(v1 * delta_time)) + 1e-30)) {
        std::snprintf(buf, sizeof buf, "body %d component %d: position %.9g does not follow the velocity (%.9g)", i, c, p1,
                      want_p);
        return buf;
      }
    }
  return "";
}

double worst_vs(const Set &s, const std::vector<float> &got, const std::vector<float> &ref) {
  double w = 0;
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < s.n; ++i)
      w = std::max(w, std::fabs(double(got[(3 + c) * s.n + i]) - ref[(3 + c) * s.n + i]) / bound(s, c, i));
  return w;
}

int reps = 20;
template <class F>
double med(F f) {
  f();
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double a = omp_get_wtime();
    f();
    t.push_back(omp_get_wtime() - a);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2] * 1e3;
}

}  // namespace

int main(int argc, char **argv) {
  const course::DeviceInfo &dev = course::device_info();
  std::vector<int> ns = {1, 97, 1000, 4099, dev.is_gpu() ? 65536 : 2048};
  Launch bal{};
#ifdef COURSE_DEVICE_GPU
  bal = {2 * (dev.multiprocessors > 0 ? dev.multiprocessors : 66), gpu_team_threads};
#endif
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    const char *v = k + 1 < argc ? argv[k + 1] : "";
    if (a == "--n") ns = parse_list(v), ++k;
    else if (a == "--teams") bal.teams = std::atoi(v), ++k;
    else if (a == "--threads") bal.threads = std::atoi(v), ++k;
    else if (a == "--reps") reps = std::atoi(v), ++k;
    else {
      std::fprintf(stderr, "usage: %s [--n N,N,...] [--teams L] [--threads T] [--reps R]\n", argv[0]);
      return 2;
    }
  }
  if (bal.teams > 0 && bal.threads <= 0) bal.threads = dev.is_gpu() ? gpu_team_threads : 1;
  if (bal.threads > 0 && bal.teams <= 0) bal.teams = dev.is_gpu() ? 2 * dev.multiprocessors : omp_get_num_procs();
  std::printf("%s\n", course::device_banner().c_str());
  std::printf("bodies_per_thread %d; balanced launch asks %d teams x %d threads%s; reps %d; fp32 peak %.0f GFLOP/s\n",
              bodies_per_thread, bal.teams, bal.threads, bal.teams <= 0 ? " (0: nbody_launch's)" : "", reps,
              dev.fp32_peak_gflops);
  std::printf("csv: kernel,n,teams got,threads got,median ms per call,GFLOP/s,%% fp32 peak,worst |dv| / bound vs current,check\n");
  int fails = 0;
  for (const int n : ns) {
    if (n < 1) continue;
    Set s(n);
    float *x = s.a[0].data(), *y = s.a[1].data(), *z = s.a[2].data(), *m = s.a[3].data(), *vx = s.a[4].data(),
          *vy = s.a[5].data(), *vz = s.a[6].data();
    float *xo = s.o(0), *yo = s.o(1), *zo = s.o(2), *vxo = s.o(3), *vyo = s.o(4), *vzo = s.o(5);
#pragma omp target enter data map(to : x[0:n], y[0:n], z[0:n], m[0:n], vx[0:n], vy[0:n], vz[0:n], xo[0:n], yo[0:n], \
                                      zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
    const auto cur = [&] { nbody_step(s.in(), s.out(), n, Launch{}); };
    const auto bl = [&] { balanced_nbody_step(s.in(), s.out(), n, bal); };
    // First calls, each checked on its own.
    s.poison();
    cur();
    const std::vector<float> ref = s.fetch();
    std::string e = check(s, ref, nullptr);
    if (!e.empty()) std::printf("FAIL n=%d current, first call: %s\n", n, e.c_str()), ++fails;
    s.poison();
    bl();
    std::vector<float> got = s.fetch();
    e = check(s, got, &ref);
    if (!e.empty()) std::printf("FAIL n=%d balanced, first call: %s\n", n, e.c_str()), ++fails;
    int info[2] = {0, 0};
    {
      const Scratch &sc = balanced_scratch(n);
      omp_target_memcpy(info, sc.info, sizeof info, 0, 0, omp_get_initial_device(), sc.dev);
    }
    const double gf = flops_per_interaction * n * static_cast<double>(n) / 1e6;  // GFLOP per ms
    const auto row = [&](const char *name, int tg, int th, double ms, double worst, const char *ok) {
      if (dev.fp32_peak_gflops > 0)
        std::printf("csv: %s,%d,%d,%d,%.4f,%.1f,%.2f,%.3f,%s\n", name, n, tg, th, ms, gf / ms, 100 * gf / ms / dev.fp32_peak_gflops,
                    worst, ok);
      else
        std::printf("csv: %s,%d,%d,%d,%.4f,%.1f,,%.3f,%s\n", name, n, tg, th, ms, gf / ms, worst, ok);
      std::fflush(stdout);
    };
    const Launch cl = nbody_launch(n);
    double ms[4];
    ms[0] = med(cur);
    ms[1] = med(bl);
    ms[2] = med(cur);
    ms[3] = med(bl);
    // After 2 x (reps + 2) + 1 balanced calls: still right (scratch clean between calls).
    got = s.fetch();
    const std::string e2 = check(s, got, &ref);
    if (!e2.empty()) std::printf("FAIL n=%d balanced, after the timed calls: %s\n", n, e2.c_str()), ++fails;
    const double worst = worst_vs(s, got, ref);
    {
      const Scratch &sc = balanced_scratch(n);
      const int nb = (n + tile_bodies - 1) / tile_bodies;
      std::vector<float> acc(3 * static_cast<std::size_t>(nb) * tile_bodies);
      std::vector<int> cnt(nb);
      omp_target_memcpy(acc.data(), sc.acc, sizeof(float) * acc.size(), 0, 0, omp_get_initial_device(), sc.dev);
      omp_target_memcpy(cnt.data(), sc.cnt, sizeof(int) * cnt.size(), 0, 0, omp_get_initial_device(), sc.dev);
      const bool clean = std::all_of(acc.begin(), acc.end(), [](float v) { return v == 0.0f; }) &&
                         std::all_of(cnt.begin(), cnt.end(), [](int v) { return v == 0; });
      if (!clean) std::printf("FAIL n=%d balanced: scratch not zero after the calls\n", n), ++fails;
    }
    const bool ok = e.empty() && e2.empty();
    row("current", cl.teams, cl.threads, ms[0], 0.0, "ok");
    row("balanced", info[0], info[1], ms[1], worst, ok ? "ok" : "FAIL");
    row("current again", cl.teams, cl.threads, ms[2], 0.0, "ok");
    row("balanced again", info[0], info[1], ms[3], worst, ok ? "ok" : "FAIL");
    const double c = std::min(ms[0], ms[2]), b = std::min(ms[1], ms[3]);
    std::printf("n=%d: current / balanced per call %.4f (better medians %.4f / %.4f ms)%s\n", n, c / b, c, b,
                dev.is_gpu() ? "" : " (host device: times mean nothing)");
#pragma omp target exit data map(delete : x[0:n], y[0:n], z[0:n], m[0:n], vx[0:n], vy[0:n], vz[0:n], xo[0:n], yo[0:n], \
                                     zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  }
  std::printf("%s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
