// Lesson 9 tests -- asynchronous offload and many devices. Answers at awkward
// sizes for all three steps, and for each step a check of HOW it was done that
// a common wrong or unfinished version fails on every device class:
//   9.1  an OMPT tool (lesson09_ompt.hpp) records the tasks pipeline_start()
//        creates, their depend lists and the waits: a synchronous pipeline
//        creates no target task at all, so it fails here however fast the
//        machine (a timing could not tell, and on the host device overlap
//        buys no time); it also counts the pipeline's copies and device
//        allocations: each array crosses once, into memory taken once.
//   9.2  the tool records every device allocation, copy and free: arrays
//        that are host memory, or mapped instead of allocated, fail.
//   9.3  every device must report its own share from a region that ran on
//        it, and (where the runtime reports device events) receive exactly
//        its share's bytes and run a kernel; the tool also sees whether each
//        device's work was launched without waiting for the devices before it.
//   9.4  an allocator witness (lesson09_pinned.hpp) sees which OpenMP call
//        pinned_alloc() took its memory from, and with which allocator:
//        ordinary memory, or the standard pinned trait alone (which LLVM 19
//        does not pin), fails on every device; on a GPU the copy rate from
//        it is graded as well.
// Speed: the pipeline against the synchronous version, both on pinned host
// memory (graded on GPUs), pinned against pageable copies (GPUs), and all
// devices against one (graded where there are two GPUs or more).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "async.hpp"
#include "course/device.hpp"
#include "course/timing.hpp"
#include "course_test.hpp"
#include "lesson09_async.hpp"
#include "lesson09_ompt.hpp"  // defines this program's OMPT tool: include nowhere else
#include "lesson09_pinned.hpp"  // defines this program's allocation witness: include nowhere else

// Speedup thresholds: this lesson's grading numbers, {host, gpu} (see course/grading.hpp).
// Each is at most half of what the solution measured on that class.
// lesson 9: the pipeline (8 chunks) vs the synchronous whole-array version, and all devices vs one.
// Host device (loaded 2-core VM): pipeline 0.88-0.98x at 2^22 elements, 64 terms (0.74-1.0x with hidden helper
// threads on) -- the "device" is the same two cores, so there is nothing to overlap and the threshold only says
// "not much slower"; the all-devices split is not graded there (its four devices share the same cores) but by the
// work-split tests. See docs/results/lesson09-async-and-devices.md.
// GPU: the pipeline runs on pinned host memory (both sides), since from pageable memory it gained nothing
// reliable: H100 (2026-11-27, LLVM 19, 2^26 elements, 8 chunks) 0.90-1.03x on malloc memory, so the lesson's
// own solution failed the old 1.05x 2 times in 8; on LLVM's pinned memory 1.52-1.61x. The GPU value asks for
// half of the smallest gain measured there (0.52 / 2 = 0.26), 1.25x; the task-graph test grades step 9.1 on
// every device (the untouched step fails it on the H100 too). All devices vs one, two H200s (2026-11-23):
// 1.5x in this test, 1.54x in lesson09 (2^26 elements, 512 terms; both halves share the host link's pageable
// copies); the threshold asks for half of that gain, 1.25x. The host value is unused (not graded there).
// Pinned vs pageable host-to-device copies (2^26 floats): H100 (2026-11-27, LLVM 19) 47.5 GB/s from
// llvm_omp_target_host_mem_alloc memory, 7.3 GB/s from malloc (6.5x), and pageable copies up to 12 GB/s in
// earlier runs (3.96x); the GPU value asks for under half of the smaller ratio, 1.9x. The standard
// omp_atk_pinned trait alone copied at 5.1 GB/s (0.7x): it fails. The host device copies with memcpy in one
// RAM, pinned or not: not graded there by time (host value unused), the allocator witness grades step 9.4.
// device_add_exp vs the same loop on one device thread (2^20 elements, 16 terms), GPU only (on the host
// device the thread-split test grades it): NOT YET MEASURED on a GPU; a one-thread loop there is expected
// to be about a thousand times slower, so 20x is far below half of any plausible gain. Confirm on an H100.
namespace thresholds {
constexpr course::Threshold kPipeline{"lesson9.pipeline", 0.35, 1.25, course::Scaling::fixed, 0};
constexpr course::Threshold kAllDevices{"lesson9.all_devices", 1.0, 1.25, course::Scaling::fixed, 0};
constexpr course::Threshold kPinnedCopy{"lesson9.pinned_copy", 1.0, 1.9, course::Scaling::fixed, 0};
constexpr course::Threshold kDeviceKernel{"lesson9.device_kernel", 1.0, 20.0, course::Scaling::fixed, 0};
}  // namespace thresholds

namespace {

namespace trace = course::lesson9_trace;
namespace base = course::baseline::lesson9;
using trace::DataOp;

using course_test::expect;  // a check from a condition, for COURSE_CHECK

std::string fmt(const char *format, double a = 0, double b = 0, double c = 0, double d = 0, double e = 0) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, format, a, b, c, d, e);
  return buf;
}

bool on_gpu() { return course::device_info().is_gpu(); }

// LLVM 19's host device with hidden helper threads on crashes about one
// pipeline in 100 (cmake/CourseEnvironment.cmake); ctest turns them off. Say so when
// this program runs without ctest.
void note_hidden_helpers() {
  static const bool once = [] {
    const char *e = std::getenv("LIBOMP_USE_HIDDEN_HELPER_TASK");
    if (!on_gpu() && (!e || std::string(e) != "0"))
      std::printf("note: LIBOMP_USE_HIDDEN_HELPER_TASK=0 is not set; on LLVM 19's host device `nowait` kernels then "
                  "abort now and then (\"Assertion failure at kmp_tasking.cpp\"): run through ctest, which sets it\n");
    return true;
  }();
  (void)once;
}

// Fresh inputs for every call: the runtime reuses freed device memory, so a
// chunk or share that is never computed would otherwise find the previous
// call's (correct) results there. With new inputs each time, stale values
// are wrong values.
struct Inputs {
  std::vector<float> first, second;
  std::vector<double> ref;
  explicit Inputs(int n) {
    static std::uint64_t calls = 0;
    const std::uint64_t s = course_test::seed() + 7919 * ++calls;
    first = course::random_vector<float>((std::size_t)n, s, -1.f, 1.f);
    second = course::random_vector<float>((std::size_t)n, s + 1, -1.f, 1.f);
    ref = base::add_exp_reference(n, first.data(), second.data());
  }
};

lesson9::Job make_job(int n, const Inputs &in, std::vector<float> &result, int terms = lesson9::min_terms) {
  lesson9::Job job;
  job.n = n;
  job.first = in.first.data();
  job.second = in.second.data();
  job.result = result.data();
  job.terms = terms;
  return job;
}

// The tool's reports are needed where a wrong version would otherwise pass:
// on the host device they must be there (ctest sets what makes them work);
// on a GPU the speed tests and answers still grade, so their absence only warns.
bool have(bool live, const std::string &what) {
  if (live) return true;
  std::string why = !trace::tracing_active()
                        ? "the OMPT tool is not active (is OMP_TOOL=disabled set?)"
                        : "the OpenMP runtime does not report " + what + " to the OMPT tool";
  if (on_gpu()) {
    WARN(why + "; this check is skipped on this GPU runtime");
    return false;
  }
  FAIL(why + "; on the host device this test cannot grade the step without it (run it through ctest, which sets "
             "LD_LIBRARY_PATH for LLVM 19's offload runtime)");
  return false;
}

// ---- 9.1 the pipeline ----------------------------------------------------------

int chunk_size(int n, int chunks) { return (n + chunks - 1) / chunks; }
int chunks_used(int n, int chunks) {
  const int size = chunk_size(n, chunks);
  return (n + size - 1) / size;
}

std::string pipeline_name(int n, int chunks) {
  const int size = chunk_size(n, chunks), used = chunks_used(n, chunks);
  return "pipeline n=" + std::to_string(n) + ", " + std::to_string(chunks) + " chunks (" + std::to_string(used) +
         " used, size " + std::to_string(size) + ", last " + std::to_string(n - (used - 1) * size) + ")";
}

void check_pipeline(int n, int chunks, int terms = lesson9::min_terms) {
  note_hidden_helpers();
  const Inputs in(n);
  auto result = course_test::poisoned<float>((std::size_t)n);
  lesson9::add_exp_pipelined(make_job(n, in, result, terms), chunks);
  COURSE_CHECK(course::check_close<float>(result, in.ref, lesson9::result_tolerance, pipeline_name(n, chunks) +
                                                                    " (a wrong or missing chunk? README, step 9.1)"));
  const int dev = omp_get_default_device();
  COURSE_CHECK(expect(!omp_target_is_present(in.first.data(), dev) && !omp_target_is_present(in.second.data(), dev) &&
                          !omp_target_is_present(result.data(), dev),
                      pipeline_name(n, chunks) +
                          ": after pipeline_wait() the arrays are still mapped on the device; release them with "
                          "`target exit data` (README, step 9.1)"));
}

// ---- 9.2 device memory ----------------------------------------------------------

// Fills n floats of DEVICE memory at p with NaN, on the device: so a result
// the kernel never writes cannot pass as stale or zeroed memory.
void poison_on_device(float *p, int n, int dev) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(p)
  for (int i = 0; i < n; ++i) p[i] = nan;
}

std::string where(int n, int dev) { return "n=" + std::to_string(n) + " on device " + std::to_string(dev); }

void check_device_memory(int n, int dev, int terms = lesson9::min_terms) {
  const Inputs in(n);
  auto result = course_test::poisoned<float>((std::size_t)n);
  const std::size_t bytes = sizeof(float) * (std::size_t)n;
  const std::string at = where(n, dev);
  const bool watch = have(trace::device_events(), "device allocations and copies");

  lesson9::DeviceArrays d;
  const auto up = trace::record([&] { d = lesson9::device_upload(n, in.first.data(), in.second.data(), dev); });
  REQUIRE(d.first != nullptr);
  REQUIRE(d.second != nullptr);
  REQUIRE(d.result != nullptr);
  COURSE_CHECK(expect(d.n == n && d.device == dev, fmt("device_upload: the arrays say n=%.0f, device %.0f; expected n=%.0f, "
                                                       "device %.0f",
                                                       d.n, d.device, n, dev)));
  COURSE_CHECK(expect(!omp_target_is_present(in.first.data(), dev) && !omp_target_is_present(in.second.data(), dev),
                      "device_upload " + at +
                          ": the host inputs are MAPPED on the device (`target enter data`). This step allocates "
                          "device memory itself and copies into it: which OpenMP routines work on device memory "
                          "by device number, with no map? (README, step 9.2)"));
  if (watch) {
    for (const auto &[p, name] : {std::pair<float *, const char *>{d.first, "first"}, {d.second, "second"},
                                  {d.result, "result"}}) {
      const DataOp *a = up.allocation(dev, p);
      COURSE_CHECK(expect(a != nullptr,
                          "device_upload " + at + ": d." + name +
                              " is not memory the runtime allocated on device " + std::to_string(dev) +
                              " during the call (host memory from new/malloc? another device?): which OpenMP "
                              "routine allocates memory on a device you name? (README, step 9.2)"));
      if (a)
        COURSE_CHECK(expect(a->bytes >= bytes && a->host == 0,
                            "device_upload " + at + ": d." + name +
                                fmt(" is a device allocation of %.0f bytes; expected omp_target_alloc of %.0f bytes",
                                    (double)a->bytes, (double)bytes) +
                                (a->host ? " made by a map (it mirrors a host array)" : "")));
    }
    COURSE_CHECK(expect(up.copied(DataOp::to_device, dev, in.first.data(), bytes) == bytes &&
                            up.copied(DataOp::to_device, dev, in.second.data(), bytes) == bytes,
                        "device_upload " + at +
                            fmt(": %.0f and %.0f of %.0f bytes of first and second were copied to the device: "
                                "omp_target_memcpy(dst, src, bytes, 0, 0, device, omp_get_initial_device())",
                                (double)up.copied(DataOp::to_device, dev, in.first.data(), bytes),
                                (double)up.copied(DataOp::to_device, dev, in.second.data(), bytes), (double)bytes)));
  }
  // Read the device copy of `first` back ourselves: it must be there, exactly.
  std::vector<float> back((std::size_t)n);
  const int rc = omp_target_memcpy(back.data(), d.first, bytes, 0, 0, omp_get_initial_device(), dev);
  COURSE_CHECK(expect(rc == 0, "device_upload " + at + ": omp_target_memcpy from d.first on device " +
                                   std::to_string(dev) + " failed: d.first is not memory of that device"));
  if (rc == 0) COURSE_CHECK(course::check_equal<float>(back, in.first, "device_upload " + at + ": d.first on the device"));
  if (rc == 0) poison_on_device(d.result, n, dev);

  const auto kernel = trace::record([&] { lesson9::device_add_exp(d, terms); });
  if (watch) {
    COURSE_CHECK(expect(kernel.kernels_on(dev) >= 1, "device_add_exp " + at + ": no kernel ran on device " +
                                                         std::to_string(dev) + ": device(d.device) on the target construct"));
    const double moved = (double)(kernel.copied_total(DataOp::to_device) + kernel.copied_total(DataOp::from_device));
    COURSE_CHECK(expect(moved == 0 && kernel.count(DataOp::alloc) == 0,
                        "device_add_exp " + at +
                            fmt(": the kernel call copied %.0f bytes and allocated %.0f times. The arrays already live "
                                "on the device: hand their addresses to the kernel with is_device_ptr(...), not map "
                                "(README, step 9.2)",
                                moved, kernel.count(DataOp::alloc))));
  }
  const auto down = trace::record([&] { lesson9::device_download(d, result.data()); });
  if (watch)
    COURSE_CHECK(expect(down.copied(DataOp::from_device, dev, result.data(), bytes) == bytes,
                        "device_download " + at +
                            fmt(": %.0f of %.0f bytes of the result came back from the device: omp_target_memcpy to "
                                "the host (device omp_get_initial_device())",
                                (double)down.copied(DataOp::from_device, dev, result.data(), bytes), (double)bytes)));
  COURSE_CHECK(course::check_close<float>(result, in.ref, lesson9::result_tolerance, "device memory " + at));

  float *const pointers[3] = {d.first, d.second, d.result};
  const auto freed = trace::record([&] { lesson9::device_release(d); });
  COURSE_CHECK(expect(!d.first && !d.second && !d.result, "device_release " + at + ": the pointers are not null afterwards"));
  if (watch)
    for (float *p : pointers)
      COURSE_CHECK(expect(freed.released(dev, p),
                          "device_release " + at + ": an array was not freed on its device: omp_target_free(p, device)"));
}

// ---- 9.3 every device ---------------------------------------------------------------

void check_all_devices(int n, int devices, bool traced = false) {
  const Inputs in(n);
  auto result = course_test::poisoned<float>((std::size_t)n);
  const std::size_t fb = sizeof(float);
  const std::string at = "all devices, n=" + std::to_string(n) + ", " + std::to_string(devices) + " device(s)";
  std::vector<lesson9::DeviceReport> reports;
  const auto job = make_job(n, in, result);
  const auto log = trace::record([&] { reports = lesson9::add_exp_all_devices(job, devices); });
  COURSE_CHECK(course::check_close<float>(result, in.ref, lesson9::result_tolerance, at + " (README, step 9.3)"));
  REQUIRE(reports.size() == (std::size_t)devices);

  const int initial = omp_get_initial_device();
  long long expected_begin = 0;
  const long long small = n / devices, large = (n + devices - 1) / devices;
  for (int d = 0; d < devices; ++d) {
    const auto &r = reports[(std::size_t)d];
    const std::string who = at + ": device " + std::to_string(d);
    COURSE_CHECK(expect(r.is_initial == 0, who + fmt(" reported omp_is_initial_device() = %.0f; expected 0, written inside "
                                                     "a target region on that device (-1: it never reported)",
                                                     r.is_initial)));
    // A GPU answers omp_get_device_num() with its own number. LLVM 19's host
    // device answers with the initial device's number inside every target
    // region (measured), so there the device is checked by the copies below.
    const bool num_ok = r.device_num == d || (!on_gpu() && r.device_num == initial);
    COURSE_CHECK(expect(num_ok, who + fmt(" reported omp_get_device_num() = %.0f; expected %.0f: did its region run with "
                                          "device(d)? (-1: it never reported)",
                                          r.device_num, d)));
    const long long len = r.end - r.begin;
    COURSE_CHECK(expect(r.begin == expected_begin && (len == small || len == large),
                        who + fmt(" reported the share [%.0f, %.0f); expected it to start at %.0f and hold %.0f or "
                                  "%.0f elements (contiguous shares in device order, within one element of equal)",
                                  (double)r.begin, (double)r.end, (double)expected_begin, (double)small,
                                  (double)large)));
    expected_begin = r.end;
    if (traced && len >= 0) {
      const std::size_t share = (std::size_t)len * fb;
      const float *f = in.first.data() + r.begin, *s = in.second.data() + r.begin;
      const float *out = result.data() + r.begin;
      const double got_in = (double)(log.copied(DataOp::to_device, d, f, share) +
                                     log.copied(DataOp::to_device, d, s, share));
      const double all_in = (double)(log.copied(DataOp::to_device, d, in.first.data(), fb * n) +
                                     log.copied(DataOp::to_device, d, in.second.data(), fb * n));
      const double got_out = (double)log.copied(DataOp::from_device, d, out, share);
      COURSE_CHECK(expect(len == 0 || log.kernels_on(d) >= 1,
                          who + " ran no kernel: launch each share with device(d)"));
      COURSE_CHECK(expect(got_in == 2.0 * share && all_in == got_in,
                          who + fmt(" received %.0f bytes of its share's inputs and %.0f bytes of inputs in all; its "
                                    "share needs exactly %.0f: map only first[b:len] and second[b:len] to it",
                                    got_in, all_in, 2.0 * share)));
      COURSE_CHECK(expect(got_out == (double)share,
                          who + fmt(" sent back %.0f of its share's %.0f result bytes", got_out, (double)share)));
    }
  }
  COURSE_CHECK(expect(expected_begin == n, at + fmt(": the shares end at %.0f, not at n = %.0f", (double)expected_begin, n)));
}

int devices_here() { return omp_get_num_devices(); }

}  // namespace

// ---- 9.1 correctness ------------------------------------------------------------

TEST_CASE("pipeline with 1 chunk", "[lesson9][correctness]") { check_pipeline(1009, 1); }
TEST_CASE("pipeline at n = 1 with 4 chunks", "[lesson9][correctness]") { check_pipeline(1, 4); }
TEST_CASE("pipeline with more chunks than fit: n = 10 and 6 chunks (5 used)", "[lesson9][correctness]") {
  check_pipeline(10, 6);
}
TEST_CASE("pipeline with a partial last chunk: n = 1000 and 7 chunks", "[lesson9][correctness]") {
  check_pipeline(1000, 7);
}
TEST_CASE("pipeline at prime n = 100003 with 8 chunks and 40 terms", "[lesson9][correctness]") {
  check_pipeline(100003, 8, 40);
}
TEST_CASE("pipeline at n = 4194304 with 16 chunks", "[lesson9][correctness]") { check_pipeline(1 << 22, 16); }

// What makes a pipeline, checked as facts of the program instead of timings:
// pipeline_start() must create every stage as a target task, i.e. `nowait`
// (a synchronous version creates none: it fails here on any device, fast or
// slow), the tasks must form one chain of at least three stages per chunk
// (depend clauses: a stage without one would start a chain of its own; chunks
// that depend on each other collapse into fewer chains), start() must not
// wait, and pipeline_wait() must -- every task is complete when it returns.
// On the host device ctest turns LLVM's hidden helper threads off
// (cmake/CourseEnvironment.cmake), so there these tasks run as they are created: the
// graph is the same, and it is the graph that is graded.
TEST_CASE("pipeline_start launches copies and kernels as nowait tasks chained per chunk and waits for none",
          "[lesson9][correctness][ompt]") {
  if (!have(trace::task_events(), "nowait target tasks, their dependences and taskwaits")) return;
  const int n = 100003, chunks = 8, used = chunks_used(n, chunks);
  const Inputs in(n);
  auto result = course_test::poisoned<float>((std::size_t)n);
  const auto job = make_job(n, in, result);
  trace::Log at_return;
  const auto all = trace::record([&] {
    lesson9::pipeline_start(job, chunks);
    at_return = trace::snapshot();
    lesson9::pipeline_wait(job, chunks);
  });
  const int tasks = at_return.target_tasks(), heads = at_return.chain_heads();
  INFO("pipeline_start created " << tasks << " nowait target tasks in " << heads << " chains for " << used
                                 << " chunks");
  const std::string what = pipeline_name(n, chunks) + ": pipeline_start() ";
  COURSE_CHECK(expect(tasks >= 1, what +
                                      "created no `nowait` target task: every copy and kernel finished before it "
                                      "returned, so nothing can overlap. Give each stage `nowait` (README, step 9.1)"));
  if (tasks >= 1) {
    COURSE_CHECK(expect(tasks >= 3 * used,
                        what + fmt("created %.0f `nowait` target tasks for %.0f chunks; a pipeline has three per chunk "
                                   "(copy in, kernel, copy out), each `nowait`",
                                   tasks, used)));
    COURSE_CHECK(expect(heads <= chunks,
                        what + fmt("created %.0f tasks that depend on no earlier task, for %.0f chunks: some kernel "
                                   "or copy-out has no depend(in: ...) on its chunk's previous stage, so it may run "
                                   "before its data is there",
                                   heads, chunks)));
    COURSE_CHECK(expect(heads >= used,
                        what + fmt("chained its tasks into %.0f independent chains for %.0f chunks: chunks depend on "
                                   "each other, which serialises them. Depend on an element of each chunk's own range "
                                   "(e.g. first[lo]), not on one shared address",
                                   heads, used)));
    // A copy-out must wait for a kernel. One that depends only on its
    // chunk's copy-in still makes one chain per chunk, and where tasks run
    // as they are created (the host device here) it even gets the right
    // answer; where they run at once it can copy the result back before the
    // kernel has written it. The runtime says which task ran each kernel and
    // each copy (device events), so the order is checked on the graph.
    if (trace::device_events()) {
      std::vector<long> kernel_tasks;
      for (const auto &e : all.events)
        if (e.kind == trace::Event::kernel && e.task >= 0 && all.tasks[(std::size_t)e.task].target)
          kernel_tasks.push_back(e.task);
      const auto lo = reinterpret_cast<std::uintptr_t>(result.data()), hi = lo + sizeof(float) * (std::size_t)n;
      for (const auto &op : all.data_ops) {
        if (op.kind != DataOp::from_device || op.host < lo || op.host >= hi || op.task < 0) continue;
        bool after_kernel = false;
        for (long k : kernel_tasks) after_kernel = after_kernel || all.ordered_after(op.task, k);
        const double first_element = (double)((op.host - lo) / sizeof(float));
        COURSE_CHECK(expect(after_kernel,
                            what + fmt("copies result[%.0f...] back in a task that waits for no kernel: its depend "
                                       "clauses order it after the chunk's copy-in only. Where tasks run at once "
                                       "it can copy the result home before the kernel has written it, a race. "
                                       "What must a copy-out wait for, and what does the kernel's depend(out: ...) "
                                       "name? (README, step 9.1, concept 2)",
                                       first_element)));
        if (!after_kernel) break;  // one message is enough
      }
    }
  }
  COURSE_CHECK(expect(at_return.taskwaits == 0 && at_return.taskgroups == 0,
                      what + "waited (taskwait or taskgroup) before returning: launch only, and wait in pipeline_wait()"));
  COURSE_CHECK(expect(all.taskwaits > at_return.taskwaits,
                      pipeline_name(n, chunks) + ": pipeline_wait() executed no taskwait"));
  COURSE_CHECK(expect(all.unfinished() == 0, pipeline_name(n, chunks) +
                                                 fmt(": %.0f of the pipeline's tasks were still unfinished when "
                                                     "pipeline_wait() returned: `taskwait` before releasing the data",
                                                     all.unfinished())));
  COURSE_CHECK(course::check_close<float>(result, in.ref, lesson9::result_tolerance, pipeline_name(n, chunks) + " (traced run)"));
}

// What the pipeline moves, seen by the OMPT tool: each input crosses to the
// device once, the result comes back once, and device memory is taken once
// for the whole run (one allocation per array), not per chunk or per stage.
// The task graph above cannot see this, and neither can the answer: a
// pipeline whose arrays are not on the device when its `target update`s run
// copies nothing, and on the host device its kernel then reads and writes the
// host's own arrays -- right, with no copy at all (a GPU could not).
TEST_CASE("pipeline copies each array across once into device memory taken once", "[lesson9][correctness][ompt]") {
  if (!have(trace::device_events(), "device allocations and copies")) return;
  note_hidden_helpers();
  const int n = 100003, chunks = 8, used = chunks_used(n, chunks);
  const Inputs in(n);
  auto result = course_test::poisoned<float>((std::size_t)n);
  const auto job = make_job(n, in, result);
  const int dev = omp_get_default_device();
  const auto log = trace::record([&] { lesson9::add_exp_pipelined(job, chunks); });
  COURSE_CHECK(course::check_close<float>(result, in.ref, lesson9::result_tolerance, pipeline_name(n, chunks) + " (counted run)"));
  const std::size_t bytes = sizeof(float) * (std::size_t)n;
  const double b = (double)bytes;
  const double first_in = (double)log.copied(DataOp::to_device, dev, in.first.data(), bytes),
               second_in = (double)log.copied(DataOp::to_device, dev, in.second.data(), bytes),
               result_in = (double)log.copied(DataOp::to_device, dev, result.data(), bytes),
               result_out = (double)log.copied(DataOp::from_device, dev, result.data(), bytes);
  int allocations = 0;
  for (const auto &op : log.data_ops) allocations += op.kind == DataOp::alloc && op.device == dev;
  INFO(pipeline_name(n, chunks) << ": to the device " << first_in << " bytes of first, " << second_in
                                << " of second, " << result_in << " of result; back " << result_out
                                << " of result; " << allocations << " device allocations (" << b
                                << " bytes per array)");
  const std::string what = pipeline_name(n, chunks) + ": ";
  COURSE_CHECK(expect(first_in >= b && second_in >= b,
                      what + fmt("only %.0f and %.0f of the %.0f bytes of first and second were copied to the "
                                 "device: the arrays are not on the device when the chunks' `target update to` run, "
                                 "and an update of data that is not present copies nothing (the kernel then works on "
                                 "whatever its pointers reach: on the host device the host's own arrays). Is device "
                                 "memory taken for them before the chunks? (README, step 9.1, concept 3)",
                                 first_in, second_in, b)));
  COURSE_CHECK(expect(first_in <= b && second_in <= b,
                      what + fmt("first and second were copied to the device %.2f and %.2f times: each chunk's "
                                 "inputs need to cross once. Copied by a map and by a `target update` both, or "
                                 "whole for every chunk? (README, step 9.1, concept 3)",
                                 first_in / b, second_in / b)));
  COURSE_CHECK(expect(result_in == 0, what + fmt("%.0f bytes of result were copied TO the device: result is output "
                                                 "only, its old contents never need to go in (README, step 9.1)",
                                                 result_in)));
  COURSE_CHECK(expect(result_out >= b,
                      what + fmt("only %.0f of the %.0f bytes of result came back from the device: the result "
                                 "stayed where the kernel wrote it; is it on the device, and does every chunk's "
                                 "`target update from` find it there? (README, step 9.1, concept 3)",
                                 result_out, b)));
  COURSE_CHECK(expect(result_out <= b,
                      what + fmt("result came back from the device %.2f times: the chunks' copy-outs already "
                                 "brought every element home. Does giving the device memory back need to copy "
                                 "too? (README, step 9.1, concept 3)",
                                 result_out / b)));
  // Where the copies ran: inside the pipeline's `nowait` tasks, a chunk at a
  // time. The totals above cannot tell a pipeline from one that copies every
  // input up front (synchronously) and every result at the end, its chunks'
  // `target update`s copying nothing: right answer, right byte counts, and
  // nothing left for a kernel to overlap.
  const std::size_t chunk_bytes = sizeof(float) * (std::size_t)chunk_size(n, chunks);
  const auto in_tasks = [&](DataOp::Kind kind, const float *array, std::size_t &largest) {
    const auto lo = reinterpret_cast<std::uintptr_t>(array), hi = lo + bytes;
    double sum = 0;
    largest = 0;
    for (const auto &op : log.data_ops) {
      if (op.kind != kind || op.device != dev || op.host < lo || op.host >= hi) continue;
      if (op.task < 0 || !log.tasks[(std::size_t)op.task].target) continue;
      sum += (double)op.bytes;
      largest = std::max(largest, op.bytes);
    }
    return sum;
  };
  std::size_t big_first = 0, big_second = 0, big_result = 0;
  const double first_tasks = in_tasks(DataOp::to_device, in.first.data(), big_first),
               second_tasks = in_tasks(DataOp::to_device, in.second.data(), big_second),
               result_tasks = in_tasks(DataOp::from_device, result.data(), big_result);
  COURSE_CHECK(expect(first_tasks >= b && second_tasks >= b,
                      what + fmt("only %.0f and %.0f of the %.0f bytes of first and second crossed to the device "
                                 "inside the pipeline's `nowait` tasks; the rest crossed before the chunks, in one "
                                 "synchronous copy. Inputs that are all on the device before the first kernel leave "
                                 "nothing for the kernels to overlap: which stage of each chunk should move that "
                                 "chunk's inputs? (README, step 9.1, concept 3)",
                                 first_tasks, second_tasks, b)));
  COURSE_CHECK(expect(result_tasks >= b,
                      what + fmt("only %.0f of the %.0f bytes of result came back inside the pipeline's `nowait` "
                                 "tasks; the rest came back after the last chunk, in one copy. Each chunk's result "
                                 "can start home while later chunks still compute: which stage should carry it? "
                                 "(README, step 9.1, concept 3)",
                                 result_tasks, b)));
  COURSE_CHECK(expect(std::max({big_first, big_second, big_result}) <= chunk_bytes,
                      what + fmt("one copy inside a task moved %.0f bytes, more than a chunk holds (%.0f bytes): "
                                 "each stage should move its own chunk only (README, step 9.1, concept 3)",
                                 (double)std::max({big_first, big_second, big_result}), (double)chunk_bytes)));
  COURSE_CHECK(expect(allocations <= 3,
                      what + fmt("device memory was allocated %.0f times for %.0f chunks (expected 3: one per "
                                 "array): the arrays should stay resident on the device for the whole pipeline, "
                                 "taken once before the chunks, not mapped again per chunk or per stage (README, "
                                 "step 9.1, concept 3)",
                                 allocations, used)));
}

// ---- 9.2 correctness ----------------------------------------------------------------

TEST_CASE("device memory at n = 1 on the default device", "[lesson9][correctness][ompt]") {
  check_device_memory(1, omp_get_default_device());
}
TEST_CASE("device memory at prime n = 100003 on every device", "[lesson9][correctness][ompt]") {
  for (int dev = 0; dev < devices_here(); ++dev) check_device_memory(100003, dev, 24);
}
TEST_CASE("device memory at n = 4194304 on the last device", "[lesson9][correctness][ompt]") {
  check_device_memory(1 << 22, devices_here() - 1);
}

// ---- 9.3 correctness ------------------------------------------------------------------

// STEP-ELSEWHERE(9.3, gpu): lesson9: on a node with one GPU the undone step is a correct one-device program (one share, one report, filled on the device), so no test there can tell, and the host device's four devices and any node with two GPUs or more catch it
// The host device offers 4 devices (LLVM 19's x86-64 plugin); a node offers
// its GPUs. Every count from 1 to all of them is tried, so the split is right
// for 1, 2, 3 and 4 devices wherever there are that many.
TEST_CASE("all devices at prime n = 100003 for every device count", "[lesson9][correctness]") {
  for (int d = 1; d <= devices_here(); ++d) check_all_devices(100003, d);
}
TEST_CASE("all devices with fewer elements than devices: n = 1 and n = 3", "[lesson9][correctness]") {
  for (int d = 1; d <= devices_here(); ++d) {
    check_all_devices(1, d);
    check_all_devices(3, d);
  }
}
TEST_CASE("all devices at n = 4194304", "[lesson9][correctness]") { check_all_devices(1 << 22, devices_here()); }

// Each device's share, seen from the runtime: device d ran a kernel, received
// exactly its share of the inputs and sent back exactly its share of the result.
TEST_CASE("each device received and computed and returned exactly its share", "[lesson9][correctness][ompt]") {
  if (!have(trace::device_events(), "kernels and copies per device")) return;
  for (int d = 1; d <= devices_here(); ++d) check_all_devices(10007, d, true);
}

// All devices at once, as facts of the program: each device's work must be
// launched without waiting for it -- as `nowait` target tasks (then every
// kernel the OMPT tool sees ran inside one, and the launching thread waited
// once, not once per device), or from one host thread per device. A loop of
// synchronous target regions runs the devices one after another: right
// answer, right shares, no overlap, and on the host device (whose devices
// share the same cores) no time lost either, so only this test can tell.
TEST_CASE("all devices are launched before any is waited for", "[lesson9][correctness][ompt]") {
  const int devices = devices_here();
  if (devices < 2) {
    WARN("one offload device: nothing can run beside it, so step 9.3's concurrency is not graded here");
    return;
  }
  if (!have(trace::task_events(), "nowait target tasks and taskwaits")) return;
  const bool events = trace::device_events();
  const int n = 10007;
  const Inputs in(n);
  auto result = course_test::poisoned<float>((std::size_t)n);
  const auto job = make_job(n, in, result);
  std::vector<lesson9::DeviceReport> reports;
  const auto log = trace::record([&] { reports = lesson9::add_exp_all_devices(job, devices); });
  const std::string at = "all devices, n=" + std::to_string(n) + ", " + std::to_string(devices) + " devices: ";
  COURSE_CHECK(course::check_close<float>(result, in.ref, lesson9::result_tolerance, at + "(README, step 9.3)"));

  // Per device: kernels that ran inside a `nowait` target task, kernels that did not.
  std::vector<int> in_task((std::size_t)devices, 0), waited_for((std::size_t)devices, 0);
  std::vector<int> threads;
  for (const auto &e : log.events) {
    if (e.kind != trace::Event::kernel || e.device < 0 || e.device >= devices) continue;
    const bool task = e.task >= 0 && log.tasks[(std::size_t)e.task].target;
    ++(task ? in_task : waited_for)[(std::size_t)e.device];
    if (std::find(threads.begin(), threads.end(), e.thread) == threads.end()) threads.push_back(e.thread);
  }
  const int tasks = log.target_tasks(), waits = log.taskwaits + log.taskgroups;
  INFO(at << tasks << " nowait target tasks, " << waits << " waits (taskwait or taskgroup), kernels launched from "
          << threads.size() << " host thread(s)");
  if (events && threads.size() >= 2) {  // one host thread per device: they run side by side
    SUCCEED(at + "kernels launched from several host threads");
    return;
  }
  COURSE_CHECK(expect(tasks >= 1,
                      at + "created no `nowait` target task, and one host thread launched every kernel: each device's "
                           "work finished before the next device's began, so the devices ran one after another. "
                           "Launch every device's work before waiting for any (README, step 9.3, concept 6)"));
  if (tasks < 1) return;
  if (events) {
    for (int d = 0; d < devices; ++d)
      COURSE_CHECK(expect(waited_for[(std::size_t)d] == 0,
                          at + fmt("device %.0f ran %.0f kernel(s) that were no `nowait` task: the launching thread "
                                   "waited for each before it went on, so that part ran one device after another "
                                   "(README, step 9.3, concept 6)",
                                   d, waited_for[(std::size_t)d])));
  } else {
    COURSE_CHECK(expect(tasks >= devices, at + fmt("created %.0f `nowait` target tasks for %.0f devices: some device's "
                                                   "work is no `nowait` task, so the thread waited for it before "
                                                   "launching the next (README, step 9.3, concept 6)",
                                                   tasks, devices)));
  }
  // `nowait` on every device, but each device's tasks ordered after the one
  // before it by a depend on a shared address (say depend(inout: rep[0])):
  // launched at once, run one after another. No two devices' work may be
  // ordered by the task graph.
  if (events) {
    std::vector<std::pair<long, int>> task_device;  // (task, device) of each kernel run in a target task
    for (const auto &e : log.events)
      if (e.kind == trace::Event::kernel && e.task >= 0 && log.tasks[(std::size_t)e.task].target)
        task_device.emplace_back(e.task, e.device);
    bool chained = false;
    for (const auto &[later, dl] : task_device)
      for (const auto &[earlier, de] : task_device)
        if (!chained && dl != de && log.ordered_after(later, earlier)) {
          chained = true;
          COURSE_CHECK(expect(false, at + fmt("device %.0f's work waits for device %.0f's: their `nowait` tasks "
                                              "name a common address in their depend clauses, so the runtime "
                                              "runs them one after another, as if there were no `nowait`. Does "
                                              "one device's share need anything from another's? (README, step "
                                              "9.3, concept 6)",
                                              dl, de)));
        }
  } else {
    COURSE_CHECK(expect(log.chain_heads() >= devices,
                        at + fmt("its `nowait` tasks form %.0f independent chains for %.0f devices: depend clauses "
                                 "on a common address order the devices' work one after another (README, step "
                                 "9.3, concept 6)",
                                 log.chain_heads(), devices)));
  }
  // Two waits are fine (say, after the kernels and after the reports); one per
  // device means each device started only when the one before had finished.
  // With two devices the two cannot be told apart, so this needs three.
  if (devices >= 3)
    COURSE_CHECK(expect(waits < devices,
                        at + fmt("waited %.0f times (taskwait or taskgroup) for %.0f devices: a wait per device lets "
                                 "each device start only when the one before it has finished, one after another "
                                 "again. Launch them all, then wait (README, step 9.3, concept 6)",
                                 waits, devices)));
  COURSE_CHECK(expect(log.unfinished() == 0,
                      at + fmt("%.0f of its tasks were unfinished when add_exp_all_devices() returned: the results "
                               "and reports may not be written yet. Wait for them before returning",
                               log.unfinished())));
}

// ---- 9.4 pinned host memory -----------------------------------------------------------

namespace {

namespace alloc = course::lesson9_alloc;

// An allocator handle by its name in omp.h, so a message says
// `omp_default_mem_alloc`, not "allocator 1".
std::string allocator_name(omp_allocator_handle_t a) {
  static const struct {
    omp_allocator_handle_t handle;
    const char *name;
  } known[] = {{omp_null_allocator, "omp_null_allocator"},
               {omp_default_mem_alloc, "omp_default_mem_alloc"},
               {omp_large_cap_mem_alloc, "omp_large_cap_mem_alloc"},
               {omp_const_mem_alloc, "omp_const_mem_alloc"},
               {omp_high_bw_mem_alloc, "omp_high_bw_mem_alloc"},
               {omp_low_lat_mem_alloc, "omp_low_lat_mem_alloc"},
               {omp_cgroup_mem_alloc, "omp_cgroup_mem_alloc"},
               {omp_pteam_mem_alloc, "omp_pteam_mem_alloc"},
               {omp_thread_mem_alloc, "omp_thread_mem_alloc"},
               {llvm_omp_target_host_mem_alloc, "llvm_omp_target_host_mem_alloc"},
               {llvm_omp_target_shared_mem_alloc, "llvm_omp_target_shared_mem_alloc"},
               {llvm_omp_target_device_mem_alloc, "llvm_omp_target_device_mem_alloc"}};
  for (const auto &k : known)
    if (k.handle == a) return k.name;
  {
    std::lock_guard<std::mutex> g(alloc::state().lock);
    for (const auto &f : alloc::state().allocators)
      if (f.handle == a) return "an allocator the program made with omp_init_allocator";
  }
  return "allocator handle " + std::to_string((std::uintptr_t)a);
}

// Which call made (or took back) a block, in words.
std::string by_call(const alloc::Block &b, const char *verb) {
  switch (b.source) {
    case alloc::Source::omp_alloc: return std::string(verb) + " with " + allocator_name(b.allocator);
    case alloc::Source::llvm_host: return "llvm_omp_target_alloc_host";
    case alloc::Source::target_alloc: return "omp_target_alloc";
    case alloc::Source::none: break;
  }
  return "no OpenMP call";
}

// pinned_alloc(n): memory the OpenMP runtime pinned for its devices (seen by
// the allocation witness, on every device class), which the host reads and
// writes and a target region maps like any array; then pinned_free() gives it
// back through the matching OpenMP call.
void check_pinned(std::size_t n) {
  const std::string at = "pinned_alloc(" + std::to_string(n) + ")";
  float *p = nullptr;
  const auto taken = alloc::record([&] { p = lesson9::pinned_alloc(n); });
  REQUIRE(p != nullptr);
  const alloc::Block *b = taken.holding(p);
  if (!b) {
    FAIL_CHECK(at + " returned memory that no OpenMP allocation call made (new, malloc, a std::vector?): ordinary "
                    "pageable memory, which a GPU copies through a staging buffer of its driver, slowly and not "
                    "beside a kernel. Which OpenMP call takes host memory from an allocator, and which allocator's "
                    "memory does the offload runtime pin? (README, concept 8, step 9.4)");
  } else {
    switch (alloc::pinning(*b)) {
      case alloc::Pinning::llvm_pinned:
        SUCCEED(at + ": pinned host memory from LLVM's offload runtime");
        break;
      case alloc::Pinning::standard_trait_only:
        FAIL_CHECK(at + " took its memory from an allocator whose only pinning request is the standard "
                        "`omp_atk_pinned` trait on the default memory space. That is the portable way to ask, but "
                        "LLVM 19 does not pin that memory: an H100 copied from it at 5.1 GB/s, from LLVM's pinned "
                        "host memory at 47.5 GB/s and from malloc at 7.3 GB/s. With LLVM, ask its offload runtime "
                        "for the memory: which of LLVM's own allocators (or memory spaces) is for host memory? "
                        "(README, step 9.4)");
        break;
      case alloc::Pinning::device_memory:
        FAIL_CHECK(at + " returned DEVICE memory (omp_target_alloc, or a device allocator): on a GPU the host "
                        "cannot touch it. Step 9.4 wants host memory that a device copies quickly (README, step 9.4)");
        break;
      case alloc::Pinning::ordinary:
        FAIL_CHECK(at + " took its memory from " + by_call(*b, "omp_alloc") + ", which gives ordinary pageable "
                        "memory: nothing asked for it to be pinned. Which allocator's memory does the offload "
                        "runtime pin? (README, concept 8, step 9.4)");
        break;
    }
  }
  // Host memory to the host: every element written and read here, and mapped
  // into a target region both ways.
  for (std::size_t i = 0; i < n; ++i) p[i] = (float)(i % 1000003);
#pragma omp target teams distribute parallel for map(tofrom : p[0:n])
  for (std::size_t i = 0; i < n; ++i) p[i] = 2.f * p[i] + 1.f;
  std::vector<float> expected(n), got(p, p + n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = 2.f * (float)(i % 1000003) + 1.f;
  COURSE_CHECK(course::check_equal<float>(got, expected, at + ": the memory mapped into a target region and back"));
  // Said before the call: omp_free with another allocator than omp_alloc's
  // aborts inside clang 19's libomp ("Assertion failure at kmp_alloc.cpp",
  // or glibc's "free(): invalid pointer"), and the crash note below it can
  // only guess. These lines show with a failure (ctest --output-on-failure).
  if (b)
    std::cout << "lesson 9: pinned_free() now gives back " << at << "'s memory, taken by "
              << by_call(*b, "omp_alloc") << "; a free told another allocator aborts in the OpenMP runtime"
              << std::endl;
  const auto given = alloc::record([&] { lesson9::pinned_free(p); });
  const alloc::Block *f = given.free_of(p);
  COURSE_CHECK(expect(f != nullptr && (!b || f->source == b->source),
                      "pinned_free() on " + at + "'s memory gave it back " +
                          (f ? "by " + by_call(*f, "omp_free") : std::string("through no OpenMP call")) +
                          (b ? ", but it was taken by " + by_call(*b, "omp_alloc") : std::string()) +
                          ": memory goes back through the call that matches how it was taken, told what it was "
                          "taken with (README, step 9.4)"));
}

}  // namespace

TEST_CASE("pinned_alloc returns host memory the runtime pins at n = 1 and 100003 and 2^22", "[lesson9][correctness]") {
  check_pinned(1);
  check_pinned(100003);
  check_pinned((std::size_t)1 << 22);
}

// ---- 9.2 the kernel's threads -----------------------------------------------------------

// device_add_exp() must run its loop over the device's threads, not on one.
// The answer cannot tell (a one-thread loop is right), and on the host device
// neither can the time on a loaded machine: the CPU time each thread spent
// can (course_test::thread_cpu_seconds, unmoved by the machine's load). On a
// GPU the speed test below grades it.
TEST_CASE("device_add_exp spreads the loop over the device's threads", "[lesson9][correctness]") {
  if (on_gpu()) {
    SUCCEED("graded on a GPU by the speed test 'device_add_exp is faster than one device thread'");
    return;
  }
  if (omp_get_max_threads() < 2) {
    WARN("only one OpenMP thread here: the host device's kernels get one thread whatever they ask, so whether "
         "device_add_exp spreads its loop cannot be seen (not graded here)");
    return;
  }
  const int n = 1 << 20, terms = 64, dev = omp_get_default_device();
  const Inputs in(n);
  auto d = lesson9::device_upload(n, in.first.data(), in.second.data(), dev);
  REQUIRE(d.result != nullptr);
  course::idle_threads_sleep();
  lesson9::device_add_exp(d, terms);  // warm-up: the device's threads start
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto cpu = course_test::thread_cpu_seconds([&] {
    for (int r = 0; r < 3; ++r) lesson9::device_add_exp(d, terms);
  });
  std::vector<float> result((std::size_t)n);
  lesson9::device_download(d, result.data());
  lesson9::device_release(d);
  COURSE_CHECK(course::check_close<float>(result, in.ref, lesson9::result_tolerance, where(n, dev) + " (thread split run)"));
  double total = 0;
  for (double t : cpu) total += t;
  const std::string split = course_test::describe_thread_split(cpu);
  std::cout << "device_add_exp " << where(n, dev) << ", " << terms << " terms, x3: " << split << std::endl;
  if (cpu.empty() || total <= 0) {
    WARN("cannot read per-thread CPU time (/proc/self/task): the kernel's thread count is not graded here");
    return;
  }
  COURSE_CHECK(expect(cpu.front() / total <= 0.75,
                      "device_add_exp " + where(n, dev) + " ran its loop on one thread: " + split +
                          ". A target region alone is one thread of the device; which constructs share a loop out "
                          "over teams and their threads? (README, step 9.2)"));
}

// ---- speedup ------------------------------------------------------------------------------

// GPU: 2^26 elements (768 MB moved) and 512 terms, so copies and compute are
// both large (an H100 and an H200 measured 1.1-1.2x; the thresholds above).
// Host device: 2^22 elements, 64 terms.
// Both sides run on pinned host memory from the reference (LLVM's allocator),
// not from pinned_alloc(): this test grades step 9.1, and from pageable
// memory a GPU's copies are staged by its driver and hardly overlap (H100:
// 0.90-1.03x there, 1.52-1.61x on pinned memory).
TEST_CASE("the pipeline is faster than the synchronous version (copies overlap kernels)", "[lesson9][speedup]") {
  const bool gpu = on_gpu();
  const int n = gpu ? 1 << 26 : 1 << 22, terms = gpu ? 512 : 64, chunks = 8;
  const Inputs in(n);
  struct Pinned {
    float *p;
    ~Pinned() { base::free_pinned_floats(p); }
  };
  const std::size_t un = (std::size_t)n;
  const Pinned first{base::pinned_floats(un)}, second{base::pinned_floats(un)}, r0{base::pinned_floats(un)},
      r1{base::pinned_floats(un)};
  REQUIRE((first.p && second.p && r0.p && r1.p));
  std::copy(in.first.begin(), in.first.end(), first.p);
  std::copy(in.second.begin(), in.second.end(), second.p);
  lesson9::Job job;
  job.n = n;
  job.first = first.p;
  job.second = second.p;
  job.result = r1.p;
  job.terms = terms;
  const int dev = omp_get_default_device();
  const auto cmp = course::compare_interleaved(
      [&] { base::add_exp_sync(n, first.p, second.p, r0.p, terms, dev); },
      [&] { lesson9::add_exp_pipelined(job, chunks); }, 5, 1);
  COURSE_CHECK(course::check_close<float>(std::span<const float>(r1.p, un), in.ref, lesson9::result_tolerance,
                                          "pipeline n=2^k (speedup run, pinned host memory)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kPipeline, "lesson 9 pipeline, 8 chunks", cmp);
}

// Graded where devices are real and several: GPUs, two or more. The host
// device's four devices share the same cores, so there the split is graded
// by the tests above (every device computed its share), not by time.
TEST_CASE("all devices are faster than one", "[lesson9][speedup]") {
  const int devices = devices_here();
  if (!on_gpu() || devices < 2)
    COURSE_SKIP_SPEED(std::string("lesson 9 all devices: not graded on this machine: ") +
                      (on_gpu() ? "one GPU, nothing to split across"
                                : "the host device's " + std::to_string(devices) +
                                      " devices share the same cores; the work-split tests grade step 9.3 here"));
  const int n = 1 << 26, terms = 512;
  const Inputs in(n);
  std::vector<float> r0((std::size_t)n), r1((std::size_t)n);
  const auto job = make_job(n, in, r1, terms);
  const auto cmp = course::compare_interleaved(
      [&] { base::add_exp_sync(n, in.first.data(), in.second.data(), r0.data(), terms, 0); },
      [&] { (void)lesson9::add_exp_all_devices(job, devices); }, 5, 1);
  COURSE_CHECK(course::check_close<float>(r1, in.ref, lesson9::result_tolerance, "all devices n=2^26 (speedup run)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kAllDevices, "lesson 9 all " + std::to_string(devices) + " devices vs one", cmp);
}

// Step 9.4 on a GPU: a host-to-device copy of 2^26 floats from pinned_alloc()
// memory against the same copy from a std::vector (pageable), same device
// buffer, interleaved. The host device copies with memcpy either way.
TEST_CASE("copies from pinned_alloc memory are faster than from pageable memory", "[lesson9][speedup]") {
  if (!on_gpu())
    COURSE_SKIP_SPEED("lesson 9 pinned copies: not graded on the host device: its copies are memcpy within one "
                      "RAM, pinned or not; the allocator test ('pinned_alloc returns host memory the runtime pins') "
                      "grades step 9.4 here");
  const std::size_t n = (std::size_t)1 << 26, bytes = sizeof(float) * n;
  const int dev = omp_get_default_device(), host = omp_get_initial_device();
  const auto pageable = course::random_vector<float>(n, course_test::seed(), -1.f, 1.f);
  float *pinned = lesson9::pinned_alloc(n);
  REQUIRE(pinned != nullptr);
  std::copy(pageable.begin(), pageable.end(), pinned);
  float *d = static_cast<float *>(omp_target_alloc(bytes, dev));
  REQUIRE(d != nullptr);
  const auto cmp = course::compare_interleaved([&] { omp_target_memcpy(d, pageable.data(), bytes, 0, 0, dev, host); },
                                               [&] { omp_target_memcpy(d, pinned, bytes, 0, 0, dev, host); }, 5, 1);
  // The copy from pinned_alloc() memory must also be right: poison, copy once more, read back.
  poison_on_device(d, (int)n, dev);
  omp_target_memcpy(d, pinned, bytes, 0, 0, dev, host);
  std::vector<float> back(n);
  omp_target_memcpy(back.data(), d, bytes, 0, 0, host, dev);
  omp_target_free(d, dev);
  lesson9::pinned_free(pinned);
  COURSE_CHECK(course::check_equal<float>(back, pageable, "a copy from pinned_alloc() memory to the device"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kPinnedCopy, "lesson 9 copy from pinned_alloc() memory vs pageable", cmp);
}

// Step 9.2's kernel on a GPU: device_add_exp against the same loop run by one
// device thread, on the same device arrays. A kernel without teams and
// parallel loops is one thread of the GPU: right answer, a thousand times slower.
TEST_CASE("device_add_exp is faster than one device thread", "[lesson9][speedup]") {
  if (!on_gpu())
    COURSE_SKIP_SPEED("lesson 9 device kernel: not graded by time on the host device, whose loaded cores hide a "
                      "thread count; 'device_add_exp spreads the loop over the device's threads' grades it here");
  const int n = 1 << 20, dev = omp_get_default_device();
  const Inputs in(n);
  lesson9::DeviceArrays d{};
  const auto log = course::lesson9_alloc::record([&] { d = lesson9::device_upload(n, in.first.data(), in.second.data(), dev); });
  REQUIRE(d.result != nullptr);
  // The baseline dereferences the arrays on the GPU: host memory there is an
  // illegal access that ends the whole program, so step 9.2's memory first.
  for (const void *a : {(const void *)d.first, (const void *)d.second, (const void *)d.result}) {
    const auto *b = log.holding(a);
    if (!b || b->source != course::lesson9_alloc::Source::target_alloc) {
      lesson9::device_release(d);
      FAIL("device_upload's arrays are not device memory from omp_target_alloc, so its kernel cannot be timed on "
           "the device (README, step 9.2)");
    }
  }
  const auto cmp = course::compare_interleaved(
      [&] { base::add_exp_one_thread(n, d.first, d.second, d.result, lesson9::min_terms, dev); },
      [&] { lesson9::device_add_exp(d, lesson9::min_terms); }, 5, 1);
  poison_on_device(d.result, n, dev);
  lesson9::device_add_exp(d, lesson9::min_terms);
  std::vector<float> result((std::size_t)n);
  lesson9::device_download(d, result.data());
  lesson9::device_release(d);
  COURSE_CHECK(course::check_close<float>(result, in.ref, lesson9::result_tolerance, where(n, dev) + " (device kernel speed run)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kDeviceKernel, "lesson 9 device_add_exp vs one device thread", cmp);
}
