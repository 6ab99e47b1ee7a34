/// @file lessons/13-device-code/particles.hpp
/// @brief Lesson 13 interface: particles of several kinds, each kind with its
///        own update rule, and what device code needs beyond loops: calls
///        through function pointers, warps that agree on a branch, team-local
///        memory sized at run time, and a vendor runtime's stream.
#pragma once

#include <omp.h>

#include <array>
#include <cstddef>
#include <cstdlib>  // std::getenv, std::atoi: given.inc's host launch
#include <vector>

namespace lesson13 {

/// The kinds of particle. Each has its own rule (drift, spring, drag).
inline constexpr int kinds = 3;

/// One kind's rule: advances one particle (position x, velocity v) by dt.
using Update = void (*)(float &x, float &v, float dt);

/// Particles as arrays of their fields (SoA, lesson 7). id is each particle's
/// number when it was made, so a reordering can be checked.
struct Particles {
  std::vector<float> x;     ///< positions
  std::vector<float> v;     ///< velocities
  std::vector<int> kind;    ///< each particle's kind: the index of its rule
  std::vector<int> id;      ///< each particle's number when it was made
  std::size_t size() const { return x.size(); }  ///< how many particles
};

/// n particles, kinds interleaved (0, 1, 2, 0, 1, ...), positions and
/// velocities in [-1, 1) from @p seed.
Particles make_particles(std::size_t n, unsigned long long seed);

/// The kinds' rules as the HOST knows them (their host addresses).
std::array<Update, kinds> host_updates();

/// Step 13.1: the same rules as the DEVICE knows them: each host address
/// translated with omp_get_mapped_ptr(). An entry is nullptr where the device
/// has no such function (not declared `declare target indirect`).
std::array<Update, kinds> device_updates();

/// Advances every particle @p steps times by its kind's rule, on the device,
/// calling the rule through the table of device_updates(). Throws
/// std::runtime_error naming the kind if a rule is not callable on the device.
void advance(Particles &p, int steps, float dt);

/// Step 13.2: reorders the particles (all four arrays alike) so that the
/// kinds are contiguous, 0s first, and each kind keeps its particles' order
/// (a stable sort by kind).
void group_by_kind(Particles &p);

/// Largest tile potential() accepts: 8192 floats, 32 KiB of team-local memory.
inline constexpr int max_tile = 8192;

/// Step 13.3: phi[i] = sum over j of 1 / (1 + (x[i] - x[j])^2), computed by
/// teams that stage @p tile positions at a time in team-local memory. @p tile
/// (1..max_tile) is chosen at run time. Throws std::invalid_argument for a
/// tile outside that range, or one the kernel cannot take.
void potential(const float *x, int n, int tile, float *phi);

/// What step 13.4's hand-off saw of its interop object.
struct Handoff {
  bool created = false;         ///< an interop object existed after `init`
  long fr_id = -1;              ///< omp_ipr_fr_id: the foreign runtime's id
  long device_num = -1;         ///< omp_ipr_device_num: the device it belongs to
  void *stream = nullptr;       ///< omp_ipr_targetsync: the stream (nullptr where none)
  bool destroyed = false;       ///< the object was destroyed (`destroy` reset it to omp_interop_none)
};

/// Step 13.4: adds 1 to each y[i] in a kernel (nowait), then hands the
/// device copy of y and the interop object's stream to the library
/// (lib::scale: y[i] *= a), and waits for both. y is host memory.
Handoff add_then_scale(float *y, int n, float a);

/// The device an interop object is made for (given): the default device on a
/// GPU; on the host-offload device the initial device, because LLVM 19's
/// `interop init` crashes on the host-offload device (README, concept 4).
int interop_device();

/// Whether omp_get_interop_ptr(obj, omp_ipr_targetsync, ...) may be asked:
/// false where LLVM 19 crashes on it (an object of the initial device).
bool interop_has_stream();

/// The library step 13.4 calls (a stand-in for a vendor's library).
namespace lib {
/// Scales n floats at a DEVICE address by a. A real library (cuBLAS:
/// cublasSetStream) would enqueue on @p stream; this one runs its kernel at
/// once and records the stream it was given.
void scale(void *stream, float *y_device, int n, float a);
void *last_stream();  ///< the stream of the last scale() call
int calls();          ///< how many scale() calls were made
}  // namespace lib

/// The path of the file these functions were compiled from (particles.cpp).
const char *source_file();

}  // namespace lesson13
