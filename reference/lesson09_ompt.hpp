/// @file lesson09_ompt.hpp
/// @brief Lesson 9's witness: a small OMPT tool (the OpenMP tools interface)
///        that records, while a piece of code runs,
///          - the tasks the calling thread creates (every `nowait` target
///            construct is one), with their `depend` lists, and which of
///            them have completed;
///          - the task waits the calling thread performs (taskwait, taskgroup);
///          - per device: kernels launched, device memory allocated and
///            freed, and bytes copied between host and device.
///        With it a test can say "start() launched 12 `nowait` target tasks in
///        4 chains and waited for none of them" -- a fact of the program, not
///        a timing -- or "device 2 received 2 x 2500 floats and ran a kernel".
///
/// Task events come from the host OpenMP runtime (libomp) and so exist on
/// every device; device events come from the offload runtime, which reports
/// them on the host-offload device but may not on a GPU (LLVM 19's CUDA
/// plugin sent none on an H200): task_events() and device_events() say which
/// are live. Include this header in exactly ONE source file of a program: it
/// defines ompt_start_tool(). OMP_TOOL=disabled switches the tool off.
#pragma once

#include <omp-tools.h>
#include <omp.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace course::lesson9_trace {

/// One dependence of a task: the address in its depend clause and whether
/// the task only reads it (`in`) or may write it (out, inout, ...).
struct Dependence {
  std::uintptr_t address = 0;
  bool writes = false;
};

/// One task the recording thread created.
struct Task {
  bool target = false;               ///< a target task: `target ... nowait` (a target construct without
                                     ///< nowait creates none, or only an undeferred helper task without this flag)
  bool undeferred = false;           ///< the runtime ran it at once, as it was created (see target_tasks())
  std::vector<Dependence> depends;   ///< its depend list
  bool completed = false;            ///< the runtime reported it complete
};

/// One copy between host and device memory, or one allocation or free.
struct DataOp {
  enum Kind { alloc, release, to_device, from_device } kind = alloc;
  int device = -1;            ///< the device side's number
  std::uintptr_t host = 0;    ///< host address (copies; a map's allocation)
  std::uintptr_t target = 0;  ///< device address
  std::size_t bytes = 0;
  long task = -1;             ///< the index in Log::tasks of the `nowait` target task it ran in (-1: none)
};

/// One copy or kernel with its start and end, for a timeline.
struct Event {
  enum Kind { copy_in, copy_out, kernel } kind = kernel;
  int device = -1;
  std::uintptr_t host = 0;  ///< host side of a copy (0 for kernels)
  std::size_t bytes = 0;
  double begin_ms = 0, end_ms = 0;  ///< since record() started
  int thread = 0;           ///< 0: the recording thread, 1, 2, ...: others in order of appearance
  long task = -1;           ///< kernels: the index in Log::tasks of the `nowait` target task that ran it (-1: none)
};

/// Everything recorded between two calls of record().
struct Log {
  std::vector<Task> tasks;        ///< explicit and target tasks created by the recording thread, in order
  int taskwaits = 0;              ///< taskwaits the recording thread executed
  int taskgroups = 0;             ///< taskgroups it ended (each waits for its tasks)
  std::vector<int> kernels;       ///< kernels launched, per device number
  std::vector<DataOp> data_ops;   ///< allocations, frees and copies, in order
  std::vector<Event> events;      ///< copies and kernels with their times, in order of ending

  /// Kernels launched on @p device.
  int kernels_on(int device) const {
    return device >= 0 && device < (int)kernels.size() ? kernels[(std::size_t)device] : 0;
  }
  /// Bytes copied in direction @p kind (to_device or from_device) between
  /// device @p device (-1: any) and host memory in [p, p + bytes).
  std::size_t copied(DataOp::Kind kind, int device, const void *p, std::size_t bytes) const {
    const auto lo = reinterpret_cast<std::uintptr_t>(p), hi = lo + bytes;
    std::size_t sum = 0;
    for (const auto &op : data_ops) {
      if (op.kind != kind || (device >= 0 && op.device != device)) continue;
      const auto a = op.host > lo ? op.host : lo, b = op.host + op.bytes < hi ? op.host + op.bytes : hi;
      if (b > a) sum += b - a;
    }
    return sum;
  }
  /// All bytes copied in direction @p kind to or from device @p device (-1: any).
  std::size_t copied_total(DataOp::Kind kind, int device = -1) const {
    std::size_t sum = 0;
    for (const auto &op : data_ops)
      if (op.kind == kind && (device < 0 || op.device == device)) sum += op.bytes;
    return sum;
  }
  /// Number of operations of @p kind.
  int count(DataOp::Kind kind) const {
    int c = 0;
    for (const auto &op : data_ops) c += op.kind == kind;
    return c;
  }
  /// The allocation on @p device whose device address is @p p, or null.
  const DataOp *allocation(int device, const void *p) const {
    for (const auto &op : data_ops)
      if (op.kind == DataOp::alloc && op.device == device && op.target == reinterpret_cast<std::uintptr_t>(p))
        return &op;
    return nullptr;
  }
  /// True when device memory at @p p on @p device was freed.
  bool released(int device, const void *p) const {
    for (const auto &op : data_ops)
      if (op.kind == DataOp::release && op.device == device && op.target == reinterpret_cast<std::uintptr_t>(p))
        return true;
    return false;
  }
  /// Target tasks created, that is `nowait` target constructs. Where the
  /// runtime's hidden helper threads are off (the course's host-device
  /// setting) and no parallel region encloses the caller, they run at once
  /// as they are created (undeferred) -- still tasks, with their depend
  /// lists, and still counted here.
  int target_tasks() const {
    int c = 0;
    for (const auto &t : tasks) c += t.target;
    return c;
  }
  /// Tasks that have not (yet) been reported complete.
  int unfinished() const {
    int c = 0;
    for (const auto &t : tasks) c += !t.completed;
    return c;
  }
  /// Chains of the target-task graph: target tasks whose depend list orders
  /// them after no earlier target task of this log (OpenMP's rule: an `in`
  /// waits for an earlier writer of the address; a writer waits for any
  /// earlier use of it).
  int chain_heads() const {
    int heads = 0;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
      if (!tasks[t].target) continue;
      bool after_some = false;
      for (const auto &d : tasks[t].depends)
        for (std::size_t e = 0; e < t && !after_some; ++e)
          for (const auto &prior : tasks[e].target ? tasks[e].depends : std::vector<Dependence>{})
            if (prior.address == d.address && (d.writes || prior.writes)) {
              after_some = true;
              break;
            }
      heads += !after_some;
    }
    return heads;
  }
  /// True when task @p later must wait for task @p earlier (indices in
  /// tasks), directly or through tasks between them, by their depend lists
  /// (the rule of chain_heads()). Tasks are ordered only after tasks created
  /// before them, so @p earlier < @p later is needed.
  bool ordered_after(long later, long earlier) const {
    if (earlier < 0 || later <= earlier || later >= (long)tasks.size()) return false;
    std::vector<char> reach(tasks.size(), 0);
    reach[(std::size_t)earlier] = 1;
    for (long t = earlier + 1; t <= later; ++t)
      for (const auto &d : tasks[(std::size_t)t].depends)
        for (long e = earlier; e < t && !reach[(std::size_t)t]; ++e)
          if (reach[(std::size_t)e])
            for (const auto &prior : tasks[(std::size_t)e].depends)
              if (prior.address == d.address && (d.writes || prior.writes)) {
                reach[(std::size_t)t] = 1;
                break;
              }
    return reach[(std::size_t)later] != 0;
  }
};

/// The tool's state.
struct State {
  std::mutex lock;
  bool active = false;             ///< the runtime called our initializer
  bool recording = false;          ///< inside record()
  std::thread::id thread;          ///< the thread that called record()
  std::uint64_t generation = 0;    ///< tags tasks of the current recording
  Log log;
  std::chrono::steady_clock::time_point start;       ///< when record() began
  std::uint64_t next_id = 1;                          ///< ids of open events
  std::vector<std::pair<std::uint64_t, double>> open;  ///< begun, not yet ended: id, begin
  std::vector<std::thread::id> threads;               ///< thread numbers for Event::thread
};

/// The one State of this program.
inline State &state() {
  static State s;
  return s;
}

/// True when the OpenMP runtime loaded this tool (false with OMP_TOOL=disabled).
inline bool tracing_active() {
  (void)omp_get_num_devices();
  std::lock_guard<std::mutex> g(state().lock);
  return state().active;
}

/// Runs @p f on this thread and returns what it did (see Log).
template <class F>
Log record(F &&f) {
  (void)omp_get_num_devices();
  {
    std::lock_guard<std::mutex> g(state().lock);
    state().log = Log{};
    state().thread = std::this_thread::get_id();
    state().recording = true;
    ++state().generation;
    state().open.clear();
    state().threads.assign(1, state().thread);
    state().start = std::chrono::steady_clock::now();
  }
  f();
  std::lock_guard<std::mutex> g(state().lock);
  state().recording = false;
  return state().log;
}

/// A copy of what the current record() has seen so far: call it inside the
/// recorded code to split one recording into phases ("at the return of
/// start()", then "after wait()").
inline Log snapshot() {
  std::lock_guard<std::mutex> g(state().lock);
  return state().log;
}

/// True when the host runtime reports `nowait` target tasks, their depend
/// lists and taskwaits: a probe `target nowait` with one dependence, then a
/// taskwait, must show all three.
inline bool task_events() {
  static const bool ok = [] {
    int x = 0;
    int *p = &x;
    const Log l = record([&] {
#pragma omp target nowait map(tofrom : p[0:1]) depend(inout : p[0])
      p[0] += 1;
#pragma omp taskwait
    });
    return l.target_tasks() == 1 && l.tasks[0].depends.size() == 1 && l.taskwaits >= 1 && x == 1;
  }();
  return ok;
}

/// True when the offload runtime reports kernels and copies per device: a
/// probe target region on the default device mapping 16 floats both ways must
/// show one kernel and both copies.
inline bool device_events() {
  static const bool ok = [] {
    float probe[16] = {};
    float *p = probe;
    const int dev = omp_get_default_device();
    const Log l = record([&] {
#pragma omp target map(tofrom : p[0:16])
      p[0] += 1.f;
    });
    return l.kernels_on(dev) >= 1 && l.copied(DataOp::to_device, dev, probe, sizeof probe) == sizeof probe &&
           l.copied(DataOp::from_device, dev, probe, sizeof probe) == sizeof probe;
  }();
  return ok;
}

namespace detail {

constexpr std::uint64_t kIndexBits = 32;

inline bool on_recording_thread(const State &s) { return s.recording && std::this_thread::get_id() == s.thread; }

inline void on_task_create(ompt_data_t *, const ompt_frame_t *, ompt_data_t *new_task, int flags, int, const void *) {
  auto &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (new_task) new_task->value = 0;
  if (!on_recording_thread(s) || !(flags & (ompt_task_explicit | ompt_task_target))) return;
  Task t;
  t.target = (flags & ompt_task_target) != 0;
  t.undeferred = (flags & ompt_task_undeferred) != 0;
  s.log.tasks.push_back(t);
  if (new_task) new_task->value = (s.generation << kIndexBits) | s.log.tasks.size();
}

// The task's index in the log, or -1 when it belongs to no current recording.
inline long index_of(const State &s, const ompt_data_t *task) {
  if (!task || (task->value >> kIndexBits) != (s.generation & ((1ull << 32) - 1))) return -1;
  const std::uint64_t i = task->value & ((1ull << kIndexBits) - 1);
  return i >= 1 && i <= s.log.tasks.size() ? (long)i - 1 : -1;
}

inline void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps) {
  auto &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  const long i = index_of(s, task);
  if (i < 0) return;
  for (int k = 0; k < ndeps; ++k) {
    Dependence d;
    d.address = reinterpret_cast<std::uintptr_t>(deps[k].variable.ptr);
    d.writes = deps[k].dependence_type != ompt_dependence_type_in;
    s.log.tasks[(std::size_t)i].depends.push_back(d);
  }
}

// The recorded task this thread runs now (-1: none of this recording's):
// the offload runtime does not say in which task a copy ran (LLVM 19 passes
// no target task to the data-op callback), so each copy takes the task its
// thread was switched to last.
inline long &current_task() {
  thread_local long t = -1;
  return t;
}

inline void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next) {
  auto &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  current_task() = index_of(s, next);
  if (status != ompt_task_complete) return;
  const long i = index_of(s, prior);
  if (i >= 0) s.log.tasks[(std::size_t)i].completed = true;
}

inline void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *, ompt_data_t *,
                           const void *) {
  if (endpoint != ompt_scope_begin) return;
  auto &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (!on_recording_thread(s)) return;
  // Barriers are left out: on the host device a synchronous kernel's own
  // parallel region reports them on this thread.
  if (kind == ompt_sync_region_taskwait)
    ++s.log.taskwaits;
  else if (kind == ompt_sync_region_taskgroup)
    ++s.log.taskgroups;
}

inline double now_ms(const State &s) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s.start).count();
}

// Opens a timed event: returns its id (to be handed back at its end).
inline std::uint64_t open_event(State &s) {
  const std::uint64_t id = s.next_id++;
  s.open.emplace_back(id, now_ms(s));
  return id;
}

// Closes event @p id (if it was opened in this recording) as @p e.
inline void close_event(State &s, std::uint64_t id, Event e) {
  for (std::size_t k = 0; k < s.open.size(); ++k)
    if (s.open[k].first == id) {
      e.begin_ms = s.open[k].second;
      e.end_ms = now_ms(s);
      const auto me = std::this_thread::get_id();
      std::size_t t = 0;
      while (t < s.threads.size() && s.threads[t] != me) ++t;
      if (t == s.threads.size()) s.threads.push_back(me);
      e.thread = (int)t;
      s.open.erase(s.open.begin() + (long)k);
      s.log.events.push_back(e);
      return;
    }
}

inline void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device, ompt_data_t *task_data,
                      ompt_data_t *target_task_data, ompt_data_t *target_data, const void *) {
  if ((kind & 7) != ompt_target || device < 0) return;
  auto &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (!s.recording) return;
  if (endpoint == ompt_scope_begin) {
    if ((int)s.log.kernels.size() <= device) s.log.kernels.resize((std::size_t)device + 1, 0);
    ++s.log.kernels[(std::size_t)device];
    if (target_data) target_data->value = open_event(s);
  } else if (target_data) {
    Event e;
    e.kind = Event::kernel;
    e.device = device;
    e.task = index_of(s, target_task_data);
    if (e.task < 0) e.task = index_of(s, task_data);
    close_event(s, target_data->value, e);
  }
}

inline void on_data_op(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data, ompt_data_t *,
                       ompt_id_t *host_op_id,
                       ompt_target_data_op_t op, void *src, int src_device, void *dest, int dest_device, size_t bytes,
                       const void *) {
  if (endpoint == ompt_scope_begin) {  // only opens the copy's timed event
    auto &s = state();
    std::lock_guard<std::mutex> g(s.lock);
    if (s.recording && host_op_id) *host_op_id = open_event(s);
    return;
  }
  // The end: allocations know their address only now.
  DataOp d;
  d.bytes = bytes;
  switch (op) {
    case ompt_target_data_alloc:
    case ompt_target_data_alloc_async:
      d = {DataOp::alloc, dest_device, reinterpret_cast<std::uintptr_t>(src), reinterpret_cast<std::uintptr_t>(dest),
           bytes};
      break;
    case ompt_target_data_delete:
    case ompt_target_data_delete_async:
      d = {DataOp::release, src_device, 0, reinterpret_cast<std::uintptr_t>(src), bytes};
      break;
    case ompt_target_data_transfer_to_device:
    case ompt_target_data_transfer_to_device_async:
      d = {DataOp::to_device, dest_device, reinterpret_cast<std::uintptr_t>(src),
           reinterpret_cast<std::uintptr_t>(dest), bytes};
      break;
    case ompt_target_data_transfer_from_device:
    case ompt_target_data_transfer_from_device_async:
      d = {DataOp::from_device, src_device, reinterpret_cast<std::uintptr_t>(dest),
           reinterpret_cast<std::uintptr_t>(src), bytes};
      break;
    default:
      return;  // associations and the like
  }
  auto &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (!s.recording) return;
  d.task = index_of(s, target_task_data);
  if (d.task < 0) d.task = current_task();
  s.log.data_ops.push_back(d);
  if (host_op_id && (d.kind == DataOp::to_device || d.kind == DataOp::from_device)) {
    Event e;
    e.kind = d.kind == DataOp::to_device ? Event::copy_in : Event::copy_out;
    e.device = d.device;
    e.host = d.host;
    e.bytes = d.bytes;
    close_event(s, *host_op_id, e);
  }
}

inline int initialize(ompt_function_lookup_t lookup, int, ompt_data_t *) {
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (!set_callback) return 0;
  set_callback(ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(&on_task_create));
  set_callback(ompt_callback_dependences, reinterpret_cast<ompt_callback_t>(&on_dependences));
  set_callback(ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(&on_task_schedule));
  set_callback(ompt_callback_sync_region, reinterpret_cast<ompt_callback_t>(&on_sync_region));
  set_callback(ompt_callback_target_emi, reinterpret_cast<ompt_callback_t>(&on_target));
  set_callback(ompt_callback_target_data_op_emi, reinterpret_cast<ompt_callback_t>(&on_data_op));
  std::lock_guard<std::mutex> g(state().lock);
  state().active = true;
  return 1;
}

inline void finalize(ompt_data_t *) {}

}  // namespace detail
}  // namespace course::lesson9_trace

/// The OpenMP runtime calls this once at start-up; returning a result
/// registers the tool above.
/// COURSE_OMPT_YIELD=1 makes it decline, so that the runtime goes on to
/// OMP_TOOL_LIBRARIES: the race test (ctest -L sanitize) loads LLVM's Archer
/// that way, since the runtime takes one tool only. The tests that need this
/// tool's reports carry the tag [ompt] and are left out of that run.
extern "C" ompt_start_tool_result_t *ompt_start_tool(unsigned int, const char *) {
  if (const char *yield = std::getenv("COURSE_OMPT_YIELD"); yield && yield[0] == '1') return nullptr;
  static ompt_start_tool_result_t result{&course::lesson9_trace::detail::initialize,
                                         &course::lesson9_trace::detail::finalize, ompt_data_t{0}};
  return &result;
}
