// What lesson08's experiments share: an image resident on the device, its
// verification, and the row and line each measurement makes. driver/main.cpp
// runs the experiments declared at the end.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "course/data.hpp"
#include "course/results.hpp"
#include "course/verify.hpp"
#include "patterns.hpp"

namespace driver {

// One image resident on the device for the whole measurement: src mapped to,
// dst allocated there. Kernels called inside find both present (no transfer).
struct DeviceImage {
  lesson8::Image im;
  course::aligned_vector<std::uint8_t> src, dst;
  explicit DeviceImage(lesson8::Image i) : im(i), dst(i.bytes()) {
    const auto r = course::random_vector<std::uint8_t>(im.bytes(), course::default_seed, 0, 255);
    src.assign(r.begin(), r.end());
  }
  // Poisons dst on the device so a byte the next kernel misses shows up.
  void poison_dst() {
    course::poison(std::span<std::uint8_t>(dst));
    std::uint8_t *d = dst.data();
    const std::size_t n = im.bytes();
#pragma omp target update to(d[0:n])
  }
  // Fetches dst and compares the pixels (padding excluded) with src, row by
  // row; only a mismatch pays for the detailed message.
  course::Check verify(const std::string &what) {
    std::uint8_t *d = dst.data();
    const std::size_t n = im.bytes();
#pragma omp target update from(d[0:n])
    for (int y = 0; y < im.height; ++y) {
      const std::size_t row = (std::size_t)y * im.pitch;
      if (std::memcmp(dst.data() + row, src.data() + row, im.width) != 0) {
        auto c = course::check_equal<std::uint8_t>(std::span<const std::uint8_t>(dst.data() + row, im.width),
                                                   std::span<const std::uint8_t>(src.data() + row, im.width),
                                                   what + ", row " + std::to_string(y));
        c.bad += row;
        return c;
      }
    }
    return {};
  }
};

inline std::string size_text(const lesson8::Image &im) {
  return std::to_string(im.width) + "x" + std::to_string(im.height);
}

// A copy's row: GB/s of @p bytes moved in @p seconds, against the copy ceiling.
inline course::ResultRow make_row(const std::string &experiment, const std::string &variant, const lesson8::Image &im,
                                  double seconds, double bytes, const course::Check &check) {
  course::ResultRow r = course::make_row(8, experiment, variant, size_text(im), seconds * 1e3, bytes / seconds / 1e9,
                                         "GB/s", "copy", check.ok);
  r.bytes = bytes;
  // The paper's 384x512 image (192 KiB) sits in any cache: it may beat a memory copy.
  r.in_cache = course::fits_in_cache(2.0 * im.bytes());
  return r;
}

inline void print_row(const course::ResultRow &r, const course::Check &check) {
  std::printf("  %-26s %-12s %10.3f ms %9.1f GB/s  %-22s %s%s\n", r.variant.c_str(), r.size.c_str(), r.time_ms,
              r.rate, r.note.c_str(), course::answer_word(r), check.ok ? "" : ("  " + check.message).c_str());
  std::fflush(stdout);
}

// The nine patterns (and, unless only_yours, the copy kernel and the
// runtime's memcpy) with the paper's launch; returns the copy kernel's GB/s,
// 0 when not run (nine.cpp).
double nine_patterns(DeviceImage &img, int reps, bool only_yours, course::Rows &rows);
// Every pattern with a given number of threads in flight (sweeps.cpp).
void threads_sweep(DeviceImage &img, const std::vector<long long> &sweep, int reps, course::Rows &rows);
// Step 8.3: Simple, Loop and Portable on one image (sweeps.cpp).
void portability(DeviceImage &img, int reps, course::Rows &rows);

}  // namespace driver
