// Exploration harness (not part of the course): SGEMM and N-body
// variants, data resident, median of REPS calls timed with omp_get_wtime.
#include <omp.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "lesson11_gravity_shared.hpp"
namespace lesson11 {
bool v0(int, const float *, const float *, float *);
bool v1(int, const float *, const float *, float *);
bool v2(int, const float *, const float *, float *);
bool v3(int, const float *, const float *, float *);
bool v6(int, const float *, const float *, float *);
bool v7(int, const float *, const float *, float *);
bool v8(int, const float *, const float *, float *);
void nbA(Bodies, Moved, int); void nbB(Bodies, Moved, int); void nbC(Bodies, Moved, int); void nbD(Bodies, Moved, int);
void nbE(Bodies, Moved, int); void nbF(Bodies, Moved, int); void nbG(Bodies, Moved, int); void nbH(Bodies, Moved, int);
}
using namespace lesson11;
static int reps = 20;
template <class F> double med(F f) {
  f(); f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) { double a = omp_get_wtime(); f(); t.push_back(omp_get_wtime() - a); }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2] * 1e3;
}
int main(int argc, char **argv) {
  std::string what = argc > 1 ? argv[1] : "all";
  if (const char *r = std::getenv("REPS")) reps = std::atoi(r);
  int fails = 0;
  if (what == "all" || what == "gemm") {
    const int n = 4096; const std::size_t nn = (std::size_t)n * n;
    std::vector<float> HA(nn), HB(nn), HC(nn), R0(nn);
    for (std::size_t i = 0; i < nn; ++i) { HA[i] = (float)((i * 2654435761u) % 2001) / 1000.f - 1.f; HB[i] = (float)((i * 40503u + 7) % 2001) / 1000.f - 1.f; }
    float *A = HA.data(), *B = HB.data(), *C = HC.data();
#pragma omp target enter data map(to : A[0:nn], B[0:nn]) map(alloc : C[0:nn])
    struct V { const char *name; bool (*f)(int, const float *, const float *, float *); };
    V vs[] = {{"v0 course 16x8 k16", v0}, {"v1 dbuf k8", v1}, {"v2 frag prefetch", v2}, {"v3 dbuf k8 warp4x8", v3}, {"v6 dbuf k12", v6}, {"v8 dbuf k8 dyn smem", v8}, {"v0 again", v0}, {"v1 again", v1}};
    for (auto &v : vs) {
#pragma omp target teams distribute parallel for map(present, from : C[0:nn])
      for (std::size_t i = 0; i < nn; ++i) C[i] = NAN;
      bool ok = v.f(n, A, B, C);
      const double ms = med([&] { v.f(n, A, B, C); });
#pragma omp target update from(C[0:nn])
      int bad = 0;
      for (int s = 0; s < 256; ++s) {
        const int i = (int)((s * 2654435761u) % n), j = (int)((s * 40503u + 11) % n);
        double ref = 0, mag = 0;
        for (int k = 0; k < n; ++k) { const double p = (double)HA[(std::size_t)i * n + k] * HB[(std::size_t)k * n + j]; ref += p; mag += std::fabs(p); }
        if (!(std::fabs(HC[(std::size_t)i * n + j] - ref) <= 1e-5 * std::sqrt((double)n) * mag + 1e-30)) ++bad;
      }
      ok = ok && bad == 0; fails += !ok;
      std::printf("sgemm,%s,%d,%.4f ms,%.1f GFLOP/s,%s\n", v.name, n, ms, 2.0 * n * (double)n * n / ms / 1e6, ok ? "ok" : "FAIL");
      std::fflush(stdout);
    }
#pragma omp target exit data map(delete : A[0:nn], B[0:nn], C[0:nn])
  }
  if (what == "all" || what == "nbody") {
    const int n = 65536;
    std::vector<float> in[7], out[6], ref[6];
    for (auto &v : in) v.resize(n);
    for (auto &v : out) v.resize(n);
    for (int i = 0; i < n; ++i) {
      unsigned h = i * 2654435761u;
      in[0][i] = (h % 2000) / 1000.f - 1; in[1][i] = ((h >> 11) % 2000) / 1000.f - 1; in[2][i] = ((h >> 7) % 1999) / 1000.f - 1;
      in[3][i] = 0.5f + (h % 97) / 97.f; in[4][i] = in[5][i] = in[6][i] = 0;
    }
    float *x = in[0].data(), *y = in[1].data(), *z = in[2].data(), *m = in[3].data(), *vx = in[4].data(), *vy = in[5].data(), *vz = in[6].data();
    float *xo = out[0].data(), *yo = out[1].data(), *zo = out[2].data(), *vxo = out[3].data(), *vyo = out[4].data(), *vzo = out[5].data();
#pragma omp target enter data map(to : x[0:n], y[0:n], z[0:n], m[0:n], vx[0:n], vy[0:n], vz[0:n]) map(alloc : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
    Bodies b{x, y, z, m, vx, vy, vz}; Moved mo{xo, yo, zo, vxo, vyo, vzo};
    struct V { const char *name; void (*f)(Bodies, Moved, int); };
    V vs[] = {{"A course", nbA}, {"B 4-tile const", nbB}, {"C 2-tile const unroll8", nbC}, {"D const split", nbD}, {"E 2-tile const unroll2", nbE}, {"F const+unroll8", nbF}, {"G 2-tile const", nbG}, {"H const+unroll2", nbH}, {"A again", nbA}, {"D again", nbD}};
    bool first = true;
    for (auto &v : vs) {
      v.f(b, mo, n);
      const double ms = med([&] { v.f(b, mo, n); });
#pragma omp target update from(vxo[0:n], vyo[0:n], vzo[0:n])
      double worst = 0;
      if (first) { ref[0] = out[3]; ref[1] = out[4]; ref[2] = out[5]; first = false; }
      for (int k = 0; k < 3; ++k) for (int i = 0; i < n; ++i) worst = std::max(worst, (double)std::fabs(out[3 + k][i] - ref[k][i]) / (std::fabs(ref[k][i]) + 1e-3));
      const bool ok = worst < 1e-2; fails += !ok;
      const double gf = 20.0 * n * (double)n / ms / 1e6;
      std::printf("nbody,%s,%d,%.4f ms,%.1f GFLOP/s,worst rel %.2e,%s\n", v.name, n, ms, gf, worst, ok ? "ok" : "FAIL");
      std::fflush(stdout);
    }
#pragma omp target exit data map(delete : x[0:n], y[0:n], z[0:n], m[0:n], vx[0:n], vy[0:n], vz[0:n], xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  }
  std::printf("%s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
