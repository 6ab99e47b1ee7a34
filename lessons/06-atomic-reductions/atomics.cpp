// Lesson 6 -- atomic reductions: a sum and a histogram that every device
// thread contributes to. The starter does what the oneAPI atomics chapter
// starts with: one `#pragma omp atomic` on global memory per element, so all
// threads queue on the same address. Three steps, each a marked block below:
//   6.1 sum:       a partial sum per team, one global atomic per team
//   6.2 histogram: a private histogram per team, merged once per team
//   6.3 histogram_reduction: the same with OpenMP's array-section reduction
// Run `ctest --preset student -L lesson6` from the repository root after each
// step (it rebuilds your code first); see README.md for hints.
#include "atomics.hpp"

#include <omp.h>

#include <cstddef>

namespace lesson6 {
namespace {

// One template for int, float and double: the data type changes what an
// atomic costs, not how the sum is organised.
template <class T>
T sum_impl(const T *x, std::size_t n, Launch launch) {
  if (launch.teams <= 0 || launch.threads <= 0) launch = default_launch(n);
  T total = 0;  // a local: always copied to the device and back (map tofrom)
  // SNIPPET(team-sum-split)
  // TODO(6.1): every iteration below is one atomic add to `total` in global
  // memory: n updates of one address, one after the other. Make the atomics
  // few and cheap instead: each thread sums its own elements privately, each
  // team combines its threads' sums in a partial that only the team sees, and
  // only that partial touches `total`. Look up separate `target teams` and
  // `parallel` constructs (launch.teams, launch.threads say how many to ask
  // for), and where a variable must be declared to exist once per team. Split
  // the elements by what the runtime granted (omp_get_num_teams(), ...), not
  // by what you asked for: it may grant fewer. Directly inside `teams`,
  // OpenMP allows only `distribute`, `parallel` and `loop` regions (no
  // `atomic`), so every add happens inside `parallel`.
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : total)
  for (std::size_t i = 0; i < n; ++i) {
#pragma omp atomic update
    total += x[i];
  }
  // END TODO
  // END SNIPPET
  return total;
}

// Step 6.2: count the n values of x into hist's hist_bins bins. histogram()
// (given, in entry_points.inc) has already put x and hist on the device and
// zeroed hist there, so the kernels here find both present. launch says how
// many teams and threads to ask for.
void count_bins(const float *x, std::size_t n, int *hist, Launch launch) {
  // TODO(6.2): one global atomic per element again, now spread over 256
  // addresses. Apply 6.1's idea to the whole histogram: each team counts
  // into a histogram of its own (team-local memory on a GPU), and adds it to
  // hist once, bin by bin, at the end. The team's threads share that work,
  // so ask in which order its phases must happen and what enforces the
  // order. (A team of one thread, what the host device often grants, needs no
  // atomics to count: on a CPU even an uncontended atomic costs a lock.)
#pragma omp target teams distribute parallel for
  for (std::size_t i = 0; i < n; ++i) {
#pragma omp atomic update
    hist[bin_of(x[i])] += 1;
  }
  (void)launch;
  // END TODO
}

// Step 6.3: the same count for histogram_reduction() (given, in
// entry_points.inc): x and hist are on the device, hist zeroed.
void count_bins_reduction(const float *x, std::size_t n, int *hist) {
  // TODO(6.3): this loop is a race: two threads can read the same count,
  // both add one, and one increment is lost. Fix it without writing an
  // atomic: OpenMP can give each thread a private copy of the whole array
  // and combine the copies at the end. Look up which clause does that, and
  // whether it accepts an array section.
#pragma omp target teams distribute parallel for
  for (std::size_t i = 0; i < n; ++i) hist[bin_of(x[i])] += 1;
  // END TODO
}

}  // namespace

// sum() for int, float and double, histogram() and histogram_reduction()
// (given): they map the data, zero hist, and call the functions above.
#include "entry_points.inc"

}  // namespace lesson6
