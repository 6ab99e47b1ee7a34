// compute.cpp -- lesson11's N-body step and SGEMM experiments (compute.hpp):
// each variant timed with its inputs already on the device, checked against
// double-precision sums, printed and added as a row.
#include "compute.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "course/data.hpp"
#include "course/device.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "../escape_hatch/escape_hatch.hpp"
#include "gemm.hpp"
#include "gravity.hpp"
#include "lesson11_plain.hpp"

namespace lesson11_driver {

namespace ref = course::baseline::lesson11;  // the baselines (reference/lesson11_plain.hpp)

// One N-body step on device-resident bodies: the starter's kernel, then the
// lesson's; each checked on a few bodies against a double-precision step.
void nbody_experiment(int n, int reps, bool only_yours, std::vector<course::ResultRow> &rows_out) {
  const auto u = [&](std::uint64_t k, float lo, float hi) {
    return course::random_vector<float>(static_cast<std::size_t>(n), course::default_seed + 1100 + k, lo, hi);
  };
  const auto x = u(1, -1, 1), y = u(2, -1, 1), z = u(3, -1, 1), m = u(4, 0.5f / n, 1.5f / n);
  const auto vx = u(5, -0.1f, 0.1f), vy = u(6, -0.1f, 0.1f), vz = u(7, -0.1f, 0.1f);
  std::vector<float> xo(n), yo(n), zo(n), vxo(n), vyo(n), vzo(n);
  const float *px = x.data(), *py = y.data(), *pz = z.data(), *pm = m.data(), *pvx = vx.data(), *pvy = vy.data(),
              *pvz = vz.data();
  float *qx = xo.data(), *qy = yo.data(), *qz = zo.data(), *qvx = vxo.data(), *qvy = vyo.data(), *qvz = vzo.data();
  const lesson11::Bodies in{px, py, pz, pm, pvx, pvy, pvz};
  const lesson11::Moved out{qx, qy, qz, qvx, qvy, qvz};
  const double flops = lesson11::flops_per_interaction * double(n) * double(n);
  const auto &dev = course::device_info();
  std::printf("\nN-body, one step of %d bodies, bodies on the device, median of %d\n", n, reps);
  // Body i's new velocity, x component, against a double-precision sum.
  const auto verify = [&](const std::string &name) {
    course::Check c;
    c.message = name;
    for (int i : {0, n / 2, n - 1}) {
      double a = 0, mag = 0;
      for (int j = 0; j < n; ++j) {
        const double dx = double(x[j]) - x[i], dy = double(y[j]) - y[i], dz = double(z[j]) - z[i];
        const double d2 = dx * dx + dy * dy + dz * dz + lesson11::softening_squared;
        a += dx * m[j] / (d2 * std::sqrt(d2));
        mag += std::fabs(dx * m[j] / (d2 * std::sqrt(d2)));
      }
      const double want = vx[i] + a * lesson11::delta_time;
      if (!(std::fabs(vxo[i] - want) <= 2e-5 * mag * lesson11::delta_time + 1e-6 * std::fabs(vx[i]))) {
        c.ok = false;
        c.message = name + ": body " + std::to_string(i) + " moved wrongly";
      }
    }
    return c;
  };
  std::vector<Variant> v;
  if (!only_yours)
    v.push_back({"one body per thread, exact 1/sqrt (baseline)", "baseline", [&] { ref::plain_nbody_step(in, out, n); }});
  v.push_back({std::string(COURSE_KERNELS), "kernel", [&] { lesson11::nbody_step(in, out, n); }});
  double base_ms = 0;
#pragma omp target data map(to : px[0:n], py[0:n], pz[0:n], pm[0:n], pvx[0:n], pvy[0:n], pvz[0:n]) \
    map(alloc : qx[0:n], qy[0:n], qz[0:n], qvx[0:n], qvy[0:n], qvz[0:n])
  for (const auto &var : v) {
    const double ms = course::time_median(var.run, reps, 1).median * 1e3;
#pragma omp target update from(qx[0:n], qy[0:n], qz[0:n], qvx[0:n], qvy[0:n], qvz[0:n])
    const auto check = verify(var.name);
    const double gflops = ms > 0 ? flops / ms / 1e6 : 0;
    if (var.role == "baseline") base_ms = ms;
    std::string note = dev.fp32_peak_gflops > 0 ? course::format("%.1f %% of FP32 peak", 100 * gflops / dev.fp32_peak_gflops) : "";
    if (var.role != "baseline" && base_ms > 0) note += (note.empty() ? "" : ", ") + course::times(base_ms / ms) + " vs baseline";
    course::ResultRow r = course::make_row(11, "N-body", var.name, std::to_string(n) + " bodies", ms, gflops, "GFLOP/s",
                                           "cuda-nbody", check.ok, note);
    r.role = var.role;
    r.flops = flops;
    rows_out.push_back(r);
    std::printf("  %-44s %9.4f ms %9.1f GFLOP/s %-28s %s\n", var.name.c_str(), ms, gflops, note.c_str(),
                course::answer_text(check.ok, check.message).c_str());
    std::fflush(stdout);
  }
}

// C = A x B at n x n with A and B on the device: lesson 5's 8 x 8 register
// tile, then the lesson's; each checked on 64 entries against double sums.
void gemm_experiment(int n, int reps, bool only_yours, std::vector<course::ResultRow> &rows_out) {
  const auto nn = static_cast<std::size_t>(n) * n;
  const auto A = course::random_vector<float>(nn, course::default_seed + 1201, -1.0f, 1.0f);
  const auto B = course::random_vector<float>(nn, course::default_seed + 1202, -1.0f, 1.0f);
  std::vector<float> C(nn);
  const float *a = A.data(), *b = B.data();
  float *c = C.data();
  const double flops = 2.0 * n * double(n) * n;
  std::printf("\nSGEMM, C = A x B at %d x %d, A and B on the device, median of %d\n", n, n, reps);
  const auto verify = [&](const std::string &name) { return course::check_matmul_sampled(A, B, C, n, name); };
  std::vector<Variant> v;
  if (!only_yours)
    v.push_back({"8x8 register tiles, 128x128 team tiles (lesson 5, baseline)", "baseline", [&] { ref::plain_matmul(n, a, b, c); }});
  v.push_back({std::string(COURSE_KERNELS), "kernel", [&] { lesson11::matmul(n, a, b, c); }});
  // The escape hatch's SGEMM (GPU builds). Where its shape does not fit it
  // computes nothing, and the NaN left in C fails the check.
  if (lesson11_bare::available() && !only_yours)
    v.push_back({"ompx_bare + cp.async, 3 k-tiles in flight (LLVM)", "variant", [&] { lesson11_bare::sgemm(n, a, b, c); }});
  double base_ms = 0;
#pragma omp target data map(to : a[0:nn], b[0:nn]) map(alloc : c[0:nn])
  for (const auto &var : v) {
    std::fill(C.begin(), C.end(), std::nanf(""));
#pragma omp target update to(c[0:nn])  // NaN on the device too: an unwritten entry shows
    const double ms = course::time_median(var.run, reps, 1).median * 1e3;
#pragma omp target update from(c[0:nn])
    const auto check = verify(var.name);
    const double gflops = ms > 0 ? flops / ms / 1e6 : 0;
    if (var.role == "baseline") base_ms = ms;
    const std::string note = var.role != "baseline" && base_ms > 0 ? course::times(base_ms / ms) + " vs baseline" : "";
    course::ResultRow r = course::make_row(11, "SGEMM", var.name, std::to_string(n) + "x" + std::to_string(n), ms, gflops, "GFLOP/s", "sgemm",
                                           check.ok, note);
    r.role = var.role;
    r.flops = flops;
    r.bytes = 12.0 * n * double(n);
    rows_out.push_back(r);
    std::printf("  %-60s %9.4f ms %9.1f GFLOP/s %-16s %s\n", var.name.c_str(), ms, gflops, note.c_str(),
                course::answer_text(check.ok, check.message).c_str());
    std::fflush(stdout);
  }
}

}  // namespace lesson11_driver
