/// @file lessons/08-access-patterns/patterns.hpp
/// @brief Lesson 8 interface: nine ways to copy an 8-bit image on the device.
///
/// The nine patterns of the OpenCL access-pattern paper, as OpenMP target
/// kernels. Every pattern copies the same W x H pixels; they differ only in
/// how much each device thread copies and in which order, so the time each
/// takes is the price of its memory access pattern.
#pragma once

#include <omp.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace lesson8 {

/// An 8-bit monochrome image in row-major order with padded rows.
///
/// Pixel (x, y) is byte `y * pitch + x`. Rows are padded to a multiple of 16
/// bytes (the pitch) so that every row starts 16-byte aligned and a 16-byte
/// vector never straddles two rows. The bytes between width and pitch are
/// padding: a copy may copy them too, or leave them alone.
struct Image {
  int width = 0;   ///< pixels (bytes) per row
  int height = 0;  ///< rows
  int pitch = 0;   ///< bytes from the start of one row to the next: width rounded up to 16
  /// Bytes of the whole buffer (pitch x height).
  std::size_t bytes() const { return static_cast<std::size_t>(pitch) * static_cast<std::size_t>(height); }
  /// Bytes of pixels (width x height): what every pattern must copy.
  std::size_t pixels() const { return static_cast<std::size_t>(width) * static_cast<std::size_t>(height); }
};

/// The Image of @p width x @p height pixels with its pitch rounded up to 16.
inline Image make_image(int width, int height) { return {width, height, (width + 15) / 16 * 16}; }

/// How many device threads a kernel asks for: `num_teams(teams)
/// thread_limit(threads)`. teams x threads is the number of threads in
/// flight when the device can hold them all at once. The runtime may grant
/// fewer (on the host-offload device a team gets the 1-2 cores there are), so
/// kernels spread their work items over whatever they get.
struct Launch {
  int teams = 1;    ///< value of num_teams(); >= 1
  int threads = 1;  ///< value of thread_limit(); >= 1
  /// Threads requested in total.
  long long in_flight() const { return static_cast<long long>(teams) * threads; }
};

/// Threads per team the lesson asks for on a GPU: 8 warps, a common choice
/// that lets several teams share one multiprocessor.
inline constexpr int gpu_team_threads = 256;

/// The paper's launch: one device thread per work item, in teams of 256 on a
/// GPU. On the host-offload device: one team with a thread per core (asking
/// for more teams than cores there only prints a warning and gets the cores).
inline Launch default_launch(std::size_t work_items) {
#ifdef COURSE_DEVICE_GPU
  const std::size_t teams = (work_items + gpu_team_threads - 1) / gpu_team_threads;
  return {teams < 1 ? 1 : teams > 0x7fffffff ? 0x7fffffff : static_cast<int>(teams), gpu_team_threads};
#else
  (void)work_items;
  return {1, omp_get_num_procs()};
#endif
}

/// A launch with @p threads threads in flight, for the threads-in-flight
/// sweep: one team up to 128 threads, then teams of 128 on a GPU; one team
/// of @p threads on the host-offload device.
inline Launch in_flight_launch(long long threads) {
  if (threads < 1) threads = 1;
#ifdef COURSE_DEVICE_GPU
  if (threads <= 128) return {1, static_cast<int>(threads)};
  return {static_cast<int>(threads / 128), 128};
#else
  return {1, static_cast<int>(threads)};
#endif
}

/// The nine patterns of the paper (W = width, H = height).
enum class Pattern {
  simple,    ///< W x H threads, one pixel each
  row4,      ///< W/4 x H threads, 4 pixels of a row as one vector
  row16,     ///< W/16 x H threads, 16 pixels of a row as one vector
  col4,      ///< W x H/4 threads, 4 pixels of a column one by one
  col16,     ///< W x H/16 threads, 16 pixels of a column one by one
  row4x4,    ///< W/4 x H/4 threads, 4 rows of a 4x4 block, a vector per row
  row16x16,  ///< W/16 x H/16 threads, 16 rows of a 16x16 block, a vector per row
  col4x4,    ///< W/4 x H/4 threads, a 4x4 block column by column, pixel by pixel
  col16x16,  ///< W/16 x H/16 threads, a 16x16 block column by column, pixel by pixel
};

/// All nine, in the paper's order.
inline constexpr std::array<Pattern, 9> all_patterns = {
    Pattern::simple, Pattern::row4,     Pattern::row16,  Pattern::col4,    Pattern::col16,
    Pattern::row4x4, Pattern::row16x16, Pattern::col4x4, Pattern::col16x16};

/// The paper's name of @p p ("Simple", "Row4", ..., "Col16x16").
const char *name(Pattern p);

/// Work items (the paper's threads) of @p p on @p im: e.g. ceil(W/16) x H for Row16.
std::size_t work_items(Pattern p, const Image &im);

/// @cond INTERNAL
namespace detail {
// Integer vectors that may alias any object (GNU may_alias), so reading image
// bytes through them is well defined; their size is their alignment.
template <int N>
struct bytes_vector;
template <>
struct bytes_vector<4> {
  typedef std::uint32_t type __attribute__((may_alias));
};
template <>
struct bytes_vector<16> {
  typedef std::uint32_t type __attribute__((vector_size(16), may_alias));
};
}  // namespace detail
/// @endcond

/// Copies @p N bytes (N = 4 or 16) with one N-byte load and one N-byte store:
/// the OpenMP/C++ spelling of an OpenCL `uchar4` / `uchar16` copy. On an
/// NVIDIA GPU copy_vector<16> is one `ld.global.v4.u32` and one
/// `st.global.v4.u32`; N byte copies in a loop would be N instructions each.
/// Both addresses must be N-byte aligned.
template <int N>
inline void copy_vector(const std::uint8_t *src, std::uint8_t *dst) {
  using V = typename detail::bytes_vector<N>::type;
  *reinterpret_cast<V *>(dst) = *reinterpret_cast<const V *>(src);
}

/// The N-byte value copy_vector<N> moves, for code that loads several before
/// storing any (same alignment rule).
template <int N>
using Vector = typename detail::bytes_vector<N>::type;

/// One N-byte load from @p src (N-byte aligned).
template <int N>
inline Vector<N> load_vector(const std::uint8_t *src) {
  return *reinterpret_cast<const Vector<N> *>(src);
}

/// One N-byte store of @p v to @p dst (N-byte aligned).
template <int N>
inline void store_vector(std::uint8_t *dst, Vector<N> v) {
  *reinterpret_cast<Vector<N> *>(dst) = v;
}

/// Simple: one thread per pixel.
void copy_simple(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch);

/// RowN (N = 4, 16): one thread per N pixels of a row, copied as one vector.
template <int N>
void copy_row(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch);

/// ColN (N = 4, 16): one thread per N pixels of a column, copied one by one.
template <int N>
void copy_col(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch);

/// RowNxN (N = 4, 16): one thread per N x N block, row by row, a vector per row.
template <int N>
void copy_row_block(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch);

/// ColNxN (N = 4, 16): one thread per N x N block, column by column, pixel by pixel.
template <int N>
void copy_col_block(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch);

/// Simple with the descriptive `target teams loop` (step 8.3): one work item
/// per pixel, neighbouring x on neighbouring iterations, and no launch: how
/// the iterations are spread over teams and threads is the implementation's
/// choice. Same maps and contract as copy_image().
void copy_loop(const Image &im, const std::uint8_t *src, std::uint8_t *dst);

/// The image copy with a shape chosen per device at compile time (step 8.3):
/// a `metadirective` inside the target region picks one shape for a GPU
/// (neighbouring threads on neighbouring bytes) and another for a CPU,
/// the host-offload device included. Asks for @p launch on every device.
/// Same maps and contract as copy_image().
void copy_portable(const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch);

/// The path of the graded patterns.cpp as it was compiled (the tests compile
/// it again to ask the compiler which constructs it holds).
const char *source_file();

/// Copies the pixels of @p im from @p src to @p dst (both im.bytes() long,
/// 16-byte aligned) with pattern @p p, asking for @p launch threads.
///
/// Every kernel maps src to and dst from the device. When the caller already
/// holds both in a `target data` region the maps find them present and no
/// bytes cross the bus: only the kernel is timed. Must be correct for any
/// width, height >= 1 and any launch.
void copy_image(Pattern p, const Image &im, const std::uint8_t *src, std::uint8_t *dst, Launch launch);

/// copy_image with default_launch(work_items(p, im)): the paper's launch.
void copy_image(Pattern p, const Image &im, const std::uint8_t *src, std::uint8_t *dst);

}  // namespace lesson8
