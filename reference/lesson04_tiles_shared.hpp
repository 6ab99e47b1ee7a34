/// @file reference/lesson04_tiles_shared.hpp
/// @brief What lesson 4's kernel and its fixed baseline share: the column
///        spacing of a thread's tile and the tile shape the speedup test
///        grades. lessons/04-register-tiles/matmul.hpp includes it, so a student
///        sees lesson4::lanes and lesson4::graded_tm; reference/ keeps it so
///        that the rolled-tile baseline (lesson04_tiles.cpp) is the lesson's
///        tile without reaching into the lesson (reference/ never includes lessons/).
// A guard, not #pragma once: the lesson's header reaches this file by its path,
// reference/ by name, and one program may include both.
#ifndef COURSE_REFERENCE_LESSON04_TILES_SHARED_HPP
#define COURSE_REFERENCE_LESSON04_TILES_SHARED_HPP

/// @def LESSON4_LANES
/// Default of lesson4::lanes: 32 on GPU builds, 1 on the host device. A macro
/// only so that it can be overridden for experiments (-DLESSON4_LANES=1).
#ifndef LESSON4_LANES
#ifdef COURSE_DEVICE_GPU
#define LESSON4_LANES 32
#else
#define LESSON4_LANES 1
#endif
#endif

namespace lesson4 {

/// How far apart one thread's columns are, and how many neighbouring threads
/// interleave their columns. On a GPU (32: the warp width) thread t of a group
/// owns columns t, t + 32, t + 64, ... so when the 32 threads of a warp load
/// "their column number c" together they read 32 neighbouring floats, one
/// memory transaction. On a CPU (1) a thread's columns are contiguous, so the
/// compiler can load and multiply them with vector instructions. Override at
/// configure time to experiment: -DCMAKE_CXX_FLAGS=-DLESSON4_LANES=1.
inline constexpr int lanes = LESSON4_LANES;

/// Rows of the tile the speedup test grades (and lesson04 --only-yours runs).
inline constexpr int graded_tm = 8;
/// Columns of the graded tile.
inline constexpr int graded_tn = 8;

}  // namespace lesson4

#endif  // COURSE_REFERENCE_LESSON04_TILES_SHARED_HPP
