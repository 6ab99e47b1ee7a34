// Lesson 8 -- memory access patterns: the nine-pattern image copy.
// Each kernel below copies the same pixels; what differs is how much one
// device thread copies and in which order it walks memory. Neighbouring
// threads run together (a GPU warp issues 32 of them as one instruction), so
// what matters is which bytes NEIGHBOURING THREADS touch at the same moment:
// one contiguous run is one memory transaction, scattered bytes are many.
//   8.1 RowN:    each thread copies N pixels of a row with one vector copy
//   8.2 RowNxN:  each thread copies an N x N block, a vector per row
// The column patterns (ColN, ColNxN) and Simple are complete (given_patterns.inc): the
// models for the clauses, the loop nest and the bounds checks.
// Run `ctest --preset student -L lesson8` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include <cstddef>

#include "patterns.hpp"

namespace lesson8 {

// Simple, ColN and ColNxN (given): the models for the clauses, the loop nest
// and the bounds checks of your RowN and RowNxN.
#include "given_patterns.inc"

template <int N>
void copy_row(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  // TODO(8.1): RowN -- one thread per N pixels of a row, each copying its N
  // bytes with ONE copy_vector<N>() (a single N-byte load and store, like
  // OpenCL's uchar4/uchar16). copy_simple (given_patterns.inc) is your model:
  // how many work items does a row have now (width need not be a multiple of N), which
  // loop must be the inner one so that neighbouring threads take neighbouring
  // pieces, and at which byte does a piece start? Why may the last piece of a
  // row stay a whole vector? (Read Image in patterns.hpp.)
  (void)im, (void)src, (void)dst, (void)launch;
  // END TODO
}

template <int N>
void copy_row_block(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  // SNIPPET(row-block-launch)
  // TODO(8.2): RowNxN -- one thread per N x N block, each copying its block
  // row by row, one copy_vector<N>() per row. Count the work items as in 8.1,
  // now in both directions. The last band of blocks is short when height is
  // not a multiple of N: copy_col shows how to bound it. Rows past the image
  // are not yours (the tests watch the bytes after the last row).
  (void)im, (void)src, (void)dst, (void)launch;
  // END TODO
  // END SNIPPET
}

// Step 8.3 -- two ways to say how a loop nest uses the device.
void copy_loop(const Image &im, const std::uint8_t *src, std::uint8_t *dst) {
  const int W = im.width, H = im.height;
  const std::size_t P = im.pitch, n = im.bytes();
  // TODO(8.3): Simple, described instead of prescribed. This is copy_simple's
  // kernel without the launch: replace `teams distribute parallel for` with
  // the construct that says only "these iterations may run in any order, on
  // any teams and threads" and leaves the rest to the implementation. Keep it
  // combined with `target`, and keep function calls out of the loop body:
  // the README (Portability) says what LLVM does otherwise.
#pragma omp target teams distribute parallel for collapse(2) map(to : src[0:n]) map(from : dst[0:n])
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) dst[y * P + x] = src[y * P + x];
  // END TODO
}

void copy_portable(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  const int W = im.width, H = im.height;
  const std::size_t P = im.pitch, n = im.bytes();
  // TODO(8.3): one source, a shape per device. This kernel has the GPU's
  // shape everywhere (collapse(2): neighbouring threads on neighbouring
  // bytes); on a CPU a thread should rather walk whole rows. Split `target`
  // from the rest and let a `metadirective` choose the rest by the device's
  // kind: which context selector is true in code compiled for a GPU, and what
  // does the other device get? Which clauses must every branch share? (README,
  // Portability)
#pragma omp target teams distribute parallel for collapse(2) num_teams(launch.teams) thread_limit(launch.threads) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) dst[y * P + x] = src[y * P + x];
  // END TODO
}

// The nine patterns by name, their work-item counts and copy_image() (given).
#include "dispatch.inc"

}  // namespace lesson8
