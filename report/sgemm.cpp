// course_sgemm -- the vendor's matrix multiply as the report's `sgemm`
// ceiling on NVIDIA GPUs: cuBLAS SGEMM in plain FP32 (CUBLAS_DEFAULT_MATH
// keeps TF32 tensor cores off, so it does the same arithmetic as the lessons'
// kernels), at each size the matmul lessons run at, so every matmul row is
// compared with cuBLAS at its own size. (The vendor's copy, the streaming
// ceiling, is measured by course_ceilings through the CUDA driver.) Built
// only where the CUDA toolkit with cuBLAS is found (report/CMakeLists.txt), or
// on a GPU node by scripts/report-gpu.sh with nvcc. No OpenMP. Each size is
// timed on two clocks (report/vendor_cuda.hpp): CUDA events around the call
// (the ceiling row "sgemm") and the host's clock around the call and its
// cudaDeviceSynchronize (the reference row "sgemm per call").
//   usage: course_sgemm [--n 1024,4096] [--reps 10] [--size tiny|teaching|full] [--csv FILE]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "vendor_cuda.hpp"
#include "vendor_sgemm.hpp"

namespace {

const char *prog = "course_sgemm";

void check_cuda(cudaError_t e, const char *what) { vendor::check_cuda(prog, e, what); }

void check_blas(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: %s: cuBLAS status %d\n", prog, what, (int)s);
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char **argv) {
  // The sizes lessons 2, 4 and 5 run at on a GPU in each mode (1024: the articles' size).
  const auto o = vendor_sgemm::parse(argc, argv, prog, "cuBLAS SGEMM (plain FP32), the report's vendor matmul ceiling",
                                     {{"tiny", "256", 3},
                                      {"teaching", "256,512,1024,2048", 10},
                                      {"full", "256,512,1024,4096", 20}},
                                     {"", "4096", 10});
  const std::string wait = vendor::set_wait(prog);
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  std::printf("device: gpu %s (sm_%d%d), CUDA runtime %d.%d, cuBLAS SGEMM FP32, GPU wait %s\n", prop.name, prop.major,
              prop.minor, runtime / 1000, (runtime % 1000) / 10, wait.c_str());

  cublasHandle_t h;
  check_blas(cublasCreate(&h), "cublasCreate");
  // Plain FP32: no TF32 tensor-core shortcut, the arithmetic the lessons do.
  check_blas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  std::vector<std::string> rows;
  bool all_ok = true;
  for (const long long n : o.sizes) {
    std::vector<float> A, B, C((std::size_t)(n * n));
    vendor_sgemm::random_matrices(n, A, B);
    const std::size_t bytes = (std::size_t)(n * n) * sizeof(float);
    float *dA = nullptr, *dB = nullptr, *dC = nullptr;
    check_cuda(cudaMalloc(&dA, bytes), "cudaMalloc");
    check_cuda(cudaMalloc(&dB, bytes), "cudaMalloc");
    check_cuda(cudaMalloc(&dC, bytes), "cudaMalloc");
    check_cuda(cudaMemcpy(dA, A.data(), bytes, cudaMemcpyHostToDevice), "copy A");
    check_cuda(cudaMemcpy(dB, B.data(), bytes, cudaMemcpyHostToDevice), "copy B");
    const float one = 1.f, zero = 0.f;
    const int ni = (int)n;
    // Row-major C = A x B is column-major C^T = B^T x A^T: swap the operands.
    auto gemm = [&] {
      check_blas(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, dB, ni, dA, ni, &zero, dC, ni),
                 "cublasSgemm");
    };
    const vendor::Times t = vendor::median_ms(prog, o.reps, 3, gemm);
    const double flops = 2.0 * (double)n * n * n;
    const double gflops = flops / (t.kernel_ms * 1e-3) / 1e9, call_gflops = flops / (t.call_ms * 1e-3) / 1e9;
    check_cuda(cudaMemcpy(C.data(), dC, bytes, cudaMemcpyDeviceToHost), "copy C");
    const double worst = vendor_sgemm::verify(n, A, B, C);
    const bool ok = worst >= 0;
    all_ok = all_ok && ok;
    std::printf("  cuBLAS SGEMM %lldx%lld   %10.3f ms  %9.1f GFLOP/s (kernel) %10.3f ms  %9.1f GFLOP/s (per call)  %s "
                "(worst relative error %.2e)\n",
                n, n, t.kernel_ms, gflops, t.call_ms, call_gflops, ok ? "PASS" : "FAILED", worst);
    const std::string how = "cuBLAS cublasSgemm CUBLAS_DEFAULT_MATH (no TF32), ";
    rows.push_back(vendor_sgemm::csv_row("sgemm", n, t.kernel_ms, gflops, ok, how + vendor::kernel_clock(o.reps)));
    rows.push_back(vendor::call_row("sgemm", std::to_string(n) + "x" + std::to_string(n), t.call_ms, call_gflops,
                                    "GFLOP/s", 0, flops, ok, how + vendor::call_clock(o.reps)));
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
  }
  cublasDestroy(h);
  if (int rc = vendor_sgemm::write_csv(prog, o.csv, rows)) return rc;
  return all_ok ? 0 : 1;
}
