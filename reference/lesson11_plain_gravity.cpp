// lesson11_plain_gravity.cpp -- lesson 11's baseline of step 11.3
// (lesson11_plain.hpp): the starter's tile_forces in the team kernel of
// lesson11_gravity_shared.hpp, the same kernel as the student's gravity.cpp.
// One file per topic, as the student's: lesson11_plain.hpp says why.
#include "lesson11_plain.hpp"

namespace course::baseline::lesson11 {
namespace {

using ::lesson11::Body4;
using ::lesson11::exact_inverse_sqrt;
using ::lesson11::Group;
using ::lesson11::Launch;
using ::lesson11::pull;

#pragma omp begin declare target

// The starter's tile_forces: one body, an exact 1 / sqrt. The baseline the
// speed tests time the student's code against. On a GPU it is the starter's
// loop as written, the sums kept in the group (a loop with sums of its own
// ran slower on an H200, and step 11.3 undone then beat it by 1.1x); on a CPU
// it also gets the one line that puts the tile's bodies j in the vector
// unit's lanes (`simd reduction`, lesson 3), so that step 11.3 is timed
// against that.
inline void plain_tile_forces(const Body4 *tile, int q0, int q1, Group<1> &g) {
#if defined(__NVPTX__) || defined(__AMDGCN__)
  for (int q = q0; q < q1; ++q) pull<exact_inverse_sqrt>(g.x[0], g.y[0], g.z[0], tile[q], g.ax[0], g.ay[0], g.az[0]);
#else
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma omp simd reduction(+ : ax, ay, az)
  for (int q = q0; q < q1; ++q) pull<exact_inverse_sqrt>(g.x[0], g.y[0], g.z[0], tile[q], ax, ay, az);
  g.ax[0] += ax;
  g.ay[0] += ay;
  g.az[0] += az;
#endif
}

#pragma omp end declare target

}  // namespace

void plain_nbody_step(::lesson11::Bodies in, ::lesson11::Moved out, int n, Launch launch) {
  ::lesson11::team_step<1, plain_tile_forces>(in, out, n, launch);
}

}  // namespace course::baseline::lesson11
