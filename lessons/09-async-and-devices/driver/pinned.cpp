// lesson09, experiment 4: pinned host memory. One host-to-device copy of the
// first input from its std::vector (pageable) and from your pinned_alloc()
// memory, then the synchronous version and your pipeline with all three
// arrays in pinned_alloc() memory: on a GPU the copies no longer go through
// the driver's staging buffer, and the pipeline's copies can run beside its
// kernels (README, concept 8).
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>

#include "course/device.hpp"
#include "course/timing.hpp"
#include "experiments.hpp"

namespace driver {

namespace base = course::baseline::lesson9;

void pinned(course::Rows &rows, Problem &p, int chunks, int reps, bool only_yours) {
  const int dev = omp_get_default_device(), host = omp_get_initial_device();
  const std::size_t n = (std::size_t)p.n, bytes = sizeof(float) * n;
  const std::string who = COURSE_KERNELS;
  std::printf("\n4. pinned host memory: %s on device %d; ms (median of %d); copies in GB/s\n", p.size.c_str(), dev,
              reps);
  float *first = lesson9::pinned_alloc(n), *second = lesson9::pinned_alloc(n), *result = lesson9::pinned_alloc(n);
  float *d = static_cast<float *>(omp_target_alloc(bytes, dev));
  if (!first || !second || !result || !d) {
    std::printf("  (no memory for this experiment: pinned_alloc or omp_target_alloc returned null)\n");
    rows.add("pinned", who + ": pinned_alloc", p.size, 0, 0, "", "", false, "pinned_alloc returned null");
    lesson9::pinned_free(first);
    lesson9::pinned_free(second);
    lesson9::pinned_free(result);
    if (d) omp_target_free(d, dev);
    return;
  }
  std::copy(p.first.begin(), p.first.end(), first);
  std::copy(p.second.begin(), p.second.end(), second);
  std::printf("  %-40s %10s %9s %10s\n", "variant", "ms", "rate", "vs");

  // One copy in, from each kind of memory, into the same device buffer.
  const course::Check copied = outcome(true, "");
  const double pageable_ms =
      course::median_ms([&] { omp_target_memcpy(d, p.first.data(), bytes, 0, 0, dev, host); }, reps);
  const double pinned_ms = course::median_ms([&] { omp_target_memcpy(d, first, bytes, 0, 0, dev, host); }, reps);
  const double gb_pageable = bytes / pageable_ms / 1e6, gb_pinned = bytes / pinned_ms / 1e6;
  print_line("copy in from a std::vector (baseline)", pageable_ms, gb_pageable, "1.00x", copied);
  const std::string copy_name = who + ": copy in from pinned_alloc memory";
  print_line(copy_name.c_str(), pinned_ms, gb_pinned, course::times(pageable_ms / pinned_ms, 2), copied);
  rows.add("pinned", "copy in from a std::vector (baseline)", p.size, pageable_ms, gb_pageable, "GB/s", "", true);
  rows.add("pinned", copy_name, p.size, pinned_ms, gb_pinned, "GB/s", "", true,
           course::times(pageable_ms / pinned_ms, 2) + " vs pageable");

  // The pipeline on pinned memory against the synchronous version on it.
  lesson9::Job job;
  job.n = p.n;
  job.first = first;
  job.second = second;
  job.result = result;
  job.terms = p.terms;
  const std::span<const float> out(result, n);
  double sync_ms = 0;
  if (!only_yours) {
    course::poison(std::span<float>(result, n));
    sync_ms = course::median_ms([&] { base::add_exp_sync(p.n, first, second, result, p.terms, dev); }, reps);
    const auto c = course::check_close<float>(out, p.ref, lesson9::result_tolerance, "sync on pinned memory " + p.size);
    print_line("sync on pinned memory (baseline)", sync_ms, p.melems(sync_ms), "1.00x", c);
    rows.add("pinned", "sync on pinned memory (baseline)", p.size, sync_ms, p.melems(sync_ms), "Melem/s", "", c.ok);
  }
  course::poison(std::span<float>(result, n));
  const double ms = course::median_ms([&] { lesson9::add_exp_pipelined(job, chunks); }, reps);
  const auto c = course::check_close<float>(out, p.ref, lesson9::result_tolerance, who + " pipeline on pinned memory " + p.size);
  const std::string name = who + ": pipeline, " + std::to_string(chunks) + " chunks, pinned";
  const std::string vs = sync_ms > 0 ? course::times(sync_ms / ms, 2) : "-";
  print_line(name.c_str(), ms, p.melems(ms), vs, c);
  rows.add("pinned", name, p.size, ms, p.melems(ms), "Melem/s", "", c.ok, sync_ms > 0 ? vs + " vs sync" : "");
  if (!course::device_info().is_gpu())
    std::printf("  (host device: one RAM, nothing to pin: any difference between these rows is the machine (caches,\n"
                "  first touch, load), not pinning. A GPU shows pinning; the tests grade step 9.4 here by the\n"
                "  allocator pinned_alloc used.)\n");

  omp_target_free(d, dev);
  lesson9::pinned_free(first);
  lesson9::pinned_free(second);
  lesson9::pinned_free(result);
}

}  // namespace driver
