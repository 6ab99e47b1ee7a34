// vendor_nbody.cu -- course_cuda_nbody: the classic tiled CUDA N-body kernel
// (the GPU Gems 3 shape: float4 bodies x, y, z, mass; a tile of 256 bodies in
// shared memory; rsqrtf), the peer of the course's N-body kernels on the same
// card. One step = every body's acceleration from all n bodies, then a
// leapfrog update; 20 flops per interaction, as the course counts them.
//   build: nvcc -O3 -std=c++17 -arch=sm_90 -o course_cuda_nbody report/vendor_nbody.cu
//          (scripts/report-gpu.sh does, with the GPU node's nvcc)
//   usage: course_cuda_nbody [--n 65536] [--reps 20] [--size tiny|teaching|full] [--csv FILE]
//   rows:  ceiling cuda-nbody (GFLOP/s at "N bodies", CUDA events around the
//          launch): a peer, which a course kernel may beat, not a bound; and
//          its "cuda-nbody per call" reference row (host clock around the
//          launch and cudaDeviceSynchronize: report/vendor_cuda.hpp).
#include <cmath>
#include <string>

#include "vendor_cuda.hpp"

// Every CUDA call checked: one line naming it, exit 1.
#define CK(call) vendor::check_cuda("course_cuda_nbody", (call), #call)

namespace {

constexpr int kTile = 256;
constexpr float kSoft2 = 1e-4f;

__global__ void step(const float4 *__restrict__ pos, float4 *__restrict__ vel, float4 *__restrict__ out, int n,
                     float dt) {
  __shared__ float4 tile[kTile];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 me = i < n ? pos[i] : make_float4(0, 0, 0, 0);
  float ax = 0, ay = 0, az = 0;
  for (int t = 0; t < n; t += kTile) {
    tile[threadIdx.x] = t + threadIdx.x < n ? pos[t + threadIdx.x] : make_float4(0, 0, 0, 0);
    __syncthreads();
#pragma unroll 8
    for (int j = 0; j < kTile; ++j) {
      const float4 o = tile[j];
      const float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
      const float r2 = dx * dx + dy * dy + dz * dz + kSoft2;
      const float inv = rsqrtf(r2);
      const float s = o.w * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    __syncthreads();
  }
  if (i < n) {
    float4 v = vel[i];
    v.x += ax * dt;
    v.y += ay * dt;
    v.z += az * dt;
    vel[i] = v;
    out[i] = make_float4(me.x + v.x * dt, me.y + v.y * dt, me.z + v.z * dt, me.w);
  }
}

// One size: times the step on both clocks, checks body 0's acceleration
// against a double sum, adds the two rows.
void measure(int n, long long reps, std::vector<std::string> &rows) {
  n = (n + kTile - 1) / kTile * kTile;  // whole tiles: the classic kernel has no tail
  std::vector<float4> p(n), v(n, make_float4(0, 0, 0, 0));
  unsigned s = 12345;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return (s >> 8) * (1.0f / 16777216.0f); };
  for (auto &b : p) b = make_float4(rnd() * 2 - 1, rnd() * 2 - 1, rnd() * 2 - 1, 1.0f / n);
  float4 *dp, *dv, *dq;
  CK(cudaMalloc(&dp, n * sizeof(float4)));
  CK(cudaMalloc(&dv, n * sizeof(float4)));
  CK(cudaMalloc(&dq, n * sizeof(float4)));
  CK(cudaMemcpy(dp, p.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, v.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  auto run = [&] { step<<<n / kTile, kTile>>>(dp, dv, dq, n, 1e-3f); };
  // Check: body 0's new velocity against a double-precision sum.
  run();
  CK(cudaDeviceSynchronize());
  std::vector<float4> gv(n);
  CK(cudaMemcpy(gv.data(), dv, n * sizeof(float4), cudaMemcpyDeviceToHost));
  double ax = 0;
  for (int j = 0; j < n; ++j) {
    const double dx = p[j].x - p[0].x, dy = p[j].y - p[0].y, dz = p[j].z - p[0].z;
    const double r2 = dx * dx + dy * dy + dz * dz + kSoft2;
    ax += dx * p[j].w / (r2 * std::sqrt(r2));
  }
  const bool ok = std::abs(gv[0].x - ax * 1e-3) <= 1e-3 * std::abs(ax * 1e-3) + 1e-9;
  CK(cudaMemcpy(dv, v.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  const vendor::Times t = vendor::median_ms("course_cuda_nbody", reps, 2, run);
  CK(cudaFree(dp));
  CK(cudaFree(dv));
  CK(cudaFree(dq));
  const double flops = 20.0 * double(n) * n, gflops = flops / t.kernel_ms / 1e6, call_gflops = flops / t.call_ms / 1e6;
  std::printf("  classic CUDA N-body %7d bodies %10.4f ms %9.1f GFLOP/s (kernel) %10.4f ms %9.1f GFLOP/s (per call)  %s\n",
              n, t.kernel_ms, gflops, t.call_ms, call_gflops, ok ? "ok" : "WRONG");
  std::fflush(stdout);
  const std::string how = "classic tiled CUDA kernel (float4, shared tile of 256, rsqrtf), ";
  const std::string size = std::to_string(n) + " bodies";
  rows.push_back(vendor::row("cuda-nbody", "ceiling", size, t.kernel_ms, gflops, "GFLOP/s", 0, flops, ok,
                             how + vendor::kernel_clock(reps)));
  rows.push_back(vendor::call_row("cuda-nbody", size, t.call_ms, call_gflops, "GFLOP/s", 0, flops, ok,
                                  how + vendor::call_clock(reps)));
}

}  // namespace

int main(int argc, char **argv) {
  const char *prog = "course_cuda_nbody";
  const auto o = vendor::parse(argc, argv,
                               vendor::Spec{prog, "the classic tiled CUDA N-body kernel, the peer row of the course's N-body",
                                            "bodies", 1 << 20,
                                            {{"tiny", "1024", 3}, {"teaching", "65536", 10}, {"full", "65536", 20}},
                                            {"default", "65536", 20}});
  const std::string wait = vendor::set_wait(prog);
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: gpu %s (sm_%d%d, %d SMs), CUDA runtime %d, GPU wait %s\n", prop.name, prop.major, prop.minor,
              prop.multiProcessorCount, CUDART_VERSION, wait.c_str());
  std::vector<std::string> rows;
  for (long long n : o.sizes) measure(static_cast<int>(n), o.reps, rows);
  return vendor::write_csv(prog, o.csv, rows);
}
