/// @file verify.hpp
/// @brief One verification for every lesson: poisoned outputs, a relative
///        error norm against a double-precision reference, exact compares,
///        and messages that name the size, the first bad index, expected and got.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>

namespace course {

/// Outcome of a comparison; @c message explains a failure (empty on success).
struct Check {
  bool ok = true;        ///< true when the output is acceptable
  double error = 0;      ///< relative error norm (0 for exact compares)
  std::size_t bad = 0;   ///< first bad index (meaningful when !ok)
  std::string message;   ///< what was wrong: size, index, expected, got
  /// True when the check passed.
  explicit operator bool() const { return ok; }
};

/// The value written into outputs before a kernel runs: NaN for floating
/// point, a sentinel for integers. An element the kernel forgot stays poisoned.
template <class T>
constexpr T poison_value() {
  if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::quiet_NaN();
  else
    return static_cast<T>(0x5A5A5A5A5A5A5A5AULL);
}

/// Fills @p out with poison_value<T>().
template <class T>
void poison(std::span<T> out) {
  for (auto &x : out) x = poison_value<T>();
}

/// How far one element may be off, beside the norm: |got_i - ref_i| <=
/// default_element_factor x tol x max(|ref_i|, rms(ref)). A relative L2 norm
/// over n elements lets a single element be off by up to tol x sqrt(n) x rms
/// (one element of a 1000 x 1000 matmul 25 % wrong passed it); rounding spreads
/// over all elements, so a correct kernel stays far below this bound (float
/// i-k-j matmuls at n = 31 to 1000: worst element at 0.2-0.5 % of it;
/// docs/results/steps-check.md). rms(ref) stands in for |ref_i| where ref_i is
/// near 0, whose relative error means nothing.
inline constexpr double default_element_factor = 10.0;

/// Relative error ||got - ref||_2 / ||ref||_2 (ref = 0 uses the absolute norm)
/// at most @p tol, and every element within @p element_factor x tol x
/// max(|ref_i|, rms(ref)) of its reference, and no element NaN or infinite.
/// On failure the message names @p what, the size, the error, the first bad
/// element (not finite, or off by more than its bound), expected and got.
template <class T>
Check check_close(std::span<const T> got, std::span<const double> ref, double tol, const std::string &what,
                  double element_factor = default_element_factor) {
  Check c;
  std::ostringstream msg;
  if (got.size() != ref.size()) {
    msg << what << ": output has " << got.size() << " elements, expected " << ref.size();
    c.ok = false;
    c.message = msg.str();
    return c;
  }
  double num = 0, den = 0;
  std::size_t first_nonfinite = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    if (!std::isfinite(g) && first_nonfinite == got.size()) first_nonfinite = i;
    num += (g - ref[i]) * (g - ref[i]);
    den += ref[i] * ref[i];
  }
  const double rms = got.empty() ? 0 : std::sqrt(den / static_cast<double>(got.size()));
  const auto bound = [&](std::size_t i) { return element_factor * tol * std::max(std::fabs(ref[i]), rms); };
  std::size_t first_far = got.size();
  if (first_nonfinite == got.size())
    for (std::size_t i = 0; i < got.size(); ++i)
      if (std::fabs(static_cast<double>(got[i]) - ref[i]) > bound(i)) {
        first_far = i;
        break;
      }
  c.error = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  c.ok = first_nonfinite == got.size() && first_far == got.size() && c.error <= tol;
  if (c.ok) return c;
  std::size_t bad = first_nonfinite != got.size() ? first_nonfinite : first_far;
  if (bad == got.size()) {  // the norm alone failed: point at the worst element
    bad = 0;
    for (std::size_t i = 1; i < got.size(); ++i)
      if (std::fabs(static_cast<double>(got[i]) - ref[i]) > std::fabs(static_cast<double>(got[bad]) - ref[bad]))
        bad = i;
  }
  c.bad = bad;
  msg.precision(7);
  msg << what << ": size " << got.size() << ", relative error " << c.error << " (allowed " << tol << ")";
  if (first_nonfinite == got.size() && first_far != got.size())
    msg << "; element " << bad << " is off by " << std::fabs(static_cast<double>(got[bad]) - ref[bad])
        << " (allowed " << bound(bad) << "): expected " << ref[bad] << ", got " << static_cast<double>(got[bad]);
  else
    msg << "; " << (first_nonfinite != got.size() ? "first bad index " : "worst index ") << bad << ": expected "
        << ref[bad] << ", got " << static_cast<double>(got[bad]);
  if (std::isnan(static_cast<double>(got[bad])))
    msg << " (NaN: the output starts as NaN, so this element was never written, or was added to instead of set)";
  // Wrong only in a short tail (all of the last k, none before): the pattern
  // of a loop bound or a rounded-down division that drops the remainder.
  std::size_t first_wrong = got.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!std::isfinite(static_cast<double>(got[i])) || std::fabs(static_cast<double>(got[i]) - ref[i]) > bound(i)) {
      first_wrong = i;
      break;
    }
  bool tail = first_wrong > 0 && first_wrong < got.size() && got.size() - first_wrong <= 64;
  for (std::size_t i = first_wrong; tail && i < got.size(); ++i)
    tail = !std::isfinite(static_cast<double>(got[i])) || std::fabs(static_cast<double>(got[i]) - ref[i]) > bound(i);
  if (tail)
    msg << "; only the last " << got.size() - first_wrong << " element(s) are wrong, all of them (off by one at the "
        << "end: a loop bound, or a division that rounds the remainder away?)";
  c.message = msg.str();
  return c;
}

/// The tolerance of a float matmul of size @p n (C = A x B, n x n, entries of
/// A and B in [-1, 1]) against a double reference, for check_close(): a float
/// sum of n products errs by at most about n x 2^-24 relative (a blocked sum
/// or fused multiply-adds round less, never more), and 4 x n x 2^-24 still
/// catches a single wrong element of C at the sizes the tests use (one element
/// of 257^2 off by its own size moves the norm by about 1/257 = 4e-3, far
/// above the 6e-5 allowed there). The lesson programs and tests of lessons 1,
/// 2, 4 and 5 all verify their matmuls with it.
inline double matmul_tolerance(int n) { return 4.0 * n * 0x1p-24; }

/// Exact comparison, for integers and copies.
template <class T>
Check check_equal(std::span<const T> got, std::span<const T> expected, const std::string &what) {
  Check c;
  std::ostringstream msg;
  if (got.size() != expected.size()) {
    msg << what << ": output has " << got.size() << " elements, expected " << expected.size();
    c.ok = false;
    c.message = msg.str();
    return c;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == expected[i])) {
      c.ok = false;
      c.bad = i;
      // Promote bytes so they print as numbers, not characters.
      msg << what << ": size " << got.size() << ", first bad index " << i << ": expected " << +expected[i]
          << ", got " << +got[i];
      if (got[i] == poison_value<T>()) msg << " (never written: still the poison value)";
      c.message = msg.str();
      return c;
    }
  }
  return c;
}

/// A scalar against a double reference with relative tolerance @p tol.
Check check_scalar(double got, double ref, double tol, const std::string &what);

}  // namespace course
