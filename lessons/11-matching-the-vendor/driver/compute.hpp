// compute.hpp -- lesson11's experiments whose ceiling is the arithmetic:
// one N-body step (11.3) and an SGEMM (11.4), each beside its baseline; the
// streaming ones (sum, histogram) are in main.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "course/results.hpp"

namespace lesson11_driver {

/// One timed variant of an experiment.
struct Variant {
  std::string name, role;  ///< role: baseline, kernel or variant
  std::function<void()> run;
};

/// One N-body step of @p n bodies on the device: the starter's kernel, then
/// the lesson's; a row each into @p rows.
void nbody_experiment(int n, int reps, bool only_yours, std::vector<course::ResultRow> &rows);

/// C = A x B at @p n x @p n on the device: lesson 5's register tile, then the
/// lesson's; a row each into @p rows.
void gemm_experiment(int n, int reps, bool only_yours, std::vector<course::ResultRow> &rows);

}  // namespace lesson11_driver
