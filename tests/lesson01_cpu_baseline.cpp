// Lesson 1 tests -- CPU baseline matmul: correct at awkward sizes, and faster
// than the serial i-j-k baseline by a margin that grows with the cores you have.
#include <cmath>
#include <string>

#include "baselines.hpp"
#include "course_test.hpp"
#include "matmul.hpp"

// Speedup thresholds: this lesson's grading numbers, {host, gpu} (see course/grading.hpp).
// Each is at most half of what the solution measured on that class.
// lesson 1: loop order + simd (single thread) times parallel threads.
namespace thresholds {
constexpr course::Threshold kMatmul{"lesson1.matmul", 4.0, 4.0, course::Scaling::per_core_everywhere, 8};
}  // namespace thresholds

namespace {

// Float sums of n products in [-1, 1]: a recursive sum errs by at most about
// n * 2^-24 relative; 4x that bound still catches one wrong element at n = 512.
double tolerance(int n) { return 4.0 * n * std::ldexp(1.0, -24); }

void check_matmul(int n) {
  const std::size_t nn = (std::size_t)n * n;
  const auto A = course::random_vector<float>(nn, course_test::seed(), -1.f, 1.f);
  const auto B = course::random_vector<float>(nn, course_test::seed() + 1, -1.f, 1.f);
  auto C = course_test::poisoned<float>(nn);
  lesson1::matmul(n, A.data(), B.data(), C.data());
  const auto ref = course::baseline::matmul_reference(n, A.data(), B.data());
  COURSE_CHECK(course::check_close<float>(C, ref, tolerance(n), "matmul n=" + std::to_string(n)));
}

}  // namespace

TEST_CASE("matmul at n = 1", "[lesson1][correctness]") { check_matmul(1); }
TEST_CASE("matmul at prime n = 31", "[lesson1][correctness]") { check_matmul(31); }
TEST_CASE("matmul at n = 100 (not a multiple of 16)", "[lesson1][correctness]") { check_matmul(100); }
TEST_CASE("matmul at n = 257", "[lesson1][correctness]") { check_matmul(257); }

TEST_CASE("matmul is faster than the serial baseline at n = 512", "[lesson1][speedup]") {
  const int n = 512;
  const std::size_t nn = (std::size_t)n * n;
  const auto A = course::random_vector<float>(nn, course_test::seed(), -1.f, 1.f);
  const auto B = course::random_vector<float>(nn, course_test::seed() + 1, -1.f, 1.f);
  std::vector<float> C0(nn), C1(nn);
  const auto cmp = course::compare_interleaved([&] { course::baseline::matmul_serial(n, A.data(), B.data(), C0.data()); },
                                               [&] { lesson1::matmul(n, A.data(), B.data(), C1.data()); }, 5, 1);
  // A fast wrong answer earns nothing.
  const auto ref = course::baseline::matmul_reference(n, A.data(), B.data());
  COURSE_CHECK(course::check_close<float>(C1, ref, tolerance(n), "matmul n=512 (speedup run)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kMatmul, "lesson 1 matmul", cmp);
}
