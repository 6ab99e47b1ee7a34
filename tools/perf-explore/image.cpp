// image.cpp -- lesson 8's best access pattern (solutions/08-access-patterns/
// patterns.cpp: copy_row_block<16> "Row16x16" and copy_row<16> "Row16") on
// the 8-bit image, against variants with the same signature
// (const Image &, const uint8_t *src, uint8_t *dst, Launch):
//   Row16xK loads-first  one thread per 16-byte column piece of K consecutive
//                        rows; all K vectors are loaded before any is stored,
//                        so K loads are in flight per thread (the solution's
//                        loop stores each vector before loading the next: the
//                        compiler may not reorder them, src and dst may alias)
//   Row16 strided kK     K vectors per thread, H/K rows apart (add-exp's shape)
//   restrict             the solution's loop with __restrict__ pointers,
//                        leaving the reordering to the compiler
// and launch shapes: thread_limit, and fewer teams (each thread loops).
#include <omp.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "check.hpp"
#include "patterns.hpp"
#include "perf.hpp"

namespace perf {
namespace {

using lesson8::Image;
using lesson8::Launch;
using V16 = lesson8::detail::bytes_vector<16>::type;

// Row16xK, loads first: work item (j, i) copies the 16 bytes at column i*16
// of rows j*K .. j*K+K-1 (fewer at the bottom edge).
template <int K>
void copy_rows_loads_first(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  const int H = im.height, nx = (im.width + 15) / 16, ny = (H + K - 1) / K;
  const std::size_t P = im.pitch, n = im.bytes();
#pragma omp target teams distribute parallel for collapse(2) num_teams(launch.teams) thread_limit(launch.threads) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int y0 = j * K;
      const std::size_t at = y0 * P + static_cast<std::size_t>(i) * 16;
      if (y0 + K <= H) {
        V16 v[K];
#pragma unroll
        for (int r = 0; r < K; ++r) v[r] = *reinterpret_cast<const V16 *>(src + at + r * P);
#pragma unroll
        for (int r = 0; r < K; ++r) *reinterpret_cast<V16 *>(dst + at + r * P) = v[r];
      } else {
        for (int y = y0; y < H; ++y) lesson8::copy_vector<16>(src + y * P + i * 16, dst + y * P + i * 16);
      }
    }
}

// Row16 strided: work item (j, i) copies column piece i of rows j, j + rows,
// j + 2 rows, ... (K of them, rows = ceil(H / K)), loads first.
template <int K>
void copy_rows_strided(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  const int H = im.height, nx = (im.width + 15) / 16, rows = (H + K - 1) / K;
  const std::size_t P = im.pitch, n = im.bytes();
#pragma omp target teams distribute parallel for collapse(2) num_teams(launch.teams) thread_limit(launch.threads) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < nx; ++i) {
      V16 v[K];
#pragma unroll
      for (int r = 0; r < K; ++r) {
        const int y = j + r * rows;
        if (y < H) v[r] = *reinterpret_cast<const V16 *>(src + y * P + static_cast<std::size_t>(i) * 16);
      }
#pragma unroll
      for (int r = 0; r < K; ++r) {
        const int y = j + r * rows;
        if (y < H) *reinterpret_cast<V16 *>(dst + y * P + static_cast<std::size_t>(i) * 16) = v[r];
      }
    }
}

// The solution's Row16x16 loop with __restrict__ pointers.
void copy_row_block16_restrict(const Image &im, const std::uint8_t *__restrict__ src, std::uint8_t *__restrict__ dst,
                               Launch launch) {
  const int H = im.height, nx = (im.width + 15) / 16, ny = (H + 15) / 16;
  const std::size_t P = im.pitch, n = im.bytes();
#pragma omp target teams distribute parallel for collapse(2) num_teams(launch.teams) thread_limit(launch.threads) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int y0 = j * 16, y1 = y0 + 16 < H ? y0 + 16 : H;
      for (int y = y0; y < y1; ++y) {
        const std::size_t at = y * P + static_cast<std::size_t>(i) * 16;
        lesson8::copy_vector<16>(src + at, dst + at);
      }
    }
}

struct ImageVariant {
  std::string name;
  std::function<void(const Image &, const std::uint8_t *, std::uint8_t *)> run;
};

// Work items of Row16 with K rows per item.
std::size_t items(const Image &im, int K) {
  return static_cast<std::size_t>((im.width + 15) / 16) * static_cast<std::size_t>((im.height + K - 1) / K);
}
Launch with_threads(std::size_t work, int threads) {
  const std::size_t t = (work + threads - 1) / threads;
  return {t < 1 ? 1 : static_cast<int>(t), threads};
}

std::vector<ImageVariant> image_variants(const Ceilings &c) {
  using lesson8::Pattern;
  std::vector<ImageVariant> v;
  auto grid = [&](int k) { return teams_per_unit(c, k); };
  v.push_back({"current Row16x16 (lesson8::copy_image, default_launch)",
               [](const Image &im, const std::uint8_t *s, std::uint8_t *d) { lesson8::copy_image(Pattern::row16x16, im, s, d); }});
  v.push_back({"current Row16 (lesson8::copy_image, default_launch)",
               [](const Image &im, const std::uint8_t *s, std::uint8_t *d) { lesson8::copy_image(Pattern::row16, im, s, d); }});
  v.push_back({"current Row4x4 (lesson8::copy_image, default_launch)",
               [](const Image &im, const std::uint8_t *s, std::uint8_t *d) { lesson8::copy_image(Pattern::row4x4, im, s, d); }});
  for (int t : {64, 128, 512})
    v.push_back({"current Row16x16 tl" + std::to_string(t), [t](const Image &im, const std::uint8_t *s, std::uint8_t *d) {
                   lesson8::copy_row_block<16>(im, s, d, with_threads(items(im, 16), t));
                 }});
  v.push_back({"current Row16 tl512", [](const Image &im, const std::uint8_t *s, std::uint8_t *d) {
                 lesson8::copy_row<16>(im, s, d, with_threads(items(im, 1), 512));
               }});
  v.push_back({"Row16x16 restrict tl256", [](const Image &im, const std::uint8_t *s, std::uint8_t *d) {
                 copy_row_block16_restrict(im, s, d, with_threads(items(im, 16), 256));
               }});
  auto lf = [&](auto fn, int K, const std::string &name, int threads, int teams) {
    v.push_back({name, [fn, K, threads, teams](const Image &im, const std::uint8_t *s, std::uint8_t *d) {
                   fn(im, s, d, teams > 0 ? Launch{teams, threads} : with_threads(items(im, K), threads));
                 }});
  };
  lf(copy_rows_loads_first<2>, 2, "Row16x2 loads-first tl256", 256, 0);
  lf(copy_rows_loads_first<4>, 4, "Row16x4 loads-first tl256", 256, 0);
  lf(copy_rows_loads_first<8>, 8, "Row16x8 loads-first tl256", 256, 0);
  lf(copy_rows_loads_first<16>, 16, "Row16x16 loads-first tl256 (= default_launch)", 256, 0);
  lf(copy_rows_loads_first<16>, 16, "Row16x16 loads-first tl128", 128, 0);
  lf(copy_rows_loads_first<16>, 16, "Row16x16 loads-first tl64", 64, 0);
  lf(copy_rows_loads_first<4>, 4, "Row16x4 loads-first tl128", 128, 0);
  lf(copy_rows_loads_first<4>, 4, "Row16x4 loads-first tl512", 512, 0);
  lf(copy_rows_loads_first<8>, 8, "Row16x8 loads-first tl128", 128, 0);
  lf(copy_rows_loads_first<4>, 4, "Row16x4 loads-first tl256 teams SMx8", 256, grid(8));
  lf(copy_rows_loads_first<4>, 4, "Row16x4 loads-first tl256 teams SMx16", 256, grid(16));
  lf(copy_rows_loads_first<1>, 1, "Row16 tl256 teams SMx16", 256, grid(16));
  lf(copy_rows_strided<2>, 2, "Row16 strided k2 tl256", 256, 0);
  lf(copy_rows_strided<4>, 4, "Row16 strided k4 tl256", 256, 0);
  lf(copy_rows_strided<8>, 8, "Row16 strided k8 tl256", 256, 0);
  lf(copy_rows_strided<4>, 4, "Row16 strided k4 tl512", 512, 0);
  return v;
}

}  // namespace

void run_image(const Options &o, const Ceilings &c, Recorder &rec) {
  const std::vector<std::pair<int, int>> sizes =
      o.tiny ? std::vector<std::pair<int, int>>{{37, 19}, {100, 50}} : std::vector<std::pair<int, int>>{{32000, 16000}};
  for (auto [w, h] : sizes) {
    const Image im = lesson8::make_image(w, h);
    const std::size_t n = im.bytes();
    std::vector<std::uint8_t> src(n), dst(n);
    fill_parallel(src, [](std::size_t i) { return static_cast<std::uint8_t>(mix(i + 11) & 0xff); });
    std::uint8_t *s = src.data(), *d = dst.data();
#pragma omp target enter data map(to : s[0:n]) map(alloc : d[0:n])
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    for (const auto &v : image_variants(c)) {
      poison_device<std::uint8_t>(d, n, 0xa5);
      const Times t = time_it([&] { v.run(im, s, d); }, o.reps, o.warmup);
#pragma omp target update from(d[0:n])
      // Every pixel (the padding of each row may hold anything).
      const std::size_t bad = first_bad(static_cast<std::size_t>(h), [&](std::size_t y) {
        return std::memcmp(d + y * im.pitch, s + y * im.pitch, static_cast<std::size_t>(w)) != 0;
      });
      Verdict verdict;
      if (bad != static_cast<std::size_t>(h)) verdict = {false, v.name + ": row " + std::to_string(bad) + " differs"};
      make_row(rec, "image copy", v.name, size, t, 2.0 * im.pixels(), "GB/s", c.stream(), verdict);
    }
#pragma omp target exit data map(delete : s[0:n], d[0:n])
  }
}

}  // namespace perf
