// lesson09_async.cpp -- lesson 9's fixed baselines: synchronous add-exp with a
// series exp, whole or chunk by chunk, on one device (see lesson09_async.hpp).
#include "lesson09_async.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <omp.h>

namespace course::baseline::lesson9 {

// The kernels' arithmetic is the lesson's own (lesson9::exp_series, lesson09_async_shared.hpp).
using ::lesson9::exp_series;

std::vector<double> add_exp_reference(int n, const float *first, const float *second) {
  std::vector<double> ref((std::size_t)n);
  for (int i = 0; i < n; ++i) ref[(std::size_t)i] = (double)first[i] + std::exp((double)second[i]);
  return ref;
}

void add_exp_sync(int n, const float *first, const float *second, float *result, int terms, int device) {
#pragma omp target teams distribute parallel for device(device) map(to : first[0:n], second[0:n]) \
    map(from : result[0:n])
  for (int i = 0; i < n; ++i) result[i] = first[i] + exp_series(second[i], terms);
}

void add_exp_sync_chunked(int n, const float *first, const float *second, float *result, int terms, int chunks,
                          int device) {
  const int size = (n + chunks - 1) / chunks;
  for (int lo = 0; lo < n; lo += size) {
    const int len = std::min(size, n - lo);
#pragma omp target teams distribute parallel for device(device) map(to : first[lo:len], second[lo:len]) \
    map(from : result[lo:len])
    for (int i = lo; i < lo + len; ++i) result[i] = first[i] + exp_series(second[i], terms);
  }
}

void enter_inputs(int n, const float *first, const float *second, float *result, int device) {
#pragma omp target enter data device(device) map(to : first[0:n], second[0:n]) map(alloc : result[0:n])
}

void kernel_present(int n, const float *first, const float *second, float *result, int terms, int device) {
#pragma omp target teams distribute parallel for device(device) map(to : first[0:n], second[0:n]) \
    map(from : result[0:n])
  for (int i = 0; i < n; ++i) result[i] = first[i] + exp_series(second[i], terms);
}

void exit_result(int n, const float *first, const float *second, float *result, int device) {
#pragma omp target exit data device(device) map(from : result[0:n]) map(release : first[0:n], second[0:n])
}

void add_exp_one_thread(int n, const float *first, const float *second, float *result, int terms, int device) {
  // A target region with no teams or parallel loop: the initial thread of one
  // team runs the whole loop.
#pragma omp target device(device) is_device_ptr(first, second, result)
  for (int i = 0; i < n; ++i) result[i] = first[i] + exp_series(second[i], terms);
}

float *pinned_floats(std::size_t n) {
  return static_cast<float *>(omp_alloc(sizeof(float) * n, llvm_omp_target_host_mem_alloc));
}

void free_pinned_floats(float *p) {
  if (p) omp_free(p, llvm_omp_target_host_mem_alloc);
}

}  // namespace course::baseline::lesson9
