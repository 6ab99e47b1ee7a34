/// @file course_test.hpp
/// @brief What every lesson test includes: Catch2 (v2 or v3), the two
///        assertions the course grades with, and the witnesses that grade a
///        step by what it is about: poison that reaches the device, inputs
///        whose host copy is stale (did the kernel read the device's?), and
///        how the work was split over threads.
#pragma once

#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>  // Catch2 v3 (Ubuntu 24.04)
#include <catch2/interfaces/catch_interfaces_capture.hpp>  // getResultCapture
#else
#include <catch2/catch.hpp>  // Catch2 v2 (Debian 12)
#endif

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "course/data.hpp"
#include "course/grading.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"

namespace course_test {
/// The test case running now (Catch's name for it).
inline std::string current_test() { return Catch::getResultCapture().getCurrentTestName(); }
/// The test case in which a COURSE_CHECK failed last ("" before any failed).
inline std::string &failed_in() {
  static std::string name;
  return name;
}
}  // namespace course_test

/// Fails the test case with the check's own message (size, first bad index,
/// expected, got) and goes on with the next check.
#define COURSE_CHECK(check_expr)                  \
  do {                                            \
    const ::course::Check course_c_ = (check_expr); \
    if (!course_c_.ok) {                          \
      ::course_test::failed_in() = ::course_test::current_test(); \
      FAIL_CHECK(course_c_.message);              \
    } else {                                      \
      SUCCEED();                                  \
    }                                             \
  } while (0)

/// Grades a speedup, prints the verdict line whether it passes or fails, and
/// fails the test case when the measured speedup is below the threshold.
#define COURSE_REQUIRE_SPEEDUP(threshold, label, comparison)                                 \
  do {                                                                                    \
    const ::course::Verdict course_v_ = ::course::grade_speedup((threshold), (label), (comparison)); \
    /* A fast wrong answer: the speed summary must not call the test ok. */                 \
    if (::course_test::failed_in() == ::course_test::current_test())                        \
      ::course::record_verdict(std::string("answers wrong: ") + (label));                 \
    std::cout << course_v_.message << std::endl;                                          \
    if (!course_v_.passed) FAIL(course_v_.message);                                        \
    else SUCCEED(course_v_.message);                                                      \
  } while (0)

/// Ends a speed test that grades nothing on this device class, saying why
/// (e.g. "simd maps to nothing on NVIDIA with clang: graded by ..."). CTest
/// reports the test as skipped, with this line, never as passed.
#define COURSE_SKIP_SPEED(reason)                                  \
  do {                                                             \
    std::cout << "COURSE-SKIP: " << (reason) << std::endl;         \
    SUCCEED(std::string("not graded here: ") + (reason));          \
    return;                                                        \
  } while (0)

/// The same skip for a test that this toolchain cannot grade on this device,
/// saying why and what grades the step instead. Only for a test tagged
/// [may-skip] (CTest then lists it skipped, never as passed).
#define COURSE_SKIP_HERE(reason) COURSE_SKIP_SPEED(reason)

namespace course_test {

/// A check built from a condition and the message to show when it is false,
/// for COURSE_CHECK (tests whose verdict is not a comparison of arrays).
inline course::Check expect(bool ok, const std::string &message) {
  course::Check c;
  c.ok = ok;
  if (!ok) c.message = message;
  return c;
}

/// The seed of this run's random inputs: COURSE_SEED or course::default_seed.
std::uint64_t seed();

/// A vector of @p n elements filled with the poison value.
template <class T>
std::vector<T> poisoned(std::size_t n) {
  std::vector<T> v(n);
  course::poison(std::span<T>(v));
  return v;
}

/// Runs @p call with the output @p out poisoned where the kernel writes it:
/// on the device. Poisoning only the host copy proves little: a kernel's
/// map(from:) allocates device memory that the runtime may have reused from
/// the previous kernel (on GPUs below LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD),
/// so an element the kernel never writes can come back holding an old, right
/// value. Here the poisoned array is mapped first (`target enter data`): the
/// kernel's own map finds it present and writes into the poisoned device
/// copy, and `target exit data map(from:)` brings that copy back afterwards.
/// It also catches code that never ran on the device: whatever it wrote into
/// host memory is overwritten by the device's poison when the copy comes back.
/// (It cannot catch a kernel that lacks map(from:) for @p out: a pointer the
/// kernel uses without a map finds the present copy too. Lesson 2 and 3 watch
/// the copies themselves for that.)
template <class T, class F>
void with_device_poison(std::span<T> out, F &&call) {
  course::poison(out);
  T *p = out.data();
  const std::size_t n = out.size();
#pragma omp target enter data map(to : p[0:n])
  call();
#pragma omp target exit data map(from : p[0:n])
}

/// Runs @p call while the device holds @p in and the host's copy of it is
/// stale: @p in is mapped to the device (`target enter data`), then the host
/// copy is overwritten with @p stale (not copied over). A kernel that maps
/// @p in finds it present and reads the device copy, the real input; code
/// that runs on the host instead (a loop without `target`) reads @p stale and
/// gets a wrong answer. The host copy is restored afterwards.
template <class T, class F>
void with_stale_host_copy(std::span<T> in, std::span<const T> stale, F &&call) {
  T *p = in.data();
  const std::size_t n = in.size();
  const std::vector<T> saved(in.begin(), in.end());
#pragma omp target enter data map(to : p[0:n])
  std::copy(stale.begin(), stale.end(), in.begin());
  call();
  std::copy(saved.begin(), saved.end(), in.begin());
#pragma omp target exit data map(release : p[0:n])
}

/// CPU time each thread of this process spent while @p call ran, busiest
/// first, in seconds (from /proc/self/task/TID/schedstat, Linux). Unlike a
/// wall-clock speedup this does not depend on how busy the machine is: a
/// loop split over two threads shows two threads with half the work each,
/// however long each waited for a core. Empty where /proc is unavailable.
std::vector<double> thread_cpu_seconds(const std::function<void()> &call);

/// What a child run of this test program gave.
struct ChildRun {
  bool started = false;  ///< the child ran (false: it could not be started)
  int exit_code = -1;    ///< its exit status (128 + signal when killed)
  std::string output;    ///< its stdout and stderr
};

/// Runs this test program again, in a child process, on the single test
/// @p test_name, with @p env ("NAME=value") added to the environment. For
/// settings the OpenMP runtime reads only at start-up (lesson 5: two threads
/// per team on the host device, where it would otherwise grant one).
ChildRun run_self(const std::string &test_name, const std::vector<std::string> &env);

/// The clang a test compiles the student's file with again (to read its
/// remarks or its optimized code): clang++-N of the compiler that built this
/// program, else clang++; empty when neither is on PATH (a GPU node).
std::string course_clang();

/// Runs @p cmd through the shell and appends what it prints on stdout (add
/// `2>&1` for stderr) to @p out. The exit status; -1 where it could not start.
/// The one place a test runs the compiler or itself to read what came out.
int run_command(const std::string &cmd, std::string &out);

/// The clang flag for a device pass for this machine's host-offload device
/// (its own triple), the device a test compiles the student's file for when
/// it reads what the compiler made of it; "" on another architecture.
const char *host_device_flags();

/// The clang flags for a device pass for an NVIDIA GPU, the build's
/// (COURSE_NVPTX_TRIPLE, COURSE_NVPTX_CHECK_ARCH: cmake/CourseToolchain.cmake),
/// for a test that reads what the compiler makes of a file for a GPU; any
/// build can run it (no GPU or CUDA needed with -nogpulib).
const char *nvptx_device_flags();

/// A one-line account of a thread_cpu_seconds() result: "0.41 s on 2 threads: 51 % 49 %".
std::string describe_thread_split(const std::vector<double> &seconds);

/// A compile of the graded file again, made to read what the compiler made
/// of it (its AST, IR, PTX or optimization remarks): lessons 3, 5, 6, 8, 11.
struct Recompile {
  bool ok = false;       ///< the compiler ran and succeeded
  bool skipped = false;  ///< not graded here: no compiler or sources (a GPU node), or a known toolchain gap
  std::string why;       ///< why not ok
  std::string out;       ///< what the compiler printed (stdout and stderr)
  std::string cmd;       ///< the command, for a failure's message
};

/// The compiler to recompile with (course_clang()) when it and every path of
/// @p needs exist here; otherwise "" and @p r says why, skipped on a GPU node
/// (it may run binaries built elsewhere, without the sources).
std::string recompiler(const std::vector<std::filesystem::path> &needs, Recompile &r);

/// Runs @p r.cmd, its output into r.out: ok when it exits 0, else why (the
/// first 3,000 characters of the output). A known toolchain gap is skipped,
/// not failed: clang 19 cannot compile NVIDIA device code against glibc
/// 2.41's headers (Debian 13).
void run_recompile(Recompile &r);

/// True when a test may go on; otherwise fails it, or warns and grades
/// nothing where @p r was skipped ("cannot ask the compiler about WHAT").
bool recompiled(const Recompile &r, const std::string &what);

/// @p text (code as the compiler prints it back, -ast-print) with every string
/// and character literal emptied ("..." -> "", '...' -> ''): a literal that
/// holds a directive's text is not the directive (lessons 12 and 13).
std::string without_literals(const std::string &text);

}  // namespace course_test
