// offload_smoke.cpp -- proves target regions run on the configured device:
// on a GPU build the region must run on the GPU (not the initial device) and
// be NVPTX code; on the host-offload build it must run as the host CPU's own device (x86_64
// or aarch64: the triple the build chose, COURSE_DEVICE_TRIPLE).
#include <cstdio>
#include <string>

#include "course/device.hpp"

int main() {
  std::printf("%s\n", course::device_banner().c_str());
  const auto &d = course::device_info();
  const auto p = course::probe_offload();
  const std::string triple = d.triple;
  const std::string expected = d.is_gpu() ? "nvptx" : triple.substr(0, triple.find('-'));
  const bool ok = !p.ran_on_initial_device && p.compiled_for == expected && d.offload_devices > 0;
  std::printf("target region: ran on %s, compiled for %s (expected %s on a %s build) -> %s\n",
              p.ran_on_initial_device ? "the initial (host) device" : "an offload device", p.compiled_for.c_str(),
              expected.c_str(), d.device_class.c_str(), ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
