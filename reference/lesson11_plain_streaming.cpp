// lesson11_plain_streaming.cpp -- lesson 11's baselines of steps 11.1 and 11.2
// (lesson11_plain.hpp): the starter's per-thread loops in the team kernels of
// lesson11_streaming_shared.hpp, the same kernels as the student's streaming.cpp.
// One file per topic, as the student's: lesson11_plain.hpp says why.
#include "lesson11_plain.hpp"

#include <cstddef>

namespace course::baseline::lesson11 {
namespace {

using ::lesson11::bin_of;
using ::lesson11::Launch;

#pragma omp begin declare target

// One element per thread per step: the starter's loops, kept as the
// baseline the speed tests time the student's code against. On a CPU the
// sum's loop also gets the one line that lets the compiler use the vector
// unit (`simd reduction`, lesson 3), so that step 11.1 is timed against that
// and not against a loop the compiler may not reorder. On a GPU the threads
// are the lanes and LLVM 19 gains nothing from the clause: the plain loop
// there.
template <class T>
T plain_thread_sum(const T *b, unsigned len, unsigned tid, unsigned nth) {
  T s = 0;
#if !defined(__NVPTX__) && !defined(__AMDGCN__)
#pragma omp simd reduction(+ : s)
#endif
  for (unsigned i = tid; i < len; i += nth) s += b[i];
  return s;
}

void plain_thread_count(const float *b, unsigned len, unsigned tid, unsigned nth, int *bins) {
  for (unsigned i = tid; i < len; i += nth) {
    const int k = bin_of(b[i]);
#pragma omp atomic update
    bins[k] += 1;
  }
}

#pragma omp end declare target

}  // namespace

float plain_sum(const float *x, std::size_t n, Launch launch) {
  return ::lesson11::team_sum<float, plain_thread_sum<float>>(x, n, launch);
}
int plain_sum(const int *x, std::size_t n, Launch launch) {
  return ::lesson11::team_sum<int, plain_thread_sum<int>>(x, n, launch);
}
double plain_sum(const double *x, std::size_t n, Launch launch) {
  return ::lesson11::team_sum<double, plain_thread_sum<double>>(x, n, launch);
}
void plain_histogram(const float *x, std::size_t n, int *hist, Launch launch) {
  ::lesson11::team_histogram<plain_thread_count>(x, n, hist, launch);
}

}  // namespace course::baseline::lesson11
