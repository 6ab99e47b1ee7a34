// lesson11_plain.cpp -- lesson 11's baselines (lesson11_plain.hpp): the
// starter's per-thread code, each in the same team kernel as the student's
// (the templates of reference/lesson11_*_shared.hpp), instantiated here.
#include "lesson11_plain.hpp"

#include <omp.h>

#include <cstddef>

namespace course::baseline::lesson11 {
namespace {

using ::lesson11::bin_of;
using ::lesson11::Body4;
using ::lesson11::exact_inverse_sqrt;
using ::lesson11::GemmShape;
using ::lesson11::Group;
using ::lesson11::Launch;
using ::lesson11::pull;
using ::lesson11::Vec4;

#pragma omp begin declare target

// One element per thread per step: the starter's loops, kept as the
// baseline the speed tests time the student's code against. On a CPU the
// sum's loop also gets the one line that lets the compiler use the vector
// unit (`simd reduction`, lesson 3), so that step 11.1 is timed against that
// and not against a loop the compiler may not reorder. On a GPU the threads
// are the lanes and LLVM 19 gains nothing from the clause: the plain loop
// there.
template <class T>
T plain_thread_sum(const T *b, unsigned len, unsigned tid, unsigned nth) {
  T s = 0;
#if !defined(__NVPTX__) && !defined(__AMDGCN__)
#pragma omp simd reduction(+ : s)
#endif
  for (unsigned i = tid; i < len; i += nth) s += b[i];
  return s;
}

void plain_thread_count(const float *b, unsigned len, unsigned tid, unsigned nth, int *bins) {
  for (unsigned i = tid; i < len; i += nth) {
    const int k = bin_of(b[i]);
#pragma omp atomic update
    bins[k] += 1;
  }
}

// The starter's tile_forces: one body, an exact 1 / sqrt. The baseline the
// speed tests time the student's code against. On a CPU it also gets the one
// line that puts the tile's bodies j in the vector unit's lanes (`simd
// reduction`, lesson 3), so that step 11.3 is timed against that; on a GPU
// the threads are the lanes: the plain loop there.
inline void plain_tile_forces(const Body4 *tile, int q0, int q1, Group<1> &g) {
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
#if !defined(__NVPTX__) && !defined(__AMDGCN__)
#pragma omp simd reduction(+ : ax, ay, az)
#endif
  for (int q = q0; q < q1; ++q) pull<exact_inverse_sqrt>(g.x[0], g.y[0], g.z[0], tile[q], ax, ay, az);
  g.ax[0] += ax;
  g.ay[0] += ay;
  g.az[0] += az;
}

// The starter's product for lesson 5's 8 x 8 tile: the baseline's.
[[gnu::always_inline]] inline void plain_multiply_tile(float (&acc)[8][8], const GemmShape<8>::TileA &As,
                                                       const GemmShape<8>::TileB &Bs, int ty, int tx) {
  using S = GemmShape<8>;
#pragma omp unroll full
  for (int k = 0; k < S::BK; ++k) {
    const Vec4 a0 = As[k][ty], a1 = As[k][S::TY + ty], b0 = Bs[k][tx], b1 = Bs[k][S::TX + tx];
    const float a[8] = {a0.v[0], a0.v[1], a0.v[2], a0.v[3], a1.v[0], a1.v[1], a1.v[2], a1.v[3]};
    const float b[8] = {b0.v[0], b0.v[1], b0.v[2], b0.v[3], b1.v[0], b1.v[1], b1.v[2], b1.v[3]};
#pragma omp unroll full
    for (int r = 0; r < 8; ++r)
#pragma omp unroll full
      for (int c = 0; c < 8; ++c) acc[r][c] += a[r] * b[c];
  }
}

#pragma omp end declare target

}  // namespace

float plain_sum(const float *x, std::size_t n, Launch launch) {
  return ::lesson11::team_sum<float, plain_thread_sum<float>>(x, n, launch);
}
int plain_sum(const int *x, std::size_t n, Launch launch) {
  return ::lesson11::team_sum<int, plain_thread_sum<int>>(x, n, launch);
}
double plain_sum(const double *x, std::size_t n, Launch launch) {
  return ::lesson11::team_sum<double, plain_thread_sum<double>>(x, n, launch);
}
void plain_histogram(const float *x, std::size_t n, int *hist, Launch launch) {
  ::lesson11::team_histogram<plain_thread_count>(x, n, hist, launch);
}
void plain_nbody_step(::lesson11::Bodies in, ::lesson11::Moved out, int n, Launch launch) {
  ::lesson11::team_step<1, plain_tile_forces>(in, out, n, launch);
}
void plain_matmul(int n, const float *A, const float *B, float *C) {
  ::lesson11::gemm<8, plain_multiply_tile>(n, A, B, C);
}

}  // namespace course::baseline::lesson11
