// Lesson 9 -- asynchronous offload and many devices. One job (add-exp with a
// tunable amount of arithmetic per element, async.hpp) run three ways, each a
// marked block below:
//   9.1 overlap:       a pipeline over chunks: `target update ... nowait`,
//                      `target teams ... nowait`, `depend`, `taskwait`
//   9.2 device memory: omp_target_alloc / omp_target_memcpy / is_device_ptr / omp_target_free
//   9.3 every device:  one share per device, `device(d)`, all devices at once
//   9.4 pinned memory: host memory a GPU copies at full speed: omp_alloc with an allocator
// Run `ctest -L lesson9` after each step; see README.md for hints.
#include <algorithm>
#include <cstddef>
#include <vector>

#include <omp.h>

#include "async.hpp"

namespace lesson9 {

void pipeline_start(const Job &job, int chunks) {
  const int n = job.n, terms = job.terms;
  const float *first = job.first, *second = job.second;
  float *result = job.result;
  const int size = (n + chunks - 1) / chunks;
  // SOLUTION(9.1): device memory for all three arrays first (synchronous: it
  // must exist before any stage uses it), copying nothing. Then, per chunk,
  // three deferred target tasks chained by `depend` on the chunk's first
  // element: copy in -> kernel -> copy out. Chunks share no dependence, so the
  // runtime may copy chunk k + 1 while chunk k computes; nothing here waits.
#pragma omp target enter data map(alloc : first[0:n], second[0:n], result[0:n])
  for (int lo = 0; lo < n; lo += size) {
    const int len = std::min(size, n - lo);
#pragma omp target update to(first[lo:len], second[lo:len]) nowait depend(out : first[lo], second[lo])
#pragma omp target teams distribute parallel for nowait depend(in : first[lo], second[lo]) depend(out : result[lo])
    for (int i = lo; i < lo + len; ++i) result[i] = first[i] + exp_series(second[i], terms);
#pragma omp target update from(result[lo:len]) nowait depend(in : result[lo])
  }
  // END SOLUTION
}

void pipeline_wait(const Job &job, int chunks) {
  (void)chunks;
  const int n = job.n;
  const float *first = job.first, *second = job.second;
  float *result = job.result;
  // SOLUTION(9.1): wait for every task pipeline_start() created, then give
  // the device memory back (the results are already home: `release`, no copy).
#pragma omp taskwait
#pragma omp target exit data map(release : first[0:n], second[0:n], result[0:n])
  // END SOLUTION
}

DeviceArrays device_upload(int n, const float *first, const float *second, int device) {
  DeviceArrays d;
  d.n = n;
  d.device = device;
  const std::size_t bytes = sizeof(float) * (std::size_t)n;
  // SOLUTION(9.2): three device allocations, then two host -> device copies;
  // omp_get_initial_device() names the host in omp_target_memcpy.
  d.first = static_cast<float *>(omp_target_alloc(bytes, device));
  d.second = static_cast<float *>(omp_target_alloc(bytes, device));
  d.result = static_cast<float *>(omp_target_alloc(bytes, device));
  const int host = omp_get_initial_device();
  omp_target_memcpy(d.first, first, bytes, 0, 0, device, host);
  omp_target_memcpy(d.second, second, bytes, 0, 0, device, host);
  // END SOLUTION
  return d;
}

void device_add_exp(const DeviceArrays &d, int terms) {
  const int n = d.n;
  const float *first = d.first, *second = d.second;
  float *result = d.result;
  // SOLUTION(9.2): the pointers already hold device addresses: is_device_ptr
  // hands them to the kernel as they are (a map would treat them as host
  // addresses and copy), and device() picks the device that owns them.
#pragma omp target teams distribute parallel for device(d.device) is_device_ptr(first, second, result)
  for (int i = 0; i < n; ++i) result[i] = first[i] + exp_series(second[i], terms);
  // END SOLUTION
}

void device_download(const DeviceArrays &d, float *result) {
  // SOLUTION(9.2): one device -> host copy of the result.
  omp_target_memcpy(result, d.result, sizeof(float) * (std::size_t)d.n, 0, 0, omp_get_initial_device(), d.device);
  // END SOLUTION
}

void device_release(DeviceArrays &d) {
  // SOLUTION(9.2): every omp_target_alloc has its omp_target_free, on the same device.
  omp_target_free(d.first, d.device);
  omp_target_free(d.second, d.device);
  omp_target_free(d.result, d.device);
  d.first = d.second = d.result = nullptr;
  // END SOLUTION
}

std::vector<DeviceReport> add_exp_all_devices(const Job &job, int devices) {
  const int n = job.n, terms = job.terms;
  const float *first = job.first, *second = job.second;
  float *result = job.result;
  std::vector<DeviceReport> reports((std::size_t)devices);
  DeviceReport *rep = reports.data();
  // SOLUTION(9.3): device d takes [n * d / D, n * (d + 1) / D): contiguous,
  // in device order, sizes within one element of each other. Each device gets
  // two deferred target tasks (its kernel with only its share mapped, and its
  // report), so all devices work at once; one taskwait collects them all.
  for (int d = 0; d < devices; ++d) {
    const long long lo = (long long)n * d / devices, hi = (long long)n * (d + 1) / devices;
    const int b = (int)lo, len = (int)(hi - lo);
#pragma omp target teams distribute parallel for device(d) nowait \
    map(to : first[b:len], second[b:len]) map(from : result[b:len])
    for (int i = b; i < b + len; ++i) result[i] = first[i] + exp_series(second[i], terms);
#pragma omp target device(d) nowait map(from : rep[d:1])
    {
      rep[d].device_num = omp_get_device_num();
      rep[d].is_initial = omp_is_initial_device();
      rep[d].begin = lo;
      rep[d].end = hi;
    }
  }
#pragma omp taskwait
  // END SOLUTION
  return reports;
}

float *pinned_alloc(std::size_t n) {
  // SOLUTION(9.4): LLVM's predefined allocator for pinned host memory (an LLVM
  // extension, declared in LLVM's omp.h): its offload runtime allocates it
  // (cuMemAllocHost on NVIDIA). The standard form, omp_init_allocator with
  // {omp_atk_pinned, omp_atv_true} on omp_default_mem_space, asks for the
  // same, but LLVM 19 does not pin it: an H100 copied from it no faster than
  // from malloc.
  return static_cast<float *>(omp_alloc(sizeof(float) * n, llvm_omp_target_host_mem_alloc));
  // END SOLUTION
}

void pinned_free(float *p) {
  // SOLUTION(9.4): the same allocator gives it back (omp_free of null does nothing).
  omp_free(p, llvm_omp_target_host_mem_alloc);
  // END SOLUTION
}

}  // namespace lesson9
