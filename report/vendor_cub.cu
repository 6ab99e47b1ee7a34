// vendor_cub.cu -- course_cub: the vendor's ceilings for the course's
// reductions and histograms, measured on the same card as the lessons: CUB's
// DeviceReduce::Sum (int, float, double) and DeviceHistogram::HistogramEven
// (256 bins of float samples in [0, 1)), and cudaMemcpy device to device
// beside them. Each is timed on two clocks (report/vendor_cuda.hpp): CUDA
// events around the call alone (the data and the result stay on the device),
// and the host's clock around the call and its cudaDeviceSynchronize, as the
// course's OpenMP calls are timed; the median of --reps after 2 warm-ups each,
// and checked against a host reference.
//   build: nvcc -O3 -std=c++17 -arch=sm_90 -o course_cub report/vendor_cub.cu
//          (scripts/report-gpu.sh does, with the GPU node's nvcc)
//   usage: course_cub [--n 268435456] [--reps 20] [--size tiny|teaching|full] [--csv FILE]
//   rows:  ceilings cub-sum-int, cub-sum-float, cub-sum-double, cub-histogram
//          (GB/s of the bytes read once, kernel clock), each with its
//          "... per call" reference row (host clock); cudaMemcpy D2D as a
//          reference row (and its per-call twin).
#include <cub/cub.cuh>

#include <cmath>
#include <string>

#include "vendor_cuda.hpp"

// Every CUDA call checked: one line naming it, exit 1.
#define CK(call) vendor::check_cuda("course_cub", (call), #call)

namespace {

std::vector<std::string> rows;

// Times f on both clocks, prints one line and adds two rows: the kernel's
// (CUDA events) and the call's (host clock, "... per call").
template <class F>
void timed(const std::string &name, const std::string &role, std::size_t n, double bytes, long long reps, F &&f,
           bool ok, const std::string &how) {
  const vendor::Times t = vendor::median_ms("course_cub", reps, 2, f);
  const double gbs = bytes / t.kernel_ms / 1e6, call_gbs = bytes / t.call_ms / 1e6;
  std::printf("  %-16s %11zu %10.4f ms %9.1f GB/s (kernel) %10.4f ms %9.1f GB/s (per call)  %s\n", name.c_str(), n,
              t.kernel_ms, gbs, t.call_ms, call_gbs, ok ? "ok" : "WRONG");
  std::fflush(stdout);
  rows.push_back(vendor::row(name, role, std::to_string(n), t.kernel_ms, gbs, "GB/s", bytes, 0, ok,
                             how + ", " + vendor::kernel_clock(reps)));
  rows.push_back(vendor::call_row(name, std::to_string(n), t.call_ms, call_gbs, "GB/s", bytes, 0, ok,
                                  how + ", " + vendor::call_clock(reps)));
}

unsigned mix(unsigned long long i) {  // a reproducible pseudo-random stream
  i += 0x9e3779b97f4a7c15ull;
  i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9ull;
  i = (i ^ (i >> 27)) * 0x94d049bb133111ebull;
  return static_cast<unsigned>((i ^ (i >> 31)) >> 40);  // 24 bits
}

template <class T>
void sum(const char *type, std::size_t n, long long reps) {
  std::vector<T> h(n);
  double want = 0;
  for (std::size_t i = 0; i < n; ++i) {
    h[i] = std::is_integral<T>::value ? static_cast<T>(mix(i) % 3) : static_cast<T>(mix(i) * (1.0 / 16777216.0));
    want += static_cast<double>(h[i]);
  }
  T *d = nullptr, *out = nullptr;
  CK(cudaMalloc(&d, n * sizeof(T)));
  CK(cudaMalloc(&out, sizeof(T)));
  CK(cudaMemcpy(d, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  void *tmp = nullptr;
  std::size_t tmp_bytes = 0;
  CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, d, out, static_cast<int>(n)));
  CK(cudaMalloc(&tmp, tmp_bytes));
  auto run = [&] { CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, d, out, static_cast<int>(n))); };
  run();
  T got{};
  CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost));
  const double rel = std::abs(static_cast<double>(got) - want) / std::max(1.0, std::abs(want));
  const bool ok = rel <= 4.0 * std::sqrt(static_cast<double>(n)) * (sizeof(T) == 4 ? 0x1p-24 : 0x1p-53) || rel == 0;
  timed(std::string("cub-sum-") + type, "ceiling", n, double(n) * sizeof(T), reps, run, ok,
        std::string("cub::DeviceReduce::Sum of ") + type);
  CK(cudaFree(tmp));
  CK(cudaFree(out));
  CK(cudaFree(d));
}

void histogram(std::size_t n, long long reps) {
  std::vector<float> h(n);
  std::vector<long long> want(256, 0);
  for (std::size_t i = 0; i < n; ++i) {
    h[i] = static_cast<float>(mix(i + 77) * (1.0 / 16777216.0));
    ++want[std::min(255, static_cast<int>(h[i] * 256.0f))];
  }
  float *d = nullptr;
  int *bins = nullptr;
  CK(cudaMalloc(&d, n * sizeof(float)));
  CK(cudaMalloc(&bins, 256 * sizeof(int)));
  CK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  void *tmp = nullptr;
  std::size_t tmp_bytes = 0;
  // 257 levels, 0 to 1: bin b holds [b/256, (b+1)/256), as lesson 11's bin_of.
  CK(cub::DeviceHistogram::HistogramEven(tmp, tmp_bytes, d, bins, 257, 0.0f, 1.0f, static_cast<int>(n)));
  CK(cudaMalloc(&tmp, tmp_bytes));
  auto run = [&] {
    CK(cub::DeviceHistogram::HistogramEven(tmp, tmp_bytes, d, bins, 257, 0.0f, 1.0f, static_cast<int>(n)));
  };
  run();
  std::vector<int> got(256);
  CK(cudaMemcpy(got.data(), bins, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < 256; ++b) bad += got[b] != want[b];
  if (bad) std::printf("  cub-histogram: %d of 256 bins differ from the host's count\n", bad);
  timed("cub-histogram", "ceiling", n, double(n) * 4, reps, run, bad == 0,
        "cub::DeviceHistogram::HistogramEven, 256 bins of float samples");
  CK(cudaFree(tmp));
  CK(cudaFree(bins));
  CK(cudaFree(d));
}

void copy(std::size_t n, long long reps) {
  float *a = nullptr, *b = nullptr;
  CK(cudaMalloc(&a, n * 4));
  CK(cudaMalloc(&b, n * 4));
  CK(cudaMemset(a, 1, n * 4));
  timed("cudaMemcpy D2D", "reference", n, 8.0 * n, reps,
        [&] { CK(cudaMemcpy(b, a, n * 4, cudaMemcpyDeviceToDevice)); }, true, "floats read and written");
  CK(cudaFree(a));
  CK(cudaFree(b));
}

}  // namespace

int main(int argc, char **argv) {
  const char *prog = "course_cub";
  const auto o = vendor::parse(argc, argv,
                               vendor::Spec{prog, "CUB reduce and histogram, the report's vendor ceilings for sums and histograms",
                                            "elements", 1LL << 30,
                                            {{"tiny", "1048576", 5}, {"teaching", "67108864", 10}, {"full", "268435456", 20}},
                                            {"default", "268435456", 20}});
  const std::string wait = vendor::set_wait(prog);
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device: gpu %s (sm_%d%d, %d SMs), CUDA runtime %d, CUB %d, GPU wait %s\n", p.name, p.major, p.minor,
              p.multiProcessorCount, CUDART_VERSION, CUB_VERSION, wait.c_str());
  for (long long n : o.sizes) {
    const auto un = static_cast<std::size_t>(n);
    copy(un, o.reps);
    sum<int>("int", un, o.reps);
    sum<float>("float", un, o.reps);
    sum<double>("double", un, o.reps);
    histogram(un, o.reps);
  }
  return vendor::write_csv(prog, o.csv, rows);
}
