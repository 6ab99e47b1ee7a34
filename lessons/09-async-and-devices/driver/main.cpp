// lesson09 -- runs lesson 9's job three ways and shows what each buys:
//   1. overlap: the synchronous version split into copy in / kernel / copy out,
//      the synchronous version whole and chunk by chunk, and your pipeline for
//      each chunk count (is the copy hidden behind the kernel?), then one run
//      of your pipeline drawn as a timeline from what the OpenMP runtime
//      reports to this program's OMPT tool (each row: chunk, stage, thread);
//   2. device memory you manage: your upload / kernel / download / release;
//   3. every device: one device (baseline), then your split over 1, 2, ...
//      devices, with each device's report (its share, and where it ran);
//   4. pinned host memory: one copy from a std::vector and from your
//      pinned_alloc() memory, then your 8-chunk pipeline on pinned memory.
// Every result is verified. On the host device the program says what its
// times cannot show (copies hidden behind kernels, devices that add cores).
// The experiments are in this folder (experiments.hpp lists them).
//   usage: lesson09 [--n N] [--chunks 1,4,8,16] [--terms T] [--reps 3] [--devices D] [--csv FILE]
//                   [--only-yours] [--no-timeline]
#include <omp.h>

#include <cstdio>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "experiments.hpp"

int main(int argc, char **argv) {
  course::Cli cli("lesson09", "lesson 9, asynchronous offload and many devices: a pipeline, device memory, every device");
  const auto &n_opt = cli.integer("--n", 0, "elements (0: 2^21 on the host device, 2^26 on a GPU)", 0, 1LL << 28);
  const auto &chunks = cli.integers("--chunks", {1, 4, 8, 16}, "pipeline chunk counts to run", 1, 4096);
  const auto &terms_opt = cli.integer("--terms", 0, "series terms per element: the work per element (0: 32 on the "
                                      "host device, 512 on a GPU)", 0, 1000000);
  const auto &reps = cli.integer("--reps", 3, "timed runs per variant (the median is reported)", 1, 1000);
  const auto &devices_opt = cli.integer("--devices", 0, "split over devices 1 .. D (0: all the runtime offers)", 0, 1024);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's kernels (" COURSE_KERNELS ")");
  const auto &no_timeline = cli.flag("--no-timeline", "leave out the pipeline's timeline");
  cli.parse(argc, argv);
#ifndef COURSE_DEVICE_GPU
  // LLVM 19's host device needs LIBOMP_USE_HIDDEN_HELPER_TASK=0 (`nowait`
  // kernels on hidden helper threads abort now and then: README, "Why the host
  // device runs without hidden helper threads"), and the timeline's OMPT tool
  // needs LLVM's lib folder on LD_LIBRARY_PATH. Both are read before main, so
  // whoever starts the program sets them (cmake/CourseEnvironment.cmake).
  if (const std::string missing = course::missing_environment(); !missing.empty())
    std::printf("lesson09: run without %s: `nowait` kernels may abort and the timeline stay empty; run `. %s` "
                "first (ctest and the report set it)\n", missing.c_str(), COURSE_ENV_SCRIPT);
#endif

  const bool gpu = course::device_info().is_gpu();
  const int available = omp_get_num_devices();
  const int terms = terms_opt ? (int)terms_opt : (gpu ? 512 : 32);
  if (terms < lesson9::min_terms) cli.fail("--terms must be 0 or at least " + std::to_string(lesson9::min_terms));
  if (available < 1) cli.fail("the runtime offers no offload device");
  if (devices_opt > available)
    cli.fail("--devices " + std::to_string(devices_opt) + ": the runtime offers only " + std::to_string(available));
  std::printf("%s\n", course::device_banner().c_str());
  const int devices = devices_opt ? (int)devices_opt : available;
  const int n = n_opt ? (int)n_opt : (gpu ? 1 << 26 : 1 << 21);
  driver::Problem p(n, terms);
  course::Rows rows(9);
  // Everything runs on one thread of one parallel region (lesson9::in_team):
  // the `nowait` tasks then have the region's other threads to run on, also
  // on the host device, where the hidden helper threads are off -- and every
  // kernel of the program starts from the same context (LLVM 19's runtime
  // aborts now and then when host-device kernels start both inside and
  // outside parallel regions in one program).
  lesson9::in_team([&] {
    // Start every device (and load the kernels) before anything is timed.
    for (int d = 0; d < available; ++d) {
      int on_device = 0;
#pragma omp target device(d) map(from : on_device)
      on_device = !omp_is_initial_device();
      if (!on_device) std::printf("warning: a target region for device %d ran on the HOST\n", d);
    }
    std::printf("%d offload device(s) started; the program runs on 1 of %d threads of a parallel region\n",
                available, omp_get_num_threads());
    driver::overlap(rows, p, chunks, (int)reps, only_yours, !no_timeline);
    driver::device_memory(rows, p, (int)reps);
    driver::every_device(rows, p, devices, (int)reps, only_yours);
    driver::pinned(rows, p, 8, (int)reps, only_yours);
  });
  return course::finish(rows, csv);
}
