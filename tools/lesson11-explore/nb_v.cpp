// N-body variant: GX (given kernel: constant tile split), TF (tile_forces form)
#include "g_shared.hpp"
namespace lesson11 { namespace {
#pragma omp begin declare target
constexpr int bodies_per_thread = 8;
inline void TFN(const Body4 *tile, int q0, int q1, Group<bodies_per_thread> &g) {
  constexpr int P = bodies_per_thread;
#if TF == 1 && (defined(__NVPTX__) || defined(__AMDGCN__))
  // GPU: the sums straight into the group's registers
#pragma omp unroll partial(UNR)
  for (int q = q0; q < q1; ++q) {
    const Body4 j = tile[q];
    for (int p = 0; p < P; ++p) pull<fast_inverse_sqrt>(g.x[p], g.y[p], g.z[p], j, g.ax[p], g.ay[p], g.az[p]);
  }
#else
  float ax[P], ay[P], az[P];
  for (int p = 0; p < P; ++p) ax[p] = ay[p] = az[p] = 0.0f;
#if !defined(__NVPTX__) && !defined(__AMDGCN__)
#pragma omp simd reduction(+ : ax, ay, az)
#else
#pragma omp unroll partial(UNR)
#endif
  for (int q = q0; q < q1; ++q) {
    const Body4 j = tile[q];
    for (int p = 0; p < P; ++p) pull<fast_inverse_sqrt>(g.x[p], g.y[p], g.z[p], j, ax[p], ay[p], az[p]);
  }
  for (int p = 0; p < P; ++p) { g.ax[p] += ax[p]; g.ay[p] += ay[p]; g.az[p] += az[p]; }
#endif
}
#pragma omp end declare target
}
void NAME(Bodies in, Moved out, int n) { team_step<bodies_per_thread, TFN>(in, out, n, Launch{}); }
}
