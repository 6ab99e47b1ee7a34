// lesson02, experiment 1: where a call's time goes. add-exp and matmul at
// several sizes, each split into copy in / kernel / copy out, beside the host
// loops they replace (is offloading worth it?).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "baselines.hpp"
#include "course/data.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "experiments.hpp"
#include "lesson02_offload.hpp"
#include "offload.hpp"

namespace driver {

namespace base = course::baseline;

void enter_inputs(int n, const float *a, const float *b, float *out) {
#pragma omp target enter data map(to : a[0:n], b[0:n]) map(alloc : out[0:n])
}
void exit_inputs(int n, const float *a, const float *b, float *out) {
#pragma omp target exit data map(from : out[0:n]) map(release : a[0:n], b[0:n])
}

AddExpData::AddExpData(int n)
    : first(course::random_vector<float>((std::size_t)n, course::default_seed, -1.f, 1.f)),
      second(course::random_vector<float>((std::size_t)n, course::default_seed + 1, -2.f, 2.f)),
      result((std::size_t)n),
      ref(base::add_exp_reference(n, first.data(), second.data())),
      size("n=" + std::to_string(n)) {}

namespace {

// Copy in, kernel, copy out, timed separately: the inputs go to the device
// and the output is allocated there (`target enter data`), the kernel runs
// with its maps finding everything present, then the output comes back
// (`target exit data`). Medians over the runs, in ms.
struct Split {
  double in = 0, kernel = 0, out = 0;
};

Split split_ms(const std::function<void()> &enter, const std::function<void()> &kernel,
               const std::function<void()> &exit, int reps) {
  const auto t = course::median_parts_ms({enter, kernel, exit}, reps);
  return {t.ms[0], t.ms[1], t.ms[2]};
}

std::string ms_or_dash(double ms) { return ms > 0 ? course::format("%.3f", ms) : "-"; }

// The three rows of a split call: copy in and copy out (parts of the call,
// plotted as its shares) and the kernel (the lesson's kernel under test).
// Returns the kernel's row.
course::ResultRow &split_rows(course::Rows &rows, const std::string &experiment, const std::string &who,
                              const std::string &size, const Split &t, double in_bytes, double kernel_bytes,
                              double flops, double out_bytes, bool ok, const std::string &ceiling) {
  auto part = [&](const char *what, double ms, double bytes) {
    auto &r = rows.add(experiment, who + ": " + what, size, ms, bytes / ms / 1e6, "GB/s", "", ok);
    r.role = "part";
    r.bytes = bytes;
    r.plot = "split";
    r.param = what;
  };
  part("copy in", t.in, in_bytes);
  const bool streaming = flops == 0;
  auto &k = rows.add(experiment, who, size, t.kernel, (streaming ? kernel_bytes : flops) / t.kernel / 1e6,
                     streaming ? "GB/s" : "GFLOP/s", ceiling, ok, "kernel only: data already on the device");
  k.role = "kernel";
  k.bytes = kernel_bytes;
  k.flops = flops;
  k.in_cache = streaming && course::fits_in_cache(kernel_bytes);
  k.plot = "split";
  k.param = "kernel";
  part("copy out", t.out, out_bytes);
  return k;
}

void print_wrong(const course::Check &split_check, const course::Check &whole_check) {
  if (!split_check.ok) std::printf("  %s\n", split_check.message.c_str());
  if (!whole_check.ok) std::printf("  %s\n", whole_check.message.c_str());
  std::fflush(stdout);
}

}  // namespace

// ---- 1a. add-exp: copies vs compute ------------------------------------------

void add_exp_sizes(course::Rows &rows, const std::vector<long long> &sizes, int reps, bool only_yours) {
  std::printf("\nadd-exp: result[i] = first[i] + exp(second[i]), float; times in ms (median of %d)\n", reps);
  std::printf("%12s %11s %9s %9s %9s %11s %13s %12s\n", "n", "host loop", "copy in", "kernel", "copy out",
              "whole call", "kernel share", "vs host loop");
  for (const long long nl : sizes) {
    const int n = (int)nl;
    AddExpData d(n);
    const std::string &size = d.size;
    std::vector<float> &result = d.result;
    const float *f = d.first.data(), *s = d.second.data();
    float *r = result.data();
    const double bytes = 12.0 * n;  // two floats read, one written per element
    auto verify = [&](const std::string &who) {
      return course::check_close<float>(result, d.ref, lesson2::add_exp_tolerance, "add-exp " + who + " " + size);
    };

    double host_ms = 0;
    if (!only_yours) {
      course::poison(std::span<float>(result));
      host_ms = course::median_ms([&] { base::add_exp_serial(n, f, s, r); }, reps);
      auto &b = rows.add("add-exp", "host serial loop (baseline)", size, host_ms, bytes / host_ms / 1e6, "GB/s",
                         "host-copy", verify("host loop").ok);
      b.role = "baseline";
      b.bytes = bytes;
      b.in_cache = course::fits_in_cache(bytes);
    }

    course::poison(std::span<float>(result));
    const Split t = split_ms([&] { enter_inputs(n, f, s, r); }, [&] { lesson2::add_exp(n, f, s, r); },
                             [&] { exit_inputs(n, f, s, r); }, reps);
    const auto split_check = verify(COURSE_KERNELS " (split run)");
    course::poison(std::span<float>(result));
    const double whole = course::median_ms([&] { lesson2::add_exp(n, f, s, r); }, reps);
    const auto whole_check = verify(COURSE_KERNELS);
    const std::string who = COURSE_KERNELS, share = course::percent(t.kernel, whole);
    split_rows(rows, "add-exp", who, size, t, 8.0 * n, bytes, 0, 4.0 * n, split_check.ok, "copy");
    auto &w = rows.add("add-exp", who + ": whole call", size, whole, bytes / whole / 1e6, "GB/s", "", whole_check.ok,
                       "kernel " + share + " of the call" +
                           (host_ms > 0 ? "; " + course::times(host_ms / whole) + " vs host loop" : ""));
    w.role = "variant";
    w.bytes = bytes;
    w.article = "C++ AMP article: vector add is a poor GPU candidate, the copies dominate";
    std::printf("%12d %11s %9.3f %9.3f %9.3f %11.3f %13s %12s%s\n", n, ms_or_dash(host_ms).c_str(), t.in, t.kernel,
                t.out, whole, share.c_str(), host_ms > 0 ? course::times(host_ms / whole).c_str() : "-",
                split_check.ok && whole_check.ok ? "" : "  WRONG");
    print_wrong(split_check, whole_check);
  }
}

// ---- 1b. matmul: compute vs copies ------------------------------------------------

void matmul_sizes(course::Rows &rows, const std::vector<long long> &sizes, int reps, bool only_yours) {
  // The largest size is the row of the course-wide 1024² table (the articles' size by default).
  const long long seed_n = *std::max_element(sizes.begin(), sizes.end());
  std::printf("\nmatmul: naive C = A x B, one device thread per element of C; times in ms\n");
  std::printf("%6s %11s %9s %11s %9s %11s %10s %13s %12s\n", "n", "serial", "copy in", "kernel", "copy out",
              "whole call", "GFLOP/s", "kernel share", "vs serial");
  for (const long long nl : sizes) {
    const int n = (int)nl;
    const std::size_t nn = (std::size_t)n * n;
    const std::string size = std::to_string(n) + "x" + std::to_string(n);
    const auto A = course::random_vector<float>(nn, course::default_seed, -1.f, 1.f);
    const auto B = course::random_vector<float>(nn, course::default_seed + 1, -1.f, 1.f);
    const auto ref = base::matmul_reference(n, A.data(), B.data());
    std::vector<float> C(nn);
    const float *a = A.data(), *b = B.data();
    float *c = C.data();
    const double flops = 2.0 * n * n * n;
    const bool seed = nl == seed_n;
    auto verify = [&](const std::string &who) {
      return course::check_close<float>(C, ref, course::matmul_tolerance(n), "matmul " + who + " n=" + std::to_string(n));
    };

    double serial_ms = 0;
    if (!only_yours) {
      course::poison(std::span<float>(C));
      serial_ms = course::median_ms([&] { base::matmul_serial(n, a, b, c); }, reps);
      auto &b = rows.add("matmul", "serial i-j-k (baseline)", size, serial_ms, flops / serial_ms / 1e6, "GFLOP/s",
                         "host-sgemm", verify("serial").ok);
      b.role = "baseline";
      b.flops = flops;
      b.bytes = 12.0 * nn;
      if (seed) {
        b.seed = base::matmul_seed;
        b.article = "7350 ms (C++ AMP article), at 1024²";
        b.article_ms = 7350;
      }
    }
    course::poison(std::span<float>(C));
    const Split t = split_ms([&] { enter_inputs((int)nn, a, b, c); }, [&] { lesson2::matmul(n, a, b, c); },
                             [&] { exit_inputs((int)nn, a, b, c); }, reps);
    const auto split_check = verify(COURSE_KERNELS " (split run)");
    course::poison(std::span<float>(C));
    const double whole = course::median_ms([&] { lesson2::matmul(n, a, b, c); }, reps);
    const auto whole_check = verify(COURSE_KERNELS);
    const std::string who = COURSE_KERNELS, share = course::percent(t.kernel, whole);
    auto &k = split_rows(rows, "matmul", who, size, t, 8.0 * nn, 12.0 * nn, flops, 4.0 * nn, split_check.ok, "sgemm");
    if (serial_ms > 0)
      k.note += "; " + course::times(serial_ms / t.kernel) + " (kernel), " + course::times(serial_ms / whole) +
                " (whole call) vs serial";
    if (seed) {
      k.seed = base::matmul_seed;
      k.article = "147x vs serial at 1024² (C++ AMP article, naive GPU matmul): 50 ms";
      k.article_ms = 7350.0 / 147;
    }
    auto &w = rows.add("matmul", who + ": whole call", size, whole, flops / whole / 1e6, "GFLOP/s", "sgemm",
                       whole_check.ok, "kernel " + share + " of the call");
    w.role = "variant";
    w.flops = flops;
    w.bytes = 12.0 * nn;
    if (seed) w.seed = base::matmul_seed;
    const std::string vs =
        serial_ms > 0 ? course::times(serial_ms / t.kernel) + " / " + course::times(serial_ms / whole) : "-";
    std::printf("%6d %11s %9.3f %11.3f %9.3f %11.3f %10.2f %13s %12s%s\n", n, ms_or_dash(serial_ms).c_str(), t.in,
                t.kernel, t.out, whole, flops / t.kernel / 1e6, share.c_str(), vs.c_str(),
                split_check.ok && whole_check.ok ? "" : "  WRONG");
    print_wrong(split_check, whole_check);
  }
  std::printf("(vs serial: kernel alone / whole call with copies)\n");
}

}  // namespace driver
