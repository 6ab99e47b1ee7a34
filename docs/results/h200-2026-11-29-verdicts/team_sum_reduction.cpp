// Variants of lesson 11's thread_sum (K Vec16 in flight) for floats and ints,
// and launch shapes; team_sum as given. Interleaved, median of reps, host clock
// around one call (spin wait from course_common).
#include <omp.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <functional>
#include <string>
#include "lesson11_streaming_shared.hpp"

namespace lesson11 {
namespace {
#pragma omp begin declare target
template <class T, int K>
T thread_sum_k(const T *b, unsigned len, unsigned tid, unsigned nth) {
  constexpr unsigned L = Vec16<T>::lanes;
  const auto addr = reinterpret_cast<std::uintptr_t>(b);
  const unsigned head = addr % sizeof(T) != 0 ? len : static_cast<unsigned>((16 - addr % 16) % 16 / sizeof(T));
  T s = 0;
  if (head >= len) {
    for (unsigned i = tid; i < len; i += nth) s += b[i];
    return s;
  }
  const Vec16<T> *q = reinterpret_cast<const Vec16<T> *>(b + head);
  const unsigned quads = (len - head) / L;
  for (unsigned i = tid; i < head; i += nth) s += b[i];
  for (unsigned i = head + L * quads + tid; i < len; i += nth) s += b[i];
  Vec16<T> p[K] = {};
  unsigned i = tid;
  for (; i + (K - 1) * nth < quads; i += K * nth) {
    Vec16<T> a[K];
    for (int k = 0; k < K; ++k) a[k] = q[i + k * nth];
    for (int k = 0; k < K; ++k)
      for (unsigned l = 0; l < L; ++l) p[k].v[l] += a[k].v[l];
  }
  for (; i < quads; i += nth)
    for (unsigned l = 0; l < L; ++l) p[0].v[l] += q[i].v[l];
  for (int k = 1; k < K; ++k)
    for (unsigned l = 0; l < L; ++l) p[0].v[l] += p[k].v[l];
  for (unsigned l = 0; l < L; ++l) s += p[0].v[l];
  return s;
}
#pragma omp end declare target

template <class T, ShareSum<T> share, int R>
T team_sum_r(const T *x, std::size_t n, Launch launch) {
  T *partial = host_partials<T>(launch.teams);
  for (int t = 0; t < launch.teams; ++t) {
#pragma omp atomic write
    partial[t] = T(0);
  }
  if constexpr (R == 0) {
#pragma omp target teams num_teams(launch.teams) thread_limit(launch.threads) map(to : x[0:n]) is_device_ptr(partial)
  {
    T team_total = 0;
#pragma omp parallel
    {
      const Block blk = team_block(n);
      const unsigned tid = static_cast<unsigned>(omp_get_thread_num());
      const unsigned nth = static_cast<unsigned>(omp_get_num_threads());
      const T mine = share(x + blk.lo, blk.len, tid, nth);
#pragma omp atomic update
      team_total += mine;
#pragma omp barrier
      if (tid == 0) {
#pragma omp atomic write
        partial[omp_get_team_num()] = team_total;
      }
    }
  }
  } else if constexpr (R == 1) {
#pragma omp target teams num_teams(launch.teams) thread_limit(launch.threads) map(to : x[0:n]) is_device_ptr(partial)
  {
    T team_total = 0;
#pragma omp parallel
    {
      const Block blk = team_block(n);
      const unsigned nth = static_cast<unsigned>(omp_get_num_threads());
#pragma omp for schedule(static, 1) reduction(+ : team_total)
      for (unsigned t = 0; t < nth; ++t) team_total += share(x + blk.lo, blk.len, t, nth);
      if (omp_get_thread_num() == 0) {
#pragma omp atomic write
        partial[omp_get_team_num()] = team_total;
      }
    }
  }
  } else {
#pragma omp target teams num_teams(launch.teams) thread_limit(launch.threads) map(to : x[0:n]) is_device_ptr(partial)
  {
    T part[1024];
#pragma omp parallel
    {
      const Block blk = team_block(n);
      const unsigned tid = static_cast<unsigned>(omp_get_thread_num());
      const unsigned nth = static_cast<unsigned>(omp_get_num_threads());
      part[tid] = share(x + blk.lo, blk.len, tid, nth);
      for (unsigned h = 512; h > 0; h /= 2) {
#pragma omp barrier
        if (tid < h && tid + h < nth) part[tid] += part[tid + h];
      }
      if (tid == 0) {
#pragma omp atomic write
        partial[omp_get_team_num()] = part[0];
      }
    }
  }
  }
  T total = 0;
  for (int t = 0; t < launch.teams; ++t) {
    T p;
#pragma omp atomic read
    p = partial[t];
    total += p;
  }
  return total;
}
}  // namespace
}  // namespace lesson11

using namespace lesson11;

template <class T, int K, int R>
double run(const T *x, std::size_t n, Launch l, T *out) {
  const double t0 = omp_get_wtime();
  *out = team_sum_r<T, thread_sum_k<T, K>, R>(x, n, l);
  return omp_get_wtime() - t0;
}

int main(int argc, char **argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1ull << 28);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
  std::vector<float> xf(n);
  std::vector<int> xi(n);
  for (std::size_t i = 0; i < n; ++i) { xf[i] = (float)((i * 2654435761u) % 1000) / 1000.0f; xi[i] = (int)((i * 2654435761u) % 2); }
  std::vector<double> xd(n / 2);
  for (std::size_t i = 0; i < n / 2; ++i) xd[i] = xf[i];
  const double *pd = xd.data();
  const float *pf = xf.data();
  const int *pi = xi.data();
  const int sms = course::device_info().multiprocessors;
  struct V { const char *name; int tps; int thr; double (*f)(const float *, const int *, std::size_t, Launch); };
  auto mk = [](int tps, int thr) { return Launch{0, thr}; };
  (void)mk;
  struct Row { std::string name; std::function<double()> f; std::vector<double> t; };
  std::vector<Row> rows;
  float rf = 0; int ri = 0; double rd = 0;
  for (int tps : {4, 8}) for (int thr : {256, 512}) {
    const int teams = std::max(1, std::min<int>(sms * tps, (int)((n + 64 * thr - 1) / (64 * thr))));
    const Launch l{teams, thr};
    char b[96];
    auto add = [&](const char *what, std::function<double()> f) { std::snprintf(b, sizeof b, "%s tps=%d thr=%d", what, tps, thr); rows.push_back({b, f, {}}); };
    add("float K=4 R=atomic", [=, &rf] { return run<float, 4, 0>(pf, n, l, &rf); });
    add("float K=4 R=for-red", [=, &rf] { return run<float, 4, 1>(pf, n, l, &rf); });
    add("float K=4 R=tree", [=, &rf] { return run<float, 4, 2>(pf, n, l, &rf); });
    add("float K=8 R=for-red", [=, &rf] { return run<float, 8, 1>(pf, n, l, &rf); });
    add("float K=8 R=tree", [=, &rf] { return run<float, 8, 2>(pf, n, l, &rf); });
    add("int   K=4 R=atomic", [=, &ri] { return run<int, 4, 0>(pi, n, l, &ri); });
    add("int   K=4 R=for-red", [=, &ri] { return run<int, 4, 1>(pi, n, l, &ri); });
    add("int   K=4 R=tree", [=, &ri] { return run<int, 4, 2>(pi, n, l, &ri); });
    add("dbl   K=4 R=atomic", [=, &rd] { return run<double, 4, 0>(pd, n / 2, l, &rd); });
    add("dbl   K=4 R=for-red", [=, &rd] { return run<double, 4, 1>(pd, n / 2, l, &rd); });
    add("dbl   K=4 R=tree", [=, &rd] { return run<double, 4, 2>(pd, n / 2, l, &rd); });
  }
#pragma omp target data map(to : pf[0:n], pi[0:n], pd[0:n / 2])
  {
    for (auto &r : rows) r.f();  // warm
    for (int k = 0; k < reps; ++k)
      for (auto &r : rows) r.t.push_back(r.f());
  }
  for (auto &r : rows) {
    std::sort(r.t.begin(), r.t.end());
    std::printf("%-28s median %.4f ms  min %.4f ms\n", r.name.c_str(), r.t[r.t.size() / 2] * 1e3, r.t[0] * 1e3);
  }
  double wf = 0; long long wi = 0;
  for (std::size_t i = 0; i < n; ++i) { wf += xf[i]; wi += xi[i]; }
  double wd = 0; for (std::size_t i = 0; i < n / 2; ++i) wd += xd[i];
  std::printf("last float %.6g want %.6g; last int %d want %lld; last double %.10g want %.10g\n", rf, wf, ri, wi, rd, wd);
}
