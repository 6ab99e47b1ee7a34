// course_sgemm -- the vendor's matrix multiply as the report's ceiling for the
// matmul lessons on NVIDIA GPUs: cuBLAS SGEMM in plain FP32 (CUBLAS_DEFAULT_MATH
// keeps TF32 tensor cores off, so it does the same arithmetic as the
// lessons' kernels), plus cudaMemcpy device-to-device bandwidth for comparison
// with the OpenMP copy kernel. Built only where the CUDA toolkit with cuBLAS
// is found (report/CMakeLists.txt), or on a GPU node by scripts/report-gpu.sh
// with nvcc. No OpenMP: it writes the course's CSV columns itself.
//   usage: course_sgemm [--n 4096] [--reps 10] [--copy-n 268435456] [--csv FILE]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

[[noreturn]] void usage_error(const std::string &what) {
  std::fprintf(stderr, "course_sgemm: error: %s (see --help)\n", what.c_str());
  std::exit(2);
}

long long parse_int(const char *flag, const char *text, long long lo, long long hi) {
  errno = 0;
  char *end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (!*text || *end || errno == ERANGE) usage_error(std::string(flag) + " expects an integer, got '" + text + "'");
  if (v < lo || v > hi)
    usage_error(std::string(flag) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                ", got " + text);
  return v;
}

void check_cuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "course_sgemm: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void check_blas(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "course_sgemm: %s: cuBLAS status %d\n", what, (int)s);
    std::exit(1);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size();
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

// The course's CSV columns (common/include/course/results.hpp), one row.
std::string csv_row(const std::string &variant, const std::string &size, double ms, double rate,
                    const std::string &unit, const std::string &experiment, bool ok, const std::string &note) {
  char num[64];
  std::string s = "0," + experiment + "," + variant + "," + size + ",";
  std::snprintf(num, sizeof num, "%.6g,%.6g,", ms, rate);
  s += num;
  const std::string ceiling = unit == "GB/s" ? "copy-bandwidth" : "sgemm";
  return s + unit + "," + ceiling + "," + (ok ? "PASS" : "FAILED") + ",\"" + note + "\"";
}

}  // namespace

int main(int argc, char **argv) {
  long long n = 4096, reps = 10, copy_n = 1LL << 28;
  std::string csv;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("course_sgemm: cuBLAS SGEMM (plain FP32) and cudaMemcpy bandwidth, the report's vendor ceilings\n\n"
                  "options:\n  --n N      matrix size [64..32768] (default 4096)\n"
                  "  --reps N   timed runs (median reported) [1..1000] (default 10)\n"
                  "  --copy-n N floats per array in the cudaMemcpy [1024..2^31] (default 2^28)\n"
                  "  --csv FILE append result rows to this CSV file\n");
      return 0;
    }
    const bool takes_value = a == "--n" || a == "--reps" || a == "--csv" || a == "--copy-n";
    if (i + 1 >= argc) usage_error(takes_value ? a + " needs a value" : "unknown option '" + a + "'");
    if (a == "--n") n = parse_int("--n", argv[++i], 64, 32768);
    else if (a == "--copy-n") copy_n = parse_int("--copy-n", argv[++i], 1024, 1LL << 31);
    else if (a == "--reps") reps = parse_int("--reps", argv[++i], 1, 1000);
    else if (a == "--csv") csv = argv[++i];
    else usage_error("unknown option '" + a + "'");
  }

  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  std::printf("device: gpu %s (sm_%d%d), CUDA runtime %d.%d, cuBLAS SGEMM FP32\n", prop.name, prop.major,
              prop.minor, runtime / 1000, (runtime % 1000) / 10);

  const std::size_t nn = (std::size_t)n * (std::size_t)n;
  std::vector<float> A(nn), B(nn), C(nn);
  std::mt19937 gen(20261121);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (auto &x : A) x = d(gen);
  for (auto &x : B) x = d(gen);

  float *dA = nullptr, *dB = nullptr, *dC = nullptr;
  check_cuda(cudaMalloc(&dA, nn * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMalloc(&dB, nn * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMalloc(&dC, nn * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMemcpy(dA, A.data(), nn * sizeof(float), cudaMemcpyHostToDevice), "copy A");
  check_cuda(cudaMemcpy(dB, B.data(), nn * sizeof(float), cudaMemcpyHostToDevice), "copy B");

  cublasHandle_t h;
  check_blas(cublasCreate(&h), "cublasCreate");
  // Plain FP32: no TF32 tensor-core shortcut, the arithmetic the lessons do.
  check_blas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  const float one = 1.f, zero = 0.f;
  const int ni = (int)n;
  // Row-major C = A x B is column-major C^T = B^T x A^T: swap the operands.
  auto gemm = [&] {
    check_blas(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, dB, ni, dA, ni, &zero, dC, ni), "cublasSgemm");
  };
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto time_ms = [&](auto &&f) {
    cudaEventRecord(e0);
    f();
    cudaEventRecord(e1);
    check_cuda(cudaEventSynchronize(e1), "kernel");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    return (double)ms;
  };
  for (int w = 0; w < 3; ++w) gemm();
  std::vector<double> t;
  for (long long r = 0; r < reps; ++r) t.push_back(time_ms(gemm));
  const double gemm_ms = median(t);
  const double gflops = 2.0 * (double)n * (double)n * (double)n / (gemm_ms * 1e-3) / 1e9;

  // Verify a few elements against a double-precision dot product.
  check_cuda(cudaMemcpy(C.data(), dC, nn * sizeof(float), cudaMemcpyDeviceToHost), "copy C");
  bool ok = true;
  double worst = 0;
  for (int s = 0; s < 64; ++s) {
    const std::size_t i = (std::size_t)((s * 7919LL) % n), j = (std::size_t)((s * 104729LL) % n);
    double ref = 0, mag = 0;
    for (std::size_t k = 0; k < (std::size_t)n; ++k) {
      ref += (double)A[i * n + k] * B[k * n + j];
      mag += std::fabs((double)A[i * n + k] * B[k * n + j]);
    }
    const double err = std::fabs(C[i * n + j] - ref) / (mag > 0 ? mag : 1);
    worst = std::max(worst, err);
    // Worst-case FP32 summation bound: n roundings of at most 2^-24 of sum |a||b|.
    ok = ok && err <= 2.0 * (double)n * std::ldexp(1.0, -24) && std::isfinite(C[i * n + j]);
  }
  std::printf("  cuBLAS SGEMM %lldx%lld   %10.3f ms  %9.1f GFLOP/s  %s (worst relative error %.2e)\n", n, n, gemm_ms,
              gflops, ok ? "PASS" : "FAILED", worst);

  // cudaMemcpy device to device: the vendor's copy, bytes read + written, on
  // arrays as large as course_ceilings' (far past the L2 cache), fastest run.
  const std::size_t bytes = (std::size_t)copy_n * sizeof(float);
  float *src = nullptr, *dst = nullptr;
  check_cuda(cudaMalloc(&src, bytes), "cudaMalloc (copy)");
  check_cuda(cudaMalloc(&dst, bytes), "cudaMalloc (copy)");
  check_cuda(cudaMemset(src, 0, bytes), "cudaMemset");
  for (int w = 0; w < 3; ++w) check_cuda(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "memcpy");
  std::vector<double> tm;
  for (long long r = 0; r < reps; ++r)
    tm.push_back(time_ms([&] { cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice); }));
  const double copy_ms = *std::min_element(tm.begin(), tm.end());
  const double gbs = 2.0 * (double)bytes / (copy_ms * 1e-3) / 1e9;
  std::printf("  cudaMemcpy device to device %zu MB  %10.3f ms  %9.1f GB/s\n", bytes >> 20, copy_ms, gbs);
  cudaFree(src);
  cudaFree(dst);

  const std::string size = std::to_string(n) + "x" + std::to_string(n);
  char note[160];
  std::snprintf(note, sizeof note, "cuBLAS cublasSgemm CUBLAS_DEFAULT_MATH (no TF32), median of %lld", reps);
  const std::string rows[] = {
      csv_row("sgemm", size, gemm_ms, gflops, "GFLOP/s", "ceiling", ok, note),
      csv_row("copy: cudaMemcpy device to device", std::to_string(copy_n) + " floats", copy_ms, gbs, "GB/s",
              "ceiling detail", true,
              "the vendor's copy for comparison; bytes read + written, fastest of " + std::to_string(reps) + " runs"),
  };
  if (!csv.empty()) {
    FILE *f = std::fopen(csv.c_str(), "a+");
    if (!f) {
      std::fprintf(stderr, "course_sgemm: error: cannot write CSV file '%s'\n", csv.c_str());
      return 2;
    }
    std::fseek(f, 0, SEEK_END);
    if (std::ftell(f) == 0) std::fprintf(f, "lesson,experiment,variant,size,time_ms,rate,unit,ceiling,status,note\n");
    for (const auto &r : rows) std::fprintf(f, "%s\n", r.c_str());
    std::fclose(f);
  }
  cublasDestroy(h);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  return ok ? 0 : 1;
}
