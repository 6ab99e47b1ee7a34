// usm-probe -- which forms of host/device memory work on this device, and
// what one add-exp (y = a + exp(b)) costs in each, copies included. Lesson 9's
// "Unified shared memory" section points here: it is measured, not graded.
//
// Built twice from this file (tools/usm-probe/CMakeLists.txt):
//   course_usm_probe         forms that need no promise from the program:
//     map      host vectors, map(to:)/map(from:) on every call
//     pinned   llvm_omp_target_alloc_host: page-locked host memory, mapped
//              the same way (DMA without a staging copy: lesson 9's copies)
//     device   omp_target_alloc + omp_target_memcpy in and out, is_device_ptr
//     shared   llvm_omp_target_alloc_shared: managed memory that migrates on
//              demand; the kernel takes the pointer, the host reads it back
//   course_usm_probe_system  `#pragma omp requires unified_shared_memory`:
//     system   plain std::vector memory used by the kernel as it is (needs
//              HMM or ATS on NVIDIA; without it the runtime stops the program,
//              which is why this form is a program of its own)
// Every form is verified against the host's answer; PASS/FAIL per row and the
// exit code is the verdict (0: every form that ran was right).
#ifdef COURSE_USM_SYSTEM
#pragma omp requires unified_shared_memory
#endif
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "course/device.hpp"
#include "course/timing.hpp"

// LLVM's allocators for host-pinned and managed memory; Debian's omp.h does
// not declare them (they live in libomptarget). Each has its own free:
// omp_target_free on pinned host memory makes LLVM 19's CUDA plugin call
// cuMemFree on it, which fails and stops the program (seen on an H200).
extern "C" void *llvm_omp_target_alloc_host(std::size_t bytes, int device);
extern "C" void *llvm_omp_target_alloc_shared(std::size_t bytes, int device);
extern "C" void llvm_omp_target_free_host(void *ptr, int device);
extern "C" void llvm_omp_target_free_shared(void *ptr, int device);

namespace {

struct Result {
  std::string form, what;
  double first_ms = 0, median_ms = 0;
  bool ok = false;
};

float input_a(std::size_t i) { return static_cast<float>(i % 1000) * 1e-3f; }
float input_b(std::size_t i) { return static_cast<float>(i % 997) * 2e-3f - 1.f; }

// Max relative error of y against the host's a + exp(b): a wrong or
// unwritten element (poisoned with NaN below) fails.
bool verify(const float *y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float want = input_a(i) + std::exp(input_b(i));
    if (!(std::fabs(y[i] - want) <= 1e-5f * std::fabs(want) + 1e-6f)) {
      std::fprintf(stderr, "usm-probe: y[%zu] = %g, expected %g\n", i, y[i], want);
      return false;
    }
  }
  return true;
}

void fill(float *a, float *b, float *y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) a[i] = input_a(i), b[i] = input_b(i), y[i] = std::nanf("");
}

// One row, printed as soon as it is measured: a form the device does not
// support can stop the program (the runtime aborts), and the rows before it
// must survive.
void print(const Result &r) {
  const bool ran = r.median_ms > 0 || r.ok;
  std::printf("  %-7s %-62s %10.3f %10.3f %8s\n", r.form.c_str(), r.what.c_str(), r.first_ms, r.median_ms,
              !ran ? "n/a" : (r.ok ? "PASS" : "FAIL"));
  std::fflush(stdout);
}

// Times one whole call (first run separately: it pays for first touch,
// page migration or registration), then verifies what the host sees.
// @p fetch brings the answer to where the host reads it, untimed (the forms
// whose timed call leaves it on the device).
template <class F, class G = void (*)()>
Result measure(const char *form, const char *what, const float *y, std::size_t n, int reps, F &&call,
               G &&fetch = [] {}) {
  Result r{form, what};
  r.first_ms = 1e3 * course::time_once(call);
  r.median_ms = 1e3 * course::time_median(call, reps, 0).median;
  fetch();
  r.ok = verify(y, n);
  print(r);
  return r;
}

#ifndef COURSE_USM_SYSTEM
// The kernel on pointers that are valid on the device as they are.
void kernel_device_ptrs(const float *a, const float *b, float *y, std::size_t n, int dev) {
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b, y)
  for (std::size_t i = 0; i < n; ++i) y[i] = a[i] + std::exp(b[i]);
}

// The kernel with maps: copies in and out on every call.
void kernel_mapped(const float *a, const float *b, float *y, std::size_t n, int dev) {
#pragma omp target teams distribute parallel for device(dev) map(to : a[0:n], b[0:n]) map(from : y[0:n])
  for (std::size_t i = 0; i < n; ++i) y[i] = a[i] + std::exp(b[i]);
}
#endif

}  // namespace

int main(int argc, char **argv) {
  std::size_t n = std::size_t{1} << 26;
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) {
      n = std::strtoull(argv[++i], nullptr, 10);
    } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--n ELEMENTS] [--reps R]\n", argv[0]);
      return 2;
    }
  }
  if (n == 0 || reps < 1) {
    std::fprintf(stderr, "usm-probe: error: --n and --reps must be positive\n");
    return 2;
  }
  const int dev = omp_get_default_device();
  const std::size_t bytes = n * sizeof(float);
  std::printf("%s\n", course::device_banner().c_str());
  std::printf("usm-probe: n = %zu floats (%.0f MiB per array), whole calls incl. copies, median of %d\n", n,
              bytes / 1048576.0, reps);
  std::printf("  %-7s %-62s %10s %10s %8s\n", "form", "what", "first ms", "median ms", "verdict");
  std::vector<Result> rows;

#ifndef COURSE_USM_SYSTEM
  {  // map: ordinary (pageable) host memory
    std::vector<float> a(n), b(n), y(n);
    fill(a.data(), b.data(), y.data(), n);
    rows.push_back(measure("map", "std::vector + map(to/from) each call", y.data(), n, reps,
                           [&] { kernel_mapped(a.data(), b.data(), y.data(), n, dev); }));
  }
  {  // pinned: page-locked host memory, same maps
    auto *a = static_cast<float *>(llvm_omp_target_alloc_host(bytes, dev));
    auto *b = static_cast<float *>(llvm_omp_target_alloc_host(bytes, dev));
    auto *y = static_cast<float *>(llvm_omp_target_alloc_host(bytes, dev));
    if (a && b && y) {
      fill(a, b, y, n);
      rows.push_back(measure("pinned", "llvm_omp_target_alloc_host + map(to/from) each call", y, n, reps,
                             [&] { kernel_mapped(a, b, y, n, dev); }));
    } else {
      rows.push_back({"pinned", "llvm_omp_target_alloc_host returned null: not offered here"});
      print(rows.back());
    }
    for (float *p : {a, b, y})
      if (p) llvm_omp_target_free_host(p, dev);
  }
  {  // device: memory the program manages, explicit copies
    std::vector<float> a(n), b(n), y(n);
    fill(a.data(), b.data(), y.data(), n);
    const int host = omp_get_initial_device();
    auto *da = static_cast<float *>(omp_target_alloc(bytes, dev));
    auto *db = static_cast<float *>(omp_target_alloc(bytes, dev));
    auto *dy = static_cast<float *>(omp_target_alloc(bytes, dev));
    if (da && db && dy) {
      rows.push_back(measure("device", "omp_target_alloc + omp_target_memcpy in/out each call", y.data(), n, reps, [&] {
        omp_target_memcpy(da, a.data(), bytes, 0, 0, dev, host);
        omp_target_memcpy(db, b.data(), bytes, 0, 0, dev, host);
        kernel_device_ptrs(da, db, dy, n, dev);
        omp_target_memcpy(y.data(), dy, bytes, 0, 0, host, dev);
      }));
      // The same memory with the data already there: the kernel alone, on a
      // poisoned output, fetched once afterwards for the verdict.
      for (std::size_t i = 0; i < n; ++i) y[i] = std::nanf("");
      omp_target_memcpy(dy, y.data(), bytes, 0, 0, dev, host);
      rows.push_back(measure(
          "device", "kernel only (data resident)", y.data(), n, reps, [&] { kernel_device_ptrs(da, db, dy, n, dev); },
          [&] { omp_target_memcpy(y.data(), dy, bytes, 0, 0, host, dev); }));
    } else {
      rows.push_back({"device", "omp_target_alloc returned null"});
      print(rows.back());
    }
    for (float *p : {da, db, dy})
      if (p) omp_target_free(p, dev);
  }
  {  // shared: managed memory, migrates on demand
    auto *a = static_cast<float *>(llvm_omp_target_alloc_shared(bytes, dev));
    auto *b = static_cast<float *>(llvm_omp_target_alloc_shared(bytes, dev));
    auto *y = static_cast<float *>(llvm_omp_target_alloc_shared(bytes, dev));
    if (a && b && y) {
      fill(a, b, y, n);  // written by the host: the first kernel pulls the pages over
      rows.push_back(measure("shared", "llvm_omp_target_alloc_shared, kernel on the pointers", y, n, reps,
                             [&] { kernel_device_ptrs(a, b, y, n, dev); }));
    } else {
      rows.push_back({"shared", "llvm_omp_target_alloc_shared returned null: not offered here"});
      print(rows.back());
    }
    for (float *p : {a, b, y})
      if (p) llvm_omp_target_free_shared(p, dev);
  }
#else
  {  // system: the program promised unified shared memory; plain host memory
    std::vector<float> a(n), b(n), y(n);
    fill(a.data(), b.data(), y.data(), n);
    float *pa = a.data(), *pb = b.data(), *py = y.data();
    rows.push_back(measure("system", "requires unified_shared_memory, std::vector used by the kernel", py, n, reps, [&] {
#pragma omp target teams distribute parallel for device(dev)
      for (std::size_t i = 0; i < n; ++i) py[i] = pa[i] + std::exp(pb[i]);
    }));
  }
#endif

  int failed = 0;
  for (const Result &r : rows)
    if ((r.median_ms > 0 || r.ok) && !r.ok) ++failed;
  std::printf("%s: %d of %zu forms wrong\n", failed ? "FAIL" : "PASS", failed, rows.size());
  return failed ? 1 : 0;
}
