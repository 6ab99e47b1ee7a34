// course_blas_sgemm -- the matrix multiply a user would otherwise call on a
// CPU: OpenBLAS cblas_sgemm (plain FP32) on the host's cores, the report's
// `host-sgemm` ceiling. Lesson 1's matmul runs on host threads in every build,
// so it is compared with this one on the same cores; on the host-offload
// device it is also the ceiling of lessons 2, 4 and 5's matmuls. Built only
// where CMake finds OpenBLAS (Debian: libopenblas-dev); elsewhere the report
// says it skipped the row and why.
//   usage: course_blas_sgemm [--n 1024] [--reps 5] [--size tiny|teaching|full] [--csv FILE]
#include <cblas.h>

#include <chrono>

#include "vendor_sgemm.hpp"

int main(int argc, char **argv) {
  const char *prog = "course_blas_sgemm";
  // The sizes lesson 1 (and lessons 2, 4, 5 on the host device) run at in each mode.
  const auto o = vendor_sgemm::parse(argc, argv, prog, "OpenBLAS cblas_sgemm (FP32) on the host CPU's cores",
                                     {{"tiny", "33", 3}, {"teaching", "256,512,1024", 5}, {"full", "256,512,1024", 5}},
                                     {"", "1024", 5});
  const int threads = openblas_get_num_threads();
  std::printf("device: host CPU, OpenBLAS %s, %d threads\n", openblas_get_config(), threads);
  std::vector<std::string> rows;
  bool all_ok = true;
  for (const long long n : o.sizes) {
    std::vector<float> A, B, C((std::size_t)(n * n), NAN);
    vendor_sgemm::random_matrices(n, A, B);
    const int ni = (int)n;
    auto gemm = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, A.data(), ni, B.data(), ni, 0.0f,
                  C.data(), ni);
    };
    gemm();  // warm-up: OpenBLAS starts its threads on the first call
    std::vector<double> t;
    for (long long r = 0; r < o.reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      gemm();
      t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    const double ms = vendor_sgemm::median(t);
    const double gflops = 2.0 * (double)n * n * n / (ms * 1e-3) / 1e9;
    const double worst = vendor_sgemm::verify(n, A, B, C);
    const bool ok = worst >= 0;
    all_ok = all_ok && ok;
    std::printf("  OpenBLAS sgemm %lldx%lld  %10.3f ms  %9.2f GFLOP/s  %s (worst relative error %.2e)\n", n, n, ms,
                gflops, ok ? "PASS" : "FAILED", worst);
    char note[200];
    std::snprintf(note, sizeof note, "OpenBLAS cblas_sgemm, FP32, %d threads on the host CPU, median of %lld", threads,
                  o.reps);
    rows.push_back(vendor_sgemm::csv_row("host-sgemm", n, ms, gflops, ok, note));
  }
  if (int rc = vendor_sgemm::write_csv(prog, o.csv, rows)) return rc;
  return all_ok ? 0 : 1;
}
