// lesson03 -- runs lesson 3's variants on the configured device and prints,
// for each kernel, GB/s and the speedup over the same device loop without
// simd: the baseline, simd, simd + an alignment promise, and yours (on the
// host device also by CPU time, which a busy machine does not distort). A third
// table follows the 4-byte rule into gathers: a lookup table indexed by 1-byte
// and by 4-byte samples, against computing the value. Every result is verified.
//   usage: lesson03 [--n 4194304] [--reps 9] [--size tiny|teaching|full] [--csv FILE] [--only-yours]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "lesson03_simd.hpp"
#include "lesson03_variants.hpp"
#include "simd.hpp"

namespace {

// A variant of one experiment: its name, its function, whether it is the baseline.
template <class Fn>
struct Named {
  std::string name;
  Fn fn;
  bool baseline;
};

struct Table {
  std::string experiment, size;
  double baseline_ms = 0, baseline_cpu_ms = 0;
  std::vector<course::ResultRow> rows;

  // Times run() (already verified by the caller, check) and adds a row.
  void add(const std::string &variant, double bytes, int reps, const std::function<void()> &run,
           const course::Check &check, bool is_baseline) {
    // Warm up for 50 ms, not a fixed count: timed right after the host-side
    // check, 0.05 ms kernels on an H200 measured up to 7x slower than the same
    // code a moment later (most likely the clock of a GPU that sat idle).
    // Wall and CPU time come from the same runs.
    const auto timing = course::time_wall_and_cpu(run, reps, 0.050);
    const auto &t = timing.wall;
    const double cpu_ms = timing.cpu.median * 1e3;
    const bool host = !course::device_info().is_gpu();
    course::ResultRow r =
        course::make_row(3, experiment, variant, size, t.median * 1e3, bytes / t.median / 1e9, "GB/s", "copy", check.ok);
    r.role = is_baseline ? "baseline" : variant == COURSE_KERNELS ? "kernel" : "variant";
    r.bytes = bytes;
    r.in_cache = course::fits_in_cache(bytes);
    if (r.role == "kernel")
      r.article = "Intel GFX article's rules: vectorize, a reduction for reordered sums, 4-byte types, aligned data, "
                  "no gathers";
    if (is_baseline) {
      baseline_ms = r.time_ms;
      baseline_cpu_ms = cpu_ms;
    }
    if (baseline_ms > 0)
      r.note = course::times(baseline_ms / r.time_ms, 2) + " vs baseline" +
               (host ? ", " + course::times(baseline_cpu_ms / cpu_ms, 2) + " by CPU time" : "");
    const std::string cpu_col = host ? course::format("%9.3f cpu-ms", cpu_ms) : "";
    std::printf("  %-40s %9.3f ms %s %8.2f GB/s  %-36s %s%s\n", variant.c_str(), r.time_ms, cpu_col.c_str(), r.rate,
                r.note.c_str(), course::answer_word(r), check.ok ? "" : ("  " + check.message).c_str());
    std::fflush(stdout);
    rows.push_back(r);
  }
};

}  // namespace

int main(int argc, char **argv) {
  course::Cli cli("lesson03", "lesson 3, SIMD: device loops without simd vs simd, alignment, 4-byte types and yours");
  const auto &n_ = cli.integer("--n", 1 << 22, "elements per array", 1, 1 << 28);
  const auto &reps = cli.integer("--reps", 9, "timed runs per variant (the median is reported)", 1, 100);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's kernels (" COURSE_KERNELS ")");
  const bool gpu = course::device_info().is_gpu();
  cli.preset("tiny", {"--n", "1000", "--reps", "1"});
  // A GPU streams 2^22 floats in microseconds: larger arrays there.
  cli.preset("teaching", gpu ? std::vector<std::string>{"--n", std::to_string(1 << 26), "--reps", "9"}
                             : std::vector<std::string>{"--reps", "5"});
  cli.preset("full", gpu ? std::vector<std::string>{"--n", std::to_string(1 << 28), "--reps", "9"}
                         : std::vector<std::string>{"--reps", "9"});
  cli.parse(argc, argv);
  course::idle_threads_sleep();  // the CPU-time column must not count spinning idle threads

  std::printf("%s\n", course::device_banner().c_str());
  const int n = static_cast<int>(n_);
  const std::string size = std::to_string(n);
  const auto xv = course::random_vector<float>(static_cast<std::size_t>(n), course::default_seed, -4.f, 4.f);
  const course::aligned_vector<float> x(xv.begin(), xv.end());
  const float *xp = x.data();
  std::vector<course::ResultRow> rows;

  // --- norm: a float reduction ----------------------------------------------
  {
    std::printf("\nnorm = sqrt(sum x[i]^2), n = %d (%.0f MB read)\n", n, 4.0 * n / 1e6);
    const double ref = course::baseline::norm_reference(n, xp);
    const double tol = lesson3::norm_tolerance(n);
    Table t{"norm", size, 0, 0, {}};
    using Fn = std::function<float(int, const float *)>;
    std::vector<Named<Fn>> vs;
    if (!only_yours) {
      vs.push_back({"device loop, no simd (baseline)", course::baseline::norm_no_simd, true});
      vs.push_back({"simd", lesson3::variants::norm_simd, false});
      vs.push_back({"simd + aligned(16)", lesson3::variants::norm_simd_aligned, false});
    }
    vs.push_back({COURSE_KERNELS, lesson3::norm, false});
    for (const auto &v : vs) {
      const auto check = course::check_scalar(v.fn(n, xp), ref, tol, v.name);
      volatile float sink = 0;
#pragma omp target data map(to : xp[0:n])
      t.add(v.name, 4.0 * n, static_cast<int>(reps), [&] { sink = v.fn(n, xp); }, check, v.baseline);
      (void)sink;
    }
    rows.insert(rows.end(), t.rows.begin(), t.rows.end());
  }

  // --- soft clip: an elementwise kernel calling a small function ------------
  {
    std::printf("\nsoft clip y[i] = x[i] / sqrt(1 + x[i]^2), n = %d (%.0f MB read + written)\n", n, 8.0 * n / 1e6);
    const auto ref = course::baseline::soft_clip_reference(n, xp);
    course::aligned_vector<float> y(static_cast<std::size_t>(n));
    float *yp = y.data();
    Table t{"soft clip", size, 0, 0, {}};
    using Fn = std::function<void(int, const float *, float *)>;
    std::vector<Named<Fn>> vs;
    if (!only_yours) {
      vs.push_back({"double constant, no simd (baseline)", course::baseline::soft_clip_double, true});
      vs.push_back({"float, no simd (compiler's own choice)", lesson3::variants::soft_clip_float, false});
      vs.push_back({"float, simd", lesson3::variants::soft_clip_simd, false});
      vs.push_back({"float, simd + aligned(16)", lesson3::variants::soft_clip_simd_aligned, false});
    }
    vs.push_back({COURSE_KERNELS, lesson3::soft_clip_all, false});
    for (const auto &v : vs) {
      // Verified by a call that maps y back; the timed calls below keep it on the device.
      course::poison(std::span<float>(y));
      v.fn(n, xp, yp);
      const auto check = course::check_close<float>(y, ref, lesson3::clip_tolerance, v.name);
#pragma omp target data map(to : xp[0:n]) map(alloc : yp[0:n])
      t.add(v.name, 8.0 * n, static_cast<int>(reps), [&] { v.fn(n, xp, yp); }, check, v.baseline);
    }
    rows.insert(rows.end(), t.rows.begin(), t.rows.end());
  }

  // --- gathers: a lookup table against computing the value -------------------
  if (!only_yours) {
    std::printf("\nsoft clip of 8-bit samples: 256-entry lookup table (a gather per element) vs computed, n = %d\n", n);
    const auto s8v = course::random_vector<std::uint8_t>(static_cast<std::size_t>(n), course::default_seed + 1, 0, 255);
    const course::aligned_vector<std::uint8_t> s8(s8v.begin(), s8v.end());
    const course::aligned_vector<std::int32_t> s32(s8v.begin(), s8v.end());
    std::vector<float> table(256);
    for (int k = 0; k < 256; ++k) table[k] = lesson3::variants::soft_clip(lesson3::variants::sample_value(k));
    std::vector<double> ref(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const double v = (s8v[i] - 128) / 32.0;
      ref[i] = v / std::sqrt(1.0 + v * v);
    }
    course::aligned_vector<float> y(static_cast<std::size_t>(n));
    float *yp = y.data();
    const std::uint8_t *s8p = s8.data();
    const std::int32_t *s32p = s32.data();
    const float *tp = table.data();
    Table t{"8-bit samples", size, 0, 0, {}};
    struct V {
      std::string name;
      std::function<void()> fn;
      double bytes;
    };
    const std::vector<V> vs = {
        {"lookup table, 4-byte samples (gather)",
         [&] { lesson3::variants::soft_clip_table(n, s32p, tp, yp); }, 8.0 * n},
        {"lookup table, 1-byte samples (gather)",
         [&] { lesson3::variants::soft_clip_table(n, s8p, tp, yp); }, 5.0 * n},
        {"computed, 4-byte samples (no gather)", [&] { lesson3::variants::soft_clip_computed(n, s32p, yp); },
         8.0 * n},
        {"computed, 1-byte samples (no gather)", [&] { lesson3::variants::soft_clip_computed(n, s8p, yp); },
         5.0 * n},
    };
    for (std::size_t k = 0; k < vs.size(); ++k) {
      course::poison(std::span<float>(y));
      vs[k].fn();
      const auto check = course::check_close<float>(y, ref, lesson3::clip_tolerance, vs[k].name);
#pragma omp target data map(to : s8p[0:n], s32p[0:n], tp[0:256]) map(alloc : yp[0:n])
      t.add(vs[k].name, vs[k].bytes, static_cast<int>(reps), vs[k].fn, check, k == 0);
    }
    rows.insert(rows.end(), t.rows.begin(), t.rows.end());
  }

  std::printf("\nthe Intel GFX article's rules, measured above: vectorize (simd), a reduction clause for\n"
              "reordered sums, 4-byte types, aligned data, no gathers where a value can be computed\n");
  return course::finish(rows, csv);
}
