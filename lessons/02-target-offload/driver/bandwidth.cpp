// lesson02, experiment 3: add-exp's bandwidth against the device's copy
// bandwidth, measured in the same run, and (--shapes, default on a GPU) a
// launch-shape table of fixed copy and add-exp kernels.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "course/data.hpp"
#include "course/device.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "experiments.hpp"
#include "lesson02_offload.hpp"
#include "offload.hpp"

namespace driver {

namespace base = course::baseline;

namespace {

void drop_inputs(int n, const float *a, const float *b, float *out) {
#pragma omp target exit data map(release : a[0:n], b[0:n], out[0:n])
}
void update_host(int n, float *out) {
#pragma omp target update from(out[0:n])
}
void update_device(int n, float *out) {
#pragma omp target update to(out[0:n])
}
// Device-to-device copy by the runtime (cudaMemcpy on a GPU): a copy ceiling
// that no kernel of ours shapes.
void runtime_copy(int n, const float *src, float *dst) {
  const int dev = omp_get_default_device();
  float *from = const_cast<float *>(src), *to = dst;
#pragma omp target data use_device_ptr(from, to)
  omp_target_memcpy(to, from, sizeof(float) * (std::size_t)n, 0, 0, dev, dev);
}

std::string shape_name(const char *kind, const base::Shape &sh) {
  if (sh.threads <= 0) return std::string(kind) + ", default shape (one element per iteration)";
  std::string name = std::string(kind) + ", ";
  if (sh.teams > 0) name += std::to_string(sh.teams) + " teams x ";
  name += std::to_string(sh.threads) + " threads x " + std::to_string(sh.per_thread) + "/iter";
  return name + (sh.one_block ? ", block per team" : "");
}

}  // namespace

void bandwidth(course::Rows &rows, int n, int reps, bool only_yours, bool shapes) {
  const auto &dev = course::device_info();
  AddExpData d(n);
  const std::string &size = d.size;
  std::vector<float> &result = d.result;
  const float *f = d.first.data(), *s = d.second.data();
  float *r = result.data();
  const double copy_bytes = 8.0 * n, add_bytes = 12.0 * n;
  std::printf("\nbandwidth, %s floats, kernels only (data already on the device), median of %d\n", size.c_str(), reps);
  std::printf("  %-56s %9s %9s %10s\n", "variant", "ms", "GB/s", "% of copy");

  struct Measured {
    std::string name;
    double ms, gbs;
    bool is_copy;
    course::Check check;
  };
  std::vector<Measured> got;
  double ceiling = 0;
  enter_inputs(n, f, s, r);
  auto measure = [&](const std::string &name, bool is_copy, const std::function<void()> &k) {
    course::poison(std::span<float>(result));
    update_device(n, r);
    const double ms = course::time_median(k, reps, 1).median * 1e3;
    update_host(n, r);
    const auto c = is_copy ? course::check_equal<float>(result, d.first, "copy " + size)
                           : course::check_close<float>(result, d.ref, lesson2::add_exp_tolerance, "add-exp " + name + " " + size);
    const double gbs = (is_copy ? copy_bytes : add_bytes) / ms / 1e6;
    if (is_copy && c.ok) ceiling = std::max(ceiling, gbs);
    got.push_back({name, ms, gbs, is_copy, c});
  };
  auto copy = [&](const base::Shape &sh) {
    measure(shape_name("copy", sh), true, [&, sh] { base::copy_shaped(n, f, r, sh); });
  };
  auto add = [&](const base::Shape &sh) {
    measure(shape_name("add-exp", sh), false, [&, sh] { base::add_exp_shaped(n, f, s, r, sh); });
  };
  if (!only_yours) {
    // The copy ceiling: the runtime's own device-to-device copy and copy
    // kernels of several shapes; the fastest correct one is "the copy".
    measure("device copy (omp_target_memcpy)", true, [&] { runtime_copy(n, f, r); });
    copy({});
    for (const int th : {256, 1024})
      for (const int e : {1, 4})
        for (const bool block : {false, true}) copy({th, e, 0, block});
    // Explicit team counts are left to GPUs: the host device grants one or
    // two teams and warns about the rest.
    if (dev.is_gpu())
      for (const int e : {1, 4}) copy({256, e, (int)((n + 256LL * e - 1) / (256LL * e)), false});
    add({});
    if (shapes) {
      for (const int th : {128, 256, 512, 1024})
        for (const int e : {1, 2, 4, 8})
          for (const bool block : {false, true}) add({th, e, 0, block});
      if (dev.is_gpu()) {
        for (const int th : {256, 1024})
          for (const int e : {1, 4}) add({th, e, (int)((n + (long long)th * e - 1) / ((long long)th * e)), false});
        for (const int waves : {1, 2, 4, 8})  // 1024-thread teams: two fit on an SM at once
          add({1024, 4, std::max(1, dev.multiprocessors) * 2 * waves, true});
      }
    }
  }
  measure(COURSE_KERNELS, false, [&] { lesson2::add_exp(n, f, s, r); });
  drop_inputs(n, f, s, r);

  for (const auto &m : got) {
    const std::string share = ceiling > 0 ? course::percent(m.gbs, ceiling) : "-";
    std::printf("  %-56s %9.3f %9.1f %10s  %s\n", m.name.c_str(), m.ms, m.gbs, share.c_str(),
                course::answer_text(m.check.ok, m.check.message).c_str());
    auto &row = rows.add("bandwidth", m.name, size, m.ms, m.gbs, "GB/s", "copy", m.check.ok,
                         ceiling > 0 ? share + " of the best copy here (" + std::to_string((int)ceiling) + " GB/s)" : "");
    row.role = m.is_copy ? "reference" : m.name == COURSE_KERNELS ? "kernel" : "variant";
    row.bytes = m.is_copy ? copy_bytes : add_bytes;
    row.in_cache = course::fits_in_cache(row.bytes);
  }
  std::fflush(stdout);
}

}  // namespace driver
