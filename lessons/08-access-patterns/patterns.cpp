// Lesson 8 -- memory access patterns: the nine-pattern image copy.
// Each kernel below copies the same pixels; what differs is how much one
// device thread copies and in which order it walks memory. Neighbouring
// threads run together (a GPU warp issues 32 of them as one instruction), so
// what matters is which bytes NEIGHBOURING THREADS touch at the same moment:
// one contiguous run is one memory transaction, scattered bytes are many.
//   8.1 RowN:    each thread copies N pixels of a row with one vector copy
//   8.2 RowNxN:  each thread copies an N x N block, a vector per row
// The column patterns (ColN, ColNxN) and Simple are complete: they are the
// models for the clauses, the loop nest and the bounds checks.
// Run `ctest --preset student -L lesson8` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include <cstddef>

#include "patterns.hpp"

namespace lesson8 {

// SNIPPET(simple)
void copy_simple(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  const int W = im.width, H = im.height;
  const std::size_t P = im.pitch, n = im.bytes();
  // collapse(2) makes one W x H iteration space; x varies fastest, so
  // neighbouring threads copy neighbouring bytes.
#pragma omp target teams distribute parallel for collapse(2) num_teams(launch.teams) thread_limit(launch.threads) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) dst[y * P + x] = src[y * P + x];
}
// END SNIPPET

// SNIPPET(col)
template <int N>
void copy_col(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  const int W = im.width, H = im.height, ny = (H + N - 1) / N;
  const std::size_t P = im.pitch, n = im.bytes();
#pragma omp target teams distribute parallel for collapse(2) num_teams(launch.teams) thread_limit(launch.threads) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (int j = 0; j < ny; ++j)
    for (int x = 0; x < W; ++x) {
      // The last band of rows may be short when H is not a multiple of N.
      const int y0 = j * N, y1 = y0 + N < H ? y0 + N : H;
      for (int y = y0; y < y1; ++y) dst[y * P + x] = src[y * P + x];
    }
}
// END SNIPPET

// SNIPPET(col_block)
template <int N>
void copy_col_block(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  const int W = im.width, H = im.height, nx = (W + N - 1) / N, ny = (H + N - 1) / N;
  const std::size_t P = im.pitch, n = im.bytes();
#pragma omp target teams distribute parallel for collapse(2) num_teams(launch.teams) thread_limit(launch.threads) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int x0 = i * N, x1 = x0 + N < W ? x0 + N : W;
      const int y0 = j * N, y1 = y0 + N < H ? y0 + N : H;
      // Down each column of the block: neighbouring threads are N bytes
      // apart, and each step of one thread jumps a whole row.
      for (int x = x0; x < x1; ++x)
        for (int y = y0; y < y1; ++y) dst[y * P + x] = src[y * P + x];
    }
}
// END SNIPPET

template <int N>
void copy_row(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  // TODO(8.1): RowN -- one thread per N pixels of a row, each copying its N
  // bytes with ONE copy_vector<N>() (a single N-byte load and store, like
  // OpenCL's uchar4/uchar16). copy_simple above is your model: how many work
  // items does a row have now (width need not be a multiple of N), which
  // loop must be the inner one so that neighbouring threads take neighbouring
  // pieces, and at which byte does a piece start? Why may the last piece of a
  // row stay a whole vector? (Read Image in patterns.hpp.)
  (void)im, (void)src, (void)dst, (void)launch;
  // END TODO
}

template <int N>
void copy_row_block(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  // TODO(8.2): RowNxN -- one thread per N x N block, each copying its block
  // row by row, one copy_vector<N>() per row. Count the work items as in 8.1,
  // now in both directions. The last band of blocks is short when height is
  // not a multiple of N: copy_col shows how to bound it. Rows past the image
  // are not yours (the tests watch the bytes after the last row).
  (void)im, (void)src, (void)dst, (void)launch;
  // END TODO
}

// The 4- and 16-pixel versions the paper measures.
template void copy_row<4>(const Image &, const std::uint8_t *, std::uint8_t *, Launch);
template void copy_row<16>(const Image &, const std::uint8_t *, std::uint8_t *, Launch);
template void copy_col<4>(const Image &, const std::uint8_t *, std::uint8_t *, Launch);
template void copy_col<16>(const Image &, const std::uint8_t *, std::uint8_t *, Launch);
template void copy_row_block<4>(const Image &, const std::uint8_t *, std::uint8_t *, Launch);
template void copy_row_block<16>(const Image &, const std::uint8_t *, std::uint8_t *, Launch);
template void copy_col_block<4>(const Image &, const std::uint8_t *, std::uint8_t *, Launch);
template void copy_col_block<16>(const Image &, const std::uint8_t *, std::uint8_t *, Launch);

const char *name(Pattern p) {
  switch (p) {
    case Pattern::simple: return "Simple";
    case Pattern::row4: return "Row4";
    case Pattern::row16: return "Row16";
    case Pattern::col4: return "Col4";
    case Pattern::col16: return "Col16";
    case Pattern::row4x4: return "Row4x4";
    case Pattern::row16x16: return "Row16x16";
    case Pattern::col4x4: return "Col4x4";
    case Pattern::col16x16: return "Col16x16";
  }
  return "?";
}

std::size_t work_items(Pattern p, const Image &im) {
  const auto cdiv = [](int a, int b) { return static_cast<std::size_t>((a + b - 1) / b); };
  const std::size_t W = im.width, H = im.height;
  switch (p) {
    case Pattern::simple: return W * H;
    case Pattern::row4: return cdiv(im.width, 4) * H;
    case Pattern::row16: return cdiv(im.width, 16) * H;
    case Pattern::col4: return W * cdiv(im.height, 4);
    case Pattern::col16: return W * cdiv(im.height, 16);
    case Pattern::row4x4:
    case Pattern::col4x4: return cdiv(im.width, 4) * cdiv(im.height, 4);
    case Pattern::row16x16:
    case Pattern::col16x16: return cdiv(im.width, 16) * cdiv(im.height, 16);
  }
  return 0;
}

void copy_image(Pattern p, const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  switch (p) {
    case Pattern::simple: return copy_simple(im, src, dst, launch);
    case Pattern::row4: return copy_row<4>(im, src, dst, launch);
    case Pattern::row16: return copy_row<16>(im, src, dst, launch);
    case Pattern::col4: return copy_col<4>(im, src, dst, launch);
    case Pattern::col16: return copy_col<16>(im, src, dst, launch);
    case Pattern::row4x4: return copy_row_block<4>(im, src, dst, launch);
    case Pattern::row16x16: return copy_row_block<16>(im, src, dst, launch);
    case Pattern::col4x4: return copy_col_block<4>(im, src, dst, launch);
    case Pattern::col16x16: return copy_col_block<16>(im, src, dst, launch);
  }
}

void copy_image(Pattern p, const Image &im, const std::uint8_t *src, std::uint8_t *dst) {
  copy_image(p, im, src, dst, default_launch(work_items(p, im)));
}

}  // namespace lesson8
