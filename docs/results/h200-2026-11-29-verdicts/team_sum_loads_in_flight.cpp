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
}  // namespace
}  // namespace lesson11

using namespace lesson11;

template <class T, int K>
double run(const T *x, std::size_t n, Launch l, T *out) {
  const double t0 = omp_get_wtime();
  *out = team_sum<T, thread_sum_k<T, K>>(x, n, l);
  return omp_get_wtime() - t0;
}

int main(int argc, char **argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1ull << 28);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
  std::vector<float> xf(n);
  std::vector<int> xi(n);
  for (std::size_t i = 0; i < n; ++i) { xf[i] = (float)((i * 2654435761u) % 1000) / 1000.0f; xi[i] = (int)((i * 2654435761u) % 2); }
  const float *pf = xf.data();
  const int *pi = xi.data();
  const int sms = course::device_info().multiprocessors;
  struct V { const char *name; int tps; int thr; double (*f)(const float *, const int *, std::size_t, Launch); };
  auto mk = [](int tps, int thr) { return Launch{0, thr}; };
  (void)mk;
  struct Row { std::string name; std::function<double()> f; std::vector<double> t; };
  std::vector<Row> rows;
  float rf = 0; int ri = 0;
  for (int tps : {4, 8, 16}) for (int thr : {256, 512}) {
    const int teams = std::max(1, std::min<int>(sms * tps, (int)((n + 64 * thr - 1) / (64 * thr))));
    const Launch l{teams, thr};
    char b[96];
    auto add = [&](const char *what, std::function<double()> f) { std::snprintf(b, sizeof b, "%s tps=%d thr=%d", what, tps, thr); rows.push_back({b, f, {}}); };
    add("float K=2", [=, &rf] { return run<float, 2>(pf, n, l, &rf); });
    add("float K=4", [=, &rf] { return run<float, 4>(pf, n, l, &rf); });
    add("float K=8", [=, &rf] { return run<float, 8>(pf, n, l, &rf); });
    add("int   K=2", [=, &ri] { return run<int, 2>(pi, n, l, &ri); });
    add("int   K=4", [=, &ri] { return run<int, 4>(pi, n, l, &ri); });
    add("int   K=8", [=, &ri] { return run<int, 8>(pi, n, l, &ri); });
  }
#pragma omp target data map(to : pf[0:n], pi[0:n])
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
  std::printf("last float %.6g want %.6g; last int %d want %lld\n", rf, wf, ri, wi);
}
