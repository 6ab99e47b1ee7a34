// Lesson 2 tests -- target offload and data mapping. The three kernels must
// give the right answers at awkward sizes, run on the device, and move exactly
// the data they need; normalize (step 2.4) must hand a device library the
// device address of v, not its host address. Two independent witnesses:
//  - device memory, on every device and runtime: the test maps the inputs
//    and a poisoned output itself, then changes the host copies. A kernel
//    that runs on the device works on the device copies (and its output comes
//    back through the test's own `target exit data`); a loop left on the host
//    reads the changed host inputs and its output is overwritten by the poison.
//    The heat observer asks omp_target_is_present() whether the grids stay
//    on the device between steps. normalize gets a v whose device copy and
//    host copy differ: only the device copy may change.
//  - an OMPT tool (lesson02_ompt.hpp) counts launches, requested teams and
//    every host <-> device copy, so a missing map(from:) fails even on the
//    host-offload device, where a kernel that writes through an unmapped
//    pointer would otherwise still produce the right numbers.
// Speed: the matmul against lesson 1's serial baseline, and resident heat
// data against mapping both grids every step.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "baselines.hpp"
#include "course/device.hpp"
#include "course_test.hpp"
#include "devlib.hpp"  // the library normalize must call: its call counter and its log
#include "lesson02_offload.hpp"
#include "lesson02_ompt.hpp"  // defines this program's OMPT tool: include nowhere else
#include "offload.hpp"

// Speedup thresholds: this lesson's grading numbers, {host, gpu} (see course/grading.hpp).
// Each is at most half of what the solution measured on that class.
// lesson 2: naive offloaded matmul (copies included, n = 512) vs serial i-j-k, and resident heat grids vs
// mapping both every step (1024^2, 20 steps). Solution measured: matmul 0.9-1.1x on the loaded 2-core host (the
// offload only adds threads there; lesson 1's parallel i-j-k: 2.04x on 2 idle cores), 156x on an H200;
// heat 2.5-4.1x host, 9.4x H200. See docs/results/lesson02-target-offload.md.
namespace thresholds {
constexpr course::Threshold kMatmul{"lesson2.matmul", 0.35, 40.0, course::Scaling::per_core, 0};
constexpr course::Threshold kHeat{"lesson2.heat", 1.2, 4.0, course::Scaling::fixed, 0};
}  // namespace thresholds

namespace {

namespace trace = course::lesson2_trace;

using course_test::expect;  // a check from a condition, for COURSE_CHECK

std::string fmt(const char *format, double a, double b = 0, double c = 0, double d = 0) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, format, a, b, c, d);
  return buf;
}

// Whether copies can be watched here. On the host device they must be: there
// a kernel writing through an unmapped pointer still produces the right
// numbers, so without the tool's reports a missing map(from:) would pass.
// On a GPU the offload runtime may send the tool nothing (LLVM 19's CUDA
// plugin from the packed runtime sent no events on an H200): the copy checks
// are skipped there with a warning, and the answers are still checked.
bool watching() {
  const bool gpu = course::device_info().is_gpu();
  std::string why;
  if (!trace::tracing_active())
    why = "the OMPT tool that watches host <-> device copies is not active (is OMP_TOOL=disabled set?)";
  else if (!trace::device_events())
    why = "the offload runtime reports no kernel launches or copies to the OMPT tool";
  if (why.empty()) return true;
  if (gpu) {
    WARN(why + "; the copy counts are skipped on this GPU runtime (the device-memory tests still run)");
    return false;
  }
  FAIL(why + "; on the host device this test cannot catch a missing map(from:) without it. Run the tests through "
             "ctest, which sets LD_LIBRARY_PATH to LLVM's lib folder so the runtime finds libomp.so for OMPT");
  return false;
}

// Teams: `target parallel for` runs ONE team (one GPU multiprocessor's worth
// of threads); `target teams distribute parallel for` asks for many. The tool
// sees what each launch requested.
void check_teams(const trace::Traffic &t, const std::string &what) {
  for (unsigned teams : t.requested_teams)
    COURSE_CHECK(expect(teams != 1, what + " launched a kernel that asked for exactly one team: `target parallel for` "
                                           "keeps all the work in one team (one multiprocessor of a GPU). Use "
                                           "`target teams distribute parallel for` (README, step 2.1)"));
}

// The device-memory witness. Maps @p inputs to the device and @p output
// there as poison, then overwrites the host copies of the inputs with
// @p host_value; runs @p call; brings the output back with the test's own
// `target exit data`. Inside, the student's maps find everything present and
// copy nothing, so only a kernel that read and wrote DEVICE memory gives the
// right answer: a loop left on the host reads the changed host inputs and
// its host output is overwritten by the device's poison.
template <class Call>
void with_device_copies(std::vector<const std::vector<float> *> inputs, std::vector<float> &output, Call &&call) {
  std::vector<std::vector<float>> host_inputs;
  for (const auto *v : inputs) host_inputs.push_back(*v);
  float *out = output.data();
  const std::size_t m = output.size();
  course::poison(std::span<float>(output));
  for (auto &h : host_inputs) {
    float *p = h.data();
    const std::size_t k = h.size();
#pragma omp target enter data map(to : p[0:k])
  }
#pragma omp target enter data map(to : out[0:m])
  for (auto &h : host_inputs) std::fill(h.begin(), h.end(), 0.f);  // the host copies now differ from the device's
  std::vector<float *> ptrs;
  for (auto &h : host_inputs) ptrs.push_back(h.data());
  call(ptrs);
#pragma omp target exit data map(from : out[0:m])
  for (auto &h : host_inputs) {
    float *p = h.data();
    const std::size_t k = h.size();
#pragma omp target exit data map(release : p[0:k])
  }
}

const char *kDeviceMemoryHint =
    " -- the kernel did not work on the device copies: the loop still runs on the host (put it in a `target teams "
    "distribute parallel for`), or it reads and writes host memory through unmapped pointers. README, step 2.1";

// ---- kernel 1: add-exp ------------------------------------------------------

struct AddExpInputs {
  std::vector<float> first, second;
  explicit AddExpInputs(int n)
      : first(course::random_vector<float>((std::size_t)n, course_test::seed(), -1.f, 1.f)),
        second(course::random_vector<float>((std::size_t)n, course_test::seed() + 1, -2.f, 2.f)) {}
};

void check_add_exp(int n) {
  const AddExpInputs in(n);
  auto result = course_test::poisoned<float>((std::size_t)n);
  lesson2::add_exp(n, in.first.data(), in.second.data(), result.data());
  const auto ref = course::baseline::add_exp_reference(n, in.first.data(), in.second.data());
  COURSE_CHECK(course::check_close<float>(result, ref, lesson2::add_exp_tolerance, "add_exp n=" + std::to_string(n)));
}

// ---- kernel 2: matmul --------------------------------------------------------

void check_matmul(int n) {
  const std::size_t nn = (std::size_t)n * n;
  const auto A = course::random_vector<float>(nn, course_test::seed(), -1.f, 1.f);
  const auto B = course::random_vector<float>(nn, course_test::seed() + 1, -1.f, 1.f);
  auto C = course_test::poisoned<float>(nn);
  lesson2::matmul(n, A.data(), B.data(), C.data());
  const auto ref = course::baseline::matmul_reference(n, A.data(), B.data());
  COURSE_CHECK(course::check_close<float>(C, ref, course::matmul_tolerance(n), "matmul n=" + std::to_string(n)));
}

// ---- kernel 3: heat ------------------------------------------------------------

std::vector<float> heat_input(int nx, int ny) {
  return course::random_vector<float>((std::size_t)nx * ny, course_test::seed() + 2, -1.f, 1.f);
}

std::string grid_name(int nx, int ny, int steps) {
  return "heat " + std::to_string(nx) + " x " + std::to_string(ny) + ", " + std::to_string(steps) + " steps";
}

void check_heat(int nx, int ny, int steps) {
  const auto u0 = heat_input(nx, ny);
  auto u = u0;  // u is input and output: it cannot start poisoned; a grid left unchanged fails instead
  lesson2::heat(nx, ny, steps, u.data());
  const auto ref = course::baseline::heat_reference(nx, ny, steps, u0.data(), 0);
  auto c = course::check_close<float>(u, ref.final, lesson2::heat_tolerance, grid_name(nx, ny, steps));
  // Two wrong grids are common enough to name: the one that went in, and the
  // one a step too early (an odd step count ends in the second grid).
  if (!c.ok && u == u0)
    c.message += " -- u came back exactly as it went in: the device's grid never returned to the host (README, step 2.3)";
  else if (!c.ok && steps > 1 &&
           course::check_close<float>(u, course::baseline::heat_reference(nx, ny, steps - 1, u0.data(), 0).final,
                                      lesson2::heat_tolerance, "")
               .ok)
    c.message += " -- u holds the grid after step " + std::to_string(steps - 1) +
                 ", one step early: with an odd step count the newest grid is the second one, and it never reached "
                 "u (README, step 2.3)";
  COURSE_CHECK(c);
}

// The copies add_exp must make: inputs in, result out, nothing else.
void check_add_exp_copies(const trace::Traffic &t, int n, const AddExpInputs &in, const std::vector<float> &result) {
  const std::size_t bytes = (std::size_t)n * sizeof(float);
  COURSE_CHECK(expect(t.kernels >= 1, "add_exp launched no kernel on the device: the loop ran on the host. Put it in "
                                      "a `target teams distribute parallel for` construct"));
  COURSE_CHECK(expect(t.from_device(result.data(), bytes) == bytes,
                      fmt("add_exp n=%.0f: %.0f of %.0f bytes of result were copied back from the device. Without "
                          "map(from: result[0:n]) the answer stays in device memory; with only the pointer mapped, "
                          "the kernel writes host memory directly, which the host device lets slip and a GPU "
                          "faults on (or crawls through)",
                          n, (double)t.from_device(result.data(), bytes), (double)bytes)));
  COURSE_CHECK(expect(t.to_device(result.data(), bytes) == 0,
                      fmt("add_exp n=%.0f: %.0f bytes of result were copied TO the device, but the kernel only writes "
                          "it: map(from:) (C++ AMP's discard_data) saves that copy",
                          n, (double)t.to_device(result.data(), bytes))));
  for (const auto *v : {&in.first, &in.second}) {
    const std::string name = v == &in.first ? "first" : "second";
    COURSE_CHECK(expect(t.to_device(v->data(), bytes) == bytes,
                        "add_exp: " + name +
                            fmt(": %.0f of %.0f bytes were copied to the device; which map type sends an input over, and which section covers its n elements? "
                                "(reading host memory through an unmapped pointer slips through on the host device, not "
                                "on a GPU)",
                                (double)t.to_device(v->data(), bytes), (double)bytes)));
    COURSE_CHECK(expect(t.from_device(v->data(), bytes) == 0,
                        "add_exp: " + name +
                            fmt(" was copied back from the device (%.0f bytes) although the kernel never writes it: "
                                "which map type copies in and never back?",
                                (double)t.from_device(v->data(), bytes))));
  }
}

// The copies matmul must make: A and B in, C out.
void check_matmul_copies(const trace::Traffic &t, int n, const std::vector<float> &A, const std::vector<float> &B,
                         const std::vector<float> &C) {
  const std::size_t bytes = (std::size_t)n * n * sizeof(float);
  COURSE_CHECK(expect(t.kernels >= 1, "matmul launched no kernel on the device: the loops ran on the host"));
  COURSE_CHECK(expect(t.to_device(A.data(), bytes) == bytes && t.to_device(B.data(), bytes) == bytes,
                      fmt("matmul n=%.0f: %.0f and %.0f of %.0f bytes of A and B were copied to the device: does each map "
                          "name the whole n*n section of its matrix?",
                          n, (double)t.to_device(A.data(), bytes), (double)t.to_device(B.data(), bytes),
                          (double)bytes)));
  COURSE_CHECK(expect(t.from_device(C.data(), bytes) == bytes,
                      fmt("matmul n=%.0f: %.0f of %.0f bytes of C were copied back from the device: map(from: "
                          "C[0:n*n])",
                          n, (double)t.from_device(C.data(), bytes), (double)bytes)));
  COURSE_CHECK(expect(t.to_device(C.data(), bytes) == 0 && t.from_device(A.data(), bytes) == 0 &&
                          t.from_device(B.data(), bytes) == 0,
                      "matmul copies more than it needs: which matrices does the kernel only read, which does it only write, "
                      "and does each map type say so?"));
}


// ---- step 2.4: normalize with a device library -------------------------------

// The library sums n float squares in whatever order its reduction takes;
// for any order the relative error is at most about (n - 1) 2^-24, the
// square root halves it and the division and the scaling add about 2^-24
// each, so (n + 4) 2^-24 bounds every element's relative error. A vector
// left unnormalized is off by its length (about 0.58 sqrt(n) for elements in
// [-1, 1]: 18 at n = 1009), far outside it.
double normalize_tol(int n) { return (n + 4) * std::ldexp(1.0, -24); }

std::vector<float> normalize_input(int n, std::uint64_t salt = 3) {
  return course::random_vector<float>((std::size_t)n, course_test::seed() + salt, -1.f, 1.f);
}

// v / |v| in double.
std::vector<double> normalize_reference(const std::vector<float> &v) {
  double sum = 0;
  for (float x : v) sum += (double)x * x;
  const double length = std::sqrt(sum);
  std::vector<double> ref(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) ref[i] = v[i] / length;
  return ref;
}

void check_normalize(int n) {
  const auto v0 = normalize_input(n);
  auto v = v0;  // input and output: it cannot start poisoned; a v left unchanged fails instead
  lesson2::normalize(n, v.data());
  auto c = course::check_close<float>(v, normalize_reference(v0), normalize_tol(n), "normalize n=" + std::to_string(n));
  if (!c.ok && v == v0)
    c.message += " -- v came back exactly as it went in: the library's work never reached the host. Either the device "
                 "copy never came back (which map type copies v in AND back?), or the library changed other memory "
                 "than the device copy that comes back: it was handed v itself, a host address, instead of v's "
                 "device address (use_device_ptr). README, step 2.4";
  COURSE_CHECK(c);
}

// What normalize left on each side when the caller already held v on the
// device: the test maps the real input, then gives the host copy other
// values. normalize's own map finds v present and copies nothing (the
// reference count only goes up and down), so only a library handed v's
// DEVICE address normalizes the real input. Code that works on host memory
// (a host loop, or the library handed v's host address, which on the host
// device is valid memory) normalizes the stale host copy instead, and the
// device copy comes back unchanged. A plain function, not a lambda: clang 19
// crashes on some data directives inside lambdas.
struct BothCopies {
  std::vector<float> device, host;  // each copy of v after the call
  const void *device_address = nullptr, *host_address = nullptr;  // of v's two copies during the call
  std::vector<devlib::Call> library;  // what the library logged during the call
};

BothCopies normalize_held_on_device(const std::vector<float> &real, const std::vector<float> &stale) {
  std::vector<float> v = real;
  float *p = v.data();
  const std::size_t n = v.size();
  BothCopies after;
#pragma omp target enter data map(to : p[0:n])
  std::copy(stale.begin(), stale.end(), v.begin());
  after.device_address = omp_get_mapped_ptr(p, omp_get_default_device());
  after.host_address = p;
  const std::size_t logged = devlib::profile().size();
  lesson2::normalize((int)n, p);
  after.library.assign(devlib::profile().begin() + (std::ptrdiff_t)logged, devlib::profile().end());
  after.host = v;
#pragma omp target exit data map(from : p[0:n])
  after.device = v;
  return after;
}

// The library's own log of one normalize call, judged: norm2 and scale must
// each have processed all n elements of v's DEVICE copy, and scale must have
// applied 1 / (the length norm2 returned). Kernels of one's own that do the
// work, beside library calls that do none (n = 0, a factor of 1, another
// address), give the right numbers and fail here. Empty when the log is right.
std::string judge_library_log(const BothCopies &after, int n) {
  const devlib::Call *norm = nullptr, *scale = nullptr;
  std::string calls;
  for (const auto &c : after.library) {
    const bool whole = c.elements == n && c.x == after.device_address;
    if (std::string(c.function) == "norm2" && whole) norm = &c;
    if (std::string(c.function) == "scale" && whole && norm &&
        std::fabs(c.value * norm->value - 1.0) <= 1e-5)
      scale = &c;
    calls += std::string(calls.empty() ? "" : ", ") + c.function + " of " + std::to_string(c.elements) +
             " elements at " +
             (c.x == after.device_address ? "v's device address"
              : c.x == after.host_address ? "v's HOST address"
              : c.x == nullptr            ? "a null pointer"
                                          : "another address") +
             (std::string(c.function) == "scale" ? " by " + std::to_string(c.value) : "");
  }
  if (norm && scale) return "";
  std::string msg = "normalize n=" + std::to_string(n) + ": the library's log (" +
                    (calls.empty() ? std::string("no calls") : calls) + ") shows that the library did not do the work. ";
  if (!norm)
    msg += "devlib::norm2 never processed all " + std::to_string(n) +
           " elements of v's device copy, so the length came from somewhere else. ";
  else
    msg += "devlib::scale never applied 1 / (the length norm2 returned) to all " + std::to_string(n) +
           " elements of v's device copy. ";
  msg += "Calls that do no work beside kernels of your own do not count: step 2.4 hands v's device address "
         "(use_device_ptr) to the library and lets its two kernels do the whole job, norm2's result feeding scale "
         "(README, step 2.4)";
  return msg;
}
}  // namespace

// ---- correctness: add-exp -------------------------------------------------------

TEST_CASE("add_exp at n = 1", "[lesson2][correctness]") { check_add_exp(1); }
TEST_CASE("add_exp at prime n = 1009", "[lesson2][correctness]") { check_add_exp(1009); }
TEST_CASE("add_exp at prime n = 100003 (no multiple of any team size)", "[lesson2][correctness]") { check_add_exp(100003); }
TEST_CASE("add_exp at n = 4194304", "[lesson2][correctness]") { check_add_exp(1 << 22); }

TEST_CASE("add_exp runs on the device and copies 2n floats in and n out", "[lesson2][correctness][ompt]") {
  const bool watch = watching();
  const int n = 100003;
  const AddExpInputs in(n);
  auto result = course_test::poisoned<float>((std::size_t)n);
  const auto t = trace::record([&] { lesson2::add_exp(n, in.first.data(), in.second.data(), result.data()); });
  if (watch) {
    check_add_exp_copies(t, n, in, result);
    check_teams(t, "add_exp");
  }
  const auto ref = course::baseline::add_exp_reference(n, in.first.data(), in.second.data());
  COURSE_CHECK(course::check_close<float>(result, ref, lesson2::add_exp_tolerance, "add_exp n=100003 (traced run)"));
}

TEST_CASE("add_exp reads and writes device memory on every device without OMPT", "[lesson2][correctness]") {
  const int n = 100003;
  const AddExpInputs in(n);
  std::vector<float> result((std::size_t)n);
  with_device_copies({&in.first, &in.second}, result,
                     [&](const std::vector<float *> &p) { lesson2::add_exp(n, p[0], p[1], result.data()); });
  const auto ref = course::baseline::add_exp_reference(n, in.first.data(), in.second.data());
  COURSE_CHECK(course::check_close<float>(result, ref, lesson2::add_exp_tolerance,
                                          std::string("add_exp n=100003 on device copies") + kDeviceMemoryHint));
}

// ---- correctness: matmul ----------------------------------------------------------

TEST_CASE("matmul at n = 1", "[lesson2][correctness]") { check_matmul(1); }
TEST_CASE("matmul at prime n = 31", "[lesson2][correctness]") { check_matmul(31); }
TEST_CASE("matmul at n = 100 (not a multiple of 16 or 32)", "[lesson2][correctness]") { check_matmul(100); }
TEST_CASE("matmul at n = 257", "[lesson2][correctness]") { check_matmul(257); }

TEST_CASE("matmul runs on the device and copies A and B in and C out", "[lesson2][correctness][ompt]") {
  const bool watch = watching();
  const int n = 96;
  const std::size_t nn = (std::size_t)n * n;
  const auto A = course::random_vector<float>(nn, course_test::seed(), -1.f, 1.f);
  const auto B = course::random_vector<float>(nn, course_test::seed() + 1, -1.f, 1.f);
  auto C = course_test::poisoned<float>(nn);
  const auto t = trace::record([&] { lesson2::matmul(n, A.data(), B.data(), C.data()); });
  if (watch) {
    check_matmul_copies(t, n, A, B, C);
    check_teams(t, "matmul");
  }
  const auto ref = course::baseline::matmul_reference(n, A.data(), B.data());
  COURSE_CHECK(course::check_close<float>(C, ref, course::matmul_tolerance(n), "matmul n=96 (traced run)"));
}

TEST_CASE("matmul reads and writes device memory on every device without OMPT", "[lesson2][correctness]") {
  const int n = 96;
  const std::size_t nn = (std::size_t)n * n;
  const auto A = course::random_vector<float>(nn, course_test::seed(), -1.f, 1.f);
  const auto B = course::random_vector<float>(nn, course_test::seed() + 1, -1.f, 1.f);
  std::vector<float> C(nn);
  with_device_copies({&A, &B}, C, [&](const std::vector<float *> &p) { lesson2::matmul(n, p[0], p[1], C.data()); });
  const auto ref = course::baseline::matmul_reference(n, A.data(), B.data());
  COURSE_CHECK(course::check_close<float>(C, ref, course::matmul_tolerance(n),
                                          std::string("matmul n=96 on device copies") + kDeviceMemoryHint));
}

// ---- correctness: heat ----------------------------------------------------------------

TEST_CASE("heat on a 1 x 1 grid (all boundary)", "[lesson2][correctness]") { check_heat(1, 1, 3); }
TEST_CASE("heat on a 2 x 5 grid (no interior)", "[lesson2][correctness]") { check_heat(2, 5, 4); }
TEST_CASE("heat on a 31 x 17 grid (primes) for 7 steps (odd)", "[lesson2][correctness]") { check_heat(31, 17, 7); }
TEST_CASE("heat on a 100 x 129 grid for 50 steps", "[lesson2][correctness]") { check_heat(100, 129, 50); }
TEST_CASE("heat on a 256 x 256 grid for 101 steps", "[lesson2][correctness]") { check_heat(256, 256, 101); }

TEST_CASE("heat hands observe() the current grid every 7 steps (no stale host copy)", "[lesson2][correctness]") {
  const int nx = 64, ny = 48, steps = 30, every = 7;
  const auto u0 = heat_input(nx, ny);
  auto u = u0;
  std::vector<int> seen;
  std::vector<std::vector<float>> grids;
  lesson2::heat(nx, ny, steps, u.data(), every, [&](int step, const float *grid) {
    seen.push_back(step);
    grids.emplace_back(grid, grid + (std::size_t)nx * ny);
  });
  const auto ref = course::baseline::heat_reference(nx, ny, steps, u0.data(), every);
  std::string got;
  for (int s : seen) got += " " + std::to_string(s);
  COURSE_CHECK(expect(seen == ref.steps, "heat 64 x 48, 30 steps, every 7: observe() was called after steps [" + got +
                                             " ], expected [ 7 14 21 28 ]"));
  for (std::size_t k = 0; k < grids.size() && k < ref.grids.size(); ++k)
    COURSE_CHECK(course::check_close<float>(grids[k], ref.grids[k], lesson2::heat_tolerance,
                                            "heat 64 x 48: the host grid handed to observe() after step " +
                                                std::to_string(ref.steps[k]) +
                                                " (stale? refresh it with `target update from` first)"));
  COURSE_CHECK(course::check_close<float>(u, ref.final, lesson2::heat_tolerance, "heat 64 x 48, 30 steps, every 7: final grid"));
}

TEST_CASE("heat keeps both grids on the device between steps", "[lesson2][correctness][ompt]") {
  const bool watch = watching();
  const int nx = 256, ny = 256, steps = 40, every = 10, observations = steps / every;
  const double grid_bytes = (double)nx * ny * sizeof(float);
  const auto u0 = heat_input(nx, ny);
  auto u = u0;
  const auto t = trace::record([&] { lesson2::heat(nx, ny, steps, u.data(), every, [](int, const float *) {}); });
  if (watch) {
    const double in = t.total(true) / grid_bytes, out = t.total(false) / grid_bytes;
    // Needed: u and the second grid in once (2), u out once plus one refresh
    // per observation (1 + 4); one spare grid back is allowed for a different
    // but sensible plan. Mapping every step moves 2 grids in and 1 out per step.
    const double max_in = 2, max_out = observations + 2;
    COURSE_CHECK(expect(t.kernels >= 1, "heat launched no kernel on the device: the steps ran on the host"));
    COURSE_CHECK(expect(in <= max_in + 1e-9 && out <= max_out + 1e-9,
                        fmt("heat 256 x 256, 40 steps, observed every 10: %.1f grids copied to the device and %.1f "
                            "back (allowed: %.0f in, %.0f back). Keep both grids on the device in a `target data` "
                            "region and copy back only what observe() and the caller need",
                            in, out, max_in, max_out)));
  }
  const auto ref = course::baseline::heat_reference(nx, ny, steps, u0.data(), 0);
  COURSE_CHECK(course::check_close<float>(u, ref.final, lesson2::heat_tolerance, "heat 256 x 256, 40 steps (traced run)"));
}

TEST_CASE("heat holds the grid on the device whenever observe() runs on every device without OMPT",
          "[lesson2][correctness]") {
  // Between steps, a `target data` region keeps both grids present on the
  // device; mapping them in every sweep() leaves nothing there in between.
  const int nx = 64, ny = 48, steps = 12, every = 3;
  const auto u0 = heat_input(nx, ny);
  auto u = u0;
  const int dev = omp_get_default_device();
  int calls = 0, present = 0;
  lesson2::heat(nx, ny, steps, u.data(), every, [&](int, const float *grid) {
    ++calls;
    present += omp_target_is_present(grid, dev) != 0;
  });
  COURSE_CHECK(expect(calls == steps / every && present == calls,
                      fmt("heat 64 x 48, 12 steps, observed every 3: the current grid was on the device at %.0f of "
                          "%.0f observations. Between steps both grids must stay on the device: wrap the step loop "
                          "in a `target data` region that maps them (README, step 2.3)",
                          present, calls)));
}

// ---- correctness: normalize (step 2.4) ---------------------------------------------------

TEST_CASE("normalize at n = 1", "[lesson2][correctness]") { check_normalize(1); }
TEST_CASE("normalize at prime n = 1009", "[lesson2][correctness]") { check_normalize(1009); }
TEST_CASE("normalize at prime n = 100003", "[lesson2][correctness]") { check_normalize(100003); }

TEST_CASE("normalize hands the library the device copy of v and not its host address", "[lesson2][correctness]") {
  const int n = 1009;
  const auto real = normalize_input(n), stale = normalize_input(n, 4);
  const long calls_before = devlib::calls();
  const auto after = normalize_held_on_device(real, stale);
  const long calls = devlib::calls() - calls_before;
  auto c = course::check_close<float>(after.device, normalize_reference(real), normalize_tol(n),
                                      "normalize n=1009, v held on the device by the caller: the device copy");
  if (!c.ok && after.device == real && after.host != stale)
    c.message += " -- the device copy of v never changed, but the HOST copy did: the work ran on host memory. Either "
                 "normalize still computes on the host, or the library was handed v itself, a host address. On the "
                 "host device that address is valid memory, so the library scaled the host copy (a GPU faults on "
                 "it, or, where it can reach host memory, does the same). Hand the library v's device address: "
                 "use_device_ptr in the `target data` region (README, step 2.4)";
  else if (!c.ok && after.device == real)
    c.message += " -- neither copy of v changed: the library never worked on v (README, step 2.4)";
  COURSE_CHECK(c);
  COURSE_CHECK(expect(calls >= 2, fmt("normalize called the device library %.0f times: step 2.4 hands v's device "
                                      "address to devlib::norm2 and devlib::scale, it does not replace them with "
                                      "kernels of its own (README, step 2.4)",
                                      (double)calls)));
  const std::string library = judge_library_log(after, n);
  COURSE_CHECK(expect(library.empty(), library));
}

TEST_CASE("normalize copies v to the device and back once and runs the library there",
          "[lesson2][correctness][ompt]") {
  const bool watch = watching();
  const int n = 100003;
  const auto v0 = normalize_input(n);
  auto v = v0;
  const auto t = trace::record([&] { lesson2::normalize(n, v.data()); });
  if (watch) {
    const std::size_t bytes = (std::size_t)n * sizeof(float);
    COURSE_CHECK(expect(t.to_device(v.data(), bytes) == bytes,
                        fmt("normalize n=%.0f: %.0f of %.0f bytes of v were copied to the device. The library reads "
                            "v in device memory, so v must be mapped there first (`target data`); use_device_ptr "
                            "only looks up the device address of data that is already mapped (README, step 2.4)",
                            n, (double)t.to_device(v.data(), bytes), (double)bytes)));
    COURSE_CHECK(expect(t.from_device(v.data(), bytes) == bytes,
                        fmt("normalize n=%.0f: %.0f of %.0f bytes of v were copied back from the device: the "
                            "library's result stays in device memory unless the region's map copies v back at its "
                            "end (README, step 2.4)",
                            n, (double)t.from_device(v.data(), bytes), (double)bytes)));
    COURSE_CHECK(expect(t.kernels >= 2, fmt("normalize launched %.0f kernels on the device; the library launches two "
                                            "(devlib::norm2 and devlib::scale). README, step 2.4",
                                            (double)t.kernels)));
  }
  COURSE_CHECK(course::check_close<float>(v, normalize_reference(v0), normalize_tol(n),
                                          "normalize n=100003 (traced run)"));
}

// ---- speedup ----------------------------------------------------------------------------

TEST_CASE("matmul on the device (copies included) is faster than the serial baseline at n = 512",
          "[lesson2][speedup]") {
  const int n = 512;
  const std::size_t nn = (std::size_t)n * n;
  const auto A = course::random_vector<float>(nn, course_test::seed(), -1.f, 1.f);
  const auto B = course::random_vector<float>(nn, course_test::seed() + 1, -1.f, 1.f);
  std::vector<float> C0(nn), C1(nn);
  const auto cmp = course::compare_interleaved([&] { course::baseline::matmul_serial(n, A.data(), B.data(), C0.data()); },
                                               [&] { lesson2::matmul(n, A.data(), B.data(), C1.data()); }, 5, 1);
  const auto ref = course::baseline::matmul_reference(n, A.data(), B.data());
  COURSE_CHECK(course::check_close<float>(C1, ref, course::matmul_tolerance(n), "matmul n=512 (speedup run)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kMatmul, "lesson 2 matmul offload", cmp);
}

TEST_CASE("heat with resident grids is faster than mapping them every step (1024 x 1024)", "[lesson2][speedup]") {
  const int nx = 1024, ny = 1024, steps = 20;
  const auto u0 = heat_input(nx, ny);
  auto u_base = u0, u_yours = u0;
  // Each run starts from u0 (the copy is in both timings alike).
  const auto cmp = course::compare_interleaved(
      [&] {
        u_base = u0;
        course::baseline::heat_mapped_every_step(nx, ny, steps, u_base.data());
      },
      [&] {
        u_yours = u0;
        lesson2::heat(nx, ny, steps, u_yours.data());
      },
      5, 1);
  const auto ref = course::baseline::heat_reference(nx, ny, steps, u0.data(), 0);
  COURSE_CHECK(course::check_close<float>(u_yours, ref.final, lesson2::heat_tolerance, "heat 1024 x 1024, 20 steps (speedup run)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kHeat, "lesson 2 heat resident vs mapped", cmp);
}
