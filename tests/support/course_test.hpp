/// @file course_test.hpp
/// @brief What every lesson test includes: Catch2 (v2 or v3) and the two
///        assertions the course grades with.
#pragma once

#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>  // Catch2 v3 (Ubuntu 24.04)
#else
#include <catch2/catch.hpp>  // Catch2 v2 (Debian 12)
#endif

#include <cstdint>
#include <iostream>
#include <span>
#include <vector>

#include "course/data.hpp"
#include "course/grading.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"

/// Fails the test case with the check's own message (size, first bad index,
/// expected, got) and goes on with the next check.
#define COURSE_CHECK(check_expr)                  \
  do {                                            \
    const ::course::Check course_c_ = (check_expr); \
    if (!course_c_.ok) FAIL_CHECK(course_c_.message); \
    else SUCCEED();                               \
  } while (0)

/// Grades a speedup, prints the verdict line whether it passes or fails, and
/// fails the test case when the measured speedup is below the threshold.
#define COURSE_REQUIRE_SPEEDUP(threshold, label, comparison)                                 \
  do {                                                                                    \
    const ::course::Verdict course_v_ = ::course::grade_speedup((threshold), (label), (comparison)); \
    std::cout << course_v_.message << std::endl;                                          \
    if (!course_v_.passed) FAIL(course_v_.message);                                        \
    else SUCCEED(course_v_.message);                                                      \
  } while (0)

namespace course_test {

/// The seed of this run's random inputs: COURSE_SEED or course::default_seed.
std::uint64_t seed();

/// A vector of @p n elements filled with the poison value.
template <class T>
std::vector<T> poisoned(std::size_t n) {
  std::vector<T> v(n);
  course::poison(std::span<T>(v));
  return v;
}

}  // namespace course_test
