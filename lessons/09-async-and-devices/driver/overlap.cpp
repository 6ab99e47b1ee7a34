// lesson09, experiment 1: overlap. The synchronous version split into copy in
// / kernel / copy out, the synchronous version whole and chunk by chunk, and
// your pipeline for each chunk count (is the copy hidden behind the kernel?),
// then one run of your pipeline drawn as a timeline (timeline.cpp).
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "course/device.hpp"
#include "course/timing.hpp"
#include "experiments.hpp"

namespace driver {

namespace base = course::baseline::lesson9;

void overlap(course::Rows &rows, Problem &p, const std::vector<long long> &chunk_list, int reps, bool only_yours,
             bool show_timeline) {
  const int dev = omp_get_default_device();
  const float *f = p.first.data(), *s = p.second.data();
  float *r = p.result.data();
  std::printf("\n1. overlap: %s on device %d; ms (median of %d); copies in GB/s, whole runs in million elements/s\n",
              p.size.c_str(), dev, reps);
  std::printf("  %-40s %10s %9s %10s\n", "variant", "ms", "rate", "vs sync");
  double sync_ms = 0;
  if (!only_yours) {
    // The synchronous version in its three parts: what a pipeline can hide.
    p.poison();
    const auto t = course::median_parts_ms({[&] { base::enter_inputs(p.n, f, s, r, dev); },
                                            [&] { base::kernel_present(p.n, f, s, r, p.terms, dev); },
                                            [&] { base::exit_result(p.n, f, s, r, dev); }},
                                           reps);
    const double in = t.ms[0], kernel = t.ms[1], out = t.ms[2];
    const auto c = p.verify("sync, split");
    print_line("sync: copy in", in, 8.0 * p.n / in / 1e6, "", c);
    print_line("sync: kernel", kernel, 0, "", c);
    print_line("sync: copy out", out, 4.0 * p.n / out / 1e6, "", c);
    rows.add("overlap", "sync: copy in", p.size, in, 8.0 * p.n / in / 1e6, "GB/s", "", c.ok);
    rows.add("overlap", "sync: kernel", p.size, kernel, 0, "", "", c.ok, "kernel only: data already on the device");
    rows.add("overlap", "sync: copy out", p.size, out, 4.0 * p.n / out / 1e6, "GB/s", "", c.ok);
    const double longest = std::max({in, kernel, out});
    std::printf("  (a perfect pipeline approaches the longest stage, %.3f ms: %s of copy in + kernel + copy out)\n",
                longest, course::times((in + kernel + out) / longest, 2).c_str());

    p.poison();
    sync_ms = course::median_ms([&] { base::add_exp_sync(p.n, f, s, r, p.terms, dev); }, reps);
    const auto cs = p.verify("sync, whole array");
    print_line("sync, whole array (baseline)", sync_ms, p.melems(sync_ms), "1.00x", cs);
    rows.add("overlap", "sync, whole array (baseline)", p.size, sync_ms, p.melems(sync_ms), "Melem/s", "", cs.ok,
             "longest stage " + course::format("%.3f", longest) + " ms");
    for (const long long ch : chunk_list) {
      p.poison();
      const double ms =
          course::median_ms([&] { base::add_exp_sync_chunked(p.n, f, s, r, p.terms, (int)ch, dev); }, reps);
      const auto cc = p.verify("sync, chunked");
      const std::string name = "sync, " + std::to_string(ch) + " chunks (baseline)";
      print_line(name.c_str(), ms, p.melems(ms), course::times(sync_ms / ms, 2), cc);
      rows.add("overlap", name, p.size, ms, p.melems(ms), "Melem/s", "", cc.ok,
               course::times(sync_ms / ms, 2) + " vs sync");
    }
  }
  for (const long long ch : chunk_list) {
    p.poison();
    const auto job = p.job();
    const double ms = course::median_ms([&] { lesson9::add_exp_pipelined(job, (int)ch); }, reps);
    const auto c = p.verify(COURSE_KERNELS " pipeline");
    const std::string name = std::string(COURSE_KERNELS) + ": pipeline, " + std::to_string(ch) + " chunks";
    const std::string vs = sync_ms > 0 ? course::times(sync_ms / ms, 2) : "-";
    print_line(name.c_str(), ms, p.melems(ms), vs, c);
    rows.add("overlap", name, p.size, ms, p.melems(ms), "Melem/s", "", c.ok, sync_ms > 0 ? vs + " vs sync" : "");
  }
  if (!course::device_info().is_gpu())
    std::printf("  (host device: these times cannot show overlap (README, concept 4). The program runs in a parallel\n"
                "  region of %d threads: a synchronous kernel started in it gets one thread, while a pipeline's tasks\n"
                "  run chunks' kernels on all of them at once -- that, not a hidden copy, is any gain above. The\n"
                "  speed test asks only that the pipeline is not much slower here; it grades the task graph.)\n",
                omp_get_num_threads());
  if (show_timeline) {
    // The smallest chunk count above 1 in the list (4 by default): few enough bars to read.
    long long ch = 0;
    for (const long long c : chunk_list)
      if (c > 1 && (ch == 0 || c < ch)) ch = c;
    timeline(p, ch ? (int)ch : 4);
  }
}

}  // namespace driver
