/// @file lesson08_access_patterns.hpp
/// @brief Lesson 8 baselines: the copy kernel whose bandwidth is the ceiling,
///        and the strided Col16x16 copy the speedup test measures against.
///        Fixed code, never the student's.
#pragma once

#include <cstddef>
#include <cstdint>

namespace course::baseline {

/// The ceiling: copies @p bytes bytes (a multiple of 16, both pointers 16-byte
/// aligned) as 16-byte words, one word per loop iteration, neighbouring
/// iterations on neighbouring words. Asks for `num_teams(teams)
/// thread_limit(threads)`. Maps src to and dst from the device, so inside a
/// caller's `target data` region only the kernel runs.
void image_copy_kernel(const std::uint8_t *src, std::uint8_t *dst, std::size_t bytes, int teams, int threads);

/// The strided copy: the paper's Col16x16 pattern, one thread per 16 x 16
/// block copying it column by column, byte by byte, so neighbouring threads
/// touch bytes 16 apart and each thread jumps a row per step. Copies the
/// @p width x @p height pixels of an image whose rows are @p pitch bytes apart.
void image_copy_col16x16(int width, int height, int pitch, const std::uint8_t *src, std::uint8_t *dst, int teams,
                         int threads);

}  // namespace course::baseline
