// lesson02_offload.cpp -- lesson 2's fixed references: host loops, double
// results, the map-every-step heat loop, and the copy / add-exp kernels of the
// launch-shape table (see lesson02_offload.hpp).
#include "lesson02_offload.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace course::baseline {

void add_exp_serial(int n, const float *first, const float *second, float *result) {
  for (int i = 0; i < n; ++i) result[i] = first[i] + std::exp(second[i]);
}

std::vector<double> add_exp_reference(int n, const float *first, const float *second) {
  std::vector<double> r((std::size_t)n);
  for (int i = 0; i < n; ++i) r[(std::size_t)i] = (double)first[i] + std::exp((double)second[i]);
  return r;
}

namespace {

// One loop iteration handles E elements `rows` apart: all loads first, so a
// thread has 2E loads in flight instead of 2, then E exps and stores.
template <int E>
inline void add_exp_row(int n, int rows, int r, const float *first, const float *second, float *result) {
  float a[E], b[E];
  for (int e = 0; e < E; ++e) {
    const int i = r + e * rows;
    a[e] = i < n ? first[i] : 0.f;
    b[e] = i < n ? second[i] : 0.f;
  }
  for (int e = 0; e < E; ++e) {
    const int i = r + e * rows;
    if (i < n) result[i] = a[e] + std::exp(b[e]);
  }
}

template <int E>
inline void copy_row(int n, int rows, int r, const float *in, float *out) {
  float a[E];
  for (int e = 0; e < E; ++e) {
    const int i = r + e * rows;
    a[e] = i < n ? in[i] : 0.f;
  }
  for (int e = 0; e < E; ++e) {
    const int i = r + e * rows;
    if (i < n) out[i] = a[e];
  }
}

// The four clause combinations; a clause cannot be switched off at run time.
template <int E>
void add_exp_rows(int n, const float *first, const float *second, float *result, const Shape &sh) {
  const int rows = (n + E - 1) / E, th = sh.threads, nt = sh.teams;
  if (nt > 0 && sh.one_block) {
#pragma omp target teams distribute parallel for num_teams(nt) thread_limit(th) dist_schedule(static) \
    map(to : first[0:n], second[0:n]) map(from : result[0:n])
    for (int r = 0; r < rows; ++r) add_exp_row<E>(n, rows, r, first, second, result);
  } else if (nt > 0) {
#pragma omp target teams distribute parallel for num_teams(nt) thread_limit(th) map(to : first[0:n], second[0:n]) \
    map(from : result[0:n])
    for (int r = 0; r < rows; ++r) add_exp_row<E>(n, rows, r, first, second, result);
  } else if (sh.one_block) {
#pragma omp target teams distribute parallel for thread_limit(th) dist_schedule(static) \
    map(to : first[0:n], second[0:n]) map(from : result[0:n])
    for (int r = 0; r < rows; ++r) add_exp_row<E>(n, rows, r, first, second, result);
  } else {
#pragma omp target teams distribute parallel for thread_limit(th) map(to : first[0:n], second[0:n]) \
    map(from : result[0:n])
    for (int r = 0; r < rows; ++r) add_exp_row<E>(n, rows, r, first, second, result);
  }
}

template <int E>
void copy_rows(int n, const float *in, float *out, const Shape &sh) {
  const int rows = (n + E - 1) / E, th = sh.threads, nt = sh.teams;
  if (nt > 0 && sh.one_block) {
#pragma omp target teams distribute parallel for num_teams(nt) thread_limit(th) dist_schedule(static) \
    map(to : in[0:n]) map(from : out[0:n])
    for (int r = 0; r < rows; ++r) copy_row<E>(n, rows, r, in, out);
  } else if (nt > 0) {
#pragma omp target teams distribute parallel for num_teams(nt) thread_limit(th) map(to : in[0:n]) \
    map(from : out[0:n])
    for (int r = 0; r < rows; ++r) copy_row<E>(n, rows, r, in, out);
  } else if (sh.one_block) {
#pragma omp target teams distribute parallel for thread_limit(th) dist_schedule(static) map(to : in[0:n]) \
    map(from : out[0:n])
    for (int r = 0; r < rows; ++r) copy_row<E>(n, rows, r, in, out);
  } else {
#pragma omp target teams distribute parallel for thread_limit(th) map(to : in[0:n]) map(from : out[0:n])
    for (int r = 0; r < rows; ++r) copy_row<E>(n, rows, r, in, out);
  }
}

}  // namespace

void add_exp_shaped(int n, const float *first, const float *second, float *result, const Shape &shape) {
  if (shape.threads <= 0) {
#pragma omp target teams distribute parallel for map(to : first[0:n], second[0:n]) map(from : result[0:n])
    for (int i = 0; i < n; ++i) result[i] = first[i] + std::exp(second[i]);
    return;
  }
  switch (shape.per_thread) {
    case 1: return add_exp_rows<1>(n, first, second, result, shape);
    case 2: return add_exp_rows<2>(n, first, second, result, shape);
    case 4: return add_exp_rows<4>(n, first, second, result, shape);
    case 8: return add_exp_rows<8>(n, first, second, result, shape);
    default: return add_exp_rows<16>(n, first, second, result, shape);
  }
}

void copy_shaped(int n, const float *in, float *out, const Shape &shape) {
  if (shape.threads <= 0) {
#pragma omp target teams distribute parallel for map(to : in[0:n]) map(from : out[0:n])
    for (int i = 0; i < n; ++i) out[i] = in[i];
    return;
  }
  switch (shape.per_thread) {
    case 1: return copy_rows<1>(n, in, out, shape);
    case 2: return copy_rows<2>(n, in, out, shape);
    case 4: return copy_rows<4>(n, in, out, shape);
    case 8: return copy_rows<8>(n, in, out, shape);
    default: return copy_rows<16>(n, in, out, shape);
  }
}

void heat_sweep(int nx, int ny, const float *cur, float *next) {
  const std::size_t n = (std::size_t)nx * ny;
#pragma omp target teams distribute parallel for collapse(2) map(to : cur[0:n]) map(tofrom : next[0:n])
  for (int y = 1; y < ny - 1; ++y)
    for (int x = 1; x < nx - 1; ++x) {
      const std::size_t i = (std::size_t)y * nx + x;
      next[i] = cur[i] + lesson2::heat_alpha * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx] - 4.f * cur[i]);
    }
}

void heat_mapped_every_step(int nx, int ny, int steps, float *u) {
  const std::size_t n = (std::size_t)nx * ny;
  std::vector<float> other(u, u + n);  // same fixed boundary as u
  float *cur = u, *next = other.data();
  for (int s = 0; s < steps; ++s) {
    heat_sweep(nx, ny, cur, next);
    std::swap(cur, next);
  }
  if (cur != u) std::copy(cur, cur + n, u);
}

HeatStates heat_reference(int nx, int ny, int steps, const float *u0, int every) {
  const std::size_t n = (std::size_t)nx * ny;
  std::vector<double> cur(u0, u0 + n), next(cur);
  HeatStates out;
  for (int s = 1; s <= steps; ++s) {
    for (int y = 1; y < ny - 1; ++y)
      for (int x = 1; x < nx - 1; ++x) {
        const std::size_t i = (std::size_t)y * nx + x;
        next[i] = cur[i] + (double)lesson2::heat_alpha * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx] - 4.0 * cur[i]);
      }
    std::swap(cur, next);
    if (every > 0 && s % every == 0) {
      out.steps.push_back(s);
      out.grids.push_back(cur);
    }
  }
  out.final = std::move(cur);
  return out;
}

}  // namespace course::baseline
