// lesson08, experiments 2 and 3: every pattern with a given number of threads
// in flight (where the access pattern starts to matter), then step 8.3's Loop
// and Portable beside Simple.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "course/timing.hpp"
#include "experiments.hpp"

namespace driver {

using lesson8::Image;
using lesson8::Launch;
using lesson8::Pattern;

// Every pattern on the large image with a given number of threads in flight:
// each thread loops over as many work items as it takes.
void threads_sweep(DeviceImage &img, const std::vector<long long> &sweep, int reps, course::Rows &rows) {
  const Image &im = img.im;
  const std::uint8_t *s = img.src.data();
  std::uint8_t *d = img.dst.data();
  const std::size_t n = im.bytes();
  std::printf("\nthreads in flight, %s image: GB/s per pattern\n  %-10s", size_text(im).c_str(), "threads");
  for (Pattern p : lesson8::all_patterns) std::printf(" %9s", lesson8::name(p));
  std::printf("\n");
#pragma omp target data map(to : s[0:n]) map(alloc : d[0:n])
  for (long long f : sweep) {
    const Launch l = lesson8::in_flight_launch(f);
    std::printf("  %-10lld", l.in_flight());
    for (Pattern p : lesson8::all_patterns) {
      img.poison_dst();
      const auto t = course::time_median([&] { lesson8::copy_image(p, im, s, d, l); }, reps, 1);
      const auto c = img.verify(std::string(lesson8::name(p)) + " " + size_text(im) + " with " +
                                std::to_string(l.in_flight()) + " threads");
      auto r = make_row("threads sweep", std::string(lesson8::name(p)) + " (" COURSE_KERNELS ")", im, t.median,
                        2.0 * im.pixels(), c);
      r.note = "threads=" + std::to_string(l.in_flight()) + " (" + std::to_string(l.teams) + " teams x " +
               std::to_string(l.threads) + ")";
      r.role = "variant";
      r.plot = "lines: threads in flight";  // GB/s against them, a line per pattern
      r.param = std::to_string(l.in_flight());
      std::printf(" %9.1f%s", r.rate, c.ok ? "" : "!");
      std::fflush(stdout);
      if (!c.ok) std::printf("\n    %s\n  %-10s", c.message.c_str(), "");
      rows.add(r);
    }
    std::printf("\n");
  }
}

// Step 8.3 on one image: the same loop nest said three ways. Simple
// prescribes the mapping, Loop leaves it to the implementation, Portable
// picks a shape per device; Simple is the row the other two are compared with.
void portability(DeviceImage &img, int reps, course::Rows &rows) {
  const Image &im = img.im;
  const std::uint8_t *s = img.src.data();
  std::uint8_t *d = img.dst.data();
  const std::size_t n = im.bytes();
  const Launch l = lesson8::default_launch(lesson8::work_items(Pattern::simple, im));
  std::printf("\nportability, %s image: Simple prescribes (distribute parallel for), Loop describes (teams loop),\n"
              "Portable picks a shape per device (metadirective)\n",
              size_text(im).c_str());
  const struct {
    const char *name;
    std::function<void()> copy;
  } kernels[] = {{"Simple", [&] { lesson8::copy_simple(im, s, d, l); }},
                 {"Loop", [&] { lesson8::copy_loop(im, s, d); }},
                 {"Portable", [&] { lesson8::copy_portable(im, s, d, l); }}};
#pragma omp target data map(to : s[0:n]) map(alloc : d[0:n])
  for (const auto &k : kernels) {
    img.poison_dst();
    const auto t = course::time_median(k.copy, reps, 1);
    const auto c = img.verify(std::string(k.name) + " " + size_text(im));
    auto r = make_row("portability", std::string(k.name) + " (" COURSE_KERNELS ")", im, t.median, 2.0 * im.pixels(), c);
    r.role = &k == &kernels[0] ? "baseline" : "kernel";
    print_row(r, c);
    rows.add(r);
  }
}

}  // namespace driver
