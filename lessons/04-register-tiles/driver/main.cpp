// lesson04 -- sweeps lesson 4's register-tile shapes (1x1, 2x2, 4x4, 8x8 and
// the Intel GFX article's 16x32) against lesson 2's naive offloaded matmul at
// each size. Inputs and outputs stay on the device (`target data`), so only the
// kernels are timed. Every result is verified against a double reference.
//   usage: lesson04 [--n 1024[,N...]] [--reps 3] [--size tiny|teaching|full] [--csv FILE] [--only-yours]
//                   [--ptxas LOG]
// --ptxas LOG adds each shape's registers and spills from a `ptxas -v` log of a
// GPU build (lessons/04-register-tiles/ptxas-report.sh writes one).
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "baselines.hpp"
#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "matmul.hpp"

namespace {

using Kernel = void (*)(int, const float *, const float *, float *);
using Shape = std::pair<int, int>;

// Registers, stack frame and spills per tile shape from a `ptxas -v` log: the
// kernel of matmul_tiled<TM, TN> has "matmul_tiledILi<TM>ELi<TN>E" in its name.
std::map<Shape, std::string> read_ptxas_log(const std::string &path, const course::Cli &cli) {
  std::map<Shape, std::string> notes;
  if (path.empty()) return notes;
  std::ifstream in(path);
  if (!in) cli.fail("--ptxas: cannot read '" + path + "'");
  const std::regex entry(R"(Compiling entry function '.*matmul_tiledILi(\d+)ELi(\d+)E)");
  const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  const std::regex regs(R"(Used (\d+) registers)");
  std::string line, stack, spills;
  Shape current{0, 0};
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry)) {
      current = {std::stoi(m[1]), std::stoi(m[2])};
    } else if (current.first && std::regex_search(line, m, frame)) {
      stack = m[1];
      spills = m[2].str() + "/" + m[3].str() + " B";
    } else if (current.first && std::regex_search(line, m, regs)) {
      notes[current] = "regs " + m[1].str() + ", stack " + stack + " B, spill st/ld " + spills;
      current = {0, 0};
    }
  }
  if (notes.empty()) cli.fail("--ptxas: no matmul_tiled kernels in '" + path + "' (is it a ptxas -v log?)");
  return notes;
}

// Every variant at one size n, appended to rows.
void run_size(long long n, long long reps, bool only_yours, const std::map<Shape, std::string> &resources,
              std::vector<course::ResultRow> &rows) {
  const std::size_t nn = (std::size_t)n * n;
  const auto problem = course::baseline::matmul_problem((int)n);
  const auto &A = problem.A, &B = problem.B;
  const auto &ref = problem.ref;
  const auto &size = problem.size;

  struct Variant {
    std::string name;
    Kernel fn;
    Shape shape;  // {0, 0} for the baseline
    std::string article = "";
    double article_ms = 0;
  };
  const Shape graded{lesson4::graded_tm, lesson4::graded_tn};
  std::vector<Variant> variants;
  if (!only_yours) {
    variants.push_back({"naive offload (baseline)", course::baseline::matmul_naive_offload, {0, 0}});
    variants.push_back({"tile 1x1", lesson4::matmul_tiled<1, 1>, {1, 1}});
    variants.push_back({"tile 2x2", lesson4::matmul_tiled<2, 2>, {2, 2}});
    variants.push_back({"tile 4x4", lesson4::matmul_tiled<4, 4>, {4, 4}});
  }
  // The graded shape, named after whose code it is ("yours", "solution", "starter").
  variants.push_back({COURSE_KERNELS, lesson4::matmul_tiled<lesson4::graded_tm, lesson4::graded_tn>, graded,
                      "0.439 s at 1024² (Intel GFX article's offloaded matmul)", 439});
  if (!only_yours)
    variants.push_back({"tile 16x32 (article)", lesson4::matmul_tiled<16, 32>, {16, 32},
                        "TILE_M=TILE_K=16, TILE_N=32, under 4 KB per thread (Intel GFX article)", 0});

  double baseline_ms = 0;
  std::vector<float> C(nn);
  float *c = C.data();
  const float *a = A.data(), *b = B.data();
  // Verifies C, prints one line and makes the variant's result row.
  auto result = [&](const Variant &v, const course::Timing &t) {
    const auto check = course::check_close<float>(C, ref, course::matmul_tolerance((int)n), v.name);
    course::ResultRow r = course::make_row(4, "matmul", v.name, size, t.median * 1e3, 2.0 * n * n * n / t.median / 1e9,
                                           "GFLOP/s", "sgemm", check.ok);
    r.role = !v.shape.first ? "baseline" : v.name == COURSE_KERNELS ? "kernel" : "variant";
    r.flops = 2.0 * n * n * n;
    r.bytes = 12.0 * n * n;
    r.plot = "sweep: register tile per thread (rows x columns)";  // GFLOP/s against the tile shape
    r.param = v.shape.first ? std::to_string(v.shape.first) + "x" + std::to_string(v.shape.second) : "";
    r.article = v.article;
    r.article_ms = v.article_ms;
    if (r.role == "kernel") r.seed = course::baseline::matmul_seed;
    if (baseline_ms == 0 && !only_yours) baseline_ms = r.time_ms;
    if (v.shape.first) r.note = "tile " + std::to_string(v.shape.first) + "x" + std::to_string(v.shape.second);
    if (baseline_ms > 0 && v.shape.first) r.note += ", " + course::times(baseline_ms / r.time_ms) + " vs naive";
    if (auto it = resources.find(v.shape); it != resources.end()) r.note += ", " + it->second;
    std::printf("  %-24s %10.2f ms  %8.2f GFLOP/s  %s  %s%s\n", v.name.c_str(), r.time_ms, r.rate, course::answer_word(r),
                r.note.c_str(), check.ok ? "" : ("\n    " + check.message).c_str());
    std::fflush(stdout);
    return r;
  };
  // SNIPPET(timing)
  // A and B go to the device once and C is allocated there once. The kernels'
  // own map clauses find all three present and copy nothing: only kernels are timed.
#pragma omp target data map(to : a[0:nn], b[0:nn]) map(alloc : c[0:nn])
  for (const auto &v : variants) {
    course::poison(std::span<float>(C));
#pragma omp target update to(c[0:nn])  // NaN on the device too: an unwritten element shows
    // No warm-up run: the median of --reps runs already discards a slow first launch.
    const auto t = course::time_median([&] { v.fn((int)n, a, b, c); }, (int)reps, 0);
#pragma omp target update from(c[0:nn])  // the last run's result, to verify
    rows.push_back(result(v, t));
  }
  // END SNIPPET
}

}  // namespace

int main(int argc, char **argv) {
  course::Cli cli("lesson04", "lesson 4, register tiles: tile-shape sweep vs the naive offloaded matmul");
  const auto &sizes = cli.integers("--n", {1024}, "matrix sizes n (n x n), each run in turn", 1, 16384);
  const auto &reps = cli.integer("--reps", 3, "timed runs per variant (the median is reported)", 1, 100);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the graded 8x8 tile (" COURSE_KERNELS ")");
  const auto &ptxas = cli.text("--ptxas", "", "ptxas -v log of a GPU build: adds registers/spills to the rows");
  const bool gpu = course::device_info().is_gpu();
  // On a GPU 1024² is the articles' size and a larger one shows the kernel at full speed.
  cli.preset("tiny", {"--n", "33", "--reps", "1"});
  cli.preset("teaching", gpu ? std::vector<std::string>{"--n", "1024,2048", "--reps", "3"}
                             : std::vector<std::string>{"--n", "1024", "--reps", "1"});
  cli.preset("full", gpu ? std::vector<std::string>{"--n", "1024,4096", "--reps", "5"}
                         : std::vector<std::string>{"--n", "1024", "--reps", "3"});
  cli.parse(argc, argv);
  if (!ptxas.empty() && !course::device_info().is_gpu())
    cli.fail("--ptxas describes GPU code, and this build runs on the host device");
  const auto resources = read_ptxas_log(ptxas, cli);

  std::printf("%s\n", course::device_banner().c_str());
  std::printf("tile columns are %d apart (lanes = %d: %s)\n", lesson4::lanes, lesson4::lanes,
              lesson4::lanes > 1 ? "a warp's threads read neighbouring columns together" : "contiguous, for SIMD");
  std::vector<course::ResultRow> rows;
  for (const long long n : sizes) run_size(n, reps, only_yours, resources, rows);
  std::printf("\nIntel GFX article: ctile 16x32 (2 KB) + atile 16x16 (1 KB) + btile 32 floats (128 B) per thread,\n"
              "under its GPU's 4 KB of registers per thread; its offloaded matmul took 0.439 s at 1024^2.\n");
  return course::finish(rows, csv);
}
