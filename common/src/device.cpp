// device.cpp -- what target regions run on (see course/device.hpp).
// GPU details come from the CUDA driver, loaded at run time when present, so
// the same binary builds and runs where no CUDA is installed.
#include "course/device.hpp"

#include <dlfcn.h>
#include <omp.h>

#include <fstream>
#include <sstream>

#ifndef COURSE_DEVICE_CLASS
#error "COURSE_DEVICE_CLASS must be set by course_offload() in cmake/Course.cmake"
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
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  using init_t = int (*)(unsigned);
  using get_t = int (*)(int *, int);
  using name_t = int (*)(char *, int, int);
  using attr_t = int (*)(int *, int, int);
  auto init = reinterpret_cast<init_t>(dlsym(lib, "cuInit"));
  auto get = reinterpret_cast<get_t>(dlsym(lib, "cuDeviceGet"));
  auto name = reinterpret_cast<name_t>(dlsym(lib, "cuDeviceGetName"));
  auto attr = reinterpret_cast<attr_t>(dlsym(lib, "cuDeviceGetAttribute"));
  int dev = 0;
  if (!init || !get || !name || !attr || init(0) != 0 || get(&dev, omp_get_default_device()) != 0) return;
  char buf[256] = {};
  if (name(buf, sizeof buf, dev) == 0) d.name = buf;
  int sms = 0, khz = 0, major = 0, minor = 0, mem_khz = 0, bus_bits = 0, l2 = 0;
  attr(&mem_khz, 36, dev);   // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE (kHz)
  attr(&bus_bits, 37, dev);  // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH (bits)
  attr(&l2, 38, dev);        // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE (bytes)
  d.memory_peak_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  d.cache_bytes = l2;
  attr(&sms, 16, dev);    // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  attr(&khz, 13, dev);    // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (kHz)
  attr(&major, 75, dev);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  attr(&minor, 76, dev);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
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
