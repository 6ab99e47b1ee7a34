// What lesson06's experiments share: the run's context (repetitions, the
// copy ceiling, the rows) and measure(), which times, verifies, prints and
// keeps one row. driver/main.cpp measures the ceiling, then runs the
// experiments of driver/reductions.cpp.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "course/results.hpp"
#include "course/verify.hpp"

namespace driver {

struct Ctx {
  int reps = 5;
  double copy_gbs = 0;  // the ceiling, measured first
  std::vector<course::ResultRow> rows;
};

// What the report needs to place a row: its role, and for the sum x method
// matrix (the chapter's table) the method as the matrix column.
struct Place {
  std::string role, method;
};

// Times f (the data are already on the device), verifies what it produced,
// prints one line and keeps the row (main.cpp).
course::ResultRow measure(Ctx &ctx, const std::string &experiment, const std::string &variant, std::size_t n,
                          double bytes, const std::function<void()> &f, const std::function<course::Check()> &verify,
                          bool fastest = false, const Place &place = {});

// One line of the sum matrix (global atomic, reduction clause, team-local) on
// x, the global atomic on its first slow_n elements; its GB/s in that order.
// Defined for int, float and double.
template <class T>
std::vector<double> sum_rows(Ctx &ctx, const char *type, const std::vector<T> &x, std::size_t slow_n,
                             bool only_yours, const std::vector<long long> &sweep);

// The 256-bin histogram of x[0:N] done the three ways (the reduction clause
// on the first S elements): the matrix's last line, GB/s in the same order.
std::vector<double> histogram_rows(Ctx &ctx, const std::vector<float> &x, std::size_t N, std::size_t S,
                                   bool only_yours);

// The chapter's table from the rates measured above.
void print_matrix(const Ctx &ctx, const std::vector<std::vector<double>> &sum, const std::vector<double> &hist,
                  bool only_yours);

}  // namespace driver
