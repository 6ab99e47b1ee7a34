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
  // TODO(9.1): this runs each chunk synchronously: the chunk's copies and its
  // kernel finish before the next chunk starts, and the function returns only
  // when all is done. Make it a pipeline that returns at once:
  //   - take device memory for the three arrays once, before the loop, with
  //     `target enter data` (map(alloc: ...): nothing needs copying yet);
  //   - per chunk, three stages, each its own deferred task (`nowait`): copy
  //     the inputs in (`target update to`), the kernel (`target teams
  //     distribute parallel for`, which then finds the arrays present), copy
  //     the result out (`target update from`);
  //   - order the three stages of one chunk with `depend(out: ...)` /
  //     `depend(in: ...)` on an element of that chunk, and leave different
  //     chunks independent, so chunk k + 1 can copy while chunk k computes;
  //   - wait for nothing here: pipeline_wait() does that (TODO 9.1 below).
  for (int lo = 0; lo < n; lo += size) {
    const int len = std::min(size, n - lo);
#pragma omp target teams distribute parallel for map(to : first[lo:len], second[lo:len]) map(from : result[lo:len])
    for (int i = lo; i < lo + len; ++i) result[i] = first[i] + exp_series(second[i], terms);
  }
  // END TODO
}

void pipeline_wait(const Job &job, int chunks) {
  (void)chunks;
  const int n = job.n;
  const float *first = job.first, *second = job.second;
  float *result = job.result;
  // TODO(9.1): once pipeline_start() only launches work, wait here for all of
  // it (`taskwait`) and then give back the device memory it took (`target
  // exit data`: do the results still need copying at that point?).
  (void)n;
  (void)first;
  (void)second;
  (void)result;
  // END TODO
}

DeviceArrays device_upload(int n, const float *first, const float *second, int device) {
  DeviceArrays d;
  d.n = n;
  d.device = device;
  const std::size_t bytes = sizeof(float) * (std::size_t)n;
  // TODO(9.2): these "device arrays" are host memory and the copies are host
  // copies: nothing here touches a device. Allocate the three arrays on
  // `device` with omp_target_alloc(bytes, device) and copy the two inputs there
  // with omp_target_memcpy(dst, src, bytes, dst_offset, src_offset, dst_device,
  // src_device); the host is device number omp_get_initial_device().
  d.first = new float[(std::size_t)n];
  d.second = new float[(std::size_t)n];
  d.result = new float[(std::size_t)n];
  std::copy(first, first + n, d.first);
  std::copy(second, second + n, d.second);
  (void)bytes;
  // END TODO
  return d;
}

void device_add_exp(const DeviceArrays &d, int terms) {
  const int n = d.n;
  const float *first = d.first, *second = d.second;
  float *result = d.result;
  // TODO(9.2): run this loop on d.device over the device arrays. They hold
  // device addresses already: pass them with is_device_ptr(...) instead of
  // mapping them, and pick the device with device(...).
  for (int i = 0; i < n; ++i) result[i] = first[i] + exp_series(second[i], terms);
  // END TODO
}

void device_download(const DeviceArrays &d, float *result) {
  // TODO(9.2): copy d.result (device d.device) into the host array: omp_target_memcpy.
  std::copy(d.result, d.result + d.n, result);
  // END TODO
}

void device_release(DeviceArrays &d) {
  // TODO(9.2): free each array on its device: omp_target_free.
  delete[] d.first;
  delete[] d.second;
  delete[] d.result;
  d.first = d.second = d.result = nullptr;
  // END TODO
}

std::vector<DeviceReport> add_exp_all_devices(const Job &job, int devices) {
  const int n = job.n, terms = job.terms;
  const float *first = job.first, *second = job.second;
  float *result = job.result;
  std::vector<DeviceReport> reports((std::size_t)devices);
  DeviceReport *rep = reports.data();
  // TODO(9.3): everything runs on the default device and only one report
  // comes back. Split the job over devices 0 .. devices - 1:
  //   - device d takes one contiguous share, shares in device order and
  //     within one element of equal size (n * d / devices is a good start);
  //   - each device gets its own target region with device(d), mapping only
  //     its share; launch them all before waiting for any (`nowait` tasks and
  //     one `taskwait`, or one host thread per device);
  //   - each device fills rep[d] ON the device: omp_get_device_num(),
  //     omp_is_initial_device() and its share's begin and end (map it back).
#pragma omp target teams distribute parallel for map(to : first[0:n], second[0:n]) map(from : result[0:n])
  for (int i = 0; i < n; ++i) result[i] = first[i] + exp_series(second[i], terms);
#pragma omp target map(from : rep[0:1])
  {
    rep[0].device_num = omp_get_device_num();
    rep[0].is_initial = omp_is_initial_device();
    rep[0].begin = 0;
    rep[0].end = n;
  }
  // END TODO
  return reports;
}

float *pinned_alloc(std::size_t n) {
  // TODO(9.4): this is ordinary, pageable memory: a GPU copies from it through
  // a staging buffer of its driver's, slowly and not beside a kernel. Take
  // pinned host memory from the OpenMP runtime instead: omp_alloc(bytes,
  // allocator) with an allocator for it. The standard way is an allocator
  // with the `omp_atk_pinned` trait (omp_init_allocator); README step 9.4 says
  // why LLVM 19 needs one of LLVM's own predefined allocators instead.
  return new float[n];
  // END TODO
}

void pinned_free(float *p) {
  // TODO(9.4): give the memory back the way pinned_alloc() took it (omp_free,
  // with the same allocator).
  delete[] p;
  // END TODO
}

}  // namespace lesson9
