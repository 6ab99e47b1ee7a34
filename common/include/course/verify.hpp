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

/// The relative tolerance, for check_scalar(), of a sum of @p n positive
/// values of type T in any order against an exact sum (0 for integers, whose
/// sums are exact). Every addition rounds once, by at most half a unit in the
/// last place (u = 2^-24 for float, 2^-53 for double) of the partial sum. For
/// positive data the partial sums never exceed the total, and the roundings
/// have random sign, so they add up like a random walk: about sqrt(n) u of the
/// total whatever the order (Higham, "Accuracy and Stability of Numerical
/// Algorithms", 2nd ed., sec. 2.8 and 4.2). The rigorous worst case, (n-1) u,
/// would accept a sum that dropped whole teams' elements at n = 2^20;
/// 4 sqrt(n) u still leaves the global atomic sum (one chain of n additions,
/// the worst order) a margin of about 10x in lesson 6's tests. Lessons 6 and
/// 11, tests and programs alike, check their sums with it.
template <class T>
double sum_tolerance(std::size_t n) {
  if constexpr (std::is_integral_v<T>)
    return 0.0;
  else
    return 4.0 * std::sqrt(static_cast<double>(std::max<std::size_t>(n, 1))) * (std::numeric_limits<T>::epsilon() / 2);
}

/// A float matmul C = A x B (@p n x @p n, row-major) checked on @p samples
/// entries of C against double sums, where a whole double reference (n^3
/// operations) would take longer than the run it checks: each entry costs
/// n. Entry (i, j) passes when |C_ij - sum_k A_ik B_kj| <= matmul_tolerance(n)
/// x sum_k |A_ik B_kj|, the error bound of a float sum of n products (relative
/// to the magnitudes summed, so cancellation cannot fail a right answer). The
/// entries spread over all of C: sample q is row q x 2654435761 mod n (a
/// multiplicative hash, so rows do not repeat in a pattern), column
/// 97 q + 5 mod n. On failure the message names @p what and the first wrong
/// entry with what it holds and what it should. The SGEMM speed run of
/// lesson 11 and its lesson program use it.
inline Check check_matmul_sampled(std::span<const float> A, std::span<const float> B, std::span<const float> C,
                                  int n, const std::string &what, int samples = 64) {
  Check c;
  c.message = what;
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  if (n < 1 || A.size() != nn || B.size() != nn || C.size() != nn) {
    c.ok = false;
    c.message += ": the matrices are not " + std::to_string(n) + " x " + std::to_string(n);
    return c;
  }
  for (int q = 0; q < samples; ++q) {
    const int i = static_cast<int>((static_cast<unsigned>(q) * 2654435761u) % static_cast<unsigned>(n));
    const int j = (q * 97 + 5) % n;
    double want = 0, mag = 0;
    for (int k = 0; k < n; ++k) {
      const double p = double(A[static_cast<std::size_t>(i) * n + k]) * B[static_cast<std::size_t>(k) * n + j];
      want += p;
      mag += std::fabs(p);
    }
    const double got = C[static_cast<std::size_t>(i) * n + j];
    if (!(std::fabs(got - want) <= matmul_tolerance(n) * mag + 1e-30)) {  // written so that NaN fails
      c.ok = false;
      c.bad = static_cast<std::size_t>(i) * n + j;
      std::ostringstream msg;
      msg.precision(7);
      msg << what << ": C[" << i << "][" << j << "] = " << got << ", want " << want << " (allowed off by "
          << matmul_tolerance(n) * mag << ")";
      c.message = msg.str();
      return c;
    }
  }
  c.message.clear();
  return c;
}

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
