/// @file lesson02_ompt.hpp
/// @brief Lesson 2's witness of data movement: a tiny OMPT tool (the OpenMP
///        tools interface profilers use) that records every kernel launch,
///        every device construct (a region, a `target update`, ...) and every
///        copy between host and device memory, so a test can say "the
///        result was never copied back" or "the grid crossed 80 times" instead
///        of guessing from timings.
///
/// Include this header in exactly ONE source file of a program: it defines
/// ompt_start_tool(), the function the OpenMP runtime looks for at start-up
/// (a second definition fails to link, loudly). Setting OMP_TOOL=disabled in
/// the environment switches the tool off; tracing_active() then says so, and
/// device_events() says whether the offload runtime reports to it at all.
#pragma once

#include <omp-tools.h>
#include <omp.h>

#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <mutex>
#include <vector>

namespace course::lesson2_trace {

/// One copy between host and device memory, as the runtime reported it.
struct Copy {
  bool to_device = false;    ///< true: host -> device; false: device -> host
  std::uintptr_t host = 0;   ///< the host side of the copy
  std::size_t bytes = 0;     ///< its length
};

/// What happened on the device while a piece of code ran.
struct Traffic {
  long kernels = 0;          ///< kernels launched on an offload device
  std::vector<unsigned> requested_teams;  ///< each launch's requested team count (1: no `teams`)
  std::vector<Copy> copies;  ///< every host <-> device copy, in order
  std::vector<int> constructs;  ///< each device construct's kind (ompt_target, ompt_target_update, ...), in order

  /// How many constructs of kind @p k (an ompt_target_t) ran.
  long count(int k) const {
    long c = 0;
    for (int x : constructs) c += x == k;
    return c;
  }

  /// Bytes copied in direction @p to_device whose host side lies in [p, p + bytes).
  std::size_t moved(bool to_device, const void *p, std::size_t bytes) const {
    const auto lo = reinterpret_cast<std::uintptr_t>(p), hi = lo + bytes;
    std::size_t sum = 0;
    for (const auto &c : copies) {
      if (c.to_device != to_device) continue;
      const auto a = c.host > lo ? c.host : lo;
      const auto b = c.host + c.bytes < hi ? c.host + c.bytes : hi;
      if (b > a) sum += b - a;
    }
    return sum;
  }
  /// Bytes copied host -> device out of [p, p + bytes).
  std::size_t to_device(const void *p, std::size_t bytes) const { return moved(true, p, bytes); }
  /// Bytes copied device -> host into [p, p + bytes).
  std::size_t from_device(const void *p, std::size_t bytes) const { return moved(false, p, bytes); }
  /// All bytes copied in one direction.
  std::size_t total(bool to_device) const {
    std::size_t sum = 0;
    for (const auto &c : copies)
      if (c.to_device == to_device) sum += c.bytes;
    return sum;
  }
};

/// The tool's state: whether the runtime accepted the tool, and the log.
struct State {
  std::mutex lock;      ///< callbacks may come from several host threads
  bool active = false;  ///< the runtime called our initializer
  Traffic log;          ///< everything since the last reset
};

/// The one State of this program.
inline State &state() {
  static State s;
  return s;
}

/// True when the OpenMP runtime loaded this tool (false with OMP_TOOL=disabled).
inline bool tracing_active() {
  (void)omp_get_num_devices();  // make sure the runtime (and so the tool) has started
  std::lock_guard<std::mutex> g(state().lock);
  return state().active;
}

/// Runs @p f and returns the kernel launches and copies it caused.
template <class F>
Traffic record(F &&f) {
  (void)omp_get_num_devices();
  {
    std::lock_guard<std::mutex> g(state().lock);
    state().log = Traffic{};
  }
  f();
  std::lock_guard<std::mutex> g(state().lock);
  return state().log;
}

/// True when the runtime really reports device events: a probe target
/// region that maps 16 floats both ways must show one kernel and both copies.
/// The tool can be active while the offload runtime stays silent: LLVM 19's
/// runtime finds the host runtime for OMPT by dlopen("libomp.so"), which
/// fails unless LD_LIBRARY_PATH holds LLVM's lib folder (CTest sets it; the
/// GPU runtime pack ships the link), so checks ask this first.
inline bool device_events() {
  static const bool ok = [] {
    float probe[16] = {};
    float *p = probe;
    const Traffic t = record([&] {
#pragma omp target map(tofrom : p[0:16])
      p[0] += 1.f;
    });
    return t.kernels >= 1 && t.to_device(probe, sizeof probe) == sizeof probe &&
           t.from_device(probe, sizeof probe) == sizeof probe;
  }();
  return ok;
}

namespace detail {

inline void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int, ompt_data_t *, ompt_data_t *,
                      ompt_data_t *, const void *) {
  if (endpoint != ompt_scope_begin) return;
  std::lock_guard<std::mutex> g(state().lock);
  state().log.constructs.push_back(static_cast<int>(kind));
}

inline void on_submit(ompt_scope_endpoint_t endpoint, ompt_data_t *, ompt_id_t *, unsigned int requested_teams) {
  if (endpoint != ompt_scope_begin) return;
  std::lock_guard<std::mutex> g(state().lock);
  ++state().log.kernels;
  state().log.requested_teams.push_back(requested_teams);
}

inline void on_data_op(ompt_scope_endpoint_t endpoint, ompt_data_t *, ompt_data_t *, ompt_id_t *,
                       ompt_target_data_op_t op, void *src, int, void *dest, int, size_t bytes, const void *) {
  if (endpoint != ompt_scope_begin) return;
  Copy c;
  switch (op) {
    case ompt_target_data_transfer_to_device:
    case ompt_target_data_transfer_to_device_async:
      c = {true, reinterpret_cast<std::uintptr_t>(src), bytes};
      break;
    case ompt_target_data_transfer_from_device:
    case ompt_target_data_transfer_from_device_async:
      c = {false, reinterpret_cast<std::uintptr_t>(dest), bytes};
      break;
    default:
      return;  // allocations, deletions, associations: not copies
  }
  std::lock_guard<std::mutex> g(state().lock);
  state().log.copies.push_back(c);
}

inline int initialize(ompt_function_lookup_t lookup, int, ompt_data_t *) {
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (!set_callback) return 0;
  set_callback(ompt_callback_target_emi, reinterpret_cast<ompt_callback_t>(&on_target));
  set_callback(ompt_callback_target_submit_emi, reinterpret_cast<ompt_callback_t>(&on_submit));
  set_callback(ompt_callback_target_data_op_emi, reinterpret_cast<ompt_callback_t>(&on_data_op));
  std::lock_guard<std::mutex> g(state().lock);
  state().active = true;
  return 1;  // non-zero: keep the tool
}

inline void finalize(ompt_data_t *) {}

}  // namespace detail
}  // namespace course::lesson2_trace

/// The OpenMP runtime calls this once at start-up; returning a result
/// registers the tool above.
/// COURSE_OMPT_YIELD=1 makes it decline, so that the runtime goes on to
/// OMP_TOOL_LIBRARIES: the race test (ctest -L sanitize) loads LLVM's Archer
/// that way, since the runtime takes one tool only. The tests that need this
/// tool's reports carry the tag [ompt] and are left out of that run.
extern "C" ompt_start_tool_result_t *ompt_start_tool(unsigned int, const char *) {
  if (const char *yield = std::getenv("COURSE_OMPT_YIELD"); yield && yield[0] == '1') return nullptr;
  static ompt_start_tool_result_t result{&course::lesson2_trace::detail::initialize,
                                         &course::lesson2_trace::detail::finalize, ompt_data_t{0}};
  return &result;
}
