// nb_balanced.hpp (exploration, not part of the course): what the harness
// nb_balanced.cpp calls in nb_balanced_kernel.cpp.
#pragma once

#include "lesson11_gravity_shared.hpp"

namespace lesson11 {

// Device scratch of the balanced kernel, made once per n (and device), kept
// across calls; all zero between calls: acc[3 * i + c] the partial
// accelerations of body i, cnt[b] the tiles of block b done so far,
// info[0:2] the league and team size the kernel got (written every call).
struct Scratch {
  float *acc = nullptr;
  int *cnt = nullptr;
  int *info = nullptr;
  int n = -1, dev = -1;
};

// One step as team_step's, the work split into 2 x SMs equal ranges of
// (256 bodies i) x (512 bodies j) units (nb_balanced_kernel.cpp).
void balanced_nbody_step(Bodies in, Moved out, int n, Launch launch);

// The scratch balanced_nbody_step uses for n bodies (made if need be).
const Scratch &balanced_scratch(int n);

}  // namespace lesson11
