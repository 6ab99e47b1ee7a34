// main.cpp -- the Catch2 main of every lesson test program. Before any test
// it prints the device and the seed, refuses a bad COURSE_SPEEDUP_SCALE, and
// installs the crash report: a kernel that writes past an array's end
// corrupts the heap, and Catch's own signal handler then deadlocks in malloc
// while it writes its report, so the student waited for the CTest timeout and
// saw "Timeout". Catch's handler is switched off; ours writes one line with
// write(2) and leaves with _exit (both async-signal-safe), at once.
#if __has_include(<catch2/catch_session.hpp>)
// Catch2 v3 (Ubuntu 24.04, Debian 13): whether Catch handles signals was fixed
// when the library was compiled (CATCH_CONFIG_NO_POSIX_SIGNALS is a build
// option there), so Catch's handler still runs inside each test and a crash
// after heap corruption may still hang until the CTest timeout.
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#define CATCH_CONFIG_NO_POSIX_SIGNALS
#include <catch2/catch.hpp>
#endif

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "course/device.hpp"
#include "course/grading.hpp"
#include "course_test.hpp"

std::uint64_t course_test::seed() {
  static const std::uint64_t s = [] {
    const char *e = std::getenv("COURSE_SEED");
    return e ? std::strtoull(e, nullptr, 10) : course::default_seed;
  }();
  return s;
}

namespace {

// The test(s) this run was asked for (CTest runs one per process), kept where
// the signal handler can write it without allocating.
char crashed_in[600] = "(all tests)";
std::size_t crashed_in_len = 11;

void say(const char *s) {
  const std::size_t n = std::strlen(s);
  ssize_t ignored = write(2, s, n);
  (void)ignored;
}

const char *signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return "?";
  }
}

const char *likely_cause(int sig) {
  switch (sig) {
    case SIGSEGV:
    case SIGBUS:
      return "an out-of-bounds access? A load or store past the end of an array (an index that reaches n, "
             "an edge tile without its bounds check, a map clause shorter than the loop) or through a host "
             "pointer on a GPU. Check every index against the array's length; the lesson README's hints "
             "say which bounds matter.";
    case SIGABRT:
      return "the C library or a runtime aborted: often a write past an array's end that corrupted the "
             "heap (\"free(): invalid pointer\", \"malloc(): corrupted\"), or an OpenMP runtime error "
             "printed just above.";
    case SIGFPE:
      return "an integer division by zero (or by a thread or team count that was 0?).";
    default:
      return "an illegal instruction: memory corrupted by an out-of-bounds write?";
  }
}

void on_crash(int sig) {
  char num[8];
  int k = 0, v = sig;
  do num[k++] = static_cast<char>('0' + v % 10); while ((v /= 10) > 0 && k < 7);
  char digits[8];
  for (int i = 0; i < k; ++i) digits[i] = num[k - 1 - i];
  digits[k] = 0;
  say("\nCRASH: signal ");
  say(digits);
  say(" (");
  say(signal_name(sig));
  say(") in test ");
  ssize_t ignored = write(2, crashed_in, crashed_in_len);
  (void)ignored;
  say(" -- ");
  say(likely_cause(sig));
  say("\n");
  _exit(128 + sig);
}

void install_crash_report(int argc, char **argv) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  (void)argc, (void)argv;  // the sanitizer reports crashes itself, with a stack
  return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
  (void)argc, (void)argv;
  return;
#endif
#endif
  // Test names are the arguments that are neither options nor an option's value.
  static const char *const takes_value[] = {"--order", "-r", "--reporter", "--rng-seed", "-o", "--out", "-x",
                                            "--abortx", "-d", "--durations", "-c", "--section", "-w", "--warn",
                                            "-v", "--verbosity", "--use-colour", "--colour-mode"};
  std::string names;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    if (i > 1 && std::any_of(std::begin(takes_value), std::end(takes_value),
                             [&](const char *o) { return std::strcmp(argv[i - 1], o) == 0; }))
      continue;
    names += (names.empty() ? "\"" : ", \"") + std::string(argv[i]) + "\"";
  }
  if (!names.empty()) {
    crashed_in_len = std::min(names.size(), sizeof crashed_in - 1);
    std::memcpy(crashed_in, names.data(), crashed_in_len);
  }
  // An alternate stack, so that a stack overflow on the main thread is reported too.
  static char alt[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt;
  ss.ss_size = sizeof alt;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) sigaction(sig, &sa, nullptr);
}

}  // namespace

int main(int argc, char **argv) {
  install_crash_report(argc, argv);
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--list", 6) == 0 || std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
      listing = true;
  if (!listing) {
    try {
      (void)course::speedup_scale();
    } catch (const std::exception &e) {
      std::cerr << argv[0] << ": error: " << e.what() << "\n";
      return 2;
    }
    std::cout << course::device_banner() << "\n"
              << "seed: " << course_test::seed() << " (set COURSE_SEED to change), speedup scale: "
              << course::speedup_scale() << "\n";
    // The course's run environment (OMP_TARGET_OFFLOAD=MANDATORY among it: without
    // it a kernel that falls back to the host would pass unnoticed).
    if (const std::string missing = course::missing_environment(); !missing.empty())
      std::cout << "note: this run lacks " << missing << " of the course's run environment (ctest sets it; "
                << ". " << COURSE_ENV_SCRIPT << " in a shell)\n";
  }
  return Catch::Session().run(argc, argv);
}
