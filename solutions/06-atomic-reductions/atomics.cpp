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
  // SOLUTION(6.1): one partial per team (declared in `teams`, outside
  // `parallel`), one private sum per thread; n/(teams x threads) plain adds
  // per thread, then one team-local atomic per thread, a barrier, and one
  // global atomic per team, made by one thread inside `parallel`.
#pragma omp target teams num_teams(launch.teams) thread_limit(launch.threads) map(to : x[0:n]) map(tofrom : total)
  {
    T team_total = 0;  // one per team: shared memory on a GPU
#pragma omp parallel
    {
      // Team t of T takes the t-th contiguous block of elements; its threads
      // take every nth-th element of the block, so on a GPU neighbouring
      // threads read neighbouring elements (a warp's loads coalesce), and on
      // a CPU, where a team has one thread, each core streams its own block.
      // The split needs nothing but the team's own thread count, so it is
      // right whatever the runtime grants each team.
      const std::size_t teams = static_cast<std::size_t>(omp_get_num_teams());
      const std::size_t per_team = (n + teams - 1) / teams;
      const std::size_t start = static_cast<std::size_t>(omp_get_team_num()) * per_team;
      const std::size_t lo = start < n ? start : n;
      const std::size_t hi = n - lo > per_team ? lo + per_team : n;
      // END SNIPPET
      // SNIPPET(team-sum-loads)
      // Eight independent loads per step keep more bytes in flight per
      // thread, which is what hides memory latency; offsets inside the block
      // are 32-bit when they fit, because on a GPU 64-bit index arithmetic
      // costs extra instructions per load.
      const auto block_sum = [](const T *b, auto len, auto i, auto step) {
        T a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
        if (len > 7 * step) {
          const auto end = len - 7 * step;
          for (; i < end; i += 8 * step) {
            a0 += b[i];
            a1 += b[i + step];
            a2 += b[i + 2 * step];
            a3 += b[i + 3 * step];
            a4 += b[i + 4 * step];
            a5 += b[i + 5 * step];
            a6 += b[i + 6 * step];
            a7 += b[i + 7 * step];
          }
        }
        for (; i < len; i += step) a0 += b[i];
        return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
      };
      // END SNIPPET
      // SNIPPET(team-sum-atomics)
      const unsigned tid = static_cast<unsigned>(omp_get_thread_num());
      const unsigned nth = static_cast<unsigned>(omp_get_num_threads());
      const T mine = hi - lo <= 0x7fffffffu ? block_sum(x + lo, static_cast<unsigned>(hi - lo), tid, nth)
                                            : block_sum(x + lo, hi - lo, std::size_t{tid}, std::size_t{nth});
#pragma omp atomic update
      team_total += mine;
      // The global add stays inside `parallel`: only distribute, parallel
      // and loop regions may sit directly in `teams` (an atomic there is an
      // LLVM extension). After the barrier every share is in team_total, and
      // thread 0 alone adds it.
#pragma omp barrier
      if (tid == 0) {
#pragma omp atomic update
        total += team_total;
      }
    }
  }
  // END SOLUTION
  // END SNIPPET
  return total;
}

// Step 6.2: count the n values of x into hist's hist_bins bins. histogram()
// (given, in entry_points.inc) has already put x and hist on the device and
// zeroed hist there, so the kernels here find both present. launch says how
// many teams and threads to ask for.
void count_bins(const float *x, std::size_t n, int *hist, Launch launch) {
  // SOLUTION(6.2): a private histogram per team in team-local memory; the
  // counting atomics stay inside the team, and global memory sees at most
  // hist_bins atomics per team.
  // SNIPPET(team-histogram-setup)
#pragma omp target teams num_teams(launch.teams) thread_limit(launch.threads)
  {
    int local[hist_bins];  // one per team: shared memory on a GPU
#pragma omp parallel
    {
      const int nth = omp_get_num_threads();
      const int tid = omp_get_thread_num();
      for (int b = tid; b < hist_bins; b += nth) local[b] = 0;
#pragma omp barrier
      // The same split as the sum: a contiguous block per team, its
      // elements interleaved over the team's threads.
      const std::size_t teams = static_cast<std::size_t>(omp_get_num_teams());
      const std::size_t per_team = (n + teams - 1) / teams;
      const std::size_t lo = static_cast<std::size_t>(omp_get_team_num()) * per_team;
      const std::size_t hi = lo + per_team < n ? lo + per_team : n;
      const std::size_t step = static_cast<std::size_t>(nth);
      // END SNIPPET
      // SNIPPET(team-histogram-count)
      if (nth == 1) {
        // A team of one thread (the host device: one per core) has nobody
        // to race with, and on a CPU even an uncontended atomic is a locked
        // instruction: count with plain adds.
        for (std::size_t i = lo; i < hi; ++i) local[bin_of(x[i])] += 1;
      } else {
        std::size_t i = lo + static_cast<std::size_t>(tid);
        // Four loads before four atomics: the loads overlap.
        for (; i + 3 * step < hi; i += 4 * step) {
          const int b0 = bin_of(x[i]), b1 = bin_of(x[i + step]);
          const int b2 = bin_of(x[i + 2 * step]), b3 = bin_of(x[i + 3 * step]);
#pragma omp atomic update
          local[b0] += 1;
#pragma omp atomic update
          local[b1] += 1;
#pragma omp atomic update
          local[b2] += 1;
#pragma omp atomic update
          local[b3] += 1;
        }
        // END SNIPPET
        // SNIPPET(team-histogram-merge)
        for (; i < hi; i += step) {
          const int b = bin_of(x[i]);
#pragma omp atomic update
          local[b] += 1;
        }
      }
#pragma omp barrier
      for (int b = tid; b < hist_bins; b += nth)
        if (local[b] != 0) {  // empty bins cost no global atomic
#pragma omp atomic update
          hist[b] += local[b];
        }
    }
  }
  // END SNIPPET
  // END SOLUTION
}

// Step 6.3: the same count for histogram_reduction() (given, in
// entry_points.inc): x and hist are on the device, hist zeroed.
void count_bins_reduction(const float *x, std::size_t n, int *hist) {
  // SOLUTION(6.3): every thread counts into a private copy of
  // hist[0:hist_bins]; OpenMP adds the copies into hist at the end.
#pragma omp target teams distribute parallel for reduction(+ : hist[0:hist_bins])
  for (std::size_t i = 0; i < n; ++i) hist[bin_of(x[i])] += 1;
  // END SOLUTION
}

}  // namespace

// sum() for int, float and double, histogram() and histogram_reduction()
// (given): they map the data, zero hist, and call the functions above.
#include "entry_points.inc"

}  // namespace lesson6
