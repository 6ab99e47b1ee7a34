// vendor_cub.cu -- the vendor's ceilings for lesson 11's kernels, measured on
// the same card as the lessons: CUB's DeviceReduce::Sum (int, float, double)
// and DeviceHistogram::HistogramEven (256 bins of float samples in [0, 1)),
// beside cudaMemcpy device to device. Each is timed with CUDA events around
// the call alone (the data stays on the device), median and best of --reps
// after 2 warm-ups, and checked against a host reference.
//   build: nvcc -O3 -arch=sm_90 -o vendor_cub report/vendor_cub.cu
//   usage: vendor_cub [--n 268435456] [--reps 20]
//   output: one CSV line per row: what,n,median_ms,best_ms,GB/s(median),GB/s(best),check
// GB/s counts the bytes read (and, for the copy, written) once.
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "vendor_cub: %s: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace {

template <class F>
void timed(const char *what, std::size_t n, double bytes, int reps, F &&f, const std::string &check) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) f();
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double med = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  std::printf("%s,%zu,%.4f,%.4f,%.1f,%.1f,%s\n", what, n, med, ms.front(), bytes / med / 1e6, bytes / ms.front() / 1e6,
              check.c_str());
  std::fflush(stdout);
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
}

unsigned mix(unsigned long long i) {  // a reproducible pseudo-random stream
  i += 0x9e3779b97f4a7c15ull;
  i = (i ^ (i >> 30)) * 0xbf58476d1ce4e5b9ull;
  i = (i ^ (i >> 27)) * 0x94d049bb133111ebull;
  return static_cast<unsigned>((i ^ (i >> 31)) >> 40);  // 24 bits
}

template <class T>
void sum(const char *what, std::size_t n, int reps) {
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
  timed(what, n, double(n) * sizeof(T), reps, run, ok ? "ok" : "WRONG");
  CK(cudaFree(tmp));
  CK(cudaFree(out));
  CK(cudaFree(d));
}

void histogram(std::size_t n, int reps) {
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
  timed("cub::DeviceHistogram::HistogramEven 256 bins float", n, double(n) * 4, reps, run,
        bad ? "WRONG (" + std::to_string(bad) + " bins)" : std::string("ok"));
  CK(cudaFree(tmp));
  CK(cudaFree(bins));
  CK(cudaFree(d));
}

void copy(std::size_t n, int reps) {
  float *a = nullptr, *b = nullptr;
  CK(cudaMalloc(&a, n * 4));
  CK(cudaMalloc(&b, n * 4));
  CK(cudaMemset(a, 1, n * 4));
  timed("cudaMemcpy D2D (read + write)", n, 8.0 * n, reps,
        [&] { CK(cudaMemcpy(b, a, n * 4, cudaMemcpyDeviceToDevice)); }, "ok");
  CK(cudaFree(a));
  CK(cudaFree(b));
}

}  // namespace

int main(int argc, char **argv) {
  std::size_t n = std::size_t(1) << 28;
  int reps = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--n")) n = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# device: %s, %d SMs; CUDA runtime %d\n", p.name, p.multiProcessorCount, CUDART_VERSION);
  std::printf("what,n,median_ms,best_ms,GBps_median,GBps_best,check\n");
  copy(n, reps);
  sum<int>("cub::DeviceReduce::Sum int", n, reps);
  sum<float>("cub::DeviceReduce::Sum float", n, reps);
  sum<double>("cub::DeviceReduce::Sum double", n, reps);
  histogram(n, reps);
  return 0;
}
