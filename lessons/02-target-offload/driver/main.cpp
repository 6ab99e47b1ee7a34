// lesson02 -- runs lesson 2's kernels and shows where the time goes:
//   1. add-exp and matmul at several sizes, each split into copy in / kernel /
//      copy out, beside the host loops they replace (is offloading worth it?);
//   2. heat with both grids mapped every step vs kept on the device, with the
//      copies counted by the OpenMP tools interface;
//   3. add-exp's bandwidth against the device's copy bandwidth, measured in
//      the same run, and (--shapes, default on a GPU) a launch-shape table.
// Every result is verified. Each row declares its role, bytes or flops,
// ceiling and plot, which is all the course report reads. The experiments
// are in this folder, one file each (experiments.hpp lists them).
//   usage: lesson02 [--vec-n N,N,...] [--mm-n N,N,...] [--heat-n 1024] [--heat-steps 20]
//                   [--bw-n N] [--goal-size] [--n N] [--shapes] [--reps 3] [--size tiny|teaching|full]
//                   [--csv FILE] [--only-yours]
#include <omp.h>

#include <cstdio>
#include <vector>

#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "experiments.hpp"

int main(int argc, char **argv) {
  course::Cli cli("lesson02", "lesson 2, target offload and data mapping: add-exp, matmul and heat on the device");
  const auto &vec_n = cli.integers("--vec-n", {65536, 1048576, 16777216}, "add-exp sizes (copy/kernel split)", 1,
                                   1LL << 29);
  const auto &mm_n = cli.integers("--mm-n", {256, 512, 1024}, "matmul sizes n (n x n)", 1, 8192);
  const auto &heat_n = cli.integer("--heat-n", 1024, "heat grid side (n x n)", 1, 16384);
  const auto &heat_steps = cli.integer("--heat-steps", 20, "heat steps", 0, 100000);
  const auto &bw_n = cli.integer("--bw-n", 0,
                                 "bandwidth table size (0: 2^24 on the host device, 2^26 on a GPU, 2^28 there with "
                                 "--goal-size)",
                                 0, 1LL << 29);
  const auto &goal_size = cli.flag("--goal-size", "on a GPU, the bandwidth table at 2^28, where its goal is judged");
  const auto &one_n = cli.integer("--n", 0, "run every part at this one size, for a quick check (0: the sizes above)",
                                  0, 8192);
  const auto &shapes = cli.flag("--shapes", "add the launch-shape table (always on a GPU)");
  const auto &reps = cli.integer("--reps", 3, "timed runs per variant (the median is reported)", 1, 1000);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's kernels (" COURSE_KERNELS ")");
  cli.preset("tiny", {"--vec-n", "1000", "--mm-n", "33", "--heat-n", "33", "--heat-steps", "3", "--bw-n", "4096",
                      "--reps", "1"});
  cli.preset("teaching", {"--reps", "3"});
  cli.preset("full", {"--reps", "5", "--shapes", "--goal-size"});
  cli.parse(argc, argv);

  std::printf("%s\n", course::device_banner().c_str());
  const bool gpu = course::device_info().is_gpu();
  {
    // Start the device (and load the kernels) before anything is timed.
    int on_device = 0;
#pragma omp target map(from : on_device)
    on_device = !omp_is_initial_device();
    std::printf("a target region ran on %s\n", on_device ? "the offload device" : "the HOST (initial device)");
  }

  course::Rows rows(2);
  const std::vector<long long> one{one_n};
  driver::add_exp_sizes(rows, one_n ? one : vec_n, (int)reps, only_yours);
  std::printf("C++ AMP article: add-exp moves 12 bytes per exp, so the copies, not the arithmetic, decide; "
              "matmul does 2n flops per element copied.\n");
  driver::matmul_sizes(rows, one_n ? one : mm_n, (int)reps, only_yours);
  std::printf("C++ AMP article, 1024^2: serial 7350 ms; naive GPU matmul 147x faster.\n");
  driver::heat_run(rows, one_n ? (int)one_n : (int)heat_n, (int)heat_steps, (int)reps, only_yours);
  // Host: 2^24 floats, 64 MiB an array, the size of the report's copy ceiling
  // and well past a CPU's last-level cache (at 2^22 a copy's 32 MiB stayed
  // partly in a 32 MiB L3 and read 115 % of that ceiling).
  const int bw = one_n ? (int)one_n : bw_n > 0 ? (int)bw_n : (gpu ? (goal_size ? driver::kGoalN : 1 << 26) : 1 << 24);
  driver::bandwidth(rows, bw, (int)reps, only_yours, shapes || gpu);
  return course::finish(rows, csv);
}
