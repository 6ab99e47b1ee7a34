/// @file lesson02_offload.hpp
/// @brief Lesson 2's fixed references: the host loops and double-precision
///        results the student's kernels are checked against, the
///        map-every-step heat loop the resident version is timed against, and
///        the copy and add-exp kernels of the launch-shape table. Never the
///        student's code.
#pragma once

#include <cstddef>
#include <vector>

// lesson2::heat_alpha: the baselines step the lesson's own grid.
#include "lesson02_offload_shared.hpp"

namespace course::baseline {

/// result[i] = first[i] + exp(second[i]), serial, on the host: what the C++ AMP
/// article's VectorAddExpPointwise replaces.
void add_exp_serial(int n, const float *first, const float *second, float *result);

/// first[i] + exp(second[i]) in double precision.
std::vector<double> add_exp_reference(int n, const float *first, const float *second);

/// A launch shape for the kernels of the launch-shape table.
struct Shape {
  int threads = 0;      ///< thread_limit (0: no clause, the runtime's default)
  int per_thread = 1;   ///< elements per loop iteration: 1, 2, 4, 8 or 16, loaded before any is stored,
                        ///< n / per_thread apart so neighbouring threads touch neighbouring addresses
  int teams = 0;        ///< num_teams (0: no clause, the runtime chooses)
  bool one_block = false;  ///< dist_schedule(static): one contiguous block of iterations per team
                           ///< instead of team-sized chunks dealt round-robin
};

/// add-exp launched with @p shape (threads = 0: the plain one-line construct).
/// Maps like lesson2::add_exp, so arrays already on the device are not copied.
void add_exp_shaped(int n, const float *first, const float *second, float *result, const Shape &shape);

/// out[i] = in[i] with the same launch shapes: the kernel the device's copy
/// bandwidth is measured with (the ceiling a streaming kernel is held to).
void copy_shaped(int n, const float *in, float *out, const Shape &shape);

/// One heat sweep on the device: every interior cell of the ny x nx grid moves
/// toward the mean of its four neighbours; boundary cells are never written.
/// Maps cur to and next tofrom (next must already hold the boundary).
void heat_sweep(int nx, int ny, const float *cur, float *next);

/// @p steps heat sweeps where every sweep maps both grids to the device and
/// back (three grid copies per step): lesson 2's starter, the baseline the
/// resident version is timed against. Result in @p u.
void heat_mapped_every_step(int nx, int ny, int steps, float *u);

/// Double-precision heat reference: the grid after each multiple of @p every
/// steps (empty when every is 0) and after all @p steps.
struct HeatStates {
  std::vector<int> steps;                  ///< the observed step numbers: every, 2 every, ... <= steps
  std::vector<std::vector<double>> grids;  ///< the grid after each of those steps
  std::vector<double> final;               ///< the grid after all steps
};

/// Runs the same scheme as heat_sweep in double from @p u0 (ny x nx).
HeatStates heat_reference(int nx, int ny, int steps, const float *u0, int every);

}  // namespace course::baseline
