/// @file device.hpp
/// @brief What the target regions run on: device class, name, parallelism,
///        and a probe that proves a kernel really ran there.
#pragma once

#include <string>

namespace course {

/// The device target regions run on, as every test binary prints it.
struct DeviceInfo {
  std::string device_class;  ///< "host" (the host-offload device: this CPU) or "gpu"
  std::string triple;        ///< offload target triple the code was built for
  std::string name;          ///< CPU model or GPU name
  int host_threads = 1;      ///< OpenMP threads available on the host (cores actually usable)
  int offload_devices = 0;   ///< omp_get_num_devices()
  int multiprocessors = 0;   ///< GPU: streaming multiprocessors (0 on host)
  double clock_ghz = 0;      ///< GPU: boost clock in GHz (0 on host)
  double fp32_peak_gflops = 0;  ///< GPU: FP32 FMA peak from the properties (0 where unknown)
  /// GPU: memory bandwidth from the properties, 2 (double data rate) x memory
  /// clock x bus width, GB/s (0 where unknown, and on the host device)
  double memory_peak_gbs = 0;
  /// The last-level cache of what the kernels run on, bytes: the GPU's L2, or
  /// the host CPU's largest cache (0 where unknown). A working set this small
  /// can beat a memory ceiling (course::fits_in_cache).
  double cache_bytes = 0;
  /// True on an NVIDIA (or later AMD) GPU build, false on the host-offload device.
  bool is_gpu() const { return device_class == "gpu"; }
};

/// Device facts, gathered once (GPU details through the CUDA driver when present).
const DeviceInfo &device_info();

/// One line for the top of every program's output, e.g.
/// "device: host (x86_64-unknown-linux-gnu) Intel Xeon ..., 2 host threads".
std::string device_banner();

/// What this process lacks of the environment every course program runs with
/// (COURSE_RUN_ENVIRONMENT and COURSE_RUN_PATHS of course/config.hpp, which
/// cmake/CourseEnvironment.cmake writes; CTest, the report and
/// `. <build>/course-env.sh` set it), e.g.
/// "LIBOMP_USE_HIDDEN_HELPER_TASK=0, /usr/lib/llvm-19/lib on LD_LIBRARY_PATH";
/// empty when nothing is missing.
std::string missing_environment();

/// Where a trivial target region actually ran.
struct OffloadProbe {
  bool ran_on_initial_device = true;  ///< omp_is_initial_device() inside the region
  std::string compiled_for;           ///< "nvptx", "amdgcn", "x86_64", "aarch64" or "unknown"
};

/// Runs one target region on the default device and reports where it ran.
OffloadProbe probe_offload();

}  // namespace course
