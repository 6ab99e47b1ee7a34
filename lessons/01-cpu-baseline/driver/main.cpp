// lesson01 -- runs lesson 1's variants at one size and prints their times
// beside the articles' figures: the serial i-j-k baseline, loop order alone,
// threads alone, and your matmul. Every result is verified. Each row says
// what the report needs: its flops, its ceiling (OpenBLAS SGEMM on the same
// cores: what a user would otherwise call) and the articles' figures.
//   usage: lesson01 [--n 1024] [--reps 3] [--size tiny|teaching|full] [--csv FILE] [--only-yours]
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "baselines.hpp"
#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "matmul.hpp"

int main(int argc, char **argv) {
  course::Cli cli("lesson01", "lesson 1, CPU baseline matmul: serial i-j-k vs loop order, threads and yours");
  const auto &n = cli.integer("--n", 1024, "matrix size n (n x n)", 1, 8192);
  const auto &reps = cli.integer("--reps", 3, "timed runs per variant (the median is reported)", 1, 100);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's kernel (" COURSE_KERNELS ")");
  cli.preset("tiny", {"--n", "33", "--reps", "1"});
  cli.preset("teaching", {"--n", "1024", "--reps", "1"});
  cli.preset("full", {"--n", "1024", "--reps", "3"});
  cli.parse(argc, argv);

  std::printf("%s\n", course::device_banner().c_str());
  const std::size_t nn = (std::size_t)n * n;
  const auto problem = course::baseline::matmul_problem((int)n);
  const auto &A = problem.A, &B = problem.B;
  const auto &ref = problem.ref;
  const auto &size = problem.size;

  using Fn = std::function<void(int, const float *, const float *, float *)>;
  struct Variant {
    std::string name;
    Fn fn;
    std::string role, article;
    double article_ms;
  };
  std::vector<Variant> variants;
  if (!only_yours) {
    variants.push_back({"serial i-j-k (baseline)", course::baseline::matmul_serial, "baseline",
                        "7350 ms (C++ AMP article); 5.12 s (Intel GFX article), at 1024²", 7350});
    variants.push_back({"serial i-k-j (loop order)", course::baseline::matmul_serial_ikj, "variant", "", 0});
    variants.push_back({"parallel i-j-k (threads)", course::baseline::matmul_parallel_ijk, "variant",
                        "2.689 s on 2 cores (Intel GFX article), at 1024²", 2689});
  }
  variants.push_back({COURSE_KERNELS, lesson1::matmul, "kernel", "", 0});

  std::vector<course::ResultRow> rows;
  double baseline_ms = 0;
  for (const auto &v : variants) {
    std::vector<float> C(nn);
    course::poison(std::span<float>(C));
    const auto t = course::time_median([&] { v.fn((int)n, A.data(), B.data(), C.data()); }, (int)reps, 0);
    const auto check = course::check_close<float>(C, ref, course::matmul_tolerance((int)n), v.name);
    // Host threads in every build: compared with OpenBLAS on the same cores.
    course::ResultRow r = course::make_row(1, "matmul", v.name, size, t.median * 1e3, 2.0 * n * n * n / t.median / 1e9,
                                           "GFLOP/s", "host-sgemm", check.ok);
    r.role = v.role;
    r.flops = 2.0 * n * n * n;
    r.bytes = 12.0 * n * n;  // A and B read, C written once: what no matmul can avoid
    r.seed = course::baseline::matmul_seed;
    r.article = v.article;
    r.article_ms = v.article_ms;
    if (baseline_ms == 0 && !only_yours) baseline_ms = r.time_ms;
    if (baseline_ms > 0) r.note = course::times(baseline_ms / r.time_ms) + " vs serial";
    std::printf("  %-28s %10.1f ms  %7.2f GFLOP/s  %s%s\n", v.name.c_str(), r.time_ms, r.rate, course::answer_word(r),
                check.ok ? "" : ("  " + check.message).c_str());
    std::fflush(stdout);
    rows.push_back(r);
  }
  std::printf("\narticles, 1024^2: C++ AMP serial 7350 ms; Intel GFX serial 5.12 s, 2 cores 2.689 s\n");
  return course::finish(rows, csv);
}
