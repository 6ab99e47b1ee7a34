// The experiments lesson02 runs (driver/main.cpp calls them in this order).
// Each prints its table and adds its rows, verified, to `rows`.
#pragma once

#include <string>
#include <vector>

#include "course/results.hpp"

namespace driver {

// 1a. add-exp at each size: host loop, copy in / kernel / copy out, whole call (copies.cpp).
void add_exp_sizes(course::Rows &rows, const std::vector<long long> &sizes, int reps, bool only_yours);
// 1b. matmul at each size, split the same way (copies.cpp).
void matmul_sizes(course::Rows &rows, const std::vector<long long> &sizes, int reps, bool only_yours);
// 2. heat: grids mapped every step vs kept on the device, copies counted by OMPT (heat.cpp).
void heat_run(course::Rows &rows, int nx, int steps, int reps, bool only_yours);
// 3. add-exp's bandwidth against the device's copy, and the launch shapes (bandwidth.cpp).
void bandwidth(course::Rows &rows, int n, int reps, bool only_yours, bool shapes);

// add-exp at size n: its inputs (the course's seeds), its output and its
// double reference (copies.cpp).
struct AddExpData {
  std::vector<float> first, second, result;
  std::vector<double> ref;
  std::string size;  // "n=..."
  explicit AddExpData(int n);
};

// The size the bandwidth goal is judged from on a GPU (the full preset's size
// there; the goal and that size are lessons/goals.csv's).
constexpr int kGoalN = 1 << 28;

// Data movements of the split timings and the bandwidth table, as plain
// functions (clang 19 crashes on some data directives inside lambdas):
// inputs to the device and the output allocated there, and back (copies.cpp).
void enter_inputs(int n, const float *a, const float *b, float *out);
void exit_inputs(int n, const float *a, const float *b, float *out);

}  // namespace driver
