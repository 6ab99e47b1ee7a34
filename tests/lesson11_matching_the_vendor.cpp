// Lesson 11 tests -- matching the vendor: the sum and the histogram are right at
// awkward sizes, at every offset of x from a 16-byte boundary (the Quad loads'
// head and tail) and for any launch the runtime grants; the N-body step (11.3)
// matches a double-precision step at sizes that are no multiple of a tile and
// for any launch; the SGEMM (11.4) matches a double-precision product at
// sizes that are no multiple of a tile, on both load paths; and each step is
// faster than its baseline (the same team kernel with the starter's code in
// it, reference/lesson11_plain_*.cpp), timed with the data already on the
// device. What a step buys only a GPU
// (16-byte loads, loads in flight, a body j serving several bodies, the
// hardware's 1 / sqrt, the taller register tile) is also read from your
// functions compiled for a GPU, on every device (the compiled-code tests).
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "course/data.hpp"
#include "course/device.hpp"
#include "course/verify.hpp"
#include "course_test.hpp"
#include "gemm.hpp"
#include "gravity.hpp"
#include "lesson11_plain.hpp"
#include "streaming.hpp"

// Speedup thresholds, {host, gpu} (course/grading.hpp), each at most half of
// the gain the solution measured against the plain baseline
// (docs/results/lesson11-h100-2026-11-26.md). The baselines are compiled one
// file per topic, as the student's code is: on an H200 (20 runs each,
// docs/results/h200-2026-11-29-baselines.md) the solution measured sum
// 2.7-2.8x, histogram 1.5-1.6x, N-body 1.2x, SGEMM 1.2x, and each step undone
// 1.0x (11.1, 11.2, 11.3) or a wrong C (11.4).
// Sum (step 11.1), n = 2^22 host, 2^27 gpu. H100, wall clock: 1.8x (the
// undone step: 1.0x). On the host device the baseline's loop has `simd
// reduction` (reference/lesson11_plain_*.cpp): a vectorising compiler gets from one line what
// Vec16 and partial sums get, and the loop is memory-bound either way
// (2-core EPYC, load 13, process CPU time: 0.9x, 2026-11-27; the plain loop
// without the clause is 3.4x slower than the solution). So the speed test is
// not run on the host device (its host value is unused) and the
// compiled-code test grades the step there.
// Histogram (step 11.2): H100 1.2x (the undone step: 0.66x). On the host
// device each team has one thread and its atomics are locked adds whatever
// loads come before them (measured 1.0x), so the speed test is not run there
// (its host value is unused); the compiled-code test grades the step.
// N-body (step 11.3), one step, n = 2048 host, 65536 gpu; the baseline is the
// starter's kernel (one body per thread, exact 1 / sqrt), on the host device
// with `simd reduction` over the tile (lesson11_plain_gravity.cpp; without it the solution
// was 3.4-3.5x faster, and a student's one-line simd 1.9x). Host, process CPU
// time: 1.5-1.7x against that (2026-11-27, 2-core EPYC, busy and idle), so
// the host value is 1.2, and the compiled-code test grades the step there too. H100, wall clock: 1.23x
// (3.45 -> 2.81 ms per step; ncu, the kernel alone: 4.11 -> 3.33 ms), so the
// gpu value is 1.1.
// SGEMM (step 11.4), n = 4096 gpu, 256 host; the baseline is the same kernel
// with lesson 5's 8 x 8 register tile (lesson11_plain_gemm.cpp). H100, wall clock: 1.09x
// (3.41 -> 3.13 ms in the lesson program, 3.51 -> 3.23 ms in this test;
// docs/results/h100-2026-11-26-sgemm.md), so the gpu value is 1.04. Host,
// process CPU time: 1.1-1.2x (the any-thread path; a busy 2-core machine),
// and 0.83-0.91x on 2026-11-27 (load 13): nothing to grade, so the speed test
// is not run there (its host value is unused); as on every device, the undone step fails
// the correctness tests (C stays zero) and the compiled-code test grades the
// tile's height.
namespace thresholds {
constexpr course::Threshold kNbody{"lesson11.nbody", 1.2, 1.1, course::Scaling::fixed, 0};
constexpr course::Threshold kSum{"lesson11.sum", 0.7, 1.2, course::Scaling::fixed, 0};
constexpr course::Threshold kHistogram{"lesson11.histogram", 0.8, 1.1, course::Scaling::fixed, 0};
constexpr course::Threshold kGemm{"lesson11.gemm", 0.7, 1.04, course::Scaling::fixed, 0};
}  // namespace thresholds

namespace {

using lesson11::Launch;
namespace ref = course::baseline::lesson11;  // the baselines

// 1, a prime, a size that is no multiple of 4 x 256 (a GPU team's step with
// Quads), a prime past 64 Ki (a host team's share), and a real size.
const std::vector<std::size_t> sizes = {1, 97, 1000, 65537, std::size_t(1) << 22};

std::vector<Launch> odd_shapes() {
  std::vector<Launch> s = {{1, 1}, {1, 33}, {3, 2}};
#ifdef COURSE_DEVICE_GPU
  s.push_back({7, 1000});
  s.push_back({5000, 64});
  s.push_back({3, 33});
#endif
  return s;
}

std::string shape_name(const Launch &l) {
  return l.teams == 0 ? std::string("default launch")
                      : std::to_string(l.teams) + " teams x " + std::to_string(l.threads) + " threads";
}

std::vector<float> input(std::size_t n, std::uint64_t salt) {
  return course::random_vector<float>(n, course_test::seed() + salt, 0.0f, 1.0f);
}

double sum_reference(const float *x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

// What a wrong sum most likely means (the inputs are positive).
std::string sum_hint(double got, double want, std::size_t offset) {
  if (got < want)
    return "\nLess than the sum: some elements were never added. With Vec16 loads, the elements before b's first "
           "16-byte boundary (the head: here x starts " +
           std::to_string(offset) +
           " element(s) past one) and after its last whole Vec16 (the tail) still belong to some thread (README, "
           "Steps: 11.1, 'head, Quads, tail').";
  return "\nMore than the sum: some elements were added twice. The head, the Quads and the tail must not overlap, "
         "and each Quad belongs to one thread (README, Steps: 11.1).";
}

course::Check check_sum(const float *x, std::size_t n, Launch l, std::size_t offset, const std::string &what) {
  const float got = lesson11::sum(x, n, l);
  const double want = sum_reference(x, n);
  auto c = course::check_scalar(got, want, course::sum_tolerance<float>(n), what);
  if (!c.ok) c.message += sum_hint(got, want, offset);
  return c;
}

std::vector<int> histogram_reference(const float *x, std::size_t n) {
  std::vector<int> h(lesson11::hist_bins, 0);
  for (std::size_t i = 0; i < n; ++i) ++h[lesson11::bin_of(x[i])];
  return h;
}

course::Check check_histogram(const float *x, std::size_t n, Launch l, const std::string &what) {
  auto hist = course_test::poisoned<int>(lesson11::hist_bins);
  course_test::with_device_poison(std::span<int>(hist), [&] { lesson11::histogram(x, n, hist.data(), l); });
  const auto want = histogram_reference(x, n);
  auto c = course::check_equal<int>(hist, want, what);
  if (!c.ok) {
    long long total = 0;
    for (int v : hist) total += v;
    c.message += total < static_cast<long long>(n)
                     ? "\nFewer samples counted than there are (" + std::to_string(total) + " of " +
                           std::to_string(n) +
                           "): the head before the first Quad or the tail after the last one is not counted, "
                           "or an update was not atomic (README, Steps: 11.2)."
                     : "\nCounts do not match: some samples were counted twice, or in the wrong bin (each of a "
                       "Quad's four floats has its own bin) (README, Steps: 11.2).";
  }
  return c;
}

// The sum of ints (exact) or doubles (4 sqrt(n) 2^-53 relative, as lesson 6)
// at x[0:n), against a long double reference.
template <class T>
course::Check check_sum_of(const T *x, std::size_t n, Launch l, std::size_t offset, const std::string &what) {
  const T got = lesson11::sum(x, n, l);
  long double want = 0;
  for (std::size_t i = 0; i < n; ++i) want += x[i];
  course::Check c;
  if constexpr (std::is_integral_v<T>) {
    c.ok = static_cast<long double>(got) == want;
    c.message = what + ": got " + std::to_string(got) + ", want " + std::to_string(static_cast<long long>(want));
  } else {
    c = course::check_scalar(got, static_cast<double>(want),
                             4.0 * std::sqrt(static_cast<double>(n) + 1) * 0x1p-53, what);
  }
  if (!c.ok) c.message += sum_hint(static_cast<double>(got), static_cast<double>(want), offset);
  return c;
}

// n ints in [0, 100] (a sum of 2^22 of them fits an int) or doubles in [0, 1).
template <class T>
std::vector<T> input_of(std::size_t n, std::uint64_t salt) {
  if constexpr (std::is_integral_v<T>)
    return course::random_vector<T>(n, course_test::seed() + 700 + salt, T(0), T(100));
  else
    return course::random_vector<T>(n, course_test::seed() + 800 + salt, T(0), T(1));
}

// The int and double sums at every offset 0..3 elements from a mapped
// array's start (for doubles, offsets 1 and 3 are off a 16-byte boundary).
template <class T>
void sums_at_every_offset(std::size_t n, std::uint64_t salt) {
  auto all = input_of<T>(n + 3, salt);
  const T *p = all.data();
  const std::size_t m = all.size();
#pragma omp target data map(to : p[0:m])
  for (std::size_t off = 0; off < 4; ++off)
    COURSE_CHECK(check_sum_of(p + off, n, {}, off,
                              std::string(std::is_integral_v<T> ? "int" : "double") + " sum, n=" + std::to_string(n) +
                                  ", x at offset " + std::to_string(off)));
}

// x at offsets 0..3 floats from the start of a mapped array: inside the
// mapping, the device address of x is the array's plus the offset, so three
// of the four calls find x off a 16-byte boundary.
template <class F>
void at_every_offset(std::size_t n, std::uint64_t salt, F &&check) {
  auto all = input(n + 3, salt);
  const float *p = all.data();
  const std::size_t m = all.size();
#pragma omp target data map(to : p[0:m])
  for (std::size_t off = 0; off < 4; ++off) check(p + off, n, off);
}

// x already on the device, so the kernels are compared and not the copies.
// Host device: process CPU time (a busy 2-core machine stretches the wall
// clock); GPU: wall clock.
template <class FB, class FC>
course::Comparison compare_on_device(const std::vector<float> &x, FB &&baseline, FC &&candidate) {
  const float *p = x.data();
  const std::size_t n = x.size();
  const auto clock = course::device_info().is_gpu() ? course::Clock::wall : course::Clock::process_cpu;
  course::Comparison cmp;
#pragma omp target data map(to : p[0:n])
  cmp = course::compare_interleaved(baseline, candidate, 15, 2, clock);
  return cmp;
}

#ifdef COURSE_DEVICE_GPU
const std::size_t speedup_n = std::size_t(1) << 27;  // 512 MiB: ~0.2 ms per sum on an H100
#else
const std::size_t speedup_n = std::size_t(1) << 22;
#endif

// ---- what a GPU would run: your functions compiled for one ----
//
// On the host device the speed tests cannot see what these steps buy a GPU:
// the baselines' loops already use the CPU's vector unit (`simd`), and a CPU
// thread has no warp waiting on memory. So these tests compile your file for
// an NVIDIA GPU, device code only (PTX out: no CUDA, no GPU, no device
// library), on whatever device the tests run, and count in each of your
// functions the instructions a step is about: 16-byte loads, reciprocal
// square roots, multiply-adds. The kernels around your functions (the entry
// points in streaming.inc, gravity.inc and gemm.inc) are swapped for one
// small caller per function, so the compile takes seconds.

// Instructions of one stretch of straight-line code (a PTX basic block).
struct PtxBlock {
  int wide = 0;   // 16-byte loads: ld...v4 of 32-bit lanes, ld...v2 of 64-bit ones
  int bytes = 0;  // bytes those and every other load (not of the stack or the parameters) read
  int rsqrt = 0;  // rsqrt.approx: the hardware's 1 / sqrt
  int sqrt = 0;   // sqrt.rn: an exact square root
  int div = 0;    // rcp.rn / div.rn of floats: an exact division
  int fma = 0;    // fma.rn.f32: a multiply-add
};

// What the compiler made of a file: each probe caller's PTX blocks.
struct Compiled : course_test::Recompile {
  std::map<std::string, std::vector<PtxBlock>> functions;  // caller name -> its blocks
};

int load_bytes(const std::string &op) {  // "ld.global.nc.v4.f32" -> 16
  const auto ends = [&](const char *t) {
    const std::string e(t);
    return op.size() >= e.size() && op.compare(op.size() - e.size(), e.size(), e) == 0;
  };
  const int lanes = op.find(".v4.") != std::string::npos ? 4 : (op.find(".v2.") != std::string::npos ? 2 : 1);
  const int bytes = ends("64") ? 8 : (ends("16") ? 2 : (ends("8") ? 1 : 4));
  return lanes * bytes;
}

void count_instruction(const std::string &line, PtxBlock &b) {
  std::istringstream in(line);
  std::string op;
  in >> op;
  if (!op.empty() && op[0] == '@') in >> op;  // a predicated instruction: its op is next
  const auto starts = [&](const char *p) { return op.rfind(p, 0) == 0; };
  if (starts("ld.") && !starts("ld.local") && !starts("ld.param")) {
    const int n = load_bytes(op);
    b.bytes += n;
    if (n == 16) ++b.wide;
  } else if (starts("rsqrt.")) {
    ++b.rsqrt;
  } else if (starts("sqrt.")) {
    ++b.sqrt;
  } else if ((starts("rcp.") || starts("div.")) && op.find("f32") != std::string::npos &&
             op.find("approx") == std::string::npos) {
    ++b.div;
  } else if (starts("fma.rn.f32")) {
    ++b.fma;
  }
}

// The PTX of the l11_probe_* callers, split into basic blocks.
std::map<std::string, std::vector<PtxBlock>> parse_ptx(std::istream &in) {
  std::map<std::string, std::vector<PtxBlock>> fns;
  std::vector<PtxBlock> *cur = nullptr;
  for (std::string line; std::getline(in, line);) {
    if (line.find(".func") != std::string::npos && line.find("l11_probe_") != std::string::npos) {
      const auto at = line.find("l11_probe_");
      cur = &fns[line.substr(at, line.find('(', at) - at)];
      cur->emplace_back();
    } else if (cur && line == "}") {
      cur = nullptr;
    } else if (cur && line.rfind("$L__", 0) == 0) {
      cur->emplace_back();
    } else if (cur) {
      count_instruction(line, cur->back());
    }
  }
  return fns;
}

// Your file @p src (streaming.cpp, gravity.cpp or gemm.cpp, as
// lesson11::*_source_file() names it) compiled for an NVIDIA GPU, with
// @p probe in place of the file @p inc it includes (the entry points that
// instantiate the team kernels).
Compiled compile_for_gpu(const std::filesystem::path &src, const std::string &inc, const std::string &probe) {
  namespace fs = std::filesystem;
  Compiled r;
  // The headers live in lessons/ only; the graded file may be a step's
  // mutant in the build folder, so they are found from this test's own path.
  const fs::path root = fs::path(__FILE__).parent_path().parent_path();
  const fs::path headers = root / "lessons" / "11-matching-the-vendor", common = root / "common" / "include";
  const std::string cxx = course_test::recompiler({src, headers}, r);
  if (cxx.empty()) return r;
  std::string tmp = (fs::temp_directory_path() / "lesson11-ptx-XXXXXX").string();
  if (!mkdtemp(tmp.data())) {
    r.why = "cannot make a folder in " + fs::temp_directory_path().string();
    return r;
  }
  std::error_code ec;
  fs::copy_file(src, fs::path(tmp) / src.filename(), ec);
  {
    std::ofstream out(fs::path(tmp) / inc);
    out << probe;
    // With no device library, the exact square root is a call: this stand-in
    // makes it the instruction a GPU build gets.
    out << "\n}  // namespace lesson11\n#pragma omp begin declare target\nextern \"C\" float __nv_sqrtf(float x) { "
           "return __builtin_sqrtf(x); }\n#pragma omp end declare target\nnamespace lesson11 {\n";
  }
  r.cmd = cxx + " -std=c++20 -O3 -w -fopenmp " + course_test::nvptx_device_flags() + " --offload-device-only -S -nogpulib -I'" + headers.string() + "' -I'" + common.string() + "' '" + tmp +
          "/" + src.filename().string() + "' -o '" + tmp + "/probe.s' 2>&1";
  course_test::run_recompile(r);
  if (r.ok) {
    std::ifstream ptx(tmp + "/probe.s");
    r.functions = parse_ptx(ptx);
  }
  fs::remove_all(tmp, ec);
  return r;
}

using course_test::recompiled;

// The blocks of caller @p fn, or a failure that names the test, not the student.
const std::vector<PtxBlock> *blocks_of(const Compiled &c, const std::string &fn) {
  const auto it = c.functions.find(fn);
  if (it != c.functions.end()) return &it->second;
  INFO("compiler: " << c.cmd);
  FAIL("no function " << fn << " in the compiler's PTX (a newer clang may write it differently): this test, "
                                 "not your code, needs a look");
  return nullptr;
}

PtxBlock total(const std::vector<PtxBlock> &bs) {
  PtxBlock t;
  for (const auto &b : bs) {
    t.wide += b.wide;
    t.bytes += b.bytes;
    t.rsqrt += b.rsqrt;
    t.sqrt += b.sqrt;
    t.div += b.div;
    t.fma += b.fma;
  }
  return t;
}

int most_wide_in_a_block(const std::vector<PtxBlock> &bs) {
  int m = 0;
  for (const auto &b : bs) m = std::max(m, b.wide);
  return m;
}

// What step 11.1 or 11.2 asks of a function that streams b: 16-byte loads,
// several of them issued together. Empty when it has them. (Each message
// starts with what is wrong: Catch wraps long lines, the start stays whole.)
std::string streaming_verdict(const std::vector<PtxBlock> &bs, const std::string &fn, const char *first_use) {
  const PtxBlock t = total(bs);
  const int together = most_wide_in_a_block(bs);
  if (t.wide == 0)
    return "4-byte loads only, however fast simd or partial sums make a CPU: " + fn +
           ", compiled for a GPU, reads b without one 16-byte load, so each GPU thread asks memory for one element "
           "at a time. A type 16 bytes long and 16-byte aligned lets one load instruction bring 16 bytes (README, "
           "Steps: 11.1 and 11.2).";
  if (together < 2)
    return "One 16-byte load at a time: " + fn + ", compiled for a GPU, has 16-byte loads (" +
           std::to_string(t.wide) + "), but each waits for " + first_use +
           " before the next is asked for. Issue several loads before the first of them is needed (README, Steps: "
           "11.1 and 11.2).";
  return "";
}

}  // namespace

TEST_CASE("sum at n = 1 97 1000 65537 and 2^22", "[lesson11][correctness]") {
  for (std::size_t n : sizes) {
    const auto x = input(n, n);
    COURSE_CHECK(check_sum(x.data(), n, {}, 0, "sum, n=" + std::to_string(n)));
  }
}

TEST_CASE("sum with x 0 to 3 floats past a 16-byte boundary", "[lesson11][correctness]") {
  for (std::size_t n : {std::size_t(3), std::size_t(5), std::size_t(1000), std::size_t(65537)})
    at_every_offset(n, 11, [&](const float *x, std::size_t m, std::size_t off) {
      COURSE_CHECK(check_sum(x, m, {}, off, "sum, n=" + std::to_string(m) + ", x at offset " + std::to_string(off)));
    });
}

TEST_CASE("sum is right whatever teams and threads the runtime grants", "[lesson11][correctness]") {
  // 1003: small enough that a tail of 3 floats added twice is past the tolerance.
  for (std::size_t n : {std::size_t(1003), std::size_t(100003)}) {
    const auto x = input(n, 3);
    for (const Launch &l : odd_shapes())
      COURSE_CHECK(check_sum(x.data(), n, l, 0, "sum, n=" + std::to_string(n) + ", " + shape_name(l)));
  }
}

TEST_CASE("sum of ints and of doubles at n = 1 97 1000 65537 and 2^22 and for odd launches", "[lesson11][correctness]") {
  for (std::size_t n : sizes) {
    const auto xi = input_of<int>(n, n);
    const auto xd = input_of<double>(n, n);
    COURSE_CHECK(check_sum_of(xi.data(), n, {}, 0, "int sum, n=" + std::to_string(n)));
    COURSE_CHECK(check_sum_of(xd.data(), n, {}, 0, "double sum, n=" + std::to_string(n)));
  }
  const auto xi = input_of<int>(100003, 1);
  const auto xd = input_of<double>(100003, 1);
  for (const Launch &l : odd_shapes()) {
    COURSE_CHECK(check_sum_of(xi.data(), xi.size(), l, 0, "int sum, n=100003, " + shape_name(l)));
    COURSE_CHECK(check_sum_of(xd.data(), xd.size(), l, 0, "double sum, n=100003, " + shape_name(l)));
  }
}

TEST_CASE("sum of ints and of doubles 0 to 3 elements past a 16-byte boundary", "[lesson11][correctness]") {
  for (std::size_t n : {std::size_t(3), std::size_t(5), std::size_t(1000), std::size_t(65537)}) {
    sums_at_every_offset<int>(n, 2 * n);
    sums_at_every_offset<double>(n, 2 * n + 1);
  }
}

TEST_CASE("histogram at n = 1 97 1000 65537 and 2^22", "[lesson11][correctness]") {
  for (std::size_t n : sizes) {
    const auto x = input(n, 2 * n + 1);
    COURSE_CHECK(check_histogram(x.data(), n, {}, "histogram, n=" + std::to_string(n)));
  }
}

TEST_CASE("histogram with x 0 to 3 floats past a 16-byte boundary", "[lesson11][correctness]") {
  for (std::size_t n : {std::size_t(3), std::size_t(9), std::size_t(1000), std::size_t(65537)})
    at_every_offset(n, 12, [&](const float *x, std::size_t m, std::size_t off) {
      COURSE_CHECK(check_histogram(x, m, {}, "histogram, n=" + std::to_string(m) + ", x at offset " +
                                                 std::to_string(off)));
    });
}

TEST_CASE("histogram is right whatever teams and threads the runtime grants", "[lesson11][correctness]") {
  for (std::size_t n : {std::size_t(1003), std::size_t(100003)}) {
    const auto x = input(n, 4);
    for (const Launch &l : odd_shapes())
      COURSE_CHECK(check_histogram(x.data(), n, l, "histogram, n=" + std::to_string(n) + ", " + shape_name(l)));
  }
}

TEST_CASE("sum is faster than one 4-byte load at a time", "[lesson11][speedup]") {
  if (!course::device_info().is_gpu())
    COURSE_SKIP_SPEED("lesson 11 sum: not timed on the host device, where the baseline's one-line simd reduction does what the step does; 'sum loads 16 bytes at a time and several at once (compiled for a GPU)' grades step 11.1 here");
  const auto x = input(speedup_n, 5);
  float got = 0;
  const auto cmp = compare_on_device(
      x, [&] { (void)ref::plain_sum(x.data(), x.size()); }, [&] { got = lesson11::sum(x.data(), x.size()); });
  // A fast wrong answer earns nothing.
  COURSE_CHECK(course::check_scalar(got, sum_reference(x.data(), x.size()), course::sum_tolerance<float>(x.size()),
                                    "sum, n=" + std::to_string(speedup_n) + " (speedup run)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kSum, "lesson 11 sum (step 11.1: Quads, several in flight)", cmp);
}

namespace {

// One caller per function of steps 11.1 and 11.2, in place of streaming.inc.
std::string streaming_probes() {
  std::string s = "#pragma omp begin declare target\n";
  for (const char *t : {"float", "int", "double"})
    s += std::string("extern \"C\" __attribute__((noinline)) ") + t + " l11_probe_sum_" + t + "(const " + t +
         " *b, unsigned len, unsigned tid, unsigned nth) { return thread_sum<" + t + ">(b, len, tid, nth); }\n";
  s += "extern \"C\" __attribute__((noinline)) void l11_probe_count(const float *b, unsigned len, unsigned tid, "
       "unsigned nth, int *bins) { thread_count(b, len, tid, nth, bins); }\n";
  return s + "#pragma omp end declare target\n";
}

void report_streaming(const std::vector<PtxBlock> &bs, const std::string &fn) {
  std::cout << fn << " compiled for a GPU: " << total(bs).wide << " 16-byte loads, up to " << most_wide_in_a_block(bs)
            << " issued together\n";
}

}  // namespace

TEST_CASE("sum loads 16 bytes at a time and several at once (compiled for a GPU)", "[lesson11][correctness]") {
  const Compiled c = compile_for_gpu(lesson11::streaming_source_file(), "streaming.inc", streaming_probes());
  if (!recompiled(c, "thread_sum for a GPU")) return;
  for (const std::string t : {"float", "int", "double"}) {
    const auto *bs = blocks_of(c, "l11_probe_sum_" + t);
    if (!bs) return;
    report_streaming(*bs, "thread_sum<" + t + ">");
    const std::string v = streaming_verdict(*bs, "thread_sum<" + t + ">", "its add");
    if (!v.empty()) FAIL_CHECK(v);
  }
}

TEST_CASE("histogram is faster than one 4-byte load per atomic", "[lesson11][speedup]") {
  if (!course::device_info().is_gpu())
    COURSE_SKIP_SPEED("lesson 11 histogram: not timed on the host device, whose teams have one thread and whose atomics are locked adds whatever loads come first; 'histogram loads 16 bytes at a time and several before its atomics (compiled for a GPU)' grades step 11.2 here");
  const auto x = input(speedup_n, 6);
  std::vector<int> hist(lesson11::hist_bins), scratch(lesson11::hist_bins);
  const auto cmp = compare_on_device(
      x, [&] { ref::plain_histogram(x.data(), x.size(), scratch.data()); },
      [&] { lesson11::histogram(x.data(), x.size(), hist.data()); });
  COURSE_CHECK(course::check_equal<int>(hist, histogram_reference(x.data(), x.size()),
                                        "histogram, n=" + std::to_string(speedup_n) + " (speedup run)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kHistogram, "lesson 11 histogram (step 11.2: Quads before the atomics)", cmp);
}

TEST_CASE("histogram loads 16 bytes at a time and several before its atomics (compiled for a GPU)",
          "[lesson11][correctness]") {
  const Compiled c = compile_for_gpu(lesson11::streaming_source_file(), "streaming.inc", streaming_probes());
  if (!recompiled(c, "thread_count for a GPU")) return;
  const auto *bs = blocks_of(c, "l11_probe_count");
  if (!bs) return;
  report_streaming(*bs, "thread_count");
  const std::string v = streaming_verdict(*bs, "thread_count", "its atomic");
  if (!v.empty()) FAIL_CHECK(v);
}

// ---- step 11.3: N-body ----

namespace {

// What the output arrays hold before a step: no step computes it.
constexpr float unwritten = -1.0e30f;

// n bodies in the unit cube, masses (0.5 to 1.5) / n, small velocities: the
// pulls are of order 1, so a step moves every velocity by about 1e-3.
struct NbodySet {
  int n;
  std::vector<float> x, y, z, m, vx, vy, vz, xo, yo, zo, vxo, vyo, vzo;
  NbodySet(int n_, std::uint64_t salt) : n(n_) {
    const auto u = [&](int k, float lo, float hi) {
      return course::random_vector<float>(static_cast<std::size_t>(n), course_test::seed() + 100 * salt + k, lo, hi);
    };
    x = u(1, -1, 1);
    y = u(2, -1, 1);
    z = u(3, -1, 1);
    m = u(4, 0.5f / n, 1.5f / n);
    vx = u(5, -0.1f, 0.1f);
    vy = u(6, -0.1f, 0.1f);
    vz = u(7, -0.1f, 0.1f);
    for (auto *a : {&xo, &yo, &zo, &vxo, &vyo, &vzo}) a->assign(static_cast<std::size_t>(n), unwritten);
  }
  lesson11::Bodies in() const { return {x.data(), y.data(), z.data(), m.data(), vx.data(), vy.data(), vz.data()}; }
  lesson11::Moved out() { return {xo.data(), yo.data(), zo.data(), vxo.data(), vyo.data(), vzo.data()}; }
};

// Body i of a step against a double-precision step: each velocity component
// within 2e-5 of the sum of its terms' magnitudes (x dt; rsqrt's 2^-22 error
// and float sums stay below 1e-6 of it), the position consistent with the
// velocity written. A body's pull from one other body among n = 1000 is about
// 1e-3 of that sum, 50 x the tolerance.
std::string nbody_body_error(const NbodySet &b, int i) {
  double a[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
  for (int j = 0; j < b.n; ++j) {
    const double d[3] = {double(b.x[j]) - b.x[i], double(b.y[j]) - b.y[i], double(b.z[j]) - b.z[i]};
    const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + lesson11::softening_squared;
    const double f = b.m[j] / (d2 * std::sqrt(d2));
    for (int c = 0; c < 3; ++c) {
      a[c] += d[c] * f;
      mag[c] += std::fabs(d[c] * f);
    }
  }
  const float v0[3] = {b.vx[i], b.vy[i], b.vz[i]}, v1[3] = {b.vxo[i], b.vyo[i], b.vzo[i]};
  const float p0[3] = {b.x[i], b.y[i], b.z[i]}, p1[3] = {b.xo[i], b.yo[i], b.zo[i]};
  const double dt = lesson11::delta_time;
  for (int c = 0; c < 3; ++c) {
    const double want_v = v0[c] + a[c] * dt;
    if (!(std::fabs(v1[c] - want_v) <= 2e-5 * mag[c] * dt + 1e-6 * std::fabs(v0[c]) + 1e-30)) {
      const double got_a = (double(v1[c]) - v0[c]) / dt;
      std::string why;
      if (v1[c] == unwritten)
        why = "never written: no thread wrote this body's new velocity";
      else if (std::fabs(got_a) < 0.01 * std::fabs(a[c]))
        why = "it was never pulled: a body of some thread's group got no tile's pull (the loop over the group "
              "must cover all bodies_per_thread bodies)";
      else
        why = "it was pulled by the wrong bodies: some bodies j counted twice or missed, or pulls added into "
              "another body of the group (each body p of the group has its own ax[p], ay[p], az[p])";
      return "body " + std::to_string(i) + " of " + std::to_string(b.n) + ", acceleration component " +
             std::to_string(c) + ": got " + std::to_string(got_a) + ", want " + std::to_string(a[c]) + ".\n" +
             why + " (README, Steps: 11.3).";
    }
    const double want_p = p0[c] + double(v1[c]) * dt;
    if (!(std::fabs(p1[c] - want_p) <= 1e-6 * (std::fabs(p0[c]) + std::fabs(v1[c] * dt)) + 1e-30))
      return "body " + std::to_string(i) + ": the position does not follow the velocity written (x + v dt)";
  }
  return "";
}

// Bodies checked: all for small n; else the tile and group edges and a
// spread of others.
std::vector<int> nbody_sample(int n) {
  std::vector<int> s;
  if (n <= 1100) {
    for (int i = 0; i < n; ++i) s.push_back(i);
    return s;
  }
  for (int i = 0; i < n; i += 37) s.push_back(i);
  for (int i : {1, 2, 3, 63, 64, 65, 127, 128, 255, 256, 257, 511, 512, n - 2, n - 1}) s.push_back(i);
  return s;
}

course::Check check_nbody(int n, lesson11::Launch l, const std::string &what) {
  NbodySet b(n, static_cast<std::uint64_t>(n));
  lesson11::nbody_step(b.in(), b.out(), n, l);
  course::Check c;
  c.message = what;
  for (int i : nbody_sample(n)) {
    const std::string e = nbody_body_error(b, i);
    if (!e.empty()) {
      c.ok = false;
      c.bad = static_cast<std::size_t>(i);
      c.message = what + ": " + e;
      break;
    }
  }
  return c;
}

#ifdef COURSE_DEVICE_GPU
const int nbody_speed_n = 65536;  // the lesson program's size: ~3 ms per step on an H100
#else
const int nbody_speed_n = 2048;
#endif

}  // namespace

TEST_CASE("N-body step at n = 1 97 1000 4099", "[lesson11][correctness]") {
  for (int n : {1, 97, 1000, 4099}) COURSE_CHECK(check_nbody(n, {}, "N-body step, n=" + std::to_string(n)));
}

TEST_CASE("N-body step is right whatever teams and threads the runtime grants", "[lesson11][correctness]") {
  std::vector<Launch> shapes = odd_shapes();
#ifdef COURSE_DEVICE_GPU
  shapes.push_back({2, lesson11::tile_bodies});  // the split into parts, fewer teams than tiles
#endif
  for (int n : {300, 1000})
    for (const Launch &l : shapes)
      COURSE_CHECK(check_nbody(n, l, "N-body step, n=" + std::to_string(n) + ", " + shape_name(l)));
}

TEST_CASE("N-body step is faster than one body per thread with an exact 1/sqrt", "[lesson11][speedup]") {
  NbodySet b(nbody_speed_n, 9);
  NbodySet scratch(nbody_speed_n, 9);
  const int n = b.n;
  const float *x = b.x.data(), *y = b.y.data(), *z = b.z.data(), *m = b.m.data(), *vx = b.vx.data(),
              *vy = b.vy.data(), *vz = b.vz.data();
  float *xo = b.xo.data(), *yo = b.yo.data(), *zo = b.zo.data(), *vxo = b.vxo.data(), *vyo = b.vyo.data(),
        *vzo = b.vzo.data();
  float *sx = scratch.xo.data(), *sy = scratch.yo.data(), *sz = scratch.zo.data(), *svx = scratch.vxo.data(),
        *svy = scratch.vyo.data(), *svz = scratch.vzo.data();
  const auto clock = course::device_info().is_gpu() ? course::Clock::wall : course::Clock::process_cpu;
  course::Comparison cmp;
#pragma omp target data map(to : x[0:n], y[0:n], z[0:n], m[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n]) \
    map(alloc : sx[0:n], sy[0:n], sz[0:n], svx[0:n], svy[0:n], svz[0:n])
  cmp = course::compare_interleaved([&] { ref::plain_nbody_step(b.in(), scratch.out(), n); },
                                    [&] { lesson11::nbody_step(b.in(), b.out(), n); }, 7, 1, clock);
  // A fast wrong answer earns nothing.
  std::string bad;
  for (int i : {0, 1, 255, 256, 4 * 37, n / 2 + 3, n - 1})
    if (bad.empty()) bad = nbody_body_error(b, i);
  course::Check c;
  c.ok = bad.empty();
  c.message = "N-body step, n=" + std::to_string(n) + " (speedup run)" + (bad.empty() ? "" : ": " + bad);
  COURSE_CHECK(c);
  COURSE_REQUIRE_SPEEDUP(thresholds::kNbody, "lesson 11 N-body (step 11.3: bodies per thread, fast 1/sqrt)", cmp);
}

TEST_CASE("N-body step serves several bodies per load with the hardware 1/sqrt (compiled for a GPU)",
          "[lesson11][correctness]") {
  // A caller of tile_forces in place of gravity.inc; the group's positions
  // and sums pass through io (4-byte loads: not counted as bodies j).
  const std::string probe =
      "#pragma omp begin declare target\n"
      "extern \"C\" __attribute__((noinline)) void l11_probe_forces(const Body4 *tile, int q0, int q1, float *io) {\n"
      "  Group<bodies_per_thread> g;\n"
      "  for (int p = 0; p < bodies_per_thread; ++p) {\n"
      "    g.x[p] = io[3 * p]; g.y[p] = io[3 * p + 1]; g.z[p] = io[3 * p + 2]; g.ax[p] = g.ay[p] = g.az[p] = 0.0f;\n"
      "  }\n"
      "  tile_forces(tile, q0, q1, g);\n"
      "  for (int p = 0; p < bodies_per_thread; ++p) { io[3 * p] = g.ax[p]; io[3 * p + 1] = g.ay[p]; "
      "io[3 * p + 2] = g.az[p]; }\n"
      "}\n"
      "#pragma omp end declare target\n";
  const Compiled c = compile_for_gpu(lesson11::gravity_source_file(), "gravity.inc", probe);
  if (!recompiled(c, "tile_forces for a GPU")) return;
  const auto *bs = blocks_of(c, "l11_probe_forces");
  if (!bs) return;
  const PtxBlock t = total(*bs);
  // The loop that pulls most: interactions (one 1 / sqrt each) per body j
  // loaded (16 bytes) there.
  PtxBlock busiest;
  for (const auto &b : *bs)
    if (b.rsqrt + b.sqrt > busiest.rsqrt + busiest.sqrt) busiest = b;
  const int pulls = busiest.rsqrt + busiest.sqrt;
  const double loads = busiest.bytes / 16.0, per = loads > 0 ? pulls / loads : pulls;
  char per_text[32];
  std::snprintf(per_text, sizeof per_text, "%.3g", per);
  std::cout << "tile_forces compiled for a GPU: " << t.rsqrt << " rsqrt.approx, " << t.sqrt << " sqrt.rn, " << t.div
            << " rcp/div.rn; each body j loaded serves " << per_text << " interaction(s)\n";
  if (pulls == 0) {
    FAIL_CHECK("tile_forces, compiled for a GPU, computes no 1 / sqrt at all: does it pull any body (README, "
               "Steps: 11.3)?");
    return;
  }
  if (t.sqrt > 0 || t.div > 0)
    FAIL_CHECK("A square root and a division for each 1 / sqrt: tile_forces, compiled for a GPU, has "
               << t.sqrt << " sqrt.rn and " << t.div
               << " rcp.rn or div.rn, two long instructions per interaction where the hardware has one "
                  "approximate instruction, close enough for gravity; lesson11_gravity_shared.hpp offers it (README, Steps: 11.3).");
  if (per < 2)
    FAIL_CHECK("Each body j loaded serves " << per_text << " interaction(s): in tile_forces, compiled for a GPU, "
               << "its busiest loop does " << pulls << " interactions per " << loads
               << " bodies j loaded from team-local memory. With one body per thread, or with each of a group's bodies "
                  "sweeping the tile on its own, every body i asks team-local memory for every body j. Pull all of a "
                  "group's bodies with one body j before loading the next (README, Steps: 11.3).");
}

// ---- step 11.4: SGEMM ----

namespace {

// n x n entries of A and B in [-1, 1), and C = A x B in double.
struct GemmSet {
  int n;
  std::vector<float> A, B;
  std::vector<double> ref;
  GemmSet(int n_, std::uint64_t salt) : n(n_) {
    const auto nn = static_cast<std::size_t>(n) * n;
    A = course::random_vector<float>(nn, course_test::seed() + 300 + salt, -1.0f, 1.0f);
    B = course::random_vector<float>(nn, course_test::seed() + 400 + salt, -1.0f, 1.0f);
    ref.assign(nn, 0.0);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) {
        const double a = A[static_cast<std::size_t>(i) * n + k];
        for (int j = 0; j < n; ++j) ref[static_cast<std::size_t>(i) * n + j] += a * B[static_cast<std::size_t>(k) * n + j];
      }
  }
};

// "0-7, 12" for the numbers in @p s.
std::string ranges(const std::set<int> &s) {
  std::string out;
  for (auto it = s.begin(); it != s.end();) {
    int lo = *it, hi = lo;
    for (++it; it != s.end() && *it == hi + 1; ++it) hi = *it;
    out += (out.empty() ? "" : ", ") + std::to_string(lo) + (hi > lo ? "-" + std::to_string(hi) : "");
  }
  return out;
}

// Which rows r and columns c of a thread's register tile (acc[r][c]) the
// wrong entries of C fall in, from the tile's layout (GemmShape).
std::string wrong_in_the_tile(const std::vector<float> &C, const GemmSet &g) {
  const int rm = lesson11::matmul_rows_per_thread();
  if (rm <= 0 || rm % 4 != 0 || rm > 64) return "";
  std::set<int> rows, cols, all_r, all_c;  // wrong ones; all that C holds
  const int ty_n = 16, tx_n = 16, bm = rm * ty_n, bn = 8 * tx_n;
  // Right entries are off by ~1e-6 sqrt(n); a wrong row or column by about
  // sqrt(n) / 3 (the entries of A and B are in [-1, 1)).
  const double tol = 0.01 * std::sqrt(static_cast<double>(g.n));
  for (int i = 0; i < g.n; ++i)
    for (int j = 0; j < g.n; ++j) {
      const std::size_t k = static_cast<std::size_t>(i) * g.n + j;
      const int ii = i % bm, jj = j % bn;
      const int r = ii / (4 * ty_n) * 4 + ii % 4, c = jj / (4 * tx_n) * 4 + jj % 4;  // GemmShape's row_of, col_of inverted
      all_r.insert(r);
      all_c.insert(c);
      if (std::fabs(C[k] - g.ref[k]) <= tol) continue;  // NaN (never written) fails this too
      rows.insert(r);
      cols.insert(c);
    }
  if (rows.empty()) return "";
  const auto say = [](const std::set<int> &bad, const std::set<int> &all, const char *what) {
    if (bad == all) return std::string("every ") + what + " C has";
    std::set<int> good;
    for (int v : all)
      if (!bad.count(v)) good.insert(v);
    return std::string(what) + "s " + ranges(bad) + " (" + what + "s " + ranges(good) + " are right)";
  };
  return " In each thread's " + std::to_string(rm) + " x 8 block of C (acc[r][c]), the wrong entries lie in " +
         say(rows, all_r, "row") + " and in " + say(cols, all_c, "column") +
         ": those rows of As or columns of Bs do not match the rows and columns the thread owns, as GemmShape's row_of "
         "and col_of give them";
}

// matmul() at a + offset and b + offset with the whole arrays a[0:m) and
// b[0:m) on the device first. (A function, not a lambda: clang 19 loses a
// lambda's captured pointers inside a `target data` region's body.)
void matmul_inside_mapping(int n, const float *a, const float *b, std::size_t m, std::size_t offset, float *C) {
#pragma omp target data map(to : a[0:m], b[0:m])
  lesson11::matmul(n, a + offset, b + offset, C);
}

// C from matmul() at A + offset and B + offset (copies of the set's matrices
// that many floats into larger arrays). With @p mapped the whole arrays are
// on the device first, so the device addresses are offset too: offset 1 puts
// them off a 16-byte boundary, and the kernel must take its
// one-float-at-a-time loads; without, the runtime copies just the matrices.
course::Check check_gemm(const GemmSet &g, std::size_t offset, const std::string &what, bool mapped = false) {
  const auto nn = static_cast<std::size_t>(g.n) * g.n;
  std::vector<float> A(nn + offset), B(nn + offset);
  std::copy(g.A.begin(), g.A.end(), A.begin() + static_cast<std::ptrdiff_t>(offset));
  std::copy(g.B.begin(), g.B.end(), B.begin() + static_cast<std::ptrdiff_t>(offset));
  auto C = course_test::poisoned<float>(nn);
  course_test::with_device_poison(std::span<float>(C), [&] {
    if (mapped)
      matmul_inside_mapping(g.n, A.data(), B.data(), A.size(), offset, C.data());
    else
      lesson11::matmul(g.n, A.data() + offset, B.data() + offset, C.data());
  });
  auto c = course::check_close<float>(C, g.ref, course::matmul_tolerance(g.n), what);
  if (!c.ok) {
    bool zero = true;
    for (float v : C) zero = zero && v == 0.0f;
    c.message += zero ? "\nC is all zeros: multiply_tile adds nothing into acc yet, or it sets acc to one k's "
                        "product instead of adding to it (the last k of a tile past the matrix's edge multiplies "
                        "zeros) (README, Steps: 11.4)."
                      : "\nSome entries are wrong." + wrong_in_the_tile(C, g) + " (README, Steps: 11.4).";
  }
  return c;
}

#ifdef COURSE_DEVICE_GPU
const int gemm_speed_n = 4096;  // the lesson program's --size full: ~3-4 ms per product on an H100
#else
const int gemm_speed_n = 256;
#endif

}  // namespace

TEST_CASE("SGEMM at n = 1 5 67 130 and 300", "[lesson11][correctness]") {
  for (int n : {1, 5, 67, 130, 300}) {
    const GemmSet g(n, static_cast<std::uint64_t>(n));
    COURSE_CHECK(check_gemm(g, 0, "SGEMM, n=" + std::to_string(n)));
  }
}

TEST_CASE("SGEMM with A and B off a 16-byte boundary", "[lesson11][correctness]") {
  const GemmSet g(132, 7);
  COURSE_CHECK(check_gemm(g, 1, "SGEMM, n=132, A and B one float past a 16-byte boundary"));
  COURSE_CHECK(check_gemm(g, 1, "SGEMM, n=132, A and B one float past a 16-byte boundary on the device", true));
}

TEST_CASE("SGEMM is faster than with an 8x8 register tile", "[lesson11][speedup]") {
  if (!course::device_info().is_gpu())
    COURSE_SKIP_SPEED("lesson 11 SGEMM: not timed on the host device, which runs the any-thread path; the correctness tests (C stays zero until step 11.4) and 'SGEMM register tile gets more multiply-adds per load than lesson 5's (compiled for a GPU)' grade it here");
  const int n = gemm_speed_n;
  const auto nn = static_cast<std::size_t>(n) * n;
  const auto A = course::random_vector<float>(nn, course_test::seed() + 501, -1.0f, 1.0f);
  const auto B = course::random_vector<float>(nn, course_test::seed() + 502, -1.0f, 1.0f);
  std::vector<float> C(nn, 0.0f), scratch(nn, 0.0f);
  const float *a = A.data(), *b = B.data();
  float *c = C.data(), *s = scratch.data();
  const auto clock = course::device_info().is_gpu() ? course::Clock::wall : course::Clock::process_cpu;
  course::Comparison cmp;
#pragma omp target data map(to : a[0:nn], b[0:nn]) map(from : c[0:nn]) map(alloc : s[0:nn])
  cmp = course::compare_interleaved([&] { ref::plain_matmul(n, a, b, s); }, [&] { lesson11::matmul(n, a, b, c); },
                                    7, 1, clock);
  // A fast wrong answer earns nothing: a sample of C against double sums.
  COURSE_CHECK(course::check_matmul_sampled(A, B, C, n, "SGEMM, n=" + std::to_string(n) + " (speedup run)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kGemm, "lesson 11 SGEMM (step 11.4: 16 x 8 register tiles)", cmp);
}

TEST_CASE("SGEMM register tile gets more multiply-adds per load than lesson 5's (compiled for a GPU)",
          "[lesson11][correctness]") {
  // A caller of multiply_tile in place of gemm.inc: one k-tile's product,
  // the sums written to out.
  const std::string probe =
      "#pragma omp begin declare target\n"
      "extern \"C\" __attribute__((noinline)) void l11_probe_gemm(const GemmShape<gemm_rows_per_thread>::TileA &As,\n"
      "    const GemmShape<gemm_rows_per_thread>::TileB &Bs, int ty, int tx, float *out) {\n"
      "  float acc[gemm_rows_per_thread][8] = {};\n"
      "  multiply_tile(acc, As, Bs, ty, tx);\n"
      "  for (int r = 0; r < gemm_rows_per_thread; ++r)\n"
      "    for (int c = 0; c < 8; ++c) out[r * 8 + c] = acc[r][c];\n"
      "}\n"
      "#pragma omp end declare target\n";
  const Compiled c = compile_for_gpu(lesson11::gemm_source_file(), "gemm.inc", probe);
  if (!recompiled(c, "multiply_tile for a GPU")) return;
  const auto *bs = blocks_of(c, "l11_probe_gemm");
  if (!bs) return;
  const PtxBlock t = total(*bs);
  const double loads = t.bytes / 16.0, per = loads > 0 ? t.fma / loads : 0;
  char per_text[32];
  std::snprintf(per_text, sizeof per_text, "%.3g", per);
  std::cout << "multiply_tile compiled for a GPU: " << t.fma << " multiply-adds from " << loads
            << " 16-byte loads of As and Bs per k-tile: " << per_text << " per load\n";
  if (t.fma == 0) {
    FAIL_CHECK("multiply_tile, compiled for a GPU, does no multiply-add yet (README, Steps: 11.4).");
    return;
  }
  // Lesson 5's 8 x 8 tile: 64 multiply-adds from 4 loads per k (16 per
  // load); 16 x 8: 128 from 6 (21.3).
  if (per < 20)
    FAIL_CHECK(per_text << " multiply-adds per load" << (per < 16.5 ? ", what lesson 5's 8 x 8 tile gets" : "")
                        << ": multiply_tile, compiled for a GPU, does " << t.fma << " multiply-adds per k-tile from "
                        << loads
                        << " 16-byte loads of As and Bs. A thread that owns more rows of C uses each Vec4 of Bs "
                           "for more of them (README, Steps: 11.4).");
}
