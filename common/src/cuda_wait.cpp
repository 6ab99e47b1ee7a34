// cuda_wait.cpp -- how the host waits for the GPU, set once for every course
// program before the OpenMP runtime starts its devices (see course::CudaWait
// in course/cuda_driver.hpp).
//
// When: LLVM 19 initialises its CUDA devices (and sets the primary context's
// flags) inside __tgt_register_lib, which the offload wrapper calls from a
// constructor of the program itself, priority 101 (`.init_array.101`; older
// LLVMs used 1). A static initializer or a call in main comes too late: a
// stand-in libcuda.so.1 logged the plugin's cuDevicePrimaryCtxGetState ahead
// of them. So this runs as a constructor of priority 0, the first of the
// program's own (the linker sorts `.init_array.N` by N), after the shared
// libraries' constructors: libomptarget's creates its plugins but touches no
// GPU. Not .preinit_array: there libc has not yet set up its environment
// (getenv answers NULL, for libcuda too, which would then ignore
// CUDA_VISIBLE_DEVICES), and a dlopen from it starts other libraries'
// constructors early, without their environment. course_common is an object
// library that every program links directly, so each program carries it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "course/cuda_driver.hpp"

namespace course {
namespace {

CudaWait &state() {
  static CudaWait wait;
  return wait;
}

void set_wait() {
  CudaWait &w = state();
  const char *asked = std::getenv("COURSE_CUDA_WAIT");
  if (asked && *asked && std::strcmp(asked, "spin") != 0 && std::strcmp(asked, "block") != 0) {
    // Before main: one line, and the course's exit status for a bad argument.
    std::fprintf(stderr, "course: error: COURSE_CUDA_WAIT must be 'spin' or 'block' (or unset: spin), got '%s'\n",
                 asked);
    std::exit(2);
  }
  w.mode = asked && *asked ? asked : "spin";
#ifndef COURSE_DEVICE_GPU
  w.note = "host device: no GPU to wait for";
#else
  if (w.mode == "block") {
    // LLVM's own choice: its plugin sets blocking sync on the inactive context.
    w.note = "block (COURSE_CUDA_WAIT=block): LLVM's CU_CTX_SCHED_BLOCKING_SYNC, the host sleeps until the GPU is done";
    return;
  }
  const CudaDriver &cu = cuda_driver();
  if (!cu.loaded()) {
    w.note = "spin asked, but no NVIDIA driver here (libcuda.so.1): nothing to wait for";
    return;
  }
  int n = 0;
  if (!cu.cuInit || !cu.cuDeviceGetCount || !cu.cuDeviceGet || !cu.cuDevicePrimaryCtxGetState ||
      !cu.cuDevicePrimaryCtxSetFlags || !cu.cuDevicePrimaryCtxRetain || cu.cuInit(0) != 0 ||
      cu.cuDeviceGetCount(&n) != 0 || n == 0) {
    w.note = "spin asked, but the CUDA driver sees no GPU";
    return;
  }
  w.gpus = n;
  std::string trouble;
  for (int i = 0; i < n; ++i) {
    cuda::Device dev = 0;
    unsigned flags = 0;
    int active = 0;
    cuda::Context ctx = nullptr;
    cuda::Result r = cu.cuDeviceGet(&dev, i);
    if (r == 0) r = cu.cuDevicePrimaryCtxGetState(dev, &flags, &active);
    // An active context keeps its flags (someone else set them): spin only if it already does.
    if (r == 0 && !active) r = cu.cuDevicePrimaryCtxSetFlags(dev, cuda::kSchedSpin);
    // Retained for the program's life: released, the context would go inactive
    // and the plugin would set blocking sync on it again.
    if (r == 0) r = cu.cuDevicePrimaryCtxRetain(&ctx, dev);
    if (r == 0 && active && (flags & cuda::kSchedMask) != cuda::kSchedSpin) {
      trouble = "GPU " + std::to_string(i) + " was already active with other flags";
      continue;
    }
    if (r != 0) {
      trouble = "GPU " + std::to_string(i) + ": " + cu.error_text(r);
      continue;
    }
    ++w.spinning;
  }
  w.note = "spin: CU_CTX_SCHED_SPIN on " + std::to_string(w.spinning) + " of " + std::to_string(n) +
           " GPU(s), set before LLVM's plugin starts" + (trouble.empty() ? "" : " (" + trouble + ")");
  // Said only when asked for and not done: the measurements would not be what they claim.
  if (!trouble.empty())
    std::fprintf(stderr, "course: warning: COURSE_CUDA_WAIT=spin: %s; that GPU waits as the runtime sets it\n",
                 trouble.c_str());
#endif
}

// Priority 0: before the offload runtime registers this program's kernels
// (see the top of this file). 0-100 are reserved for the implementation, which
// is what this stands in for here.
// (Newer clangs warn about a reserved priority; clang 19 knows no such warning.)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunknown-warning-option"
#pragma clang diagnostic ignored "-Wprio-ctor-dtor"
__attribute__((constructor(0))) void course_set_wait() { set_wait(); }
#pragma clang diagnostic pop

}  // namespace

const CudaWait &cuda_wait() {
  CudaWait &w = state();
  if (w.note.empty()) w.note = "not set: course_common's start-up constructor did not run in this program";
  return w;
}

}  // namespace course
