// lesson07 -- runs lesson 7's N-body variants and prints steps/s, interactions/s
// and GFLOP/s (20 flops per interaction) for each layout: the article's AoS
// kernel, AoS with simd, SoA without simd, float4-packed positions, and your
// simulate() (plus your tiled one). At 10 240 bodies it prints the C++ AMP
// article's figures beside yours. Every variant is verified.
//   usage: lesson07 [--n 10240] [--steps 2] [--reps 3] [--size tiny|teaching|full] [--csv FILE] [--only-yours]
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "lesson07_nbody.hpp"
#include "nbody.hpp"

namespace {

using lesson7::Body;
using Simulate = void (*)(std::span<Body>, int);

struct Variant {
  std::string name;
  Simulate fn;
  std::string role, article;
};

std::vector<float> field3(std::span<const Body> b, bool velocity) {
  std::vector<float> v;
  for (const auto &x : b)
    if (velocity)
      v.insert(v.end(), {x.vx, x.vy, x.vz});
    else
      v.insert(v.end(), {x.x, x.y, x.z});
  return v;
}

// One step from the initial state, checked on a sample of bodies against the
// double-precision reference (the tests' tolerances).
course::Check check_one_step(Simulate fn, const std::vector<Body> &initial, const std::string &name) {
  const int n = static_cast<int>(initial.size());
  std::vector<int> which;
  const int stride = n > 1024 ? n / 1024 : 1;
  for (int i = 0; i < n; i += stride) which.push_back(i);
  const auto ref = course::baseline::nbody_reference_one_step(initial, which);
  auto b = initial;
  fn(b, 1);
  std::vector<Body> sample;
  for (int i : which) sample.push_back(b[static_cast<std::size_t>(i)]);
  auto c = course::check_close<float>(field3(sample, false), ref.pos, lesson7::position_tolerance, name + ": one step, positions");
  if (!c.ok) return c;
  return course::check_close<float>(field3(sample, true), ref.vel, lesson7::velocity_tolerance, name + ": one step, velocities");
}

// The timed run's final state against the baseline's: same physics, float
// both, so they agree far more closely than this.
course::Check check_against(const std::vector<Body> &got, const std::vector<Body> &base, const std::string &name) {
  std::vector<double> p, v;
  for (float x : field3(base, false)) p.push_back(x);
  for (float x : field3(base, true)) v.push_back(x);
  auto c = course::check_close<float>(field3(got, false), p, 1e-5, name + ": final positions vs the AoS baseline");
  if (!c.ok) return c;
  return course::check_close<float>(field3(got, true), v, 1e-4, name + ": final velocities vs the AoS baseline");
}

}  // namespace

int main(int argc, char **argv) {
  const auto &dev = course::device_info();
  course::Cli cli("lesson07", "lesson 7, SoA vs AoS: all-pairs N-body steps in each particle layout");
  const std::vector<long long> default_n = dev.is_gpu() ? std::vector<long long>{10240, 65536} : std::vector<long long>{10240};
  const auto &sizes = cli.integers("--n", default_n, "numbers of bodies (10240: the article's size, in steps/s)", 1, 1 << 20);
  const auto &steps = cli.integer("--steps", dev.is_gpu() ? 10 : 2, "steps per timed run", 1, 10000);
  const auto &reps = cli.integer("--reps", 3, "timed runs per variant (the median is reported)", 1, 100);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's kernels (" COURSE_KERNELS ")");
  cli.preset("tiny", {"--n", "64", "--steps", "1", "--reps", "1"});
  cli.preset("teaching", dev.is_gpu() ? std::vector<std::string>{"--n", "10240,65536", "--steps", "5", "--reps", "3"}
                                      : std::vector<std::string>{"--n", "10240", "--steps", "1", "--reps", "1"});
  cli.preset("full", dev.is_gpu() ? std::vector<std::string>{"--n", "10240,65536", "--steps", "10", "--reps", "3"}
                                  : std::vector<std::string>{"--n", "10240", "--steps", "2", "--reps", "3"});
  cli.parse(argc, argv);

  std::printf("%s\n", course::device_banner().c_str());
  std::vector<Variant> variants;
  if (!only_yours) {
    variants.push_back({"AoS (article, baseline)", course::baseline::nbody_simulate_aos, "baseline",
                        "2.5 steps/s on a CPU at 10 240 bodies (C++ AMP article)"});
    variants.push_back({"AoS + simd", course::baseline::nbody_simulate_aos_simd, "variant", ""});
    variants.push_back({"SoA, no simd", course::baseline::nbody_simulate_soa_plain, "variant", ""});
    variants.push_back({"float4 positions + simd", course::baseline::nbody_simulate_packed, "variant", ""});
  }
  const char *gpu_article = "160 steps/s on a GeForce GT 740M at 10 240 bodies (C++ AMP article)";
  variants.push_back({COURSE_KERNELS, lesson7::simulate, "kernel", gpu_article});
  variants.push_back({COURSE_KERNELS " (tiled, 7.6)", lesson7::simulate_tiled, "kernel", gpu_article});

  std::vector<course::ResultRow> rows;
  for (const long long n : sizes) {
    const auto initial = course::baseline::nbody_initial(static_cast<int>(n), course::default_seed);
    const double interactions = static_cast<double>(n) * static_cast<double>(n);
    std::printf("\n%lld bodies, %lld steps per run, median of %lld runs%s\n", n, steps, reps,
                n == 10240 ? " (the article's size)" : "");
    std::printf("  %-30s %10s %10s %11s %10s %7s  %s\n", "variant", "ms/step", "steps/s", "Ginter/s", "GFLOP/s",
                dev.fp32_peak_gflops > 0 ? "% peak" : "", "check");
    std::vector<Body> baseline_final;
    double baseline_ms = 0;
    for (const auto &v : variants) {
      auto check = check_one_step(v.fn, initial, v.name);
      std::vector<Body> b;
      std::vector<double> seconds;
      for (long long r = 0; r <= reps; ++r) {  // run 0 is the warm-up
        b = initial;
        const double t = course::time_once([&] { v.fn(b, static_cast<int>(steps)); });
        if (r > 0) seconds.push_back(t);
      }
      const auto t = course::summarize(seconds);
      if (check.ok && !baseline_final.empty()) check = check_against(b, baseline_final, v.name);
      if (baseline_final.empty() && !only_yours) baseline_final = b;
      const double step_s = t.median / static_cast<double>(steps);
      const double gflops = lesson7::flops_per_interaction * interactions / step_s / 1e9;
      // The article's unit, steps per second; the report turns the flops
      // into GFLOP/s for the % of FP32 peak.
      course::ResultRow r = course::make_row(7, "N-body", v.name, std::to_string(n) + " bodies", step_s * 1e3,
                                             1 / step_s, "steps/s", "fp32", check.ok);
      r.note = course::format("%.1f steps/s, %.2f Ginteractions/s, %.1f GFLOP/s", 1 / step_s,
                              interactions / step_s / 1e9, gflops);
      if (baseline_ms == 0 && !only_yours) baseline_ms = r.time_ms;
      if (baseline_ms > 0) r.note += ", " + course::times(baseline_ms / r.time_ms, 2) + " vs AoS";
      r.role = v.role;
      r.flops = lesson7::flops_per_interaction * interactions;  // one step
      r.bytes = 2.0 * sizeof(Body) * static_cast<double>(n);   // the bodies read and written once per step
      r.seed = "N-body steps per second (C++ AMP article, 10 240 bodies)";
      r.article = v.article;
      const std::string peak =
          dev.fp32_peak_gflops > 0 ? course::format("%.1f%%", 100 * gflops / dev.fp32_peak_gflops) : "";
      std::printf("  %-30s %10.3f %10.1f %11.2f %10.1f %7s  %s%s\n", v.name.c_str(), step_s * 1e3, 1 / step_s,
                  interactions / step_s / 1e9, gflops, peak.c_str(), course::answer_word(r),
                  check.ok ? "" : ("  " + check.message).c_str());
      std::fflush(stdout);
      rows.push_back(r);
    }
    if (n == 10240)
      std::printf("  article (C++ AMP, 10240 bodies): 2.5 steps/s on a CPU, 160 steps/s on a GeForce GT 740M\n");
  }
  std::printf("\nGFLOP/s count %.0f flops per interaction (the CUDA samples' convention), n^2 interactions per step.\n",
              lesson7::flops_per_interaction);
  return course::finish(rows, csv);
}
