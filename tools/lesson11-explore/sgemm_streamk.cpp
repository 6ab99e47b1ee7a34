// sgemm_streamk (exploration, not part of the course): lesson 11's SGEMM
// (the solution's matmul: gemm_exact with its multiply_tile,
// reference/lesson11_gemm_shared.hpp) against a stream-K split of the same
// kernel (sgemm_streamk_kernel.cpp).
//
// Why: at n = 4096 the H200 runs the course's kernel in 3.000 ms against
// cuBLAS's 2.716 ms (89.0 %; the goal is 90 %). The kernel holds 249
// registers x 256 threads, one team per SM; 256 x 128 tiles make 512 teams
// for 132 SMs, 3.88 waves: the last wave leaves 12 % of the SMs idle, about
// 3 % of the kernel's time. The variant launches one team per SM and gives
// each an equal contiguous range of (tile, k-trip) units, so every SM does
// the same number of k-trips (+-1); tiles split between teams are summed
// through device scratch (sgemm_streamk_kernel.cpp says how).
//
// The current kernel is the solution's matmul itself: this file includes
// solutions/11-matching-the-vendor/gemm.cpp (multiply_tile and gemm.inc's
// matmul), compiled with the course's flags. The variant includes the same
// file (without gemm.inc), so it inlines the same multiply_tile.
//
//   sgemm_streamk [--n 1,97,1000,4099,4096] [--teams L] [--reps R] [--dp-waves W]
// L: the stream-K league (default: the device's multiprocessors on a GPU,
// the host's processors on the host device). W (default 0, pure stream-K):
// whole-tile waves handed out first as gemm_exact does, the split only for
// the tiles after them (the hybrid CUTLASS's stream-K defaults to; see
// README.md). Checks C of both kernels
// against a double-precision product with the course's bound
// (tests/lesson11_matching_the_vendor.cpp's check_gemm: course::check_close
// with matmul_tolerance(n), common/include/course/verify.hpp), after the
// first call and after the timed calls (the scratch must be clean between
// calls), then that the scratch and the tickets are all zero. Times the
// median of R calls (default 20) of each, data resident, omp_get_wtime (as
// main.cpp), in the order current, stream-K, current, stream-K. Prints CSV
// lines and PASS (exit 0) or FAIL (exit 1); bad arguments: one line, exit 2.
#include "../../solutions/11-matching-the-vendor/gemm.cpp"

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "course/data.hpp"
#include "course/device.hpp"
#include "course/verify.hpp"
#include "sgemm_streamk.hpp"

using namespace lesson11;

namespace {

// An int >= lo from s, the whole of it; false otherwise.
bool at_least(const std::string &s, int lo, int &out) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  errno = 0;
  char *e = nullptr;
  const long v = std::strtol(s.c_str(), &e, 10);
  if (errno != 0 || *e != '\0' || v < lo || v > INT_MAX) return false;
  out = static_cast<int>(v);
  return true;
}
bool positive(const std::string &s, int &out) { return at_least(s, 1, out); }

// Comma-separated positive ints, at least one; false on anything else.
bool positive_list(const std::string &s, std::vector<int> &out) {
  out.clear();
  std::size_t p = 0;
  while (true) {
    const std::size_t q = s.find(',', p);
    int v;
    if (!positive(s.substr(p, q == std::string::npos ? std::string::npos : q - p), v)) return false;
    out.push_back(v);
    if (q == std::string::npos) return true;
    p = q + 1;
  }
}

struct Set {
  int n;
  std::vector<float> A, B, C;
  std::vector<double> ref;
  explicit Set(int n_) : n(n_) {
    const auto nn = static_cast<std::size_t>(n) * n;
    // Entries in [-1, 1), as the tests' GemmSet.
    A = course::random_vector<float>(nn, 300 + static_cast<std::uint64_t>(n), -1.0f, 1.0f);
    B = course::random_vector<float>(nn, 400 + static_cast<std::uint64_t>(n), -1.0f, 1.0f);
    C.assign(nn, std::numeric_limits<float>::quiet_NaN());
    ref.assign(nn, 0.0);
    double *r = ref.data();
    const float *a = A.data(), *b = B.data();
    const int m = n;
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < m; ++i)
      for (int k = 0; k < m; ++k) {
        const double aik = a[static_cast<std::size_t>(i) * m + k];
        const float *bk = b + static_cast<std::size_t>(k) * m;
        double *ri = r + static_cast<std::size_t>(i) * m;
        for (int j = 0; j < m; ++j) ri[j] += aik * bk[j];
      }
  }
  // C poisoned (NaN) on the host and on the device: a call must write every entry.
  void poison() {
    std::fill(C.begin(), C.end(), std::numeric_limits<float>::quiet_NaN());
    float *c = C.data();
    const std::size_t nn = C.size();
#pragma omp target update to(c[0:nn])
  }
  const std::vector<float> &fetch() {
    float *c = C.data();
    const std::size_t nn = C.size();
#pragma omp target update from(c[0:nn])
    return C;
  }
};

// "" or what breaks the course's bound.
std::string check(const Set &s, const std::string &what) {
  const course::Check c = course::check_close<float>(std::span<const float>(s.C), std::span<const double>(s.ref),
                                                     course::matmul_tolerance(s.n), what);
  return c.ok ? "" : c.message;
}

int reps = 20;
template <class F>
double med(F f) {
  f();
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double a = omp_get_wtime();
    f();
    t.push_back(omp_get_wtime() - a);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2] * 1e3;
}

}  // namespace

int main(int argc, char **argv) {
  const course::DeviceInfo &dev = course::device_info();
  std::vector<int> ns = {1, 97, 1000, 4099, 4096};
  int teams = dev.is_gpu() ? dev.multiprocessors : omp_get_num_procs();
  int dp_waves = 0;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a != "--n" && a != "--teams" && a != "--reps" && a != "--dp-waves") {
      std::fprintf(stderr,
                   "sgemm_streamk: unknown argument '%s' (usage: %s [--n N,N,...] [--teams L] [--reps R] [--dp-waves W])\n",
                   a.c_str(), argv[0]);
      return 2;
    }
    if (k + 1 >= argc) {
      std::fprintf(stderr, "sgemm_streamk: %s needs a value\n", a.c_str());
      return 2;
    }
    const std::string v = argv[++k];
    const bool ok = a == "--n"          ? positive_list(v, ns)
                    : a == "--dp-waves" ? at_least(v, 0, dp_waves)
                                        : positive(v, a == "--teams" ? teams : reps);
    if (!ok) {
      std::fprintf(stderr, "sgemm_streamk: %s '%s': want %s\n", a.c_str(), v.c_str(),
                   a == "--n"          ? "positive sizes separated by commas"
                   : a == "--dp-waves" ? "an integer >= 0"
                                       : "a positive integer");
      return 2;
    }
  }
  if (teams < 1) {  // a GPU that reported no multiprocessors
    std::fprintf(stderr, "sgemm_streamk: the device reports no multiprocessors: give --teams\n");
    return 2;
  }
  std::printf("%s\n", course::device_banner().c_str());
  std::printf("register tile %d x 8; stream-K asks %d teams x %d threads, %d whole-tile waves first; reps %d\n",
              gemm_rows_per_thread, teams, GemmShape<gemm_rows_per_thread>::THREADS, dp_waves, reps);
  std::printf("csv: kernel,n,teams got,threads got,path,median ms per call,GFLOP/s,relative error,check\n");
  int fails = 0;
  for (const int n : ns) {
    Set s(n);
    float *a = s.A.data(), *b = s.B.data(), *c = s.C.data();
    const std::size_t nn = s.C.size();
#pragma omp target enter data map(to : a[0:nn], b[0:nn], c[0:nn])
    const auto cur = [&] { matmul(n, a, b, c); };
    const auto sk = [&] { streamk_gemm(n, a, b, c, teams, dp_waves); };
    double err[2] = {0, 0};  // relative error of the last checked C: current, stream-K
    const auto run_check = [&](const auto &f, const char *name, const char *when) {
      s.poison();
      f();
      s.fetch();
      err[name[0] == 's'] = course::check_close<float>(std::span<const float>(s.C), std::span<const double>(s.ref),
                                                      course::matmul_tolerance(n), "").error;
      const std::string e = check(s, "n=" + std::to_string(n) + " " + name + ", " + when);
      if (!e.empty()) std::printf("FAIL %s\n", e.c_str()), ++fails;
      return e.empty();
    };
    bool ok_cur = run_check(cur, "current", "first call");
    bool ok_sk = run_check(sk, "streamk", "first call");
    int info[3] = {0, 0, 0};
    const StreamKScratch &sc = streamk_scratch(n);
    omp_target_memcpy(info, sc.info, sizeof info, 0, 0, omp_get_initial_device(), sc.dev);
    double ms[4];
    ms[0] = med(cur);
    ms[1] = med(sk);
    ms[2] = med(cur);
    ms[3] = med(sk);
    // After 2 x (reps + 2) + 1 calls of each: still right (the scratch clean between calls).
    ok_cur = run_check(cur, "current", "after the timed calls") && ok_cur;
    ok_sk = run_check(sk, "streamk", "after the timed calls") && ok_sk;
    {
      std::vector<float> part(static_cast<std::size_t>(sc.floats));
      std::vector<int> ticket(static_cast<std::size_t>(sc.tiles));
      omp_target_memcpy(part.data(), sc.part, sizeof(float) * part.size(), 0, 0, omp_get_initial_device(), sc.dev);
      omp_target_memcpy(ticket.data(), sc.ticket, sizeof(int) * ticket.size(), 0, 0, omp_get_initial_device(),
                        sc.dev);
      const long long dirty_p = std::count_if(part.begin(), part.end(), [](float v) { return v != 0.0f; });
      const long long dirty_t = std::count_if(ticket.begin(), ticket.end(), [](int v) { return v != 0; });
      if (dirty_p != 0 || dirty_t != 0) {
        std::printf("FAIL n=%d streamk: scratch not zero after the calls (%lld of %lld partial sums, %lld of %d tickets)\n",
                    n, dirty_p, sc.floats, dirty_t, sc.tiles);
        ++fails;
        ok_sk = false;
      }
    }
    const double gf = 2.0 * n * static_cast<double>(n) * n / 1e6;  // GFLOP per ms
    const int cur_tiles = ((n + 255) / 256) * ((n + 127) / 128);
    const auto row = [&](const char *name, int tg, int th, const char *path, double m, const char *ok) {
      std::printf("csv: %s,%d,%d,%d,%s,%.4f,%.1f,%.3g,%s\n", name, n, tg, th, path, m, gf / m, err[name[0] == 's'], ok);
      std::fflush(stdout);
    };
    const char *skpath = info[2] == 1 ? "256 threads" : "any threads";
    // The current kernel's launch: one team per tile (what it got is not reported back).
    row("current", cur_tiles, 256, "gemm", ms[0], ok_cur ? "ok" : "FAIL");
    row("streamk", info[0], info[1], skpath, ms[1], ok_sk ? "ok" : "FAIL");
    row("current again", cur_tiles, 256, "gemm", ms[2], ok_cur ? "ok" : "FAIL");
    row("streamk again", info[0], info[1], skpath, ms[3], ok_sk ? "ok" : "FAIL");
    const double cm = std::min(ms[0], ms[2]), km = std::min(ms[1], ms[3]);
    std::printf("n=%d: current / streamk per call %.4f (better medians %.4f / %.4f ms)%s\n", n, cm / km, cm, km,
                dev.is_gpu() ? "" : " (host device: times mean nothing)");
#pragma omp target exit data map(delete : a[0:nn], b[0:nn], c[0:nn])
  }
  std::printf("%s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
