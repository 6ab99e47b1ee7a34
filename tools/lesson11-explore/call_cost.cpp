// call_cost (exploration, not part of the course): what one synchronous target
// region costs the host beyond its kernel, on LLVM's offload runtime. Lesson 11's
// per-call figures put 20-60 us between a call and its kernel (ncu) where a CUDA
// launch and cudaDeviceSynchronize cost a few us; which part is the launch and
// wait, and which the mapped arrays that are already present?
//
// Each form launches the same near-empty kernel (256 teams x 256 threads, one
// thread per team stores one float), data resident (target enter data), and is
// timed on the host steady clock per call, median and minimum of R calls after
// 50 warm-ups, the forms interleaved round by round so that drift hits all:
//   no maps        the arrays' device addresses taken once (omp_get_mapped_ptr),
//                  passed by is_device_ptr: launch and wait alone
//   3 present      map(to:) two arrays, map(from:) one (SGEMM's A, B, C)
//   13 present     map(to:) 7, map(from:) 6 (N-body's team_step)
//   13 + parallel  the same maps, target teams with a parallel inside (team_step's shape)
//   no maps + par  is_device_ptr, the same shape
//   call_cost [--reps R] [--rounds K]   (defaults 400, 5)
// Prints one line per form: median, min and p90 in microseconds. Exit 1 if a kernel
// did not write what it should.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kArrays = 13, kTeams = 256, kThreads = 256;
constexpr long kN = 1 << 20;

using Clock = std::chrono::steady_clock;

struct Form {
  const char *name;
  void (*call)(float *const *h, float *const *d, float v);
  std::vector<double> us;
};

// The kernels: team t's thread 0 stores v into out[t]; out is array 12. Each form
// writes its body out: the same body as a shared declare-target function changes
// the kernel (clang 19 then compiles present13 in another execution mode).
void no_maps(float *const *, float *const *d, float v) {
  float *o = d[12];
#pragma omp target teams num_teams(kTeams) thread_limit(kThreads) is_device_ptr(o)
  if (omp_get_thread_num() == 0) o[omp_get_team_num()] = v;
}

void present3(float *const *h, float *const *, float v) {
  const float *a = h[0], *b = h[1];
  float *o = h[12];
#pragma omp target teams num_teams(kTeams) thread_limit(kThreads) map(to : a[0:kN], b[0:kN]) map(from : o[0:kN])
  if (omp_get_thread_num() == 0) o[omp_get_team_num()] = v + 0.0f * (a[0] + b[0]);
}

void present13(float *const *h, float *const *, float v) {
  const float *a0 = h[0], *a1 = h[1], *a2 = h[2], *a3 = h[3], *a4 = h[4], *a5 = h[5], *a6 = h[6];
  float *o0 = h[7], *o1 = h[8], *o2 = h[9], *o3 = h[10], *o4 = h[11], *o = h[12];
#pragma omp target teams num_teams(kTeams) thread_limit(kThreads) \
    map(to : a0[0:kN], a1[0:kN], a2[0:kN], a3[0:kN], a4[0:kN], a5[0:kN], a6[0:kN]) \
    map(from : o0[0:kN], o1[0:kN], o2[0:kN], o3[0:kN], o4[0:kN], o[0:kN])
  if (omp_get_thread_num() == 0) {
    o[omp_get_team_num()] = v + 0.0f * (a0[0] + a1[0] + a2[0] + a3[0] + a4[0] + a5[0] + a6[0]);
    if (v < 0) o0[0] = o1[0] = o2[0] = o3[0] = o4[0] = v;  // never: keeps the arrays in use
  }
}

void present13_par(float *const *h, float *const *, float v) {
  const float *a0 = h[0], *a1 = h[1], *a2 = h[2], *a3 = h[3], *a4 = h[4], *a5 = h[5], *a6 = h[6];
  float *o0 = h[7], *o1 = h[8], *o2 = h[9], *o3 = h[10], *o4 = h[11], *o = h[12];
#pragma omp target teams num_teams(kTeams) thread_limit(kThreads) \
    map(to : a0[0:kN], a1[0:kN], a2[0:kN], a3[0:kN], a4[0:kN], a5[0:kN], a6[0:kN]) \
    map(from : o0[0:kN], o1[0:kN], o2[0:kN], o3[0:kN], o4[0:kN], o[0:kN])
  {
#pragma omp parallel
    if (omp_get_thread_num() == 0) {
      o[omp_get_team_num()] = v + 0.0f * (a0[0] + a1[0] + a2[0] + a3[0] + a4[0] + a5[0] + a6[0]);
      if (v < 0) o0[0] = o1[0] = o2[0] = o3[0] = o4[0] = v;
    }
  }
}

void no_maps_par(float *const *, float *const *d, float v) {
  const float *a0 = d[0], *a1 = d[1], *a2 = d[2], *a3 = d[3], *a4 = d[4], *a5 = d[5], *a6 = d[6];
  float *o0 = d[7], *o1 = d[8], *o2 = d[9], *o3 = d[10], *o4 = d[11], *o = d[12];
#pragma omp target teams num_teams(kTeams) thread_limit(kThreads) \
    is_device_ptr(a0, a1, a2, a3, a4, a5, a6, o0, o1, o2, o3, o4, o)
  {
#pragma omp parallel
    if (omp_get_thread_num() == 0) {
      o[omp_get_team_num()] = v + 0.0f * (a0[0] + a1[0] + a2[0] + a3[0] + a4[0] + a5[0] + a6[0]);
      if (v < 0) o0[0] = o1[0] = o2[0] = o3[0] = o4[0] = v;
    }
  }
}

long arg(int argc, char **argv, const char *name, long def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], name)) {
      char *e;
      const long v = std::strtol(argv[i + 1], &e, 10);
      if (*e || v < 1) {
        std::fprintf(stderr, "call_cost: %s needs a positive integer, got '%s'\n", name, argv[i + 1]);
        std::exit(2);
      }
      return v;
    }
  return def;
}

}  // namespace

int main(int argc, char **argv) {
  const long reps = arg(argc, argv, "--reps", 400), rounds = arg(argc, argv, "--rounds", 5);
  const int dev = omp_get_default_device();
  std::vector<std::vector<float>> store(kArrays, std::vector<float>(kN, 1.0f));
  float *h[kArrays], *d[kArrays];
  for (int k = 0; k < kArrays; ++k) {
    h[k] = store[k].data();
    float *p = h[k];
#pragma omp target enter data map(to : p[0:kN])
    d[k] = static_cast<float *>(omp_get_mapped_ptr(p, dev));
    if (!d[k]) {
      std::fprintf(stderr, "call_cost: array %d has no device address\n", k);
      return 1;
    }
  }
  std::vector<Form> forms = {{"no maps (is_device_ptr)", no_maps, {}},
                             {"3 present maps", present3, {}},
                             {"13 present maps", present13, {}},
                             {"13 present maps, parallel inside", present13_par, {}},
                             {"no maps, parallel inside", no_maps_par, {}}};
  std::printf("device %d of %d, %d teams x %d threads, %ld calls x %ld rounds per form\n", dev,
              omp_get_num_devices(), kTeams, kThreads, reps, rounds);
  for (Form &f : forms)
    for (int i = 0; i < 50; ++i) f.call(h, d, 1.0f);
  float v = 2.0f;
  for (long r = 0; r < rounds; ++r)
    for (Form &f : forms)
      for (long i = 0; i < reps; ++i) {
        const auto t0 = Clock::now();
        f.call(h, d, v);
        f.us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
  // Did the kernels run? The last form wrote v to every team's slot of array 12.
  float *o = h[12];
#pragma omp target update from(o[0:kTeams])
  for (int t = 0; t < kTeams; ++t)
    if (o[t] != v) {
      std::fprintf(stderr, "call_cost: FAIL: team %d wrote %g, not %g\n", t, o[t], v);
      return 1;
    }
  for (Form &f : forms) {
    std::sort(f.us.begin(), f.us.end());
    std::printf("  %-36s median %7.2f us   min %7.2f us   p90 %7.2f us\n", f.name, f.us[f.us.size() / 2],
                f.us.front(), f.us[f.us.size() * 9 / 10]);
  }
  std::printf("PASS\n");
  return 0;
}
