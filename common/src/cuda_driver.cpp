// cuda_driver.cpp -- libcuda.so.1 loaded at run time (see course/cuda_driver.hpp).
#include "course/cuda_driver.hpp"

#include <dlfcn.h>

namespace course {
namespace {

// Looks up @p name, else @p fallback (an older driver's unversioned name), into @p fn.
template <typename F>
void bind(void *lib, F &fn, const char *name, const char *fallback = nullptr) {
  void *p = dlsym(lib, name);
  if (!p && fallback) p = dlsym(lib, fallback);
  fn = reinterpret_cast<F>(p);
}

CudaDriver load() {
  CudaDriver d;
  // RTLD_LOCAL: the driver's symbols stay out of the program's namespace.
  // Never closed: the OpenMP runtime's CUDA plugin holds the same library.
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    d.error = std::string("libcuda.so.1 (the NVIDIA driver) cannot be loaded") + (why ? std::string(": ") + why : "");
    return d;
  }
  bind(lib, d.cuInit, "cuInit");
  bind(lib, d.cuDeviceGetCount, "cuDeviceGetCount");
  bind(lib, d.cuDeviceGet, "cuDeviceGet");
  bind(lib, d.cuDeviceGetName, "cuDeviceGetName");
  bind(lib, d.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  bind(lib, d.cuGetErrorString, "cuGetErrorString");
  bind(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(lib, d.cuDevicePrimaryCtxGetState, "cuDevicePrimaryCtxGetState");
  bind(lib, d.cuDevicePrimaryCtxSetFlags, "cuDevicePrimaryCtxSetFlags_v2", "cuDevicePrimaryCtxSetFlags");
  bind(lib, d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
  bind(lib, d.cuCtxPushCurrent, "cuCtxPushCurrent_v2", "cuCtxPushCurrent");
  bind(lib, d.cuCtxPopCurrent, "cuCtxPopCurrent_v2", "cuCtxPopCurrent");
  bind(lib, d.cuCtxSynchronize, "cuCtxSynchronize");
  bind(lib, d.cuMemAlloc, "cuMemAlloc_v2");
  bind(lib, d.cuMemFree, "cuMemFree_v2");
  bind(lib, d.cuMemsetD32, "cuMemsetD32_v2");
  bind(lib, d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  bind(lib, d.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  bind(lib, d.cuEventCreate, "cuEventCreate");
  bind(lib, d.cuEventRecord, "cuEventRecord");
  bind(lib, d.cuEventSynchronize, "cuEventSynchronize");
  bind(lib, d.cuEventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime_v2");
  bind(lib, d.cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy");
  return d;
}

}  // namespace

std::string CudaDriver::error_text(cuda::Result error) const {
  const char *text = nullptr;
  if (cuGetErrorString && cuGetErrorString(error, &text) == 0 && text) return text;
  return "CUDA error " + std::to_string(error);
}

const CudaDriver &cuda_driver() {
  static const CudaDriver driver = load();
  return driver;
}

}  // namespace course
