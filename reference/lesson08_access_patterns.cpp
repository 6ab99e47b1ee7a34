// lesson08_access_patterns.cpp -- lesson 8's fixed kernels: the copy-bandwidth
// ceiling and the strided Col16x16 baseline of the speedup test.
#include "lesson08_access_patterns.hpp"

namespace course::baseline {
namespace {
// 16 bytes that may alias the image bytes: one 128-bit load and store.
typedef std::uint32_t word16 __attribute__((vector_size(16), may_alias));
}  // namespace

void image_copy_kernel(const std::uint8_t *src, std::uint8_t *dst, std::size_t bytes, int teams, int threads) {
  const std::size_t words = bytes / 16;
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(threads) map(to : src[0:bytes]) \
    map(from : dst[0:bytes])
  for (std::size_t w = 0; w < words; ++w)
    reinterpret_cast<word16 *>(dst)[w] = reinterpret_cast<const word16 *>(src)[w];
}

void image_copy_col16x16(int width, int height, int pitch, const std::uint8_t *src, std::uint8_t *dst, int teams,
                         int threads) {
  const int nx = (width + 15) / 16, ny = (height + 15) / 16;
  const std::size_t P = pitch, n = P * height;
#pragma omp target teams distribute parallel for collapse(2) num_teams(teams) thread_limit(threads) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int x0 = i * 16, x1 = x0 + 16 < width ? x0 + 16 : width;
      const int y0 = j * 16, y1 = y0 + 16 < height ? y0 + 16 : height;
      for (int x = x0; x < x1; ++x)
        for (int y = y0; y < y1; ++y) dst[y * P + x] = src[y * P + x];
    }
}

}  // namespace course::baseline
