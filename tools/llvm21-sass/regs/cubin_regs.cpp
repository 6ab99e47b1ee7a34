// cubin_regs -- loads a cubin with the CUDA driver (libcuda.so.1, opened at run time: no CUDA headers or
// toolkit needed to build it) and prints, for each kernel named on the command line, the registers per
// thread and the static shared memory the driver reports (cuFuncGetAttribute), and the most teams of
// THREADS threads one multiprocessor holds (cuOccupancyMaxActiveBlocksPerMultiprocessor).
//   cubin_regs IMAGE.cubin THREADS KERNEL...
// Why: ncu read 255 registers for every LLVM 21 lesson 11 kernel on an H200, where the image's own
// resource table says 127 for N-body's team_step<8>; this says what the driver makes of the same image
// without LLVM's plugin in between. Exit 0 when every kernel was found, 1 otherwise, 2 on bad input.
#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {
using CUresult = int;
void *lib = nullptr;
// The driver's entry point NAME, as the function type F (the types of cuda.h, written out).
template <class F>
F sym(const char *name) {
  void *p = dlsym(lib, name);
  if (p == nullptr) {
    std::fprintf(stderr, "cubin_regs: libcuda.so.1 has no %s\n", name);
    std::exit(2);
  }
  return reinterpret_cast<F>(p);
}
void check(CUresult r, const char *what) {
  if (r != 0) {
    std::fprintf(stderr, "cubin_regs: %s failed (CUresult %d)\n", what, r);
    std::exit(2);
  }
}
constexpr int kAttrNumRegs = 4, kAttrSharedBytes = 1;  // CU_FUNC_ATTRIBUTE_NUM_REGS, _SHARED_SIZE_BYTES
}  // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: cubin_regs IMAGE.cubin THREADS KERNEL...\n");
    return 2;
  }
  const int threads = std::atoi(argv[2]);
  if (threads < 1 || threads > 1024) {
    std::fprintf(stderr, "cubin_regs: THREADS must be 1-1024, got '%s'\n", argv[2]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cubin_regs: cannot read %s\n", argv[1]);
    return 2;
  }
  std::vector<char> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (lib == nullptr) {
    std::fprintf(stderr, "cubin_regs: no libcuda.so.1 (no NVIDIA driver here)\n");
    return 2;
  }
  void *ctx = nullptr, *mod = nullptr;
  int dev = 0;
  const auto get_function = sym<CUresult (*)(void **, void *, const char *)>("cuModuleGetFunction");
  const auto attribute = sym<CUresult (*)(int *, int, void *)>("cuFuncGetAttribute");
  const auto occupancy = sym<CUresult (*)(int *, void *, int, std::size_t)>("cuOccupancyMaxActiveBlocksPerMultiprocessor");
  check(sym<CUresult (*)(unsigned)>("cuInit")(0u), "cuInit");
  check(sym<CUresult (*)(int *, int)>("cuDeviceGet")(&dev, 0), "cuDeviceGet");
  check(sym<CUresult (*)(void **, int)>("cuDevicePrimaryCtxRetain")(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(sym<CUresult (*)(void *)>("cuCtxSetCurrent")(ctx), "cuCtxSetCurrent");
  check(sym<CUresult (*)(void **, const void *)>("cuModuleLoadData")(&mod, image.data()), "cuModuleLoadData");
  int missing = 0;
  for (int k = 3; k < argc; ++k) {
    void *f = nullptr;
    if (get_function(&f, mod, argv[k]) != 0) {
      std::printf("%s: not in the image\n", argv[k]);
      ++missing;
      continue;
    }
    int regs = -1, shared = -1, teams = -1;
    check(attribute(&regs, kAttrNumRegs, f), "cuFuncGetAttribute(NUM_REGS)");
    check(attribute(&shared, kAttrSharedBytes, f), "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
    check(occupancy(&teams, f, threads, 0), "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    std::printf("%s: %d registers, %d bytes static shared, %d teams of %d per multiprocessor\n", argv[k], regs,
                shared, teams, threads);
  }
  return missing == 0 ? 0 : 1;
}
