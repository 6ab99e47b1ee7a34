// lesson10 -- runs lesson 10's pipeline beside the slow program it started
// as, stage by stage, so the tools of the lesson have something to look at:
//   normalize  the row normalisation kernel alone (arrays already on the device)
//   blur       the row blur kernel alone (arrays already on the device)
//   run        the whole pipeline, copies included, for --steps steps
// Every result is verified against a double-precision reference.
//   usage: lesson10 [--rows 2048] [--cols 256] [--steps 10] [--stage all|normalize|blur|run]
//                   [--reps 3] [--csv FILE] [--only-yours]
// With --only-yours and one --stage, the program runs just that code once per
// rep: handy under LIBOMPTARGET_INFO / LIBOMPTARGET_PROFILE (README.md).
#include <omp.h>

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
#include "lesson10_profiling.hpp"
#include "pipeline.hpp"

namespace {

namespace base = course::baseline;

// One stage: the slow baseline (unless only_yours) and the lesson's code,
// each timed as the median of reps runs after a warm-up, each result checked.
struct Variant {
  std::string name;
  std::function<void()> run;
};

void stage(course::Rows &rows_out, const std::string &experiment, const std::string &size, double bytes, const std::string &unit, int reps,
           const std::vector<Variant> &variants, const std::function<course::Check(const std::string &)> &verify) {
  double base_ms = 0;
  std::string base_name;
  for (const auto &v : variants) {
    const double ms = course::time_median(v.run, reps, 1).median * 1e3;
    const auto check = verify(v.name);
    const bool is_base = v.name.find("baseline") != std::string::npos;
    if (is_base) {
      base_ms = ms;
      base_name = v.name.substr(0, v.name.find(" (baseline)"));
    }
    const double rate = unit == "GB/s" ? bytes / ms / 1e6 : bytes / (ms / 1e3);
    const std::string note = !is_base && base_ms > 0 ? course::times(base_ms / ms) + " vs " + base_name : "";
    rows_out.add(experiment, v.name, size, ms, rate, unit, unit == "GB/s" ? "copy-bandwidth" : "", check.ok, note);
    std::printf("  %-32s %10.3f ms %10.3f %-7s %-36s %s\n", v.name.c_str(), ms, rate, unit.c_str(), note.c_str(),
                course::answer_text(check.ok, check.message).c_str());
    std::fflush(stdout);
  }
}

// Brings y back from the device, checks it against ref and poisons it on
// both sides, so the next variant starts from NaN.
course::Check fetch_and_check(std::vector<float> &y, const std::vector<double> &ref, const std::string &what) {
  float *yp = y.data();
  const std::size_t n = y.size();
#pragma omp target update from(yp[0:n])
  auto check = course::check_close<float>(y, ref, lesson10::tolerance(1), what);
  course::poison(std::span<float>(y));
#pragma omp target update to(yp[0:n])
  return check;
}

}  // namespace

int main(int argc, char **argv) {
  course::Cli cli("lesson10", "lesson 10, profiling: the pipeline beside the slow program it started as");
  const auto &rows = cli.integer("--rows", 2048, "grid rows", 1, 1 << 16);
  const auto &cols = cli.integer("--cols", 256, "grid columns", 1, 1 << 16);
  const auto &steps = cli.integer("--steps", 10, "pipeline steps (run stage)", 1, 100000);
  const auto &which = cli.text("--stage", "all", "all, normalize, blur or run");
  const auto &reps = cli.integer("--reps", 3, "timed runs per variant (the median is reported)", 1, 1000);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's code (" COURSE_KERNELS ")");
  cli.parse(argc, argv);
  if (which != "all" && which != "normalize" && which != "blur" && which != "run") {
    std::fprintf(stderr, "lesson10: --stage '%s': use all, normalize, blur or run\n", which.c_str());
    return 2;
  }
  if (rows * cols > (1LL << 28)) {
    std::fprintf(stderr, "lesson10: --rows x --cols = %lld is more than 2^28 elements\n", rows * cols);
    return 2;
  }

  std::printf("%s\n", course::device_banner().c_str());
  const int R = (int)rows, C = (int)cols, S = (int)steps, reps_i = (int)reps;
  const std::size_t n = (std::size_t)R * C;
  const int nc = R * lesson10::coefs_per_row;
  const std::string size = std::to_string(R) + "x" + std::to_string(C);
  const auto coef = course::random_vector<float>((std::size_t)nc, course::default_seed + 10, 0.05f, 0.2f);
  const auto x = course::random_vector<float>(n, course::default_seed + 20, -1.f, 1.f);
  std::vector<float> y(n);
  const float *c = coef.data(), *xp = x.data();
  float *yp = y.data();
  const std::string who = COURSE_KERNELS;
  auto want = [&](const char *s) { return which == "all" || which == s; };
  course::Rows rows_out(10);

  if (want("normalize")) {
    std::printf("\nnormalize %s, kernel only (arrays already on the device), median of %d\n", size.c_str(), reps_i);
    const auto ref = base::l10_normalize_reference(R, C, c, xp);
    std::vector<Variant> v;
    if (!only_yours) v.push_back({"generic-mode kernel (baseline)", [&] { base::l10_normalize_generic(R, C, c, xp, yp); }});
    v.push_back({who, [&] { lesson10::normalize(R, C, c, xp, yp); }});
#pragma omp target data map(to : c[0:nc], xp[0:n]) map(alloc : yp[0:n])
    stage(rows_out, "normalize", size, 8.0 * n, "GB/s", reps_i, v,
          [&](const std::string &name) { return fetch_and_check(y, ref, "normalize " + name + " " + size); });
  }
  if (want("blur")) {
    std::printf("\nblur %s, kernel only (arrays already on the device), median of %d\n", size.c_str(), reps_i);
    const std::vector<double> xd(x.begin(), x.end());
    const auto ref = base::l10_blur_reference(R, C, xd.data());
    std::vector<Variant> v;
    if (!only_yours) v.push_back({"one launch per row (baseline)", [&] { base::l10_blur_per_row(R, C, xp, yp); }});
    v.push_back({who, [&] { lesson10::blur(R, C, xp, yp); }});
#pragma omp target data map(to : xp[0:n]) map(alloc : yp[0:n])
    stage(rows_out, "blur", size, 8.0 * n, "GB/s", reps_i, v,
          [&](const std::string &name) { return fetch_and_check(y, ref, "blur " + name + " " + size); });
  }
  if (want("run")) {
    std::printf("\nrun %s, %d steps, copies included, median of %d\n", size.c_str(), S, reps_i);
    const auto ref = base::l10_run_reference(R, C, S, c, xp);
    std::vector<float> g;
    std::vector<Variant> v;
    if (!only_yours)
      v.push_back({"the slow program (baseline)", [&] {
                     g = x;
                     base::l10_run_slow(R, C, S, c, g.data());
                   }});
    v.push_back({who, [&] {
                   g = x;
                   lesson10::run(R, C, S, c, g.data());
                 }});
    stage(rows_out, "run", size + ", " + std::to_string(S) + " steps", (double)S, "steps/s", reps_i, v,
          [&](const std::string &name) { return course::check_close<float>(g, ref, lesson10::tolerance(S), "run " + name); });
  }
  return course::finish(rows_out, csv);
}
