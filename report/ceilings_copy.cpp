// ceilings_copy.cpp -- the copy kernels course_ceilings times (see
// ceilings.hpp): the best OpenMP copy the course can write, in the launch
// shapes the report compares, and STREAM's copy on the host's cores.
#include <omp.h>

#include <algorithm>

#include "ceilings.hpp"
#include "course/device.hpp"

namespace measure {
namespace {

// A 16-byte element: one load and one store instruction move four floats
// (ld.global.v4.f32 on NVIDIA), so each thread keeps more bytes in flight.
struct alignas(16) Vec4 {
  float x, y, z, w;
};

// *to = v and *to = *from, field by field. `*to = *from` would copy the struct as a
// memcpy of 16 bytes, which LLVM 19's NVPTX backend moves as two 8-byte
// loads and stores (SASS: LDG.E.64 twice); by fields it is one 16-byte load
// and one store (LDG.E.128). H100, 2026-11-26: 2.61 TB/s for the struct copy
// against 3.01 for nvcc's float4 copy (docs/results/h100-2026-11-26-sgemm.md).
inline void put16(Vec4 *to, const Vec4 &v) {
  to->x = v.x;
  to->y = v.y;
  to->z = v.z;
  to->w = v.w;
}
inline void copy16(const Vec4 *from, Vec4 *to) { put16(to, *from); }

// SNIPPET(copy-kernel)
// The plain copy: one float per loop iteration, the runtime picks teams and threads.
void copy_default(const float *a, float *b, long long n) {
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 0; i < n; ++i) b[i] = a[i];
}
// END SNIPPET

// Four floats per iteration, a quarter of the array apart: neighbouring
// threads still touch neighbouring addresses, and each has four loads in flight.
void copy_four_per_thread(const float *a, float *b, long long n) {
  const long long q = n / 4;
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 0; i < q; ++i) {
    b[i] = a[i];
    b[i + q] = a[i + q];
    b[i + 2 * q] = a[i + 2 * q];
    b[i + 3 * q] = a[i + 3 * q];
  }
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 4 * q; i < n; ++i) b[i] = a[i];
}

// 256 threads per team, one float per thread.
void copy_256_threads(const float *a, float *b, long long n) {
  const int teams = (int)std::min<long long>((n + 255) / 256, 1LL << 30);
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(256) map(present, to : a[0 : n]) \
    map(present, from : b[0 : n])
  for (long long i = 0; i < n; ++i) b[i] = a[i];
}

// The tail a 16-byte copy leaves when n is not a multiple of 4.
void copy_tail(const float *a, float *b, long long n) {
  const long long from = n / 4 * 4;
  if (from == n) return;
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = from; i < n; ++i) b[i] = a[i];
}

// SNIPPET(vec4-copy)
// 16-byte elements, one per thread, kThreads threads per team: on an H100 this
// reached 80 % of cudaMemcpy where the float copy above reached 29-43 %. The
// loop index is 32 bits wide where the element count fits: with a 64-bit
// index LLVM 19's kernel needs 40 registers instead of 28 and copied 2.49
// TB/s instead of 2.61 (H100, 2026-11-26, docs/results/h100-2026-11-26-sgemm.md).
// (a and b are 64-byte aligned: course::aligned_vector, and the device's own
// allocations are aligned more.)
template <int kThreads>
void copy_vec4(const float *a, float *b, long long n) {
  const long long n4 = n / 4;
  const Vec4 *a4 = reinterpret_cast<const Vec4 *>(a);
  Vec4 *b4 = reinterpret_cast<Vec4 *>(b);
  const int teams = (int)std::max<long long>(1, std::min<long long>((n4 + kThreads - 1) / kThreads, 1LL << 30));
  if (n4 <= 0xffffffffLL) {
    const unsigned m = (unsigned)n4;
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(kThreads) \
    map(present, to : a4[0 : m]) map(present, from : b4[0 : m])
    for (unsigned i = 0; i < m; ++i) copy16(a4 + i, b4 + i);
  } else {
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(kThreads) \
    map(present, to : a4[0 : n4]) map(present, from : b4[0 : n4])
    for (long long i = 0; i < n4; ++i) copy16(a4 + i, b4 + i);
  }
  copy_tail(a, b, n);
}
// END SNIPPET

// 16-byte elements, four per thread a quarter of the array apart: four
// 16-byte loads in flight per thread.
void copy_vec4_four_per_thread(const float *a, float *b, long long n) {
  const long long n4 = n / 4, q = n4 / 4;
  const Vec4 *a4 = reinterpret_cast<const Vec4 *>(a);
  Vec4 *b4 = reinterpret_cast<Vec4 *>(b);
  const int teams = (int)std::max<long long>(1, std::min<long long>((q + 255) / 256, 1LL << 30));
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(256) \
    map(present, to : a4[0 : n4]) map(present, from : b4[0 : n4])
  for (long long i = 0; i < q; ++i) {
    copy16(a4 + i, b4 + i);
    copy16(a4 + i + q, b4 + i + q);
    copy16(a4 + i + 2 * q, b4 + i + 2 * q);
    copy16(a4 + i + 3 * q, b4 + i + 3 * q);
  }
#pragma omp target teams distribute parallel for map(present, to : a4[0 : n4]) map(present, from : b4[0 : n4])
  for (long long i = 4 * q; i < n4; ++i) copy16(a4 + i, b4 + i);
  copy_tail(a, b, n);
}

// 16-byte elements, four loads issued before their four stores, over a grid
// that fits on the device at once (kTeamsPerSm teams of kThreads per SM) and
// strides through the array: lesson 11's several 16-byte loads in flight per
// thread, for a copy. The loads come first in the source, so they stay first
// even if a and b could overlap. Measured on an H100 (2026-11-26) it is the
// slower copy: 1.96 TB/s against 2.48 for one 16-byte element per thread,
// because its 48 registers a thread leave half the warps resident (ncu: 50 %
// warps active, 64 % of DRAM peak against 79 %). Kept as that evidence.
template <int kTeamsPerSm, int kThreads>
void copy_vec4_strided(const float *a, float *b, long long n) {
  const long long n4 = n / 4;
  const Vec4 *a4 = reinterpret_cast<const Vec4 *>(a);
  Vec4 *b4 = reinterpret_cast<Vec4 *>(b);
  const int sms = course::device_info().multiprocessors;
  const int teams = std::max(1, (sms > 0 ? sms : 64) * kTeamsPerSm);
#pragma omp target teams num_teams(teams) thread_limit(kThreads) map(present, to : a4[0 : n4]) \
    map(present, from : b4[0 : n4])
#pragma omp parallel
  {
    const long long nth = (long long)omp_get_num_teams() * omp_get_num_threads();
    long long i = (long long)omp_get_team_num() * omp_get_num_threads() + omp_get_thread_num();
    for (; i + 3 * nth < n4; i += 4 * nth) {
      const Vec4 x0 = a4[i], x1 = a4[i + nth], x2 = a4[i + 2 * nth], x3 = a4[i + 3 * nth];
      put16(b4 + i, x0);
      put16(b4 + i + nth, x1);
      put16(b4 + i + 2 * nth, x2);
      put16(b4 + i + 3 * nth, x3);
    }
    for (; i < n4; i += nth) copy16(a4 + i, b4 + i);
  }
  copy_tail(a, b, n);
}

// The same 16-byte copy with the runtime's launch (the host device grants
// 1-2 threads per team, so explicit shapes are for GPUs).
void copy_vec4_default(const float *a, float *b, long long n) {
  const long long n4 = n / 4;
  const Vec4 *a4 = reinterpret_cast<const Vec4 *>(a);
  Vec4 *b4 = reinterpret_cast<Vec4 *>(b);
#pragma omp target teams distribute parallel for map(present, to : a4[0 : n4]) map(present, from : b4[0 : n4])
  for (long long i = 0; i < n4; ++i) copy16(a4 + i, b4 + i);
  copy_tail(a, b, n);
}

}  // namespace

const std::vector<CopyShape> &copy_shapes() {
  static const std::vector<CopyShape> shapes = {
      {"float, runtime's launch", copy_default, false},
      {"float, 4 per thread", copy_four_per_thread, false},
      {"16-byte elements, runtime's launch", copy_vec4_default, false},
      // On the host device a team is 1-2 threads: explicit shapes only warn there.
      {"float, 256 threads per team", copy_256_threads, true},
      {"16-byte elements, 256 threads per team", copy_vec4<256>, true},
      {"16-byte elements, 512 threads per team", copy_vec4<512>, true},
      {"16-byte elements x 4 per thread, 256 threads per team", copy_vec4_four_per_thread, true},
      {"16-byte elements x 4 in flight, strided grid of 4 x 512 threads per SM", copy_vec4_strided<4, 512>, true},
  };
  return shapes;
}

void copy_host_parallel(const float *a, float *b, long long n) {
#pragma omp parallel for simd schedule(static)
  for (long long i = 0; i < n; ++i) b[i] = a[i];
}

}  // namespace measure
