// course_perf_explore -- one program that measures, in one run on one device,
// the ceilings (the vendor's device-to-device copy, the HBM and FP32 peaks from
// the device's properties, cuBLAS SGEMM where it can be loaded, the cost of a
// launch) and many drop-in variants of the course's performance solutions:
//   lesson 2 add_exp, lesson 6 sum (int/float/double) and histogram, lesson 8
//   best copy pattern, lesson 5 final matmul, lesson 7 tiled N-body step.
// Every variant is verified against a host reference (WRONG when it is not
// right), timed on device-resident data (median and best of --reps runs after
// --warmup), and printed as one CSV line:
//   kernel,variant,size,median_ms,best_ms,rate,unit,pct_of_ceiling,ok
// with the same lines written to --csv FILE. Comment lines start with '#'.
//
//   usage: course_perf_explore [--csv FILE] [--reps 10] [--warmup 2] [--tiny]
//                              [--only ceilings,stream,reduce,image,matmul,nbody]
//                              [--cublas /path/libcublas.so]
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "course/cli.hpp"
#include "course/device.hpp"
#include "perf.hpp"

namespace perf {

Recorder::Recorder(const std::string &csv_path) {
  if (!csv_path.empty()) {
    file_ = std::fopen(csv_path.c_str(), "w");
    if (!file_) throw std::runtime_error("cannot write " + csv_path);
  }
  const char *header = "kernel,variant,size,median_ms,best_ms,rate,unit,pct_of_ceiling,ok";
  std::printf("%s\n", header);
  if (file_) std::fprintf(file_, "%s\n", header);
}

Recorder::~Recorder() {
  if (file_) std::fclose(file_);
}

void Recorder::add(const Row &r) {
  char line[512];
  std::snprintf(line, sizeof line, "%s,%s,%s,%.4f,%.4f,%.2f,%s,%.1f,%s", r.kernel.c_str(), r.variant.c_str(),
                r.size.c_str(), r.median_ms, r.best_ms, r.rate, r.unit.c_str(), r.pct, r.ok.c_str());
  std::printf("%s\n", line);
  std::fflush(stdout);
  if (file_) {
    std::fprintf(file_, "%s\n", line);
    std::fflush(file_);
  }
  rows_.push_back(r);
}

void Recorder::note(const std::string &text) {
  std::printf("# %s\n", text.c_str());
  std::fflush(stdout);
  if (file_) {
    std::fprintf(file_, "# %s\n", text.c_str());
    std::fflush(file_);
  }
}

std::string size_text(std::size_t n) {
  if (n >= 1024 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::size_t{1} << k) < n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

}  // namespace perf

int main(int argc, char **argv) {
  course::Cli cli("course_perf_explore",
                  "ceilings and drop-in variants of the course's performance solutions, measured in one run");
  const auto &csv = cli.text("--csv", "", "write the result lines to this CSV file");
  const auto &reps = cli.integer("--reps", 10, "timed runs per variant (median and best reported)", 1, 1000);
  const auto &warmup = cli.integer("--warmup", 2, "untimed runs before the timed ones", 0, 100);
  const auto &tiny = cli.flag("--tiny", "smoke-test sizes (for the host device: checks the verification logic)");
  const auto &only = cli.text("--only", "",
                              "comma-separated groups to run: ceilings,stream,reduce,image,matmul,nbody (default: all)");
  const auto &cublas = cli.text("--cublas", "", "libcublas to dlopen for the SGEMM ceiling (default: the usual names)");
  cli.parse(argc, argv);

  perf::Options o;
  o.tiny = tiny;
  o.reps = static_cast<int>(reps);
  o.warmup = static_cast<int>(warmup);
  o.csv = csv;
  o.cublas = cublas;
  const char *known[] = {"ceilings", "stream", "reduce", "image", "matmul", "nbody"};
  std::stringstream list(only);
  for (std::string g; std::getline(list, g, ',');) {
    if (g.empty()) continue;
    bool found = false;
    for (const char *k : known) found = found || g == k;
    if (!found) cli.fail("--only: unknown group '" + g + "' (ceilings,stream,reduce,image,matmul,nbody)");
    o.only.push_back(g);
  }

  const auto &dev = course::device_info();
  std::printf("# %s\n", course::device_banner().c_str());
  std::printf("# clang %s, %d timed runs after %d warm-up per variant%s\n", __clang_version__, o.reps, o.warmup,
              o.tiny ? ", tiny sizes" : "");
  if (!dev.is_gpu() && !o.tiny)
    std::printf("# note: host-offload device: full sizes take a while here; --tiny is the smoke test\n");
  std::fflush(stdout);

  try {
    perf::Recorder rec(o.csv);
    perf::Ceilings c;
    c.multiprocessors = dev.is_gpu() ? dev.multiprocessors : omp_get_num_procs();
    c.fp32_peak_gflops = dev.fp32_peak_gflops;
    const auto t0 = std::chrono::steady_clock::now();
    auto group = [&](const char *name, auto fn) {
      if (!o.wants(name)) return;
      const auto g0 = std::chrono::steady_clock::now();
      rec.note(std::string("group ") + name);
      fn();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
      char b[96];
      std::snprintf(b, sizeof b, "group %s took %.1f s", name, s);
      rec.note(b);
    };
    // The vendor copy runs first: it also wakes the device up (clocks).
    group("ceilings", [&] { perf::run_ceilings(o, c, rec); });
    group("stream", [&] { perf::run_stream(o, c, rec); });
    group("reduce", [&] { perf::run_reductions(o, c, rec); });
    group("image", [&] { perf::run_image(o, c, rec); });
    group("matmul", [&] { perf::run_matmul(o, c, rec); });
    group("nbody", [&] { perf::run_nbody(o, c, rec); });

    // Summary: the best correct variant of each kernel and size.
    rec.note("summary: fastest correct variant per kernel and size (by best time; rate and % from the median)");
    std::map<std::string, const perf::Row *> best;
    int wrong = 0;
    for (const auto &r : rec.rows()) {
      if (r.ok == "WRONG") ++wrong;
      if (r.ok != "ok" || r.kernel == "ceiling" || r.kernel == "launch" || r.median_ms <= 0) continue;
      const std::string key = r.kernel + " @ " + r.size;
      if (!best.count(key) || r.rate > best[key]->rate) best[key] = &r;
    }
    for (const auto &[key, r] : best) {
      char b[256];
      std::snprintf(b, sizeof b, "best %-28s %-44s %10.2f %-8s %6.1f%%", key.c_str(), r->variant.c_str(), r->rate,
                    r->unit.c_str(), r->pct);
      rec.note(b);
    }
    char b[160];
    std::snprintf(b, sizeof b, "ceilings: D2D copy %.1f GB/s, best OpenMP copy %.1f GB/s, HBM peak %.1f GB/s, FP32 peak %.1f GFLOP/s, cuBLAS SGEMM %.1f GFLOP/s",
                  c.copy_d2d_gbs, c.copy_omp_gbs, c.hbm_peak_gbs, c.fp32_peak_gflops, c.sgemm_gflops);
    rec.note(b);
    std::snprintf(b, sizeof b, "%d WRONG variant(s); total %.1f s", wrong,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    rec.note(b);
    return wrong ? 1 : 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "course_perf_explore: error: %s\n", e.what());
    return 2;
  }
}
