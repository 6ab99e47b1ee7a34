// lesson08, experiment 1: the OpenCL paper's nine access patterns, each an
// image copy, on one image with the paper's launch (one thread per work
// item), beside a plain copy kernel and the runtime's device-to-device memcpy.
#include <omp.h>

#include <cstdio>
#include <string>

#include "course/timing.hpp"
#include "experiments.hpp"
#include "lesson08_access_patterns.hpp"

namespace driver {

using lesson8::Image;
using lesson8::Launch;
using lesson8::Pattern;

namespace {

// The runtime's own device-to-device copy (cudaMemcpy on a GPU) of buffers
// the caller holds mapped: a second reference beside the copy kernel.
void device_memcpy(const std::uint8_t *s, std::uint8_t *d, std::size_t n, int dev) {
#pragma omp target data use_device_ptr(s, d)
  omp_target_memcpy(d, s, n, 0, 0, dev, dev);
}

}  // namespace

double nine_patterns(DeviceImage &img, int reps, bool only_yours, course::Rows &rows) {
  const Image &im = img.im;
  const std::uint8_t *s = img.src.data();
  std::uint8_t *d = img.dst.data();
  const std::size_t n = im.bytes();
  const double pixel_bytes = 2.0 * im.pixels();  // each pixel read once, written once
  double copy_gbs = 0;
  std::printf("\n%s image (pitch %d, %.1f MiB), the paper's launch: one thread per work item\n", size_text(im).c_str(),
              im.pitch, n / 1048576.0);
#pragma omp target data map(to : s[0:n]) map(alloc : d[0:n])
  {
    if (!only_yours) {
      const Launch l = lesson8::default_launch(n / 16);
      img.poison_dst();
      const auto t = course::time_median(
          [&] { course::baseline::image_copy_kernel(s, d, n, l.teams, l.threads); }, reps, 1);
      // The kernel copies the padding too: count the whole buffer.
      const auto c = img.verify("copy kernel " + size_text(im));
      auto r = make_row("nine patterns", "copy kernel (ceiling)", im, t.median, 2.0 * n, c);
      r.role = "reference";
      copy_gbs = r.rate;
      r.note = "100% of copy";
      print_row(r, c);
      rows.add(r);

      img.poison_dst();
      const int dev = omp_get_default_device();
      const auto tm = course::time_median([&] { device_memcpy(s, d, n, dev); }, reps, 1);
      const auto cm = img.verify("omp_target_memcpy " + size_text(im));
      auto rm = make_row("nine patterns", "omp_target_memcpy", im, tm.median, 2.0 * n, cm);
      rm.role = "reference";
      rm.note = course::format("%.0f%% of copy", 100.0 * rm.rate / copy_gbs);
      print_row(rm, cm);
      rows.add(rm);
    }
    for (Pattern p : lesson8::all_patterns) {
      const std::string variant = std::string(lesson8::name(p)) + " (" COURSE_KERNELS ")";
      const Launch l = lesson8::default_launch(lesson8::work_items(p, im));
      img.poison_dst();
      const auto t = course::time_median([&] { lesson8::copy_image(p, im, s, d, l); }, reps, 1);
      const auto c = img.verify(std::string(lesson8::name(p)) + " " + size_text(im));
      auto r = make_row("nine patterns", variant, im, t.median, pixel_bytes, c);
      // Simple (one pixel per work item) is what the other eight are compared with.
      r.role = p == lesson8::all_patterns[0] ? "baseline" : "kernel";
      r.plot = "bars: access pattern (the paper's nine)";  // GB/s per pattern, a bar per image size
      r.param = lesson8::name(p);
      r.seed = "Nine access patterns, 8-bit image copy (OpenCL paper)";
      if (r.role == "baseline")
        r.article = "OpenCL paper: the 384x512 image reached only 12 % of a Tesla C2075's peak";
      const std::size_t threads = lesson8::work_items(p, im);
      r.note = copy_gbs > 0 ? course::format("%.0f%% of copy, %zu threads", 100.0 * r.rate / copy_gbs, threads)
                            : course::format("%zu threads", threads);
      print_row(r, c);
      rows.add(r);
    }
  }
  return copy_gbs;
}

}  // namespace driver
