// Lesson 8 tests -- the nine-pattern image copy: every pattern copies every
// pixel byte-exactly at awkward sizes and launches, writes nothing outside the
// image, the row patterns copy only what they must and ask for the launch
// they are given (an OMPT witness of copies and launches, as in lesson 2), and
// the row-vector pattern beats the strided Col16x16 baseline.
#include <string>
#include <vector>

#include "course/device.hpp"
#include "course_test.hpp"
#include "lesson02_ompt.hpp"  // the OMPT witness of launches and copies (this program's only OMPT tool)
#include "ompt_witness.hpp"
#include "lesson08_access_patterns.hpp"
#include "patterns.hpp"

// Speedup thresholds: this lesson's grading numbers, {host, gpu} (see course/grading.hpp).
// Each is at most half of what the solution measured on that class.
// lesson 8: Row16 (vector rows) vs the strided Col16x16 copy on a large
// image; solution measured 5.0-15.8x on host (4000^2, 2 threads, loaded
// machine), 6.4x on an H200 (16000x8000).
namespace thresholds {
constexpr course::Threshold kRow16{"lesson8.row16", 2.0, 3.0, course::Scaling::fixed, 0};
}  // namespace thresholds

namespace {

using lesson8::Image;
using lesson8::Launch;
using lesson8::Pattern;

// Rows of guard bytes after the image, mapped with it: a kernel that runs past
// the bottom edge (up to a 16-row block) writes there instead of into memory
// it does not own, and the test sees it.
constexpr int guard_rows = 16;

std::string describe(Pattern p, const Image &im, Launch l) {
  return std::string(lesson8::name(p)) + " " + std::to_string(im.width) + "x" + std::to_string(im.height) +
         " (pitch " + std::to_string(im.pitch) + ", launch " + std::to_string(l.teams) + " teams x " +
         std::to_string(l.threads) + " threads)";
}

// Copies a random image with pattern p and compares every byte of the buffer:
// pixels must equal the source (exact: it is a copy); row padding may hold the
// source byte or the untouched poison; guard rows must stay poisoned.
course::Check check_copy(Pattern p, int width, int height, Launch launch) {
  const Image im = lesson8::make_image(width, height);
  const std::size_t n = im.bytes(), total = n + (std::size_t)im.pitch * guard_rows;
  auto src = course::random_vector<std::uint8_t>(total, course_test::seed() + width * 7919 + height, 0, 255);
  course::aligned_vector<std::uint8_t> s(src.begin(), src.end());
  course::aligned_vector<std::uint8_t> d(total, course::poison_value<std::uint8_t>());
  std::uint8_t *sp = s.data(), *dp = d.data();
  // dst starts poisoned on the device too (tofrom), so an unwritten byte shows.
#pragma omp target data map(to : sp[0:total]) map(tofrom : dp[0:total])
  lesson8::copy_image(p, im, sp, dp, launch);

  const auto poison = course::poison_value<std::uint8_t>();
  std::vector<std::uint8_t> expected(total);
  for (std::size_t i = 0; i < total; ++i) {
    const std::size_t x = i % im.pitch, y = i / im.pitch;
    if (y >= (std::size_t)height)
      expected[i] = poison;  // guard: nothing may be written past the last row
    else if (x >= (std::size_t)width)
      expected[i] = (d[i] == s[i] || d[i] == poison) ? d[i] : s[i];  // padding: copied or left alone
    else
      expected[i] = s[i];
  }
  auto c = course::check_equal<std::uint8_t>(std::span<const std::uint8_t>(d.data(), total), expected,
                                            describe(p, im, launch));
  if (!c.ok) {
    const std::size_t x = c.bad % im.pitch, y = c.bad / im.pitch;
    c.message += " = pixel (x " + std::to_string(x) + ", y " + std::to_string(y) + ")" +
                 (y >= (std::size_t)height  ? "\nBelow the last row: written outside the image"
                  : x >= (std::size_t)width ? " in the row padding: only a copy of the source byte may go there"
                                            : "");
    // Which pixels went wrong says what the kernel did: only the last,
    // partial piece of each row; only the short band of rows at the bottom;
    // or rows after the first, while row 0 is right.
    const int piece = p == Pattern::row4 || p == Pattern::row4x4 ? 4 : p == Pattern::row16 || p == Pattern::row16x16 ? 16 : 0;
    const bool block = p == Pattern::row4x4 || p == Pattern::row16x16;
    std::vector<bool> bad_x(width, false), bad_y(height, false);
    for (int yy = 0; yy < height; ++yy)
      for (int xx = 0; xx < width; ++xx)
        if (d[(std::size_t)yy * im.pitch + xx] != s[(std::size_t)yy * im.pitch + xx]) bad_x[xx] = bad_y[yy] = true;
    const auto only_from = [](const std::vector<bool> &bad, int first) {
      for (int i = 0; i < (int)bad.size(); ++i)
        if (bad[i] != (i >= first)) return false;
      return true;
    };
    const bool all_bad = only_from(bad_x, 0) && only_from(bad_y, 0);
    if (piece && all_bad && (width < piece || (block && height < piece)))
      c.message += std::string("\nNothing was copied: at this size a row is one partial piece") +
                   (block && height < piece ? " and the image one short band of rows" : "") +
                   ". Does your count of pieces" + (block ? " and bands" : "") + " round up? (README, Hints)";
    else if (piece && width % piece != 0 && width > piece && y < (std::size_t)height &&
             only_from(bad_x, width - width % piece))
      c.message += "\nThe last, partial piece of every row was never copied (x >= " +
                   std::to_string(width - width % piece) + "): how many " + std::to_string(piece) +
                   "-pixel pieces has a row of width " + std::to_string(width) + "? (README, Hints)";
    else if (block && height % piece != 0 && height > piece && y < (std::size_t)height &&
             only_from(bad_y, height - height % piece))
      c.message += "\nThe last, short band of rows was never copied (y >= " + std::to_string(height - height % piece) +
                   "): how many bands of " + std::to_string(piece) + " rows has an image of height " +
                   std::to_string(height) + "? (README, Hints)";
    else if (y > 0 && y < (std::size_t)height && !bad_y[0])
      c.message += "\nRow 0 is right and row " + std::to_string(y) +
                   " is not: how far apart are rows in memory? (patterns.hpp, Image; README, Hints)";
  }
  return c;
}

// Sizes: 1x1; primes; neither dimension a multiple of 4 or 16; the paper's
// 384x512. Launches: the paper's (one thread per work item), a handful of
// threads, and fewer threads than work items, so each thread loops. The
// first failure is reported and ends the case: one clear message, not twelve.
void check_pattern(Pattern p) {
  const int sizes[][2] = {{1, 1}, {17, 13}, {250, 99}, {384, 512}};
  for (const auto &wh : sizes) {
    const Image im = lesson8::make_image(wh[0], wh[1]);
    for (const Launch l : {lesson8::default_launch(lesson8::work_items(p, im)), lesson8::in_flight_launch(7),
                           lesson8::in_flight_launch(300)}) {
      auto c = check_copy(p, wh[0], wh[1], l);
      if (!c.ok && (p == Pattern::row4 || p == Pattern::row16))
        c.message += "\nStep 8.1 (copy_row): ceil(width/N) x height work items, each copying its N bytes of a "
                     "row with one copy_vector<N>() at y * pitch + i * N (README, Hints).";
      if (!c.ok && (p == Pattern::row4x4 || p == Pattern::row16x16))
        c.message += "\nStep 8.2 (copy_row_block): one work item per N x N block, each copying its block's "
                     "rows one copy_vector<N>() at a time, the last band of rows stopping at the image's height "
                     "(README, Hints).";
      COURSE_CHECK(c);
      if (!c.ok) return;
    }
  }
}

}  // namespace

TEST_CASE("Simple copies every pixel", "[lesson8][correctness]") { check_pattern(Pattern::simple); }
TEST_CASE("Row4 copies every pixel", "[lesson8][correctness]") { check_pattern(Pattern::row4); }
TEST_CASE("Row16 copies every pixel", "[lesson8][correctness]") { check_pattern(Pattern::row16); }
TEST_CASE("Col4 copies every pixel", "[lesson8][correctness]") { check_pattern(Pattern::col4); }
TEST_CASE("Col16 copies every pixel", "[lesson8][correctness]") { check_pattern(Pattern::col16); }
TEST_CASE("Row4x4 copies every pixel", "[lesson8][correctness]") { check_pattern(Pattern::row4x4); }
TEST_CASE("Row16x16 copies every pixel", "[lesson8][correctness]") { check_pattern(Pattern::row16x16); }
TEST_CASE("Col4x4 copies every pixel", "[lesson8][correctness]") { check_pattern(Pattern::col4x4); }
TEST_CASE("Col16x16 copies every pixel", "[lesson8][correctness]") { check_pattern(Pattern::col16x16); }

// ---- what the row patterns copy, and the launch they ask for --------------


const Pattern row_patterns[] = {Pattern::row4, Pattern::row16, Pattern::row4x4, Pattern::row16x16};

// Steps 8.1 and 8.2's maps, with no `target data` around the call: src goes
// to the device, dst comes back, and nothing else crosses. dst mapped tofrom
// copies the old image in for nothing: the kernel overwrites all of it.
TEST_CASE("row patterns copy src in and dst out and nothing more", "[lesson8][correctness][ompt]") {
  if (!course_test::ompt_witness_ready()) return;
  const Image im = lesson8::make_image(250, 99);
  const std::size_t n = im.bytes();
  const auto r = course::random_vector<std::uint8_t>(n, course_test::seed(), 0, 255);
  course::aligned_vector<std::uint8_t> src(r.begin(), r.end()), dst(n);
  for (Pattern p : row_patterns) {
    const Launch l = lesson8::default_launch(lesson8::work_items(p, im));
    const auto t = course::lesson2_trace::record([&] { lesson8::copy_image(p, im, src.data(), dst.data(), l); });
    const std::size_t src_in = t.to_device(src.data(), n), dst_in = t.to_device(dst.data(), n),
                      dst_back = t.from_device(dst.data(), n), src_back = t.from_device(src.data(), n);
    INFO(describe(p, im, l) << ": " << t.kernels << " kernel(s); src " << src_in << " bytes in, " << src_back
                            << " back; dst " << dst_in << " bytes in, " << dst_back << " back (the image is " << n
                            << " bytes)");
    if (dst_in > 0)
      FAIL_CHECK(lesson8::name(p) << " copies dst to the device before the kernel (" << dst_in
                                  << " bytes): the kernel overwrites the image, so its old contents cross for "
                                  << "nothing. Which map type brings an array back without taking it there? "
                                  << "(README, Stuck?: the maps)");
    if (src_back > 0)
      FAIL_CHECK(lesson8::name(p) << " copies src back from the device (" << src_back
                                  << " bytes): src is input only (README, Stuck?: the maps)");
    if (src_in != n || dst_back != n)
      FAIL_CHECK(lesson8::name(p) << " moved " << src_in << " bytes of src in and " << dst_back
                                  << " of dst back; both must cross once, whole (" << n
                                  << " bytes): copy_simple's maps are the model");
  }
}

// Steps 8.1 and 8.2's launch: `launch` says how many teams and threads to
// ask for (the threads-in-flight sweep varies it). A kernel without
// num_teams/thread_limit runs, right, with the device's default, and the
// sweep measures nothing. The tool sees what each launch requested.
TEST_CASE("row patterns ask for the teams of the launch they are given", "[lesson8][correctness][ompt]") {
  if (!course_test::ompt_witness_ready()) return;
  const Image im = lesson8::make_image(250, 99);
  const std::size_t n = im.bytes();
  course::aligned_vector<std::uint8_t> src(n, 7), dst(n);
  const Launch l{3, 7};
  for (Pattern p : row_patterns) {
    const auto t = course::lesson2_trace::record([&] { lesson8::copy_image(p, im, src.data(), dst.data(), l); });
    if (t.kernels < 1) {
      FAIL_CHECK(lesson8::name(p) << " launched no kernel");
      continue;
    }
    for (unsigned teams : t.requested_teams)
      if (teams != static_cast<unsigned>(l.teams))
        FAIL_CHECK(lesson8::name(p) << " with a launch of " << l.teams << " teams x " << l.threads
                                    << " threads asked the device for " << teams << " team(s): the kernel ignores "
                                    << "its launch, so the threads-in-flight sweep measures nothing. copy_simple "
                                    << "shows the clauses that pass it on (README, The experiment).");
  }
}

TEST_CASE("Row16 is faster than the strided Col16x16 baseline on a large image", "[lesson8][speedup]") {
  // Larger than the last-level cache on either device (GPU L2 ~50 MB, host L3
  // here 32 MB): bytes come from memory, as in a real image pipeline.
  const bool gpu = course::device_info().is_gpu();
  const int W = gpu ? 16000 : 4000, H = gpu ? 8000 : 4000;
  const Image im = lesson8::make_image(W, H);
  const std::size_t n = im.bytes();
  const auto r = course::random_vector<std::uint8_t>(n, course_test::seed(), 0, 255);
  course::aligned_vector<std::uint8_t> src(r.begin(), r.end()), d0(n), d1(n, course::poison_value<std::uint8_t>());
  const std::uint8_t *sp = src.data();
  std::uint8_t *p0 = d0.data(), *p1 = d1.data();
  const Launch lb = lesson8::default_launch(lesson8::work_items(Pattern::col16x16, im));
  const Launch lc = lesson8::default_launch(lesson8::work_items(Pattern::row16, im));
  course::Comparison cmp;
  // Only the kernels are timed: the buffers stay on the device meanwhile.
#pragma omp target data map(to : sp[0:n]) map(alloc : p0[0:n]) map(tofrom : p1[0:n])
  cmp = course::compare_interleaved(
      [&] { course::baseline::image_copy_col16x16(W, H, im.pitch, sp, p0, lb.teams, lb.threads); },
      [&] { lesson8::copy_image(Pattern::row16, im, sp, p1, lc); }, 5, 1);
  // A fast wrong answer earns nothing: the timed copy must be exact.
  std::vector<std::uint8_t> got(n), want(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool pixel = (int)(i % im.pitch) < W;
    want[i] = pixel ? src[i] : d1[i];
    got[i] = d1[i];
  }
  COURSE_CHECK(course::check_equal<std::uint8_t>(got, want, "Row16 " + std::to_string(W) + "x" + std::to_string(H) + " (speedup run)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kRow16, "lesson 8 Row16 vs strided Col16x16", cmp);
}
