// seeded_inputs.cpp -- proves course::uniform_real (course/data.hpp), which
// makes every lesson's random inputs: each draw lies in [lo, hi), and, built
// with the libstdc++ of Debian 12 and 13 (GCC 12 to 14), every draw equals
// std::uniform_real_distribution<double>'s on the same std::mt19937_64, the
// numbers the course's inputs were before it had its own (tests and recorded
// results kept their inputs). PASS or FAIL; the exit status is the verdict.
#include <cstdio>
#include <random>
#include <string>

#include "course/data.hpp"

int main() {
  const double ranges[][2] = {{0.0, 1.0}, {-1.0, 1.0}, {-0.02, 0.02}, {0.5, 1.5}, {-3.0, 7.0}};
  const int draws = 1 << 18;
  long outside = 0, differ = 0;
#if defined(_GLIBCXX_RELEASE) && _GLIBCXX_RELEASE >= 12 && _GLIBCXX_RELEASE <= 14
  const bool compare = true;
#else
  const bool compare = false;  // another standard library may draw other numbers: only the range is checked
#endif
  for (const auto &r : ranges) {
    std::mt19937_64 ours(course::default_seed), theirs(course::default_seed);
    std::uniform_real_distribution<double> d(r[0], r[1]);
    for (int i = 0; i < draws; ++i) {
      const double x = course::uniform_real(ours, r[0], r[1]);
      outside += !(x >= r[0] && x < r[1]);
      if (compare) differ += x != d(theirs);
    }
  }
  const bool ok = outside == 0 && differ == 0;
  std::printf("course::uniform_real: %d draws in each of 5 ranges, %ld outside [lo, hi), %s -> %s\n", draws, outside,
              compare ? (std::to_string(differ) + " differ from std::uniform_real_distribution<double>").c_str()
                      : "not compared with std::uniform_real_distribution (not libstdc++ 12-14)",
              ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
