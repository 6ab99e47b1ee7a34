// main.cpp -- the Catch2 main of every lesson test program. Before any test
// it prints the device and the seed, and refuses a bad COURSE_SPEEDUP_SCALE.
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cstdlib>
#include <cstring>
#include <iostream>
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

int main(int argc, char **argv) {
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
    const char *mode = std::getenv("OMP_TARGET_OFFLOAD");
    std::cout << course::device_banner() << "\n"
              << "seed: " << course_test::seed() << " (set COURSE_SEED to change), speedup scale: "
              << course::speedup_scale() << "\n";
    if (!mode || std::string(mode) != "MANDATORY")
      std::cout << "note: OMP_TARGET_OFFLOAD is not MANDATORY; a kernel that falls back to the host would pass "
                   "unnoticed (ctest sets it)\n";
  }
  return Catch::Session().run(argc, argv);
}
