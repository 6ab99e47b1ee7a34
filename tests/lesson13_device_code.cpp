// Lesson 13 tests -- device code: every kind's rule is callable on the device
// through a pointer (13.1) and advance() matches the host's rules; the
// particles handed to the kernel are grouped by kind, stably, fields kept
// together (13.2: a data check, so the step is graded on the host device; a
// GPU also times the divergence it removes); the potential is right at tile
// lengths chosen at run time, beyond any fixed array (13.3); the interop
// hand-off makes, reads and destroys its object, waits for the kernel and
// gives the library the runtime's stream where there is one (13.4).
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/device.hpp"
#include "course_test.hpp"
#include "particles.hpp"

// Speedup thresholds: this lesson's grading numbers, {host, gpu} (see
// course/grading.hpp). lesson 13 advance: grouped vs interleaved kinds, the
// same kernel. On the host device a thread runs one particle at a time and no
// lanes wait on each other: the step changes nothing there, so the test is
// skipped on the host (the grouping check grades 13.2). GPU: the three rules
// are short and the kernel waits mostly on memory, so grouping gains 1.1-1.2x
// on an H100 (docs/results/h100-2026-11-28.md: 1.0x with 13.2 undone); 1.05x
// asks for less than half of that gain.
namespace thresholds {
constexpr course::Threshold kGrouped{"lesson13.grouped", 1.0, 1.05, course::Scaling::fixed, 0};
}  // namespace thresholds

namespace l13 = lesson13;

namespace {

// The host's answer: each particle stepped by its kind's rule, called directly.
course::Check check_advance(const l13::Particles &before, const l13::Particles &after, int steps, float dt,
                            const std::string &what) {
  const auto rules = l13::host_updates();
  std::vector<float> got, ref_x;
  std::vector<double> ref;
  for (std::size_t i = 0; i < before.size(); ++i) {
    float x = before.x[i], v = before.v[i];
    for (int s = 0; s < steps; ++s) rules[before.kind[i]](x, v, dt);
    got.push_back(after.x[i]), got.push_back(after.v[i]);
    ref.push_back(x), ref.push_back(v);
  }
  // The device runs the same float operations in the same order; 1e-5 leaves
  // room for a contracted multiply-add.
  return course::check_close<float>(got, ref, 1e-5, what);
}

double potential_ref(const std::vector<float> &x, std::size_t i) {
  double s = 0;
  for (float xj : x) s += 1.0 / (1.0 + (double(x[i]) - xj) * (double(x[i]) - xj));
  return s;
}

}  // namespace

// ---- 13.1: function pointers on the device ---------------------------------

TEST_CASE("every kind's rule has a device address (declare target indirect)", "[lesson13][correctness]") {
  const auto host = l13::host_updates();
  const auto dev = l13::device_updates();
  static const char *names[l13::kinds] = {"drift", "spring", "drag"};
  for (int k = 0; k < l13::kinds; ++k) {
    INFO("kind " << k << " (" << names[k] << ")");
    if (!dev[k])
      FAIL_CHECK("kind " << k << "'s rule " << names[k]
                         << "() has no device address: omp_get_mapped_ptr() finds no device copy of it, so no "
                            "kernel can call it through a pointer. Declare it `declare target indirect` "
                            "(README, step 13.1)");
    else
      CHECK(dev[k] != host[k]);  // the device's copy is another function (on the host device: in another image)
  }
}

TEST_CASE("advance calls each kind's own rule at n = 1 and 97 and 3000", "[lesson13][correctness]") {
  for (std::size_t n : {std::size_t{1}, std::size_t{97}, std::size_t{3000}}) {
    const auto before = l13::make_particles(n, course_test::seed());
    auto after = before;
    try {
      l13::advance(after, 25, 0.01f);
    } catch (const std::exception &e) {
      FAIL(std::string("advance threw: ") + e.what());
    }
    COURSE_CHECK(check_advance(before, after, 25, 0.01f, "advance n=" + std::to_string(n)));
  }
}

// ---- 13.2: what a warp receives ---------------------------------------------

TEST_CASE("group_by_kind makes each kind contiguous with kind 0 first at n = 1 and 97 and 3000",
          "[lesson13][correctness]") {
  for (std::size_t n : {std::size_t{1}, std::size_t{97}, std::size_t{3000}}) {
    auto p = l13::make_particles(n, course_test::seed());
    l13::group_by_kind(p);
    REQUIRE(p.size() == n);
    REQUIRE(p.kind.size() == n);
    std::size_t runs = n > 0 ? 1 : 0;
    for (std::size_t i = 1; i < n; ++i) {
      if (p.kind[i] < p.kind[i - 1])
        FAIL("n=" << n << ": kind " << p.kind[i] << " at " << i << " comes after kind " << p.kind[i - 1]
                  << ": the particles are not grouped by kind (0s first), so a warp still mixes rules "
                     "(README, step 13.2)");
      runs += p.kind[i] != p.kind[i - 1];
    }
    CHECK(runs <= static_cast<std::size_t>(l13::kinds));
  }
}

TEST_CASE("group_by_kind keeps each particle's fields together and each kind's order", "[lesson13][correctness]") {
  const std::size_t n = 1000;
  const auto before = l13::make_particles(n, course_test::seed());
  auto p = before;
  l13::group_by_kind(p);
  REQUIRE(p.x.size() == n);
  REQUIRE(p.v.size() == n);
  REQUIRE(p.id.size() == n);
  std::set<int> seen;
  int last_id[l13::kinds] = {-1, -1, -1};
  for (std::size_t i = 0; i < n; ++i) {
    const int id = p.id[i];
    REQUIRE(id >= 0);
    REQUIRE(id < static_cast<int>(n));
    if (!seen.insert(id).second) FAIL("particle " << id << " appears twice: the reordering lost another one");
    const std::size_t o = static_cast<std::size_t>(id);
    if (p.kind[i] != before.kind[o]) FAIL("at " << i << ": particle " << id << " carries another particle's kind");
    if (p.x[i] != before.x[o]) FAIL("at " << i << ": particle " << id << " carries another particle's position");
    if (p.v[i] != before.v[o])
      FAIL("at " << i << ": particle " << id << " carries another particle's velocity: move all four fields "
                 "together (README, step 13.2)");
    if (id < last_id[p.kind[i]])
      FAIL("kind " << p.kind[i] << ": particle " << id << " comes after particle " << last_id[p.kind[i]]
                   << ": the sort is not stable (each kind keeps its particles' order)");
    last_id[p.kind[i]] = id;
  }
}

TEST_CASE("advance on grouped particles is faster than on interleaved kinds", "[lesson13][speedup]") {
  if (!course::device_info().is_gpu())
    COURSE_SKIP_SPEED("lesson 13 grouped: not timed on the host device, where a thread runs one particle at a time "
                      "and no lanes wait on each other; 'group_by_kind makes each kind contiguous' grades step 13.2 "
                      "here");
  const std::size_t n = 1 << 20;
  const auto mixed = l13::make_particles(n, course_test::seed());
  auto grouped = mixed;
  l13::group_by_kind(grouped);
  auto out = grouped;
  l13::advance(out, 200, 0.01f);
  COURSE_CHECK(check_advance(grouped, out, 200, 0.01f, "advance grouped n=2^20"));
  const auto cmp = course::compare_interleaved([&] { auto p = mixed; l13::advance(p, 200, 0.01f); },
                                               [&] { auto p = grouped; l13::advance(p, 200, 0.01f); }, 5, 1);
  COURSE_REQUIRE_SPEEDUP(thresholds::kGrouped, "lesson 13 grouped", cmp);
}

// ---- 13.3: team-local memory sized at run time ------------------------------

TEST_CASE("potential at tile lengths chosen at run time 1 and 7 and 300 and 1000 and 4096", "[lesson13][correctness]") {
  for (int n : {1, 97, 3001}) {
    const auto x = course::random_vector<float>(static_cast<std::size_t>(n), course_test::seed(), -4.f, 4.f);
    std::vector<double> ref(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) ref[i] = potential_ref(x, i);
    for (int tile : {1, 7, 300, 1000, 4096}) {
      auto phi = course_test::poisoned<float>(x.size());
      try {
        course_test::with_device_poison(std::span<float>(phi), [&] { l13::potential(x.data(), n, tile, phi.data()); });
      } catch (const std::exception &e) {
        FAIL("potential n=" << n << " tile " << tile << " threw: " << e.what()
                            << " -- the tile length is chosen at run time: size the team-local stage at launch "
                               "(README, step 13.3)");
      }
      // Sums of n positive terms in float: n 2^-24 relative error, times 4.
      COURSE_CHECK(course::check_close<float>(phi, ref, 4.0 * n * 0x1p-24,
                                              "potential n=" + std::to_string(n) + " tile " + std::to_string(tile)));
    }
  }
}

TEST_CASE("potential refuses tile lengths outside 1 to max_tile", "[lesson13][correctness]") {
  std::vector<float> x(10, 0.f), phi(10);
  CHECK_THROWS_AS(l13::potential(x.data(), 10, 0, phi.data()), std::invalid_argument);
  CHECK_THROWS_AS(l13::potential(x.data(), 10, l13::max_tile + 1, phi.data()), std::invalid_argument);
}

// ---- 13.4: interop -----------------------------------------------------------

TEST_CASE("the hand-off makes an interop object for the interop device and destroys it", "[lesson13][correctness]") {
  for (int n : {1, 97, 100003}) {
    std::vector<float> y(static_cast<std::size_t>(n), 2.f);
    const int before = l13::lib::calls();
    const l13::Handoff h = l13::add_then_scale(y.data(), n, 0.5f);
    INFO("n = " << n);
    if (!h.created)
      FAIL("no interop object was made: `#pragma omp interop init(targetsync : obj) device(...)` makes one "
           "(README, step 13.4)");
    if (h.device_num != l13::interop_device())
      FAIL_CHECK("omp_ipr_device_num says " << h.device_num << ", not interop_device() = " << l13::interop_device()
                                            << ": ask the object with omp_get_interop_int, and make it on that device");
    CHECK(h.fr_id >= 0);
    if (!h.destroyed)
      FAIL_CHECK("the interop object was not destroyed: `#pragma omp interop destroy(obj)` frees it and resets obj "
                 "to omp_interop_none; one leaks per call otherwise");
    CHECK(l13::lib::calls() == before + 1);
    if (course::device_info().is_gpu()) {
      // LLVM's CUDA plugin hands a CUstream for targetsync (to be confirmed on a GPU, see the README).
      CHECK(h.stream != nullptr);
      CHECK(l13::lib::last_stream() == h.stream);
    } else {
      CHECK(h.stream == nullptr);  // no stream asked on the host device: LLVM 19 crashes (README, concept 4)
    }
    std::vector<double> ref(y.size(), 1.5);  // (2 + 1) x 0.5: the library ran after the kernel
    COURSE_CHECK(course::check_close<float>(y, ref, 1e-6, "add_then_scale n=" + std::to_string(n)));
  }
}
