// lesson12 -- runs lesson 12's thermometer pipeline and shows where its data
// lives:
//   1. one empty target region (the launch cost), then convert() at sizes on
//      both sides of kOffloadThreshold beside a plain host loop: where
//      offloading starts to pay, and whether convert offloads there;
//   2. recalibration: a new polynomial set on the host, then convert() on the
//      device: does the device follow (target update)?
//   3. the correction on data the program keeps on the device (target data),
//      with the device address of that data (omp_get_mapped_ptr);
//   4. the correction called on data nobody mapped: it must refuse loudly.
// Every answer is verified against a double-precision reference.
//   usage: lesson12 [--n N,N,...] [--reps 5] [--size tiny|teaching|full] [--csv FILE] [--only-yours]
#include <omp.h>

#include <cstdio>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "lesson12_thermo.hpp"
#include "thermo.hpp"

namespace {

namespace ref = course::lesson12_ref;

// Converted temperatures are about 300 K from a float polynomial: a few ulp
// (1e-7 relative each) per element; 2e-6 leaves room and still fails one
// wrong polynomial coefficient by orders of magnitude.
constexpr double kTol = 2e-6;

std::vector<int> readings(int n, std::uint64_t salt = 0) {
  return course::random_vector<int>((std::size_t)n, course::default_seed + 12 + salt, 0, 4095);
}

// The plain host loop convert() replaces below the threshold.
void host_loop(int n, const int *raw, float *kelvin) {
  const float *c = lesson12::calibration, vpc = lesson12::physics[lesson12::kVoltsPerCount];
  for (int i = 0; i < n; ++i) {
    const float v = (float)raw[i] * vpc;
    kelvin[i] = ((c[3] * v + c[2]) * v + c[1]) * v + c[0] + lesson12::physics[lesson12::kZeroCelsius];
  }
}

// Maps kelvin, converts and corrects it on the device, brings it back. A
// plain function: clang 19 crashes on some data directives inside lambdas.
void resident_pipeline(int n, const int *raw, float *kelvin, void **device_address) {
#pragma omp target data map(tofrom : kelvin[0:n])
  {
    *device_address = omp_get_mapped_ptr(kelvin, omp_get_default_device());
    lesson12::convert(n, raw, kelvin);  // its map(from:) finds kelvin present: no copy
    lesson12::apply_correction(n, kelvin);
  }
}

}  // namespace

int main(int argc, char **argv) {
  course::Cli cli("lesson12", "lesson 12, data that lives on the device: global tables, updates, present checks");
  const auto &sizes = cli.integers("--n", {1000, 16384, lesson12::kOffloadThreshold, 1 << 20},
                                   "convert() sizes (readings)", 1, 1 << 26);
  const auto &reps = cli.integer("--reps", 5, "timed runs per variant (the median is reported)", 1, 1000);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's code (" COURSE_KERNELS ")");
  cli.preset("tiny", {"--n", "1000,65536", "--reps", "1"});
  cli.preset("teaching", {"--reps", "5"});
  cli.preset("full", {"--n", "1000,16384,65536,1048576,16777216", "--reps", "9"});
  cli.parse(argc, argv);

  std::printf("%s\n", course::device_banner().c_str());
  course::Rows rows(12);
  const std::string who = COURSE_KERNELS;

  // 1. What a launch costs, and convert() on both sides of the threshold.
  const double launch_ms = course::median_ms([] {
#pragma omp target
    {
    }
  }, (int)reps);
  std::printf("\none empty target region: %.1f us (launch cost); kOffloadThreshold = %d readings\n", launch_ms * 1e3,
              lesson12::kOffloadThreshold);
  lesson12::set_calibration(ref::kDefaultCalibration);
  for (long long n : sizes) {
    const auto raw = readings((int)n);
    const auto want = ref::kelvin(raw, ref::kDefaultCalibration);
    std::vector<float> kelvin((std::size_t)n);
    const std::string size = "n=" + std::to_string(n);
    std::printf("\nconvert %s (%s the threshold), median of %lld\n", size.c_str(),
                n >= lesson12::kOffloadThreshold ? "at or above" : "below", reps);
    auto run = [&](const std::string &name, const char *role, void (*f)(int, const int *, float *)) {
      kelvin.assign(kelvin.size(), 0.f);
      const double ms = course::median_ms([&] { f((int)n, raw.data(), kelvin.data()); }, (int)reps);
      const auto check = course::check_close<float>(kelvin, want, kTol, "convert " + name + " " + size);
      auto &r = rows.add("convert", name, size, ms, (double)n / ms / 1e3, "M readings/s", "", check.ok);
      r.role = role;
      r.bytes = 8.0 * (double)n;
      std::printf("  %-24s %10.3f ms  %s\n", name.c_str(), ms, course::answer_text(check.ok, check.message).c_str());
    };
    if (!only_yours) run("host loop (baseline)", "baseline", host_loop);
    run(who, "kernel", lesson12::convert);
  }

  // 2. A new polynomial, set on the host: the device must follow.
  {
    const int n = lesson12::kOffloadThreshold;
    const auto raw = readings(n, 1);
    std::vector<float> kelvin((std::size_t)n);
    lesson12::set_calibration(ref::kOtherCalibration);
    lesson12::convert(n, raw.data(), kelvin.data());
    const auto check = course::check_close<float>(kelvin, ref::kelvin(raw, ref::kOtherCalibration), kTol,
                                                  "convert after set_calibration (n=" + std::to_string(n) + ")");
    rows.add("recalibrate", who, "n=" + std::to_string(n), 0, 0, "", "", check.ok, "the device's copy followed");
    std::printf("\nrecalibrated on the host, converted on the device: %s\n",
                course::answer_text(check.ok, check.message).c_str());
    lesson12::set_calibration(ref::kDefaultCalibration);
  }

  // 3. The correction on data kept on the device, and where that data is.
  const auto table = ref::correction_table();
  lesson12::load_correction(table.data());
  {
    const int n = 100003;
    const auto raw = readings(n, 2);
    std::vector<float> kelvin((std::size_t)n);
    void *device_address = nullptr;
    bool ok = true;
    std::string why;
    try {
      resident_pipeline(n, raw.data(), kelvin.data(), &device_address);
    } catch (const lesson12::NotOnDevice &e) {
      ok = false;
      why = std::string("it refused data the program had mapped: ") + e.what();
    }
    std::vector<float> converted((std::size_t)n);
    host_loop(n, raw.data(), converted.data());
    const auto check = ok ? course::check_close<float>(kelvin, ref::corrected(converted, table), kTol,
                                                       "corrected temperatures (n=" + std::to_string(n) + ")")
                          : course::Check{false, 0, 0, why};
    rows.add("correction", who, "n=" + std::to_string(n), 0, 0, "", "", check.ok, "data kept on the device");
    std::printf("\ncorrection on resident data: host copy at %p, device copy at %p (omp_get_mapped_ptr): %s\n",
                (void *)kelvin.data(), device_address, course::answer_text(check.ok, check.message).c_str());
  }

  // 4. The same call on data nobody mapped: it must say so, not compute.
  {
    std::vector<float> kelvin(1000, 300.f);
    std::string said;
    try {
      lesson12::apply_correction((int)kelvin.size(), kelvin.data());
    } catch (const lesson12::NotOnDevice &e) {
      said = e.what();
    }
    const bool ok = !said.empty();
    rows.add("unmapped", who, "n=1000", 0, 0, "", "", ok, ok ? "refused" : "silently computed");
    std::printf("\ncorrection on data nobody mapped: %s\n",
                ok ? ("refused: " + said).c_str()
                   : "WRONG -- it computed on the host copy without a word (README, step 12.3)");
  }
  return course::finish(rows, csv);
}
