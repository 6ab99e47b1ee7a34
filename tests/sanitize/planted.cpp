// planted.cpp -- bugs planted on purpose, one per argument, to prove that the
// sanitize tests' tools see inside target regions on the host-offload device.
// If a sanitizer's instrumentation silently went missing (device image built
// without it, tool library not loaded), every lesson would pass its sanitize
// test; the tests "sanitize: ... catches a planted ..." would then fail.
//   sanitize_planted oob-read | oob-write | missing-barrier
// Built only in a COURSE_SANITIZE build (cmake/CourseSanitize.cmake).
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

// Reads one element past the end of a mapped input: the device copy of `in`
// is a heap block of exactly n floats, so AddressSanitizer reports a
// heap-buffer-overflow READ inside the target region.
int oob_read(int n) {
  std::vector<float> in(n, 1.f), out(n, 0.f);
  const float *a = in.data();
  float *b = out.data();
  const int past = n;  // reads a[i + 1]: the last iteration is out of bounds
#pragma omp target teams distribute parallel for map(to : a[0:n]) map(from : b[0:n])
  for (int i = 0; i < past; ++i) b[i] = a[i + 1];
  std::printf("oob-read finished without a report (b[0] = %g)\n", b[0]);
  return 0;
}

// Writes one element past the end of a mapped output (a `<=` loop bound).
int oob_write(int n) {
  std::vector<float> out(n, 0.f);
  float *b = out.data();
#pragma omp target teams distribute parallel for map(from : b[0:n])
  for (int i = 0; i <= n; ++i) b[i] = (float)i;
  std::printf("oob-write finished without a report (b[0] = %g)\n", b[0]);
  return 0;
}

// Lesson 5's mistake: threads of a team fill a team-local array, then read
// elements other threads wrote, with no barrier in between. ThreadSanitizer
// with Archer reports the race whenever the team has two threads or more,
// however the threads happened to interleave in this run.
int missing_barrier(int n) {
  std::vector<float> out(n, 0.f);
  float *b = out.data();
  int threads = 0;
#pragma omp target teams num_teams(1) thread_limit(64) map(from : b[0:n], threads)
  {
    float tile[64];
#pragma omp parallel num_threads(64)
    {
      const int nth = omp_get_num_threads(), tid = omp_get_thread_num();
      if (tid == 0) threads = nth;
      for (int e = tid; e < n; e += nth) tile[e] = (float)e;
      // (the barrier that belongs here is missing)
      for (int e = tid; e < n; e += nth) b[e] = tile[n - 1 - e];
    }
  }
  std::printf("missing-barrier finished without a report (%d threads in the team)\n", threads);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const int n = 64;
  if (argc == 2 && !std::strcmp(argv[1], "oob-read")) return oob_read(n);
  if (argc == 2 && !std::strcmp(argv[1], "oob-write")) return oob_write(n);
  if (argc == 2 && !std::strcmp(argv[1], "missing-barrier")) return missing_barrier(n);
  std::fprintf(stderr, "usage: %s oob-read | oob-write | missing-barrier\n", argv[0]);
  return 2;
}
