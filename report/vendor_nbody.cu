// vendor_nbody.cu -- the classic tiled CUDA N-body kernel (the GPU Gems 3
// shape: float4 bodies x, y, z, mass; a tile of 256 bodies in shared memory;
// rsqrtf), the peer row for lesson 7's N-body on the same card. One step =
// every body's acceleration from all n bodies, then a leapfrog update; 20
// flops per interaction, as the course counts them.
//   build: nvcc -O3 -arch=sm_90 -o vendor_nbody report/vendor_nbody.cu
//   usage: vendor_nbody [--n 65536] [--reps 20]
//   output: CSV: what,n,median_ms,best_ms,TFLOPs_median,TFLOPs_best,check
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                            \
  do {                                                                                      \
    cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "vendor_nbody: %s: %s\n", #call, cudaGetErrorString(e_));        \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

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

int main(int argc, char **argv) {
  int n = 65536, reps = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--n")) n = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  n = (n + kTile - 1) / kTile * kTile;
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
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) run();
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    run();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double med = ms[ms.size() / 2], flops = 20.0 * double(n) * n;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# device: %s\nwhat,n,median_ms,best_ms,TFLOPs_median,TFLOPs_best,check\n", prop.name);
  std::printf("classic tiled CUDA N-body (float4, shared tile 256, rsqrtf),%d,%.4f,%.4f,%.2f,%.2f,%s\n", n, med,
              ms.front(), flops / med / 1e9, flops / ms.front() / 1e9, ok ? "ok" : "WRONG");
  return 0;
}
