// lesson11 -- runs lesson 11's sum and histogram beside the one-load-at-a-time
// baselines they start from and, on GPUs, beside the same kernels written as
// LLVM `ompx_bare` kernels (the escape hatch), with x already on the device.
// Every result is verified against a host reference.
// Then one N-body step (11.3) beside the starter's kernel (one body per
// thread, exact 1 / sqrt), in GFLOP/s (20 flops per interaction); the report
// sets it beside the classic tiled CUDA kernel (ceiling "cuda-nbody", a peer
// that may be beaten; the FP32 peak where that did not run).
//   usage: lesson11 [--n 268435456] [--bodies 65536] [--reps 20]
//                   [--size tiny|teaching|full] [--csv FILE] [--only-yours]
// The report divides each sum's and histogram's rate by CUB's on the same card
// (ceilings "cub-sum-float", "cub-histogram"; the vendor's device-to-device
// copy where CUB did not run): each reads n floats, 4n bytes, once.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "escape_hatch.hpp"
#include "gravity.hpp"
#include "streaming.hpp"

namespace {

std::vector<course::ResultRow> rows_out;

struct Variant {
  std::string name, role;  // role: baseline, kernel or variant
  std::function<void()> run;
};

// Times each variant (median of reps after one warm-up), checks its result,
// prints one line and adds one row per variant.
void experiment(const std::string &name, const std::string &ceiling, std::size_t n, int reps,
                const std::vector<Variant> &variants,
                const std::function<course::Check(const std::string &)> &verify) {
  const double bytes = 4.0 * static_cast<double>(n);
  double base_ms = 0;
  for (const auto &v : variants) {
    const double ms = course::time_median(v.run, reps, 1).median * 1e3;
    const auto check = verify(v.name);
    const double gbs = ms > 0 ? bytes / ms / 1e6 : 0;
    if (v.role == "baseline") base_ms = ms;
    const std::string note = v.role != "baseline" && base_ms > 0 ? course::times(base_ms / ms) + " vs baseline" : "";
    course::ResultRow r = course::make_row(11, name, v.name, std::to_string(n), ms, gbs, "GB/s", ceiling, check.ok, note);
    r.role = v.role;
    r.bytes = bytes;
    r.in_cache = course::fits_in_cache(bytes);
    rows_out.push_back(r);
    std::printf("  %-44s %9.4f ms %9.1f GB/s %-16s %s\n", v.name.c_str(), ms, gbs, note.c_str(),
                course::answer_text(check.ok, check.message).c_str());
    std::fflush(stdout);
  }
}

// One N-body step on device-resident bodies: the starter's kernel, then the
// lesson's; each checked on a few bodies against a double-precision step.
void nbody_experiment(int n, int reps, bool only_yours) {
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
    v.push_back({"one body per thread, exact 1/sqrt (baseline)", "baseline", [&] { lesson11::plain_nbody_step(in, out, n); }});
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

}  // namespace

int main(int argc, char **argv) {
  course::Cli cli("lesson11", "lesson 11, the last third: sum and histogram beside their baselines");
  const auto &n_arg = cli.integer("--n", 1LL << 28, "floats in x (1 GiB at 2^28)", 1, (1LL << 31) - 1);
  const auto &bodies = cli.integer("--bodies", 65536, "bodies of the N-body step (step 11.3)", 1, 1 << 20);
  const auto &reps = cli.integer("--reps", 20, "timed runs per variant (the median is reported)", 1, 1000);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's code (" COURSE_KERNELS ")");
  cli.preset("tiny", {"--n", "100003", "--bodies", "1000", "--reps", "2"});
  cli.preset("teaching", {"--n", "67108864", "--bodies", "65536", "--reps", "10"});
  cli.preset("full", {"--n", "268435456", "--bodies", "65536", "--reps", "20"});
  cli.parse(argc, argv);

  std::printf("%s\n", course::device_banner().c_str());
  const std::size_t n = static_cast<std::size_t>(n_arg);
  const int R = static_cast<int>(reps);
  const auto x = course::random_vector<float>(n, course::default_seed + 11, 0.0f, 1.0f);
  const float *xp = x.data();
  const std::string who = COURSE_KERNELS;
  const bool bare = lesson11_bare::available() && !only_yours;
  if (!lesson11_bare::available() && !only_yours)
    std::printf("(the ompx_bare rows run on GPU builds only: LLVM 19 cannot run a bare region on its host device)\n");

  double want_sum = 0;
  std::vector<int> want_hist(lesson11::hist_bins, 0);
  for (std::size_t i = 0; i < n; ++i) {
    want_sum += x[i];
    ++want_hist[lesson11::bin_of(x[i])];
  }

#pragma omp target data map(to : xp[0:n])
  {
    std::printf("\nsum of %zu floats, x on the device, median of %d\n", n, R);
    float got = 0;
    std::vector<Variant> v;
    if (!only_yours) v.push_back({"one 4-byte load at a time (baseline)", "baseline", [&] { got = lesson11::plain_sum(xp, n); }});
    v.push_back({who, "kernel", [&] { got = lesson11::sum(xp, n); }});
    if (bare) v.push_back({"ompx_bare + warp shuffles (LLVM only)", "variant", [&] { got = lesson11_bare::sum(xp, n); }});
    const double tol = 4.0 * std::sqrt(static_cast<double>(n) + 1) * 0x1p-24;
    experiment("sum float", "cub-sum-float", n, R, v, [&](const std::string &name) {
      return course::check_scalar(got, want_sum, tol, "sum " + name);
    });

    std::printf("\nhistogram, 256 bins, of %zu floats, x on the device, median of %d\n", n, R);
    std::vector<int> hist(lesson11::hist_bins, 0);
    std::vector<Variant> h;
    if (!only_yours)
      h.push_back({"one 4-byte load per atomic (baseline)", "baseline", [&] { lesson11::plain_histogram(xp, n, hist.data()); }});
    h.push_back({who, "kernel", [&] { lesson11::histogram(xp, n, hist.data()); }});
    if (bare)
      h.push_back({"ompx_bare, .shared bins (LLVM only)", "variant", [&] {
                     std::fill(hist.begin(), hist.end(), 0);
                     lesson11_bare::histogram(xp, n, hist.data());
                   }});
    experiment("histogram 256", "cub-histogram", n, R, h, [&](const std::string &name) {
      return course::check_equal<int>(hist, want_hist, "histogram " + name);
    });
  }
  nbody_experiment(static_cast<int>(bodies), R, only_yours);
  return course::finish(rows_out, csv);
}
