/* cuda_spin_wait.c -- a preloaded library for `scripts/report-gpu.sh run
 * --cuda-wait spin`: before the program's OpenMP runtime starts, it makes the
 * CUDA primary context of every GPU active with CU_CTX_SCHED_SPIN.
 *
 * Why: LLVM's CUDA plugin gives an inactive primary context the flag
 * CU_CTX_SCHED_BLOCKING_SYNC, and leaves an active one as it is. With it,
 * each wait for the GPU (the end of every target region that is not
 * `nowait`) puts the host thread to sleep until an interrupt wakes it: on an
 * H100 about 60-80 us a call (docs/results/lesson11-h100-2026-11-26.md). The
 * vendor programs the report compares with run on the CUDA runtime's default
 * (CU_CTX_SCHED_AUTO: the host spins when it has more cores than contexts).
 * Spinning costs one host core while the GPU works.
 *
 * Built on the GPU node by report-gpu.sh (cc -shared -fPIC ... -ldl); it loads
 * libcuda.so.1 at run time, so it needs no CUDA headers. Prints one line on
 * stderr; a program without a GPU is left alone. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*cu_init_t)(unsigned);
typedef int (*cu_count_t)(int *);
typedef int (*cu_get_t)(int *, int);
typedef int (*cu_flags_t)(int, unsigned);
typedef int (*cu_retain_t)(void **, int);

enum { kSchedSpin = 0x01 }; /* CU_CTX_SCHED_SPIN */

__attribute__((constructor)) static void course_spin_wait(void) {
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) return; /* no driver: nothing to wait for */
  cu_init_t init = (cu_init_t)dlsym(cuda, "cuInit");
  cu_count_t count = (cu_count_t)dlsym(cuda, "cuDeviceGetCount");
  cu_get_t get = (cu_get_t)dlsym(cuda, "cuDeviceGet");
  cu_flags_t set_flags = (cu_flags_t)dlsym(cuda, "cuDevicePrimaryCtxSetFlags_v2");
  if (!set_flags) set_flags = (cu_flags_t)dlsym(cuda, "cuDevicePrimaryCtxSetFlags");
  cu_retain_t retain = (cu_retain_t)dlsym(cuda, "cuDevicePrimaryCtxRetain");
  int n = 0, spinning = 0;
  if (!init || !count || !get || !set_flags || !retain || init(0) != 0 || count(&n) != 0) {
    fprintf(stderr, "cuda_spin_wait: the CUDA driver did not answer; waits stay as the runtime sets them\n");
    return;
  }
  for (int i = 0; i < n; ++i) {
    int dev = 0;
    void *ctx = 0;
    /* The context stays retained for the process's life: released, it would go
       inactive and the plugin would set blocking sync again. */
    if (get(&dev, i) == 0 && set_flags(dev, kSchedSpin) == 0 && retain(&ctx, dev) == 0) ++spinning;
  }
  fprintf(stderr, "cuda_spin_wait: %d of %d GPU(s) wait by spinning (CU_CTX_SCHED_SPIN)\n", spinning, n);
}
