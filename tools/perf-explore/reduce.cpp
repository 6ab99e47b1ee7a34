// reduce.cpp -- lesson 6's sums (int, float, double) and 256-bin histogram
// (solutions/06-atomic-reductions/atomics.cpp: lesson6::sum,
// lesson6::histogram), against OpenMP's reduction clause, in variants that
// keep the lesson's contract: host pointers whose data may already be on the
// device (here they are), the result returned (sum) or written to a host
// array (histogram, zeroed on the device first, as the solution does).
//
// Sum variants ("team partial": one partial per thread in registers, one
// team-local atomic per thread, one global atomic per team, like 6.1):
//   scalar/vec16  4-byte loads or 16-byte Vec16 loads (4 int/float, 2 double)
//   U             loads in flight per thread (independent accumulators)
//   block/grid    a contiguous block per team (the solution's split) or one
//                 grid-wide interleave
//   teams, tl     num_teams as a multiple of the SM count, thread_limit
// Histogram variants: where a team keeps its bins (team-local memory with or
// without `allocate(omp_pteam_mem_alloc)`, 32 copies so each warp lane has its
// own bank, or a private array per thread), load width and loads in flight.
#include <omp.h>

#include <cmath>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "atomics.hpp"
#include "check.hpp"
#include "perf.hpp"

namespace perf {
namespace {

// ---------------------------------------------------------------------------
// Sums
// ---------------------------------------------------------------------------

// Sum of xv[begin], xv[begin + step], ... below end with U loads in flight;
// each load is a Vec16 (VEC) or one T. I is the index type: 32-bit when the
// range allows (fewer instructions per load on a GPU).
template <class T, int U, bool VEC, class I>
inline T strided_sum(const T *x, I begin, I end, I step) {
  using V = Vec16<T>;
  constexpr int W = VEC ? 16 / sizeof(T) : 1;
  T acc[U][W] = {};
  I i = begin;
  if (end > (U - 1) * step) {
    const I stop = end - (U - 1) * step;
    for (; i < stop; i += U * step) {
      T t[U][W];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if constexpr (VEC) {
          const V v = reinterpret_cast<const V *>(x)[i + u * step];
#pragma unroll
          for (int l = 0; l < W; ++l) t[u][l] = v.v[l];
        } else {
          t[u][0] = x[i + u * step];
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int l = 0; l < W; ++l) acc[u][l] += t[u][l];
    }
  }
  for (; i < end; i += step) {
    if constexpr (VEC) {
      const V v = reinterpret_cast<const V *>(x)[i];
#pragma unroll
      for (int l = 0; l < W; ++l) acc[0][l] += v.v[l];
    } else {
      acc[0][0] += x[i];
    }
  }
  T s = 0;
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int l = 0; l < W; ++l) s += acc[u][l];
  return s;
}

// This thread's share of x[0:n]: vectors when VEC and x's device address is
// 16-byte aligned (the n % W tail elements go to the first threads of the
// league), else single elements.
template <class T, int U, bool VEC, bool GRID>
inline T thread_share(const T *x, std::size_t n) {
  const std::size_t teams = static_cast<std::size_t>(omp_get_num_teams());
  const std::size_t team = static_cast<std::size_t>(omp_get_team_num());
  const std::size_t nth = static_cast<std::size_t>(omp_get_num_threads());
  const std::size_t tid = static_cast<std::size_t>(omp_get_thread_num());
  const bool vec = VEC && aligned16(x);
  const std::size_t W = vec ? 16 / sizeof(T) : 1;
  const std::size_t items = n / W;  // vectors (or elements)
  std::size_t begin, end, step;
  if (GRID) {
    begin = team * nth + tid;
    end = items;
    step = teams * nth;
  } else {
    const std::size_t per_team = (items + teams - 1) / teams;
    const std::size_t lo = team * per_team < items ? team * per_team : items;
    begin = lo + tid;
    end = items - lo > per_team ? lo + per_team : items;
    step = nth;
  }
  T s = 0;
  const bool small = end + static_cast<std::size_t>(U + 1) * step <= 0xffffffffu;
  if (vec) {
    s = small ? strided_sum<T, U, true, unsigned>(x, begin, end, step)
              : strided_sum<T, U, true, std::size_t>(x, begin, end, step);
    for (std::size_t g = team * nth + tid; g < n - items * W; g += teams * nth) s += x[items * W + g];
  } else {
    s = small ? strided_sum<T, U * (VEC ? 16 / sizeof(T) : 1), false, unsigned>(x, begin, end, step)
              : strided_sum<T, U * (VEC ? 16 / sizeof(T) : 1), false, std::size_t>(x, begin, end, step);
  }
  return s;
}

// Team partial: registers per thread, one team-local atomic per thread, one
// global atomic per team (the structure of solution 6.1).
template <class T, int U, bool VEC, bool GRID>
T sum_team(const T *x, std::size_t n, int teams, int threads) {
  T total = 0;
#pragma omp target teams num_teams(teams) thread_limit(threads) map(to : x[0:n]) map(tofrom : total)
  {
    T team_total = 0;
#pragma omp parallel
    {
      const T mine = thread_share<T, U, VEC, GRID>(x, n);
#pragma omp atomic update
      team_total += mine;
    }
#pragma omp atomic update
    total += team_total;
  }
  return total;
}

// OpenMP's reduction clause, the idiomatic way (the lesson's reference).
template <class T>
T sum_reduction(const T *x, std::size_t n, int teams, int threads) {
  T total = 0;
  if (teams > 0) {
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(threads) reduction(+ : total) \
    map(to : x[0:n])
    for (std::size_t i = 0; i < n; ++i) total += x[i];
  } else {
#pragma omp target teams distribute parallel for reduction(+ : total) map(to : x[0:n])
    for (std::size_t i = 0; i < n; ++i) total += x[i];
  }
  return total;
}

// Iteration q of the vector reduction: vector q, or tail element q - nv past
// the vectors; unaligned device data: elements q*W .. q*W+W-1 one by one.
template <class T>
inline T vec_item(const T *x, std::size_t n, std::size_t nv, std::size_t q) {
  constexpr std::size_t W = 16 / sizeof(T);
  T s = 0;
  if (!aligned16(x)) {
    for (std::size_t i = q * W; i < q * W + W && i < n; ++i) s += x[i];
  } else if (q < nv) {
    const Vec16<T> v = reinterpret_cast<const Vec16<T> *>(x)[q];
#pragma unroll
    for (std::size_t l = 0; l < W; ++l) s += v.v[l];
  } else {
    s = x[nv * W + (q - nv)];
  }
  return s;
}

// The reduction clause over 16-byte vectors: the same clause, a quarter (or
// half) of the iterations, each one load instead of four.
template <class T>
T sum_reduction_vec(const T *x, std::size_t n, int teams, int threads) {
  constexpr std::size_t W = 16 / sizeof(T);
  const std::size_t nv = n / W, iters = nv + (n - nv * W);
  T total = 0;
  // The fallback reads iterations q * W, so it needs ceil(n / W) iterations:
  // never more than iters.
  if (teams > 0) {
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(threads) reduction(+ : total) \
    map(to : x[0:n])
    for (std::size_t q = 0; q < iters; ++q) total += vec_item(x, n, nv, q);
  } else {
#pragma omp target teams distribute parallel for reduction(+ : total) map(to : x[0:n])
    for (std::size_t q = 0; q < iters; ++q) total += vec_item(x, n, nv, q);
  }
  return total;
}

template <class T>
struct SumVariant {
  std::string name;
  std::function<T(const T *, std::size_t)> run;
};

template <class T>
std::vector<SumVariant<T>> sum_variants(const Ceilings &c) {
  std::vector<SumVariant<T>> v;
  auto g = [&](int k) { return teams_per_unit(c, k); };
  auto tp = [&](auto fn, int k, int tl) { return [fn, t = g(k), tl](const T *x, std::size_t n) { return fn(x, n, t, tl); }; };
  v.push_back({"current solution (lesson6::sum, default_launch)", [](const T *x, std::size_t n) { return lesson6::sum(x, n); }});
  v.push_back({"reduction clause, runtime default shape", [](const T *x, std::size_t n) { return sum_reduction(x, n, 0, 0); }});
  v.push_back({"reduction clause tl256 teams SMx16", tp(sum_reduction<T>, 16, 256)});
  v.push_back({"reduction clause vec16, runtime default shape",
               [](const T *x, std::size_t n) { return sum_reduction_vec(x, n, 0, 0); }});
  v.push_back({"reduction clause vec16 tl256 teams SMx16", tp(sum_reduction_vec<T>, 16, 256)});
  v.push_back({"team partial scalar U8 block tl256 teams SMx8", tp(sum_team<T, 8, false, false>, 8, 256)});
  v.push_back({"team partial vec16 U1 block tl256 teams SMx8", tp(sum_team<T, 1, true, false>, 8, 256)});
  v.push_back({"team partial vec16 U2 block tl256 teams SMx8", tp(sum_team<T, 2, true, false>, 8, 256)});
  v.push_back({"team partial vec16 U4 block tl256 teams SMx8", tp(sum_team<T, 4, true, false>, 8, 256)});
  v.push_back({"team partial vec16 U8 block tl256 teams SMx8", tp(sum_team<T, 8, true, false>, 8, 256)});
  v.push_back({"team partial vec16 U4 block tl256 teams SMx16", tp(sum_team<T, 4, true, false>, 16, 256)});
  v.push_back({"team partial vec16 U4 block tl256 teams SMx32", tp(sum_team<T, 4, true, false>, 32, 256)});
  v.push_back({"team partial vec16 U4 block tl512 teams SMx4", tp(sum_team<T, 4, true, false>, 4, 512)});
  v.push_back({"team partial vec16 U2 block tl1024 teams SMx2", tp(sum_team<T, 2, true, false>, 2, 1024)});
  v.push_back({"team partial vec16 U4 grid tl256 teams SMx8", tp(sum_team<T, 4, true, true>, 8, 256)});
  v.push_back({"team partial vec16 U2 grid tl512 teams SMx4", tp(sum_team<T, 2, true, true>, 4, 512)});
  return v;
}

// Host reference, exact for int (64-bit), long double partials otherwise.
template <class T>
long double host_sum(const std::vector<T> &x) {
  long double s = 0;
  const std::size_t n = x.size();
#pragma omp parallel
  {
    long double mine = 0;
#pragma omp for schedule(static) nowait
    for (std::size_t i = 0; i < n; ++i) mine += x[i];
#pragma omp critical
    s += mine;
  }
  return s;
}

template <class T>
Verdict check_sum(T got, long double want, std::size_t n, const std::string &what) {
  bool ok;
  if constexpr (std::is_integral_v<T>) {
    ok = static_cast<long double>(got) == want;
  } else {
    // The lesson's tolerance: 4 sqrt(n) eps relative (all inputs are >= 0).
    const long double eps = std::is_same_v<T, float> ? 0x1p-24L : 0x1p-53L;
    ok = std::fabs(static_cast<long double>(got) - want) <= 4.0L * std::sqrt(static_cast<long double>(n)) * eps * want;
  }
  if (ok) return {};
  char b[160];
  std::snprintf(b, sizeof b, "%s: n %zu: expected %.17Lg, got %.17Lg", what.c_str(), n, want,
                static_cast<long double>(got));
  return {false, b};
}

template <class T>
void sum_group(const Options &o, const Ceilings &c, Recorder &rec, const char *type, std::size_t n) {
  std::vector<T> x(n);
  if constexpr (std::is_integral_v<T>)
    fill_parallel(x, [](std::size_t i) { return static_cast<T>(mix(i * 7 + 3) & 3); });  // [0, 3]: no overflow
  else
    fill_parallel(x, [](std::size_t i) { return static_cast<T>(unit_float(3, i)); });
  const long double want = host_sum(x);
  const T *p = x.data();
#pragma omp target enter data map(to : p[0:n])
  for (const auto &v : sum_variants<T>(c)) {
    T got = 0;
    const Times t = time_it([&] { got = v.run(p, n); }, o.reps, o.warmup);
    make_row(rec, std::string("sum ") + type, v.name, size_text(n), t, static_cast<double>(n) * sizeof(T), "GB/s",
             c.stream(), check_sum(got, want, n, v.name));
  }
#pragma omp target exit data map(delete : p[0:n])
}

// ---------------------------------------------------------------------------
// Histogram
// ---------------------------------------------------------------------------

constexpr int B = lesson6::hist_bins;
enum class Bins {
  team_pteam,  // int local[256] in the teams region, allocate(omp_pteam_mem_alloc) on NVIDIA
  team_plain,  // the same without the allocate directive (the current solution)
  team_lanes,  // 32 copies: local[bin * 32 + lane], each lane its own shared-memory bank
  thread,      // a private int[256] per thread (local memory), merged once
};

// Counts this thread's share of x into bins through add(bin): U vectors (or
// U*4 elements) loaded before their bins are counted.
template <int U, bool VEC, class Add>
inline void count_share(const float *x, std::size_t n, Add add) {
  const std::size_t teams = static_cast<std::size_t>(omp_get_num_teams());
  const std::size_t team = static_cast<std::size_t>(omp_get_team_num());
  const std::size_t nth = static_cast<std::size_t>(omp_get_num_threads());
  const std::size_t tid = static_cast<std::size_t>(omp_get_thread_num());
  const bool vec = VEC && aligned16(x);
  const std::size_t W = vec ? 4 : 1;
  const std::size_t items = n / W;
  const std::size_t per_team = (items + teams - 1) / teams;
  const std::size_t lo = team * per_team < items ? team * per_team : items;
  const std::size_t hi = items - lo > per_team ? lo + per_team : items;
  std::size_t i = lo + tid;
  if (vec) {
    using V = Vec16<float>;
    const V *xv = reinterpret_cast<const V *>(x);
    for (; i + (U - 1) * nth < hi; i += U * nth) {
      V t[U];
#pragma unroll
      for (int u = 0; u < U; ++u) t[u] = xv[i + u * nth];
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int l = 0; l < 4; ++l) add(lesson6::bin_of(t[u].v[l]));
    }
    for (; i < hi; i += nth) {
      const V t = xv[i];
#pragma unroll
      for (int l = 0; l < 4; ++l) add(lesson6::bin_of(t.v[l]));
    }
    for (std::size_t g = team * nth + tid; g < n - items * 4; g += teams * nth) add(lesson6::bin_of(x[items * 4 + g]));
  } else {
    constexpr int P = U * 4;
    for (; i + (P - 1) * nth < hi; i += P * nth) {
      int b[P];
#pragma unroll
      for (int u = 0; u < P; ++u) b[u] = lesson6::bin_of(x[i + u * nth]);
#pragma unroll
      for (int u = 0; u < P; ++u) add(b[u]);
    }
    for (; i < hi; i += nth) add(lesson6::bin_of(x[i]));
  }
}

// The counting of one team into its bins `local` (B * copies ints shared by
// the team), then one global atomic per non-empty bin. Called inside the
// teams region: the parallel region is the team's threads.
template <Bins MODE, int U, bool VEC>
[[gnu::always_inline]] inline void team_count(const float *x, std::size_t n, int *hist, int *local) {
  constexpr int copies = MODE == Bins::team_lanes ? 32 : 1;
#pragma omp parallel
  {
    const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
    for (int b = tid; b < B * copies; b += nth) local[b] = 0;
#pragma omp barrier
    if constexpr (MODE == Bins::thread) {
      int mine[B];
      for (int b = 0; b < B; ++b) mine[b] = 0;
      count_share<U, VEC>(x, n, [&](int b) { mine[b] += 1; });
      for (int b = 0; b < B; ++b)
        if (mine[b]) {
#pragma omp atomic update
          local[b] += mine[b];
        }
    } else {
      const int lane = copies > 1 ? tid % copies : 0;
      count_share<U, VEC>(x, n, [&](int b) {
        if (nth == 1) {
          local[b * copies + lane] += 1;  // nobody to race with (host device)
        } else {
#pragma omp atomic update
          local[b * copies + lane] += 1;
        }
      });
    }
#pragma omp barrier
    for (int b = tid; b < B; b += nth) {
      int s = 0;
      for (int l = 0; l < copies; ++l) s += local[b * copies + l];
      if (s != 0) {
#pragma omp atomic update
        hist[b] += s;
      }
    }
  }
}

template <Bins MODE, int U, bool VEC>
void histogram_variant(const float *x, std::size_t n, int *hist, int teams, int threads) {
  constexpr int copies = MODE == Bins::team_lanes ? 32 : 1;
#pragma omp target data map(to : x[0:n]) map(from : hist[0:B])
  {
#pragma omp target teams distribute parallel for
    for (int b = 0; b < B; ++b) hist[b] = 0;
    if constexpr (MODE == Bins::team_plain) {
#pragma omp target teams num_teams(teams) thread_limit(threads)
      {
        int local[B];  // like the current solution: the compiler decides where it lives
        team_count<MODE, U, VEC>(x, n, hist, local);
      }
    } else {
#pragma omp target teams num_teams(teams) thread_limit(threads)
      {
        int local[B * copies];
#if defined(__NVPTX__)
#pragma omp allocate(local) allocator(omp_pteam_mem_alloc)
#endif
        team_count<MODE, U, VEC>(x, n, hist, local);
      }
    }
  }
}

struct HistVariant {
  std::string name;
  std::function<void(const float *, std::size_t, int *)> run;
};

std::vector<HistVariant> hist_variants(const Ceilings &c) {
  std::vector<HistVariant> v;
  auto g = [&](int k) { return teams_per_unit(c, k); };
  auto tp = [&](auto fn, int k, int tl) {
    return [fn, t = g(k), tl](const float *x, std::size_t n, int *h) { fn(x, n, h, t, tl); };
  };
  v.push_back({"current solution (lesson6::histogram, default_launch)",
               [](const float *x, std::size_t n, int *h) { lesson6::histogram(x, n, h); }});
  v.push_back({"team bins pteam scalar U1(x4) default_launch", [](const float *x, std::size_t n, int *h) {
                 const auto l = lesson6::default_launch(n);
                 histogram_variant<Bins::team_pteam, 1, false>(x, n, h, l.teams, l.threads);
               }});
  v.push_back({"team bins pteam vec16 U1 tl256 teams SMx8", tp(histogram_variant<Bins::team_pteam, 1, true>, 8, 256)});
  v.push_back({"team bins pteam vec16 U2 tl256 teams SMx8", tp(histogram_variant<Bins::team_pteam, 2, true>, 8, 256)});
  v.push_back({"team bins pteam vec16 U4 tl256 teams SMx8", tp(histogram_variant<Bins::team_pteam, 4, true>, 8, 256)});
  v.push_back({"team bins pteam vec16 U2 tl256 teams SMx16", tp(histogram_variant<Bins::team_pteam, 2, true>, 16, 256)});
  v.push_back({"team bins pteam vec16 U2 tl512 teams SMx4", tp(histogram_variant<Bins::team_pteam, 2, true>, 4, 512)});
  v.push_back({"team bins pteam vec16 U2 tl1024 teams SMx2", tp(histogram_variant<Bins::team_pteam, 2, true>, 2, 1024)});
  v.push_back({"team bins plain vec16 U2 tl256 teams SMx8", tp(histogram_variant<Bins::team_plain, 2, true>, 8, 256)});
  v.push_back({"team bins x32 lanes vec16 U1 tl256 teams SMx6", tp(histogram_variant<Bins::team_lanes, 1, true>, 6, 256)});
  v.push_back({"team bins x32 lanes vec16 U2 tl256 teams SMx6", tp(histogram_variant<Bins::team_lanes, 2, true>, 6, 256)});
  v.push_back({"team bins x32 lanes vec16 U2 tl512 teams SMx3", tp(histogram_variant<Bins::team_lanes, 2, true>, 3, 512)});
  v.push_back({"per-thread bins vec16 U1 tl256 teams SMx8", tp(histogram_variant<Bins::thread, 1, true>, 8, 256)});
  return v;
}

void hist_group(const Options &o, const Ceilings &c, Recorder &rec, std::size_t n, std::size_t n_slow) {
  std::vector<float> x(n);
  fill_parallel(x, [](std::size_t i) { return unit_float(4, i); });
  auto reference = [&](std::size_t m) {
    std::vector<long long> h(B, 0);
#pragma omp parallel
    {
      std::vector<long long> mine(B, 0);
#pragma omp for schedule(static) nowait
      for (std::size_t i = 0; i < m; ++i) mine[lesson6::bin_of(x[i])] += 1;
#pragma omp critical
      for (int b = 0; b < B; ++b) h[b] += mine[b];
    }
    return h;
  };
  const auto want = reference(n), want_slow = reference(n_slow);
  auto check = [&](const std::vector<int> &h, const std::vector<long long> &w, const std::string &what) -> Verdict {
    for (int b = 0; b < B; ++b)
      if (h[b] != w[b])
        return {false, what + ": bin " + std::to_string(b) + ": expected " + std::to_string(w[b]) + ", got " +
                           std::to_string(h[b])};
    return {};
  };
  const float *p = x.data();
  std::vector<int> h(B);
#pragma omp target enter data map(to : p[0:n])
  // What every call pays whatever n: the zeroing kernel, the count kernel's
  // launch and the 1 KB copy of hist back (hist is output only, not mapped).
  {
    const Times t = time_it([&] {
      int *hp = h.data();
#pragma omp target data map(from : hp[0:B])
      {
#pragma omp target teams distribute parallel for
        for (int b = 0; b < B; ++b) hp[b] = 0;
      }
    }, o.reps, o.warmup);
    rec.add({"launch", "histogram fixed cost: zero kernel + hist copy back", "-", t.median_ms, t.best_ms,
             t.median_ms * 1e3, "us", 0, "ok"});
  }
  {  // The array reduction is far below bandwidth: run on n_slow elements, 3 runs.
    std::fill(h.begin(), h.end(), -1);
    const Times t = time_it([&] { lesson6::histogram_reduction(p, n_slow, h.data()); }, 3, 1);
    make_row(rec, "histogram 256", "reduction clause (lesson6::histogram_reduction)", size_text(n_slow), t,
             4.0 * n_slow, "GB/s", c.stream(), check(h, want_slow, "reduction clause"));
  }
  for (const auto &v : hist_variants(c)) {
    std::fill(h.begin(), h.end(), -1);  // every run overwrites all bins
    const Times t = time_it([&] { v.run(p, n, h.data()); }, o.reps, o.warmup);
    make_row(rec, "histogram 256", v.name, size_text(n), t, 4.0 * n, "GB/s", c.stream(), check(h, want, v.name));
  }
#pragma omp target exit data map(delete : p[0:n])
}

}  // namespace

void run_reductions(const Options &o, const Ceilings &c, Recorder &rec) {
  const std::size_t n = o.tiny ? 100003 : std::size_t{1} << 28;
  sum_group<int>(o, c, rec, "int", n);
  sum_group<float>(o, c, rec, "float", n);
  sum_group<double>(o, c, rec, "double", n);
  hist_group(o, c, rec, n, o.tiny ? 10007 : std::size_t{1} << 24);
}

}  // namespace perf
