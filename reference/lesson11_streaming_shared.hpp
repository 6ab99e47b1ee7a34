/// @file reference/lesson11_streaming_shared.hpp
/// @brief What lesson 11's steps 11.1 and 11.2 (streaming.cpp) build on: the
///        launch shape, the 16-byte `Vec16`, the histogram's bins and the team
///        kernels `team_sum` and `team_histogram`. Shared by the student's file
///        (through lessons/11-matching-the-vendor/streaming.hpp) and the baselines
///        (reference/lesson11_plain_streaming.cpp), so that a speedup measures the step
///        alone. Given code: read it, do not edit it.
#pragma once

#include <omp.h>

#include <cstddef>
#include <new>

#include "course/device.hpp"
#include "lesson11_pinned_shared.hpp"  // pinned_array: where the kernels leave their results

namespace lesson11 {

/// How many device threads a kernel asks for: `num_teams(teams)
/// thread_limit(threads)`. The runtime may grant fewer; the kernels divide
/// their work by what omp_get_num_teams() and omp_get_num_threads() report.
struct Launch {
  int teams = 0;    ///< value for num_teams(); 0 means "choose with default_launch()"
  int threads = 0;  ///< value for thread_limit(); 0 means "choose with default_launch()"
};

/// Threads per team on a GPU: 8 warps.
#pragma omp begin declare target
inline constexpr int gpu_team_threads = 256;
#pragma omp end declare target

/// The launch for @p n elements with at most @p teams_per_sm teams per
/// multiprocessor (the sum and the histogram use 8: on an H100 the float and
/// double sums were 2 % faster with 8 than with 16 or 32, the int sum within
/// 1 %, docs/results/h100-2026-11-26-sgemm.md). On the host-offload device:
/// a team per core, one thread each, as in lesson 6.
inline Launch default_launch(std::size_t n, int teams_per_sm) {
#ifdef COURSE_DEVICE_GPU
  const int sms = course::device_info().multiprocessors;
  const std::size_t cap = static_cast<std::size_t>(sms > 0 ? sms : 64) * static_cast<std::size_t>(teams_per_sm);
  std::size_t teams = (n + 64 * gpu_team_threads - 1) / (64 * gpu_team_threads);
  teams = teams < 1 ? 1 : (teams > cap ? cap : teams);
  return {static_cast<int>(teams), gpu_team_threads};
#else
  (void)teams_per_sm;
  const int cores = omp_get_num_procs() > 0 ? omp_get_num_procs() : 1;
  const std::size_t want = (n + 65535) / 65536;
  const int teams = want < 1 ? 1 : (want > static_cast<std::size_t>(cores) ? cores : static_cast<int>(want));
  return {teams, 1};
#endif
}

/// Sixteen bytes that travel together: 16 / sizeof(T) elements (four floats
/// or ints, two doubles), loaded by one 16-byte load instruction on a GPU
/// (a `.v4` or `.v2` load in the PTX: clang 19 emits a generic `ld.v4.f32`,
/// README, "What the profiler shows") when the address is a multiple of 16,
/// as `alignas` promises the compiler.
#pragma omp begin declare target
template <class T>
struct alignas(16) Vec16 {
  static constexpr int lanes = 16 / static_cast<int>(sizeof(T));  ///< elements in 16 bytes
  T v[lanes];                                                     ///< the elements, in memory order
};
#pragma omp end declare target

/// Four floats: the histogram's unit (and the sum's, for floats).
using Quad = Vec16<float>;

// Declared target: device code may use them as values or by address (a
// constant used by address in device code and not declared target is a
// -Wopenmp-target error under -Werror, clang 19).
#pragma omp begin declare target

/// Bins of the histogram.
inline constexpr int hist_bins = 256;

/// The bin of a value in [0, 1): floor(256 x), clamped (as in lesson 6).
inline int bin_of(float x) {
  const int b = static_cast<int>(x * static_cast<float>(hist_bins));
  return b < 0 ? 0 : (b >= hist_bins ? hist_bins - 1 : b);
}

#pragma omp end declare target

// ---- the team kernels around steps 11.1 and 11.2 (given) ----------------
//
// Each team takes a contiguous block of x, a whole number of 64 elements long
// (256 bytes or more), so every block starts as far from a 16-byte boundary
// as x itself does; inside the block the team's threads interleave
// (neighbouring threads, neighbouring addresses: a warp's loads coalesce).
// The sum leaves each team's partial in pinned host memory for the host to
// add up; the histogram counts into 256 team-local bins and merges them
// into the device's totals once per team (lesson 6's two steps), and the
// last team to finish hands the totals to the host. Each is a
// template over the per-thread function: streaming.inc instantiates them
// with your thread_sum and thread_count, the reference library
// (reference/lesson11_plain_streaming.cpp) with the starter's loops, the speed tests'
// baseline. In an unnamed namespace, as if written in each file that
// instantiates them: the compiler inlines the per-thread function into the
// kernel there.

namespace {

// The team's block of x[0:n): where it starts and how many elements it has.
struct Block {
  std::size_t lo;
  unsigned len;
};

inline Block team_block(std::size_t n) {
  const std::size_t teams = static_cast<std::size_t>(omp_get_num_teams());
  std::size_t per_team = (n + teams - 1) / teams;
  per_team = (per_team + 63) / 64 * 64;
  const std::size_t start = static_cast<std::size_t>(omp_get_team_num()) * per_team;
  const std::size_t lo = start < n ? start : n;
  const std::size_t len = n - lo < per_team ? n - lo : per_team;
  return {lo, static_cast<unsigned>(len)};  // n < 2^31: every block fits 32 bits
}

template <class T>
using ShareSum = T (*)(const T *, unsigned, unsigned, unsigned);
using ShareCount = void (*)(const float *, unsigned, unsigned, unsigned, int *);

// Pinned host memory (pinned_array, lesson11_pinned_shared.hpp: why pinned) for
// @p count partial sums of type T, the same block on every call (grown when a
// call needs more; the smaller block freed). The teams store their partials
// straight into it. Never freed otherwise: the block lives as long as the
// program. One call at a time per program.
template <class T>
T *host_partials(int count) {
  static T *block = nullptr;
  static int size = 0;
  if (count > size) {
    omp_free(block, llvm_omp_target_host_mem_alloc);
    block = pinned_array<T>(static_cast<std::size_t>(count));
    size = count;
  }
  return block;
}

template <class T, ShareSum<T> share>
T team_sum(const T *x, std::size_t n, Launch launch) {
  if (launch.teams <= 0 || launch.threads <= 0) launch = default_launch(n, 8);
  T *partial = host_partials<T>(launch.teams);
  // Every access to partial is atomic: on the host device the teams are
  // threads of this process, and a race checker (ThreadSanitizer) sees no
  // order between them and the host other than atomics.
  for (int t = 0; t < launch.teams; ++t) {
#pragma omp atomic write
    partial[t] = T(0);  // a team the runtime does not start adds nothing
  }
  // A team adds its threads' shares with a worksharing loop of one
  // iteration per thread (schedule(static, 1): iteration t runs on thread t)
  // and its reduction clause, not with lesson 6's `atomic update` of
  // team_total: for an int the sm_90 machine code (clang 19, ptxas) makes
  // those atomics one warp reduction (REDUX.SUM) and one team-local atomic
  // per warp, but for a float
  // or a double every thread loops on a compare-and-swap (ATOMS.CAST.SPIN):
  // 5-6 % of the float and double sums' time at 2^28 on an H200. LLVM's
  // reduction adds them by warp shuffles (lesson 11's README, "No float
  // atomic in a team"; docs/results/lesson11-matching-the-vendor.md).
  // SNIPPET(team-sum)
#pragma omp target teams num_teams(launch.teams) thread_limit(launch.threads) map(to : x[0:n]) is_device_ptr(partial)
  {
    T team_total = 0;  // one per team (OpenMP); LLVM puts it in a GPU's team-local memory
#pragma omp parallel
    {
      const Block blk = team_block(n);
      const unsigned nth = static_cast<unsigned>(omp_get_num_threads());
      // iteration t on thread t; the reduction adds the team's shares
#pragma omp for schedule(static, 1) reduction(+ : team_total)
      for (unsigned t = 0; t < nth; ++t) team_total += share(x + blk.lo, blk.len, t, nth);
      // past the loop's barrier: team_total is complete
      if (omp_get_thread_num() == 0) {
#pragma omp atomic write
        partial[omp_get_team_num()] = team_total;  // into pinned host memory
      }
    }
  }
  // END SNIPPET
  // SNIPPET(team-sum-host)
  T total = 0;  // the host adds the teams' partials (about a thousand on a GPU)
  for (int t = 0; t < launch.teams; ++t) {
    T p;
#pragma omp atomic read
    p = partial[t];
    total += p;
  }
  // END SNIPPET
  return total;
}

// The histogram's state between calls, made once per device: on the device,
// hist_bins running totals and a ticket counter after them, all zero between
// calls (zeroed once here; each call's last team zeroes them again); in
// pinned host memory (pinned_array), the counts the last team hands the
// host. Made again if the default device changes (the old block, all zeros,
// is freed). Bad states throw std::bad_alloc, as host_partials does.
struct HistState {
  int *acc = nullptr;  // device: acc[0:hist_bins] the totals, acc[hist_bins] the ticket counter
  int *out = nullptr;  // pinned host memory: the counts of the last call
  int device = -1;     // the device acc lives on
};

inline HistState &hist_state() {
  static HistState s;
  const int dev = omp_get_default_device();
  if (s.out == nullptr) s.out = pinned_array<int>(hist_bins);  // made once, never freed
  if (s.acc == nullptr || s.device != dev) {
    if (s.acc != nullptr) omp_target_free(s.acc, s.device);
    s.acc = nullptr;
    const std::size_t bytes = sizeof(int) * (hist_bins + 1);
    int *acc = static_cast<int *>(omp_target_alloc(bytes, dev));
    if (acc == nullptr) throw std::bad_alloc();
    static const int zeros[hist_bins + 1] = {};
    if (omp_target_memcpy(acc, zeros, bytes, 0, 0, dev, omp_get_initial_device()) != 0) {
      omp_target_free(acc, dev);
      throw std::bad_alloc();
    }
    s.acc = acc;
    s.device = dev;
  }
  return s;
}

// One kernel launch and one wait per call, as a sum's (and a CUB call's):
// no kernel that zeroes hist, no copy of hist after the kernel. Each team
// counts into its 256 team-local bins (lesson 6) and adds them into the
// device's running totals acc; then it takes a ticket. The team that takes
// the last ticket (omp_get_num_teams() - 1: every team the runtime really
// started has added its bins by then) copies the totals out and zeroes acc
// and the counter for the next call. The host copies the 256 counts into
// hist, or, where the caller already holds hist on the device, the last
// team writes that copy, as map(from) inside the caller's region would.
template <ShareCount count>
void team_histogram(const float *x, std::size_t n, int *hist, Launch launch) {
  if (launch.teams <= 0 || launch.threads <= 0) launch = default_launch(n, 8);
  const HistState &st = hist_state();
  int *const acc = st.acc;
  int *const present = static_cast<int *>(omp_get_mapped_ptr(hist, st.device));  // null where not mapped
  int *const dst = present != nullptr ? present : st.out;
#pragma omp target teams num_teams(launch.teams) thread_limit(launch.threads) map(to : x[0:n]) is_device_ptr(acc, dst) device(st.device)
  {
    int local[hist_bins];  // one per team (OpenMP); LLVM puts it in a GPU's team-local memory
    int last;              // this team took the last ticket: set by thread 0 before the team reads it
#pragma omp parallel
    {
      const unsigned tid = static_cast<unsigned>(omp_get_thread_num());
      const unsigned nth = static_cast<unsigned>(omp_get_num_threads());
      for (unsigned b = tid; b < hist_bins; b += nth) local[b] = 0;
#pragma omp barrier
      const Block blk = team_block(n);
      count(x + blk.lo, blk.len, tid, nth, local);
#pragma omp barrier
      // relaxed: atomic so that no add is lost; the ticket orders them
      for (unsigned b = tid; b < hist_bins; b += nth)
        if (local[b] != 0) {
#pragma omp atomic update
          acc[b] += local[b];
        }
      // The ticket orders the call (OpenMP's memory model). The barrier (a
      // flush) puts every thread's adds before thread 0's ticket. acq_rel:
      // the ticket is a release (the team's adds go before it) and an
      // acquire (the team that takes the last ticket sees what every earlier
      // ticket released: each ticket reads the one before, a chain). The
      // release flush before it and the acquire flush after it say the same
      // for a GPU: clang 19 compiles the acq_rel capture for NVIDIA GPUs to a
      // relaxed atom.add (the ordering is dropped), a flush to a fence
      // (membar.gl); "histogram's team kernel takes its ticket in order"
      // checks the PTX.
#pragma omp barrier
      if (tid == 0) {
        int ticket;
#pragma omp flush release
#pragma omp atomic capture acq_rel
        {
          ticket = acc[hist_bins];
          acc[hist_bins] += 1;
        }
#pragma omp flush acquire
        last = ticket == omp_get_num_teams() - 1;
      }
      // The barrier hands thread 0's acquire to the team's other threads.
#pragma omp barrier
      if (last) {
        // Every team has added and no team touches acc again in this call,
        // so relaxed reads and writes suffice (atomic, as the sum's
        // partials: on the host device a race checker sees no other order).
        // The next call runs after this kernel has ended: its teams find
        // acc and the counter zero.
        for (unsigned b = tid; b < hist_bins; b += nth) {
          int v;
#pragma omp atomic read
          v = acc[b];
#pragma omp atomic write
          dst[b] = v;
#pragma omp atomic write
          acc[b] = 0;
        }
        if (tid == 0) {
#pragma omp atomic write
          acc[hist_bins] = 0;
        }
      }
    }
  }
  if (present == nullptr)
    for (int b = 0; b < hist_bins; ++b) {
      int v;
#pragma omp atomic read
      v = st.out[b];
      hist[b] = v;
    }
}

}  // namespace

}  // namespace lesson11
