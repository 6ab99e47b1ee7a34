// device.cpp -- what target regions run on (see course/device.hpp).
// GPU details come from the CUDA driver, loaded at run time when present
// (course/cuda_driver.hpp), so the same binary builds and runs where no CUDA
// is installed.
#include "course/device.hpp"

#include <omp.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "course/cuda_driver.hpp"

#ifndef COURSE_DEVICE_CLASS
#error "COURSE_DEVICE_CLASS comes from course/config.hpp, which course_offload() includes (cmake/Course.cmake)"
#endif

namespace course {
namespace {

// x86 names its model; Arm Linux gives only the implementer and part numbers.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, implementer, part;
  auto value = [&] { auto colon = line.find(':'); return colon == std::string::npos ? std::string() : line.substr(colon + 2); };
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return value();
    if (line.rfind("CPU implementer", 0) == 0 && implementer.empty()) implementer = value();
    if (line.rfind("CPU part", 0) == 0 && part.empty()) part = value();
  }
  if (!implementer.empty()) return "Arm CPU (implementer " + implementer + ", part " + part + ")";
  return "unknown CPU";
}

// The largest cache the first CPU reports (sysfs sizes read like "32768K").
double host_cache_bytes() {
  double best = 0;
  for (int i = 0; i < 8; ++i) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size");
    double v = 0;
    char suffix = 0;
    if (!(in >> v)) continue;
    in >> suffix;
    v *= suffix == 'K' ? 1024.0 : suffix == 'M' ? 1048576.0 : 1.0;
    if (v > best) best = v;
  }
  return best;
}

// FP32 lanes per SM for NVIDIA compute capabilities (CUDA programming guide,
// "arithmetic instructions" throughput table).
int fp32_lanes_per_sm(int major, int minor) {
  if (major == 9 || (major == 8 && minor > 0) || major >= 10) return 128;
  if (major == 8 || major == 7 || (major == 6 && minor == 0)) return 64;
  return 128;
}

void query_cuda(DeviceInfo &d) {
  const CudaDriver &cu = cuda_driver();
  const auto attr = cu.cuDeviceGetAttribute;
  int dev = 0;
  if (!cu.loaded() || !cu.cuInit || !cu.cuDeviceGet || !cu.cuDeviceGetName || !attr || cu.cuInit(0) != 0 ||
      cu.cuDeviceGet(&dev, omp_get_default_device()) != 0)
    return;
  char buf[256] = {};
  if (cu.cuDeviceGetName(buf, sizeof buf, dev) == 0) d.name = buf;
  int sms = 0, khz = 0, major = 0, minor = 0, mem_khz = 0, bus_bits = 0, l2 = 0;
  attr(&mem_khz, cuda::kMemoryClockRate, dev);
  attr(&bus_bits, cuda::kGlobalMemoryBusWidth, dev);
  attr(&l2, cuda::kL2CacheSize, dev);
  d.memory_peak_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  d.cache_bytes = l2;
  attr(&sms, cuda::kMultiprocessorCount, dev);
  attr(&khz, cuda::kClockRate, dev);
  attr(&major, cuda::kComputeCapabilityMajor, dev);
  attr(&minor, cuda::kComputeCapabilityMinor, dev);
  d.multiprocessors = sms;
  d.clock_ghz = khz / 1e6;
  d.fp32_peak_gflops = 2.0 * sms * fp32_lanes_per_sm(major, minor) * d.clock_ghz;
  d.name += " (sm_" + std::to_string(major) + std::to_string(minor) + ")";
}

}  // namespace

const DeviceInfo &device_info() {
  static const DeviceInfo info = [] {
    DeviceInfo d;
    d.device_class = COURSE_DEVICE_CLASS;
    d.triple = COURSE_DEVICE_TRIPLE;
    d.host_threads = omp_get_max_threads();
    d.offload_devices = omp_get_num_devices();
    if (d.is_gpu()) {
      d.name = "NVIDIA GPU";
      query_cuda(d);
    } else {
      d.name = cpu_model();
      d.cache_bytes = host_cache_bytes();
    }
    return d;
  }();
  return info;
}

std::string device_banner() {
  const auto &d = device_info();
  std::ostringstream o;
  o << "device: " << d.device_class << " (" << d.triple << ") " << d.name;
  if (d.is_gpu() && d.multiprocessors)
    o << ", " << d.multiprocessors << " SMs at " << d.clock_ghz << " GHz, FP32 peak " << d.fp32_peak_gflops / 1000
      << " TFLOP/s";
  o << ", " << d.host_threads << " host threads, " << d.offload_devices << " offload device(s)";
  return o.str();
}

std::string missing_environment() {
  std::string missing;
  // Each "NAME=VALUE" of a ';'-separated list.
  auto each = [](const std::string &list, auto &&check) {
    for (std::size_t at = 0; at < list.size();) {
      std::size_t end = list.find(';', at);
      if (end == std::string::npos) end = list.size();
      const std::string entry = list.substr(at, end - at);
      const std::size_t eq = entry.find('=');
      if (eq != std::string::npos) check(entry.substr(0, eq), entry.substr(eq + 1));
      at = end + 1;
    }
  };
  auto add = [&](const std::string &what) { missing += (missing.empty() ? "" : ", ") + what; };
  each(COURSE_RUN_ENVIRONMENT, [&](const std::string &name, const std::string &value) {
    const char *now = std::getenv(name.c_str());
    if (!now || value != now) add(name + "=" + value);
  });
  each(COURSE_RUN_PATHS, [&](const std::string &name, const std::string &dir) {
    const char *now = std::getenv(name.c_str());
    if (!now || (":" + std::string(now) + ":").find(":" + dir + ":") == std::string::npos)
      add(dir + " on " + name);
  });
  return missing;
}

OffloadProbe probe_offload() {
  int initial = 1, arch = 0;
#pragma omp target map(from : initial, arch)
  {
    initial = omp_is_initial_device();
#if defined(__NVPTX__)
    arch = 1;
#elif defined(__AMDGCN__)
    arch = 2;
#elif defined(__x86_64__)
    arch = 3;
#elif defined(__aarch64__)
    arch = 4;
#endif
  }
  static const char *names[] = {"unknown", "nvptx", "amdgcn", "x86_64", "aarch64"};
  return {initial != 0, names[arch]};
}

}  // namespace course
