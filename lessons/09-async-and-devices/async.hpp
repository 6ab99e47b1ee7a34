/// @file lessons/09-async-and-devices/async.hpp
/// @brief Lesson 9 interface: one job -- add-exp with a tunable amount of
///        arithmetic per element -- run three ways: as a pipeline whose copies
///        overlap its kernels (9.1), on device memory you allocate and copy
///        yourself (9.2), and split over every offload device (9.3); and the
///        pinned host memory that lets a GPU's copies run at full speed and
///        beside its kernels (9.4).
///
/// All host pointers are ordinary host arrays; `first` and `second` are
/// inputs, `result` is output only (its old contents must not matter: the
/// tests fill it with NaN first).
#pragma once

#include <omp.h>

#include <cstddef>
#include <vector>

// exp_series(x, terms), the arithmetic of one element, lives in reference/:
// the synchronous baselines your pipeline is timed against compute with it too.
#include "../../reference/lesson09_async_shared.hpp"

namespace lesson9 {

/// Fewest series terms for which exp_series() matches exp() to float
/// precision on [-1, 1] (the last term left out is below 1/17! < 3e-15).
inline constexpr int min_terms = 16;

/// The relative error norm (course::check_close) an add-exp job's float
/// result may have against the double reference, in the tests and the lesson
/// program alike. Inputs in [-1, 1]: Horner's rule keeps every partial sum in
/// [0.36, 2.8], so each term adds about one rounding; measured error against
/// double exp: below 1e-7. 1e-6 still fails one wrong element in 1009 (or one
/// unwritten NaN anywhere).
inline constexpr double result_tolerance = 1e-6;

/// One add-exp job: result[i] = first[i] + exp_series(second[i], terms) for
/// i in [0, n). Inputs are expected in [-1, 1]; terms >= min_terms.
struct Job {
  int n = 0;                     ///< number of elements (>= 1)
  const float *first = nullptr;  ///< input, n floats
  const float *second = nullptr; ///< input, n floats
  float *result = nullptr;       ///< output, n floats
  int terms = min_terms;         ///< series terms per element (the work per element)
};

/// Runs @p f on one thread of a parallel region (`parallel`, then `single`):
/// the tasks @p f creates can then run on the region's other threads, and
/// its implicit barrier waits for them. LLVM 19 normally runs `target ...
/// nowait` tasks on hidden helper threads; on the host-offload device the
/// course turns those off (README, "Why the host device runs without hidden
/// helper threads"), so the lesson program runs all its work through this.
template <class F>
void in_team(F &&f) {
  // Two threads: one creates the tasks, the other runs them (the creator
  // joins in at taskwait). Where helper threads run the tasks (GPUs), more
  // threads would only wait at the barrier.
#pragma omp parallel num_threads(2)
#pragma omp single
  f();
}

/// @name 9.1 Overlap: a pipeline over chunks
/// The job is cut into chunks of size = ceil(n / chunks) elements: chunk k
/// is [k * size, min(n, (k + 1) * size)), so the last one may be shorter and
/// there are ceil(n / size) of them. Each chunk goes through three stages --
/// copy its inputs in, run the kernel on it, copy its result out -- and the
/// stages of different chunks overlap: chunk k + 1 is copied in while chunk k
/// computes.
///@{

/// Starts the pipeline on the default device and returns at once, with the
/// work still in flight: every copy and kernel is a deferred target task
/// (`nowait`) ordered by `depend` clauses, none waited for here. @p chunks >= 1.
/// Where no thread is free to run the tasks (LLVM's hidden helper threads
/// off, as on the course's host device, and no enclosing parallel region)
/// each task runs as it is created: same tasks, same order, no overlap.
void pipeline_start(const Job &job, int chunks);

/// Waits for everything pipeline_start() launched (`taskwait`) and releases
/// the device memory it took. On return job.result holds the answer.
/// Call it from the same thread (task) that called pipeline_start().
void pipeline_wait(const Job &job, int chunks);

/// The whole pipeline: start, then wait.
inline void add_exp_pipelined(const Job &job, int chunks) {
  pipeline_start(job, chunks);
  pipeline_wait(job, chunks);
}
///@}

/// @name 9.2 Device memory you manage
/// Three device arrays of n floats that live on one device until released.
/// The pointers are DEVICE addresses: the host must never dereference them;
/// kernels receive them with `is_device_ptr`, copies go through
/// omp_target_memcpy.
///@{

/// The device arrays of one job.
struct DeviceArrays {
  int n = 0;                 ///< elements per array
  int device = 0;            ///< the device that holds them
  float *first = nullptr;    ///< device copy of the job's first input
  float *second = nullptr;   ///< device copy of the job's second input
  float *result = nullptr;   ///< device array for the result
};

/// Allocates the three arrays on @p device (omp_target_alloc) and copies the
/// two inputs there (omp_target_memcpy). Maps nothing.
DeviceArrays device_upload(int n, const float *first, const float *second, int device);

/// Runs the kernel on d.device over the device arrays: d.result[i] =
/// d.first[i] + exp_series(d.second[i], terms). Copies nothing.
void device_add_exp(const DeviceArrays &d, int terms);

/// Copies d.result back into the host array @p result (n floats).
void device_download(const DeviceArrays &d, float *result);

/// Frees the three arrays (omp_target_free) and sets the pointers to null.
void device_release(DeviceArrays &d);
///@}

/// @name 9.3 Every device
///@{

/// What one device reports back about its share, written ON that device.
struct DeviceReport {
  int device_num = -1;  ///< omp_get_device_num() inside the device's target region
  int is_initial = -1;  ///< omp_is_initial_device() there: 0 when it really ran on an offload device
  long long begin = 0;  ///< first element of the device's share
  long long end = 0;    ///< one past its last element
};

/// Runs @p job split over devices 0 .. devices - 1: device d computes one
/// contiguous share (shares in device order, sizes differing by at most one
/// element, covering [0, n)), all devices at the same time. Returns one report
/// per device, index = device number. @p devices is in [1, omp_get_num_devices()];
/// a share may be empty when n < devices (that device still reports).
std::vector<DeviceReport> add_exp_all_devices(const Job &job, int devices);

/// add_exp_all_devices() on every device the runtime offers.
inline std::vector<DeviceReport> add_exp_all_devices(const Job &job) {
  return add_exp_all_devices(job, omp_get_num_devices());
}
///@}

/// @name 9.4 Pinned host memory
/// A GPU copies host memory by DMA, which needs pages the operating system
/// will not move: pinned (page-locked) memory. From ordinary, pageable memory
/// (new, malloc, std::vector) the driver first copies each piece into a
/// pinned buffer of its own, which is slower and keeps the copy from running
/// beside a kernel. On the host-offload device both are the same RAM.
///@{

/// Returns @p n floats of pinned host memory: ordinary host memory to the host
/// (read and write it like any array, map it, copy from it), which a GPU
/// copies from and to directly. Null if the runtime has none. @p n >= 1.
float *pinned_alloc(std::size_t n);

/// Gives back memory from pinned_alloc() (null: does nothing).
void pinned_free(float *p);
///@}

}  // namespace lesson9
