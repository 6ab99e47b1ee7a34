// lesson05 -- runs lesson 5's team-local matmuls at one size against lesson 2's
// naive offloaded matmul: the tile-size sweep (2, 4, 8, 16, 32, beside the CUDA
// article's timings), the two spellings of team-local memory, and the final
// kernel (team tiles + register tiles), at each size asked for. Inputs and
// outputs stay on the device (`target data`), so only kernels are timed.
// Every result is verified.
//   usage: lesson05 [--n 512[,N...]] [--reps 3] [--tiles 2,4,8,16,32] [--sgemm GFLOPS]
//                   [--size tiny|teaching|full] [--csv FILE] [--only-yours]
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "baselines.hpp"
#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "lesson05_team_local.hpp"
#include "matmul.hpp"

namespace {

using Kernel = void (*)(int, const float *, const float *, float *);

Kernel tiled_kernel(long long t) {
  switch (t) {
    case 2: return lesson5::matmul_tiled<2>;
    case 4: return lesson5::matmul_tiled<4>;
    case 8: return lesson5::matmul_tiled<8>;
    case 16: return lesson5::matmul_tiled<16>;
    case 32: return lesson5::matmul_tiled<32>;
    default: return nullptr;
  }
}

// The CUDA article's tile table (Quadro 2000M; its matrix size is not stated).
const std::map<long long, double> article_ms = {{2, 3464}, {4, 523}, {8, 92}, {16, 52}};

// Every variant at one size n, appended to rows.
void run_size(long long n, long long reps, const std::vector<long long> &tiles, long long sgemm, bool only_yours,
              std::vector<course::ResultRow> &rows) {
  const bool gpu = course::device_info().is_gpu();
  const std::size_t nn = (std::size_t)n * n;
  const auto problem = course::baseline::matmul_problem((int)n);
  const auto &A = problem.A, &B = problem.B;
  const auto &ref = problem.ref;
  const auto &size = problem.size;

  struct Variant {
    std::string experiment, name, note;
    Kernel fn;
    long long tile;  // tile-sweep rows: T, else 0
    std::string role = "variant";
  };
  std::vector<Variant> variants;
  if (!only_yours) variants.push_back({"matmul", "naive offload (baseline)", "", course::baseline::matmul_naive_offload, 0, "baseline"});
  for (long long t : tiles)
    if (!only_yours || t == lesson5::graded_tile)
      variants.push_back({"tile sweep", "tile " + std::to_string(t), "", tiled_kernel(t), t,
                          t == lesson5::graded_tile ? "kernel" : "variant"});
  if (!only_yours) {
    variants.push_back({"team-local spelling", "tile 16, teams-region arrays", "baseline copy of tile 16",
                        course::baseline::matmul_tiled16_teams_local, 0});
    // The host runtime has no pteam memory and warns once per team: GPUs only.
    if (gpu)
      variants.push_back({"team-local spelling", "tile 16, omp_pteam_mem_alloc", "allocate directive",
                          course::baseline::matmul_tiled16_pteam_alloc, 0});
    variants.push_back({"matmul", "final, any-thread path", "sums parked in C per k-tile",
                        lesson5::matmul_any_threads, 0});
  }
  variants.push_back(
      {"matmul", COURSE_KERNELS, "final: 128x128 team tiles, 8x8 register tiles", lesson5::matmul, 0, "kernel"});

  double baseline_ms = 0;
  std::vector<float> C(nn);
  float *c = C.data();
  const float *a = A.data(), *b = B.data();
  auto result = [&](const Variant &v, const course::Timing &t) {
    const auto check = course::check_close<float>(C, ref, course::matmul_tolerance((int)n), v.name);
    course::ResultRow r = course::make_row(5, v.experiment, v.name, size, t.median * 1e3,
                                           2.0 * n * n * n / t.median / 1e9, "GFLOP/s", "sgemm", check.ok, v.note);
    r.role = v.role;
    r.flops = 2.0 * n * n * n;
    r.bytes = 12.0 * n * n;
    if (v.tile) {  // the sweep: GFLOP/s against the tile edge, beside the CUDA article's times
      r.plot = "sweep: team tile edge (elements)";
      r.param = std::to_string(v.tile);
      r.seed = "Tile-size sweep, team-local tiles (CUDA article's table, Quadro 2000M)";
      if (auto it = article_ms.find(v.tile); it != article_ms.end()) {
        r.article = std::to_string((int)it->second) + " ms (CUDA article, tile " + std::to_string(v.tile) +
                    ", its matrix size not stated)";
        r.article_ms = it->second;
      }
    }
    if (v.role == "kernel" && !v.tile) {
      r.seed = course::baseline::matmul_seed;
      r.article = "17 ms, 430x vs serial at 1024² (C++ AMP article, tiled)";
      r.article_ms = 17;
    }
    if (baseline_ms == 0 && !only_yours) baseline_ms = r.time_ms;
    const char *sep = r.note.empty() ? "" : ", ";
    if (baseline_ms > 0 && v.fn != course::baseline::matmul_naive_offload)
      r.note += sep + course::times(baseline_ms / r.time_ms) + " vs naive";
    if (sgemm > 0) r.note += course::format("%s%.0f%% of cuBLAS", r.note.empty() ? "" : ", ", 100.0 * r.rate / sgemm);
    std::string article;
    if (auto it = article_ms.find(v.tile); it != article_ms.end())
      article = course::format("  (article: %.0f ms)", it->second);
    std::printf("  %-30s %10.2f ms  %9.1f GFLOP/s  %s  %s%s%s\n", v.name.c_str(), r.time_ms, r.rate, course::answer_word(r),
                r.note.c_str(), article.c_str(), check.ok ? "" : ("\n    " + check.message).c_str());
    std::fflush(stdout);
    return r;
  };
  // SNIPPET(timing)
  // A and B go to the device once and C is allocated there once; the kernels'
  // own map clauses find all three present and copy nothing: only kernels are timed.
#pragma omp target data map(to : a[0:nn], b[0:nn]) map(alloc : c[0:nn])
  for (const auto &v : variants) {
    course::poison(std::span<float>(C));
#pragma omp target update to(c[0:nn])  // NaN on the device too: an unwritten element shows
    const auto t = course::time_median([&] { v.fn((int)n, a, b, c); }, (int)reps, 1);
#pragma omp target update from(c[0:nn])  // the last run's result, to verify
    rows.push_back(result(v, t));
  }
  // END SNIPPET
}

}  // namespace

int main(int argc, char **argv) {
  course::Cli cli("lesson05", "lesson 5, team-local memory: tile sweep and final matmul vs the naive offload");
  const auto &sizes = cli.integers("--n", {512}, "matrix sizes n (n x n), each run in turn", 1, 16384);
  const auto &reps = cli.integer("--reps", 3, "timed runs per variant (the median is reported)", 1, 100);
  const auto &tiles = cli.integers("--tiles", {2, 4, 8, 16, 32}, "tile sizes to sweep (each 2, 4, 8, 16 or 32)", 2, 32);
  const auto &sgemm = cli.integer("--sgemm", 0,
                                  "cuBLAS SGEMM GFLOP/s on this GPU at this n (cublas_sgemm.py prints it): adds % of it",
                                  0, 10000000);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours =
      cli.flag("--only-yours", "run only your graded kernels: tile 16 and the final matmul (" COURSE_KERNELS ")");
  const bool gpu = course::device_info().is_gpu();
  // On a GPU 1024² is the articles' size and a larger one shows the kernel at full speed.
  cli.preset("tiny", {"--n", "33", "--tiles", "2,4,16", "--reps", "1"});
  cli.preset("teaching", gpu ? std::vector<std::string>{"--n", "1024,2048", "--reps", "3"}
                             : std::vector<std::string>{"--n", "1024", "--reps", "1"});
  cli.preset("full", gpu ? std::vector<std::string>{"--n", "1024,4096", "--reps", "5"}
                         : std::vector<std::string>{"--n", "1024", "--reps", "3"});
  cli.parse(argc, argv);
  for (long long t : tiles)
    if (!tiled_kernel(t)) cli.fail("--tiles: " + std::to_string(t) + " is not one of 2, 4, 8, 16, 32");

  std::printf("%s\n", course::device_banner().c_str());
  std::vector<course::ResultRow> rows;
  for (const long long n : sizes) run_size(n, reps, tiles, sgemm, only_yours, rows);
  if (!gpu && !only_yours)
    std::printf("\n(tile 16 with omp_pteam_mem_alloc runs on GPUs only: the host runtime has no team memory and\n"
                " would print \"Allocator omp_pteam_mem_alloc is not available\" once per team.)\n");
  std::printf("\nCUDA article, Quadro 2000M: tile 2 / 4 / 8 / 16 -> 3464 / 523 / 92 / 52 ms.\n"
              "C++ AMP article: tiled matmul 17 ms at 1024^2, 430x its serial CPU loop (7350 ms).\n");
  return course::finish(rows, csv);
}
