// lesson09, experiments 2 and 3: device memory you manage (your upload /
// kernel / download / release), then every device: one device (baseline),
// then your split over 1, 2, ... devices, with each device's report (its
// share, and where it ran).
#include <omp.h>

#include <cstdio>
#include <string>
#include <vector>

#include "course/device.hpp"
#include "course/timing.hpp"
#include "experiments.hpp"

namespace driver {

namespace base = course::baseline::lesson9;

// ---- 2. device memory you manage ------------------------------------------------------

void device_memory(course::Rows &rows, Problem &p, int reps) {
  const int dev = omp_get_default_device();
  std::printf("\n2. device memory you manage: %s on device %d, ms (median of %d)\n", p.size.c_str(), dev, reps);
  course::Check c = outcome(true, "");
  lesson9::DeviceArrays d;
  p.poison();
  const auto t = course::median_parts_ms(
      {[&] { d = lesson9::device_upload(p.n, p.first.data(), p.second.data(), dev); },
       [&] { lesson9::device_add_exp(d, p.terms); }, [&] { lesson9::device_download(d, p.result.data()); },
       [&] { lesson9::device_release(d); }},
      reps, [&] {
        if (const auto round = p.verify(COURSE_KERNELS " device memory"); !round.ok) c = round;
        p.poison();
      });
  // A long first call is the starter's serial host loop (minutes at the
  // default size on one core): that call is the measurement.
  if (t.timed_once)
    std::printf("  (the first call took %.1f s: timed once, not %d more times)\n", t.first_s, reps);
  const double u = t.ms[0], k = t.ms[1], dl = t.ms[2], r = t.ms[3];
  const std::string who = COURSE_KERNELS;
  std::printf("  %-40s %10s %9s\n", "part", "ms", "GB/s");
  print_line((who + ": upload (alloc + copy in)").c_str(), u, 8.0 * p.n / u / 1e6, "", c);
  print_line((who + ": kernel").c_str(), k, 0, "", c);
  print_line((who + ": download").c_str(), dl, 4.0 * p.n / dl / 1e6, "", c);
  print_line((who + ": release").c_str(), r, 0, "", c);
  rows.add("device memory", who + ": upload", p.size, u, 8.0 * p.n / u / 1e6, "GB/s", "", c.ok);
  rows.add("device memory", who + ": kernel", p.size, k, 0, "", "", c.ok, "is_device_ptr: no copies");
  rows.add("device memory", who + ": download", p.size, dl, 4.0 * p.n / dl / 1e6, "GB/s", "", c.ok);
  rows.add("device memory", who + ": release", p.size, r, 0, "", "", c.ok);
}

// ---- 3. every device ---------------------------------------------------------------------

namespace {

// The reports must describe contiguous shares in device order, within one
// element of equal, each computed on an offload device.
course::Check check_reports(const std::vector<lesson9::DeviceReport> &rep, int n, int devices, std::string &shares) {
  course::Check c = outcome(true, "");
  long long at = 0;
  const long long small = n / devices, large = (n + devices - 1) / devices;
  shares.clear();
  if ((int)rep.size() != devices)
    return outcome(false, "expected " + std::to_string(devices) + " reports, got " + std::to_string(rep.size()));
  for (int d = 0; d < devices; ++d) {
    const auto &r = rep[(std::size_t)d];
    const long long len = r.end - r.begin;
    shares += (d ? ", " : "") + std::to_string(len);
    if (r.begin != at || (len != small && len != large) || r.is_initial != 0)
      c = outcome(false, "device " + std::to_string(d) + " reported share [" + std::to_string(r.begin) + ", " +
                             std::to_string(r.end) + "), omp_is_initial_device() = " + std::to_string(r.is_initial));
    at = r.end;
  }
  if (c.ok && at != n) c = outcome(false, "the shares end at " + std::to_string(at));
  return c;
}

}  // namespace

void every_device(course::Rows &rows, Problem &p, int devices, int reps, bool only_yours) {
  std::printf("\n3. every device: %s over 1 .. %d of %d device(s), ms (median of %d)\n", p.size.c_str(), devices,
              omp_get_num_devices(), reps);
  std::printf("  %-40s %10s %9s %10s\n", "variant", "ms", "Melem/s", "vs 1 dev");
  double one_ms = 0;
  if (!only_yours) {
    p.poison();
    one_ms = course::median_ms(
        [&] { base::add_exp_sync(p.n, p.first.data(), p.second.data(), p.result.data(), p.terms, 0); }, reps);
    const auto c = p.verify("one device");
    print_line("one device (baseline)", one_ms, p.melems(one_ms), "1.00x", c);
    rows.add("devices", "one device (baseline)", p.size, one_ms, p.melems(one_ms), "Melem/s", "", c.ok, "device 0");
  }
  for (int d = 1; d <= devices; ++d) {
    p.poison();
    const auto job = p.job();
    std::vector<lesson9::DeviceReport> rep;
    const double ms = course::median_ms([&] { rep = lesson9::add_exp_all_devices(job, d); }, reps);
    auto c = p.verify(COURSE_KERNELS " all devices");
    std::string shares;
    const auto cr = check_reports(rep, p.n, d, shares);
    if (c.ok && !cr.ok) c = cr;
    std::string where;
    for (const auto &r : rep) where += (where.empty() ? "" : ",") + std::to_string(r.device_num);
    const std::string name = std::string(COURSE_KERNELS) + ": " + std::to_string(d) + (d == 1 ? " device" : " devices");
    const std::string vs = one_ms > 0 ? course::times(one_ms / ms, 2) : "-";
    print_line(name.c_str(), ms, p.melems(ms), vs, c);
    std::printf("  %-40s shares %s; omp_get_device_num() on each: %s\n", "", shares.c_str(), where.c_str());
    rows.add("devices", name, p.size, ms, p.melems(ms), "Melem/s", "", c.ok,
             (one_ms > 0 ? vs + " vs one device; " : std::string()) + "shares " + shares);
  }
  if (!course::device_info().is_gpu())
    std::printf("  (host device: its devices share the same cores, so a split cannot be faster here; what it shows\n"
                "  is each device's share and report. Several GPUs show the time gained.)\n");
}

}  // namespace driver
