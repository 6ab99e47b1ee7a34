/// @file data.hpp
/// @brief Seeded input data and aligned buffers, so every run and every test
///        sees the same numbers and can say which seed made them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <random>
#include <type_traits>
#include <vector>

namespace course {

/// The seed every lesson uses unless told otherwise (printed on failure).
inline constexpr std::uint64_t default_seed = 20261121;

/// A double uniformly drawn from [@p lo, @p hi): one 64-bit draw scaled to
/// [0, 1), then to the range. The same numbers as the
/// `std::uniform_real_distribution<double>` of Debian's libstdc++ (GCC
/// 12-14) on `std::mt19937_64` (tests/support/seeded_inputs.cpp), about 70
/// times faster: that one computes two `long double` logarithms per draw, so
/// a 2^28-element input (lesson 11's full size) took 23-31 s to make on an
/// H200 node. Written here, the numbers no longer depend on which standard
/// library built the program.
inline double uniform_real(std::mt19937_64 &gen, double lo, double hi) {
  const double r = static_cast<double>(gen()) * 0x1p-64;  // exact: a power of two
  const double unit = r < 1.0 ? r : 0x1.fffffffffffffp-1;  // a draw that rounded up to 1
  return unit * (hi - lo) + lo;
}

/// @p n values uniformly drawn from [@p lo, @p hi) with generator seed @p seed.
/// Integers are drawn from the closed range [lo, hi].
template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed = default_seed, T lo = T(0), T hi = T(1)) {
  std::mt19937_64 gen(seed);
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    for (auto &x : v) x = static_cast<T>(uniform_real(gen, static_cast<double>(lo), static_cast<double>(hi)));
  } else {
    std::uniform_int_distribution<long long> d(static_cast<long long>(lo), static_cast<long long>(hi));
    for (auto &x : v) x = static_cast<T>(d(gen));
  }
  return v;
}

/// Minimal allocator returning memory aligned to @p Align bytes (lesson 3: one
/// aligned code path instead of a peeled one with a run-time check).
template <class T, std::size_t Align = 64>
struct AlignedAllocator {
  using value_type = T;  ///< the element type
  /// Rebinding keeps the alignment.
  template <class U>
  struct rebind {
    using other = AlignedAllocator<U, Align>;  ///< the same allocator for U
  };
  AlignedAllocator() = default;
  /// Converting constructor (allocators of one family are interchangeable).
  template <class U>
  AlignedAllocator(const AlignedAllocator<U, Align> &) {}
  /// Allocates @p n objects aligned to Align bytes.
  T *allocate(std::size_t n) {
    const std::size_t bytes = ((n * sizeof(T) + Align - 1) / Align) * Align;
    void *p = std::aligned_alloc(Align, bytes == 0 ? Align : bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T *>(p);
  }
  /// Frees memory from allocate().
  void deallocate(T *p, std::size_t) { std::free(p); }
  /// All instances are equal.
  template <class U>
  bool operator==(const AlignedAllocator<U, Align> &) const { return true; }
};

/// A std::vector whose data() is 64-byte aligned.
template <class T>
using aligned_vector = std::vector<T, AlignedAllocator<T, 64>>;

}  // namespace course
