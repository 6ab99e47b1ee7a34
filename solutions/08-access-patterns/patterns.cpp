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
  // SOLUTION(8.1): ceil(W/N) x H work items, x fastest so neighbouring threads
  // take neighbouring N-byte pieces of a row: a warp of 32 moves 32*N
  // contiguous bytes per instruction. The pitch is a multiple of 16, so the
  // last piece of a row may run into the padding but never into the next row,
  // and every piece starts N-aligned as copy_vector requires.
  const int H = im.height, nx = (im.width + N - 1) / N;
  const std::size_t P = im.pitch, n = im.bytes();
#pragma omp target teams distribute parallel for collapse(2) num_teams(launch.teams) thread_limit(launch.threads) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (int y = 0; y < H; ++y)
    for (int i = 0; i < nx; ++i) {
      const std::size_t at = y * P + static_cast<std::size_t>(i) * N;
      copy_vector<N>(src + at, dst + at);
    }
  // END SOLUTION
}

template <int N>
void copy_row_block(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  // SNIPPET(row-block-launch)
  // SOLUTION(8.2): one work item per N x N block (blocks of a block-row
  // neighbouring), each thread copying its block's rows one vector at a time.
  // Rows past the bottom edge are skipped: they are outside the buffer.
  const int H = im.height, nx = (im.width + N - 1) / N, ny = (H + N - 1) / N;
  const std::size_t P = im.pitch, n = im.bytes();
#pragma omp target teams distribute parallel for collapse(2) num_teams(launch.teams) thread_limit(launch.threads) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int y0 = j * N;
      const std::size_t at = y0 * P + static_cast<std::size_t>(i) * N;
      // END SNIPPET
      // SNIPPET(row-block-copy)
      if (y0 + N <= H) {
        // A whole block: all N loads go out before the first store, so N
        // loads are in flight at once. The compiler cannot reorder them
        // itself: for all it knows a store to dst could change src.
        Vector<N> rows[N];
#pragma unroll
        for (int r = 0; r < N; ++r) rows[r] = load_vector<N>(src + at + r * P);
#pragma unroll
        for (int r = 0; r < N; ++r) store_vector<N>(dst + at + r * P, rows[r]);
      } else {
        for (int y = y0; y < H; ++y) copy_vector<N>(src + y * P + i * N, dst + y * P + i * N);
      }
    }
  // END SOLUTION
  // END SNIPPET
}

// Step 8.3 -- two ways to say how a loop nest uses the device.
void copy_loop(const Image &im, const std::uint8_t *src, std::uint8_t *dst) {
  const int W = im.width, H = im.height;
  const std::size_t P = im.pitch, n = im.bytes();
  // SOLUTION(8.3): `loop` says only that the iterations are independent; the
  // compiler picks the mapping. LLVM makes it `distribute parallel for` only
  // when it is combined with `target` and the body calls no function, which
  // is why the body copies bytes by hand and not with copy_vector<N>().
#pragma omp target teams loop collapse(2) map(to : src[0:n]) map(from : dst[0:n])
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) dst[y * P + x] = src[y * P + x];
  // END SOLUTION
}

void copy_portable(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch) {
  const int W = im.width, H = im.height;
  const std::size_t P = im.pitch, n = im.bytes();
  // SOLUTION(8.3): each device's compile resolves the metadirective for its
  // own device. A GPU (kind gpu) gets one W x H space, x fastest, so a warp
  // copies neighbouring bytes; a CPU (the host-offload device is kind cpu)
  // gets a row per work item, so each thread streams whole rows and the
  // compiler vectorizes the inner loop. The launch clauses are the same in
  // both branches: the host compile (always kind cpu) sets up the launch
  // from its own branch. The branches are prescriptive on purpose: with
  // LLVM a `teams loop` not combined with `target` runs one thread per team.
#pragma omp target map(to : src[0:n]) map(from : dst[0:n])
#pragma omp metadirective \
    when(device = {kind(gpu)} : teams distribute parallel for collapse(2) num_teams(launch.teams) \
                                    thread_limit(launch.threads)) \
    default(teams distribute parallel for num_teams(launch.teams) thread_limit(launch.threads))
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) dst[y * P + x] = src[y * P + x];
  // END SOLUTION
}

// The nine patterns by name, their work-item counts and copy_image() (given).
#include "dispatch.inc"

}  // namespace lesson8
