// stream.cpp -- lesson 2's add-exp (solutions/02-target-offload/offload.cpp,
// lesson2::add_exp) and the plain OpenMP copy, in many launch shapes and load
// widths. Every variant has add_exp's signature and contract: host pointers
// whose data may already be on the device (here they are: `target enter
// data`, so only the kernel runs), result output only. The copy variants are
// the best copy OpenMP can write, the course's own streaming ceiling.
//
// What varies:
//   VW  floats per load: 1 (scalar) or 4 (one 16-byte Vec16 load/store)
//   K   loads per thread, issued before any store, K "rows" apart so that
//       neighbouring threads still touch neighbouring addresses
//   threads (thread_limit) and teams (num_teams, as multiples of the SM
//       count; when fewer teams than iterations/threads, each thread loops,
//       which LLVM's GPU schedule does grid-stride)
#include <omp.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "check.hpp"
#include "offload.hpp"
#include "perf.hpp"

namespace perf {
namespace {

/// Launch clauses of a variant; 0 leaves the clause out (runtime's choice).
struct Shape {
  int threads = 0;
  int teams = 0;
};

// One loop iteration r of a streaming kernel: out = a (copy) or a + exp(b).
// Vector path (16-byte aligned device addresses): vectors r + e*rows, e < K,
// all loaded before any is stored, then the n % 4 tail elements by the first
// iterations. Otherwise the scalar path: elements r + e*srows, e < VW*K.
template <int VW, int K, bool EXP>
inline void stream_body(int r, int n, const float *a, const float *b, float *out) {
  const int nv = n / VW, rows = (nv + K - 1) / K, tail = n - nv * VW;
  if (VW > 1 && aligned16(a) && (!EXP || aligned16(b)) && aligned16(out)) {
    using V = Vec16<float>;
    const V *av = reinterpret_cast<const V *>(a);
    const V *bv = reinterpret_cast<const V *>(b);
    V *ov = reinterpret_cast<V *>(out);
    if (r < rows) {
      V x[K], y[K];
#pragma unroll
      for (int e = 0; e < K; ++e) {
        const int q = r + e * rows;
        if (q < nv) {
          x[e] = av[q];
          if (EXP) y[e] = bv[q];
        }
      }
#pragma unroll
      for (int e = 0; e < K; ++e) {
        const int q = r + e * rows;
        if (q < nv) {
          V o;
#pragma unroll
          for (int l = 0; l < VW; ++l) o.v[l] = EXP ? x[e].v[l] + std::exp(y[e].v[l]) : x[e].v[l];
          ov[q] = o;
        }
      }
    }
    if (r < tail) {
      const int i = nv * VW + r;
      out[i] = EXP ? a[i] + std::exp(b[i]) : a[i];
    }
  } else {
    constexpr int P = VW * K;
    const int srows = (n + P - 1) / P;
    if (r < srows) {
      float x[P], y[P];
#pragma unroll
      for (int e = 0; e < P; ++e) {
        const int i = r + e * srows;
        x[e] = i < n ? a[i] : 0.f;
        y[e] = (EXP && i < n) ? b[i] : 0.f;
      }
#pragma unroll
      for (int e = 0; e < P; ++e) {
        const int i = r + e * srows;
        if (i < n) out[i] = EXP ? x[e] + std::exp(y[e]) : x[e];
      }
    }
  }
}

// Iterations that cover both paths of stream_body.
template <int VW, int K>
int stream_iterations(int n) {
  const int nv = n / VW, rows = (nv + K - 1) / K, srows = (n + VW * K - 1) / (VW * K);
  return rows > srows ? rows : srows;
}

// The kernel: add_exp's signature (second unused by a copy), one of three
// launch-clause forms.
template <int VW, int K, bool EXP>
void stream_kernel(int n, const float *first, const float *second, float *result, Shape s) {
  const int iters = stream_iterations<VW, K>(n);
  const int nb = EXP ? n : 0;  // a copy maps no second array
  if (s.threads > 0 && s.teams > 0) {
#pragma omp target teams distribute parallel for num_teams(s.teams) thread_limit(s.threads) \
    map(to : first[0:n], second[0:nb]) map(from : result[0:n])
    for (int r = 0; r < iters; ++r) stream_body<VW, K, EXP>(r, n, first, second, result);
  } else if (s.threads > 0) {
#pragma omp target teams distribute parallel for thread_limit(s.threads) map(to : first[0:n], second[0:nb]) \
    map(from : result[0:n])
    for (int r = 0; r < iters; ++r) stream_body<VW, K, EXP>(r, n, first, second, result);
  } else {
#pragma omp target teams distribute parallel for map(to : first[0:n], second[0:nb]) map(from : result[0:n])
    for (int r = 0; r < iters; ++r) stream_body<VW, K, EXP>(r, n, first, second, result);
  }
}

using Kernel = std::function<void(int, const float *, const float *, float *)>;

struct Variant {
  std::string name;
  Kernel run;
};

template <int VW, int K, bool EXP>
Variant make(const std::string &name, Shape s) {
  return {name, [s](int n, const float *a, const float *b, float *r) { stream_kernel<VW, K, EXP>(n, a, b, r, s); }};
}

std::string shape_text(const Ceilings &c, Shape s, int per_unit) {
  std::string t = s.threads ? " tl" + std::to_string(s.threads) : "";
  if (s.teams) t += " teams SMx" + std::to_string(per_unit);
  (void)c;
  return t;
}

// The variants of one operation (copy or add-exp).
template <bool EXP>
std::vector<Variant> variants(const Ceilings &c) {
  std::vector<Variant> v;
  auto grid = [&](int k) { return teams_per_unit(c, k); };
  v.push_back(make<1, 1, EXP>("scalar, runtime default shape", {}));
  v.push_back(make<1, 1, EXP>("scalar tl256", {256, 0}));
  v.push_back(make<1, 4, EXP>("scalar k4 tl256 (= the solution's shape)", {256, 0}));
  v.push_back(make<1, 8, EXP>("scalar k8 tl256", {256, 0}));
  for (int t : {128, 256, 512, 1024}) v.push_back(make<4, 1, EXP>("vec16 tl" + std::to_string(t), {t, 0}));
  v.push_back(make<4, 2, EXP>("vec16 k2 tl256", {256, 0}));
  v.push_back(make<4, 2, EXP>("vec16 k2 tl512", {512, 0}));
  v.push_back(make<4, 4, EXP>("vec16 k4 tl256", {256, 0}));
  for (auto [t, k] : {std::pair{256, 8}, std::pair{256, 16}, std::pair{256, 32}, std::pair{512, 4}, std::pair{512, 8},
                      std::pair{1024, 2}})
    v.push_back(make<4, 1, EXP>("vec16" + shape_text(c, {t, grid(k)}, k), {t, grid(k)}));
  v.push_back(make<4, 2, EXP>("vec16 k2" + shape_text(c, {256, grid(16)}, 16), {256, grid(16)}));
  return v;
}

}  // namespace

void run_stream(const Options &o, Ceilings &c, Recorder &rec) {
  const std::vector<int> sizes = o.tiny ? std::vector<int>{4099, 1 << 16} : std::vector<int>{1 << 26, 1 << 28};
  const int N = sizes.back();
  std::vector<float> first(N), second(N), result(N), want_exp(N);
  fill_parallel(first, [](std::size_t i) { return unit_float(1, i); });
  fill_parallel(second, [](std::size_t i) { return 4.f * unit_float(2, i) - 2.f; });
  fill_parallel(want_exp, [&](std::size_t i) { return first[i] + std::exp(second[i]); });
  float *a = first.data(), *b = second.data(), *r = result.data();
#pragma omp target enter data map(to : a[0:N], b[0:N]) map(alloc : r[0:N])

  // Runs one variant at size n: poison, time, fetch, verify, row.
  auto measure = [&](const std::string &kernel, const std::string &variant, int n, bool exp, const Kernel &k,
                     double ceiling) {
    poison_device(r, n, poison_value<float>());
    const Times t = time_it([&] { k(n, a, b, r); }, o.reps, o.warmup);
#pragma omp target update from(r[0:n])
    const Verdict v = exp ? check_close(r, want_exp.data(), n, 4e-6, 1e-6, variant)
                          : check_exact(r, a, n, variant);
    return make_row(rec, kernel, variant, size_text(n), t, (exp ? 12.0 : 8.0) * n, "GB/s", ceiling, v);
  };

  // The copies first: their best is the OpenMP streaming ceiling.
  for (int n : sizes)
    for (const auto &v : variants<false>(c)) {
      const Row row = measure("copy", v.name, n, false, v.run, c.stream());
      if (row.ok == "ok" && n == N) c.copy_omp_gbs = std::max(c.copy_omp_gbs, row.rate);
    }
  char b2[160];
  std::snprintf(b2, sizeof b2, "best OpenMP copy at %s: %.1f GB/s (%.1f%% of the D2D copy)", size_text(N).c_str(),
                c.copy_omp_gbs, c.copy_d2d_gbs > 0 ? 100.0 * c.copy_omp_gbs / c.copy_d2d_gbs : 0.0);
  rec.note(b2);
  rec.add({"ceiling", "best OpenMP copy (group stream)", size_text(N), 0, 0, c.copy_omp_gbs, "GB/s", 0, "ok"});

  for (int n : sizes) {
    measure("add-exp", "current solution (lesson2::add_exp)", n, true, lesson2::add_exp, c.stream());
    for (const auto &v : variants<true>(c)) measure("add-exp", v.name, n, true, v.run, c.stream());
  }
  // The scalar fallback of the vector variants: device addresses 4 bytes off
  // 16-byte alignment (one element in), checked once, not timed for the record.
  {
    const int n = sizes.front() - 1;
    float *r1 = r + 1;
    poison_device(r1, n, poison_value<float>());
    stream_kernel<4, 2, true>(n, a + 1, b + 1, r1, {256, 0});
#pragma omp target update from(r1[0:n])
    const Verdict v = check_close(r1, want_exp.data() + 1, n, 4e-6, 1e-6, "vec16 k2 unaligned");
    make_row(rec, "add-exp", "vec16 k2 tl256, unaligned (+4 B): scalar fallback, 1 run", size_text(n), {}, 0,
             "GB/s", 0, v);
  }
#pragma omp target exit data map(delete : a[0:N], b[0:N], r[0:N])
}

}  // namespace perf
