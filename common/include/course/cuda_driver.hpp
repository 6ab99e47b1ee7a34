/// @file cuda_driver.hpp
/// @brief The NVIDIA driver API (libcuda.so.1), loaded at run time: the one
///        place the course opens it, for the device facts (device.cpp), the
///        report's vendor copy (report/ceilings.cpp) and how the host waits
///        for the GPU (cuda_wait(), set before the OpenMP runtime starts).
///
/// No CUDA header or toolkit is needed at build time and nothing fails where
/// no NVIDIA driver is installed: cuda_driver() then says why it is missing.
/// The types are the driver API's, written as plain C types.
#pragma once

#include <cstddef>
#include <string>

namespace course {

/// The driver API's handle types as plain C types (no cuda.h).
namespace cuda {
using Result = int;                      ///< CUresult: 0 is CUDA_SUCCESS
using Device = int;                      ///< CUdevice
using Context = void *;                  ///< CUcontext
using Stream = void *;                   ///< CUstream (nullptr: the default stream)
using Event = void *;                    ///< CUevent
using DevicePtr = unsigned long long;    ///< CUdeviceptr

/// CUdevice_attribute values the course reads (cuda.h's numbering).
enum Attribute : int {
  kClockRate = 13,               ///< CU_DEVICE_ATTRIBUTE_CLOCK_RATE (kHz)
  kMultiprocessorCount = 16,     ///< CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  kMemoryClockRate = 36,         ///< CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE (kHz)
  kGlobalMemoryBusWidth = 37,    ///< CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH (bits)
  kL2CacheSize = 38,             ///< CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE (bytes)
  kComputeCapabilityMajor = 75,  ///< CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  kComputeCapabilityMinor = 76,  ///< CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
};

/// CUctx_flags: how a host thread waits for its context's GPU work.
enum ContextFlags : unsigned {
  kSchedSpin = 0x01,          ///< CU_CTX_SCHED_SPIN: the thread spins on the result (one core busy)
  kSchedBlockingSync = 0x04,  ///< CU_CTX_SCHED_BLOCKING_SYNC: the thread sleeps until an interrupt
  kSchedMask = 0x07,          ///< CU_CTX_SCHED_MASK
};
}  // namespace cuda

/// The driver functions the course calls; each is nullptr where the driver
/// lacks it (or is not loaded). The versioned names (`_v2`) are the ones
/// cuda.h maps the plain names to; older drivers' plain names are the fallback.
struct CudaDriver {
  std::string error;  ///< why libcuda.so.1 could not be loaded ("" when it was)
  /// True where libcuda.so.1 was loaded (a function may still be missing: check it).
  bool loaded() const { return error.empty(); }

  // device facts
  /// initialises the driver (flags: 0)
  cuda::Result (*cuInit)(unsigned flags) = nullptr;
  /// how many GPUs the driver sees
  cuda::Result (*cuDeviceGetCount)(int *count) = nullptr;
  /// the device of an ordinal (the OpenMP default device's)
  cuda::Result (*cuDeviceGet)(cuda::Device *device, int ordinal) = nullptr;
  /// the device's marketing name
  cuda::Result (*cuDeviceGetName)(char *name, int length, cuda::Device device) = nullptr;
  /// one cuda::Attribute of the device
  cuda::Result (*cuDeviceGetAttribute)(int *value, int attribute, cuda::Device device) = nullptr;
  /// the text of an error code
  cuda::Result (*cuGetErrorString)(cuda::Result error, const char **text) = nullptr;
  // contexts: the OpenMP runtime's primary context is shared, not replaced
  /// the device's primary context (the one the OpenMP runtime uses)
  cuda::Result (*cuDevicePrimaryCtxRetain)(cuda::Context *context, cuda::Device device) = nullptr;
  /// a primary context's flags (cuda::ContextFlags) and whether it is active
  cuda::Result (*cuDevicePrimaryCtxGetState)(cuda::Device device, unsigned *flags, int *active) = nullptr;
  /// sets a primary context's flags; they take effect when it next becomes active
  cuda::Result (*cuDevicePrimaryCtxSetFlags)(cuda::Device device, unsigned flags) = nullptr;
  /// releases a retained primary context
  cuda::Result (*cuDevicePrimaryCtxRelease)(cuda::Device device) = nullptr;
  /// makes a context current on this thread
  cuda::Result (*cuCtxPushCurrent)(cuda::Context context) = nullptr;
  /// undoes cuCtxPushCurrent
  cuda::Result (*cuCtxPopCurrent)(cuda::Context *context) = nullptr;
  /// waits for the current context's work
  cuda::Result (*cuCtxSynchronize)() = nullptr;
  // memory
  /// device memory
  cuda::Result (*cuMemAlloc)(cuda::DevicePtr *ptr, std::size_t bytes) = nullptr;
  /// frees cuMemAlloc's memory
  cuda::Result (*cuMemFree)(cuda::DevicePtr ptr) = nullptr;
  /// fills device memory with a 32-bit value
  cuda::Result (*cuMemsetD32)(cuda::DevicePtr ptr, unsigned value, std::size_t count) = nullptr;
  /// device-to-device copy (what cudaMemcpy device to device calls)
  cuda::Result (*cuMemcpyDtoDAsync)(cuda::DevicePtr dst, cuda::DevicePtr src, std::size_t bytes,
                                    cuda::Stream stream) = nullptr;
  /// device-to-host copy
  cuda::Result (*cuMemcpyDtoH)(void *dst, cuda::DevicePtr src, std::size_t bytes) = nullptr;
  // events (timing on the device)
  /// an event (flags: 0)
  cuda::Result (*cuEventCreate)(cuda::Event *event, unsigned flags) = nullptr;
  /// records an event on a stream
  cuda::Result (*cuEventRecord)(cuda::Event event, cuda::Stream stream) = nullptr;
  /// waits for an event
  cuda::Result (*cuEventSynchronize)(cuda::Event event) = nullptr;
  /// milliseconds between two recorded events
  cuda::Result (*cuEventElapsedTime)(float *ms, cuda::Event start, cuda::Event end) = nullptr;
  /// destroys an event
  cuda::Result (*cuEventDestroy)(cuda::Event event) = nullptr;

  /// The driver's text for @p error, else "CUDA error N".
  std::string error_text(cuda::Result error) const;
};

/// The driver, loaded on first use and kept for the program's life. Never
/// throws: where libcuda.so.1 is missing, loaded() is false and @c error says so.
const CudaDriver &cuda_driver();

/// How the host thread waits for the GPU at the end of each target region
/// that is not `nowait`, as every course program set it before the OpenMP
/// runtime started (common/src/cuda_wait.cpp).
///
/// LLVM's CUDA plugin gives an inactive primary context
/// CU_CTX_SCHED_BLOCKING_SYNC: the host sleeps until an interrupt wakes it,
/// about 0.1 ms a call. It leaves an active one as it is ("The primary context
/// is active, no change to its flags" under LIBOMPTARGET_INFO=16). So in GPU
/// builds every program makes each GPU's primary context spin
/// (CU_CTX_SCHED_SPIN) and active, before the plugin initialises its devices,
/// unless COURSE_CUDA_WAIT=block asks for LLVM's own choice. Spinning keeps one
/// host core busy while the GPU works, as the CUDA runtime's default does on a
/// machine with more cores than GPUs.
///
/// COURSE_CUDA_WAIT: unset or empty, or "spin" (the default); "block". Any
/// other value: the program prints one line naming the variable and exits
/// with status 2, before main. Host-device builds and machines without
/// libcuda.so.1 do nothing, silently.
struct CudaWait {
  std::string mode = "spin";  ///< what COURSE_CUDA_WAIT asked for: "spin" or "block"
  int gpus = 0;               ///< GPUs the driver sees (0: host-device build, no driver, or block)
  int spinning = 0;           ///< of those, the ones whose primary context now spins
  std::string note;           ///< one line: what was done, for a program's output
};

/// What the start of this program did about the GPU wait (see CudaWait).
const CudaWait &cuda_wait();

}  // namespace course
