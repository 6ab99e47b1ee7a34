// lesson07_nbody.cpp -- lesson 7 baselines: the article's AoS N-body step (the
// speedup baseline), the extra layouts the lesson program compares, seeded
// initial bodies and the double-precision reference (see lesson07_nbody.hpp).
#include "lesson07_nbody.hpp"

#include <cmath>
#include <cstddef>
#include <random>
#include <utility>

#include "course/data.hpp"

namespace course::baseline {

using lesson7::Body;
using lesson7::bodybody_interaction;
using lesson7::delta_time;

std::vector<Body> nbody_initial(int n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  const auto pos = [&gen] { return course::uniform_real(gen, -1.0, 1.0); };
  const auto vel = [&gen] { return course::uniform_real(gen, -0.02, 0.02); };
  const auto mass = [&gen] { return course::uniform_real(gen, 0.5, 1.5); };
  std::vector<Body> b(static_cast<std::size_t>(n));
  for (auto &body : b) {
    body.x = static_cast<float>(pos());
    body.y = static_cast<float>(pos());
    body.z = static_cast<float>(pos());
    body.m = static_cast<float>(mass() / n);
    body.vx = static_cast<float>(vel());
    body.vy = static_cast<float>(vel());
    body.vz = static_cast<float>(vel());
    body.pad = 0.0f;
  }
  return b;
}

namespace {

// Acceleration of body i from all bodies, in double.
void accel_double(const std::vector<double> &p, const std::vector<double> &m, std::size_t i, double a[3]) {
  const std::size_t n = m.size();
  double ax = 0, ay = 0, az = 0;
  const double xi = p[3 * i], yi = p[3 * i + 1], zi = p[3 * i + 2];
  for (std::size_t j = 0; j < n; ++j) {
    const double dx = p[3 * j] - xi, dy = p[3 * j + 1] - yi, dz = p[3 * j + 2] - zi;
    const double d2 = dx * dx + dy * dy + dz * dz + static_cast<double>(lesson7::softening_squared);
    const double s = m[j] / (d2 * std::sqrt(d2));
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }
  a[0] = ax;
  a[1] = ay;
  a[2] = az;
}

void load_double(std::span<const Body> b, NBodyState &s, std::vector<double> &m) {
  const std::size_t n = b.size();
  s.pos.resize(3 * n);
  s.vel.resize(3 * n);
  m.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.pos[3 * i] = b[i].x, s.pos[3 * i + 1] = b[i].y, s.pos[3 * i + 2] = b[i].z;
    s.vel[3 * i] = b[i].vx, s.vel[3 * i + 1] = b[i].vy, s.vel[3 * i + 2] = b[i].vz;
    m[i] = b[i].m;
  }
}

}  // namespace

NBodyState nbody_reference(std::span<const Body> initial, int steps) {
  NBodyState s;
  std::vector<double> m;
  load_double(initial, s, m);
  const std::size_t n = initial.size();
  const double dt = delta_time;
  std::vector<double> acc(3 * n);
  for (int step = 0; step < steps; ++step) {
    // All accelerations from the old positions first: the reference is
    // double-buffered by construction.
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) accel_double(s.pos, m, i, &acc[3 * i]);
    for (std::size_t k = 0; k < 3 * n; ++k) {
      s.vel[k] += acc[k] * dt;
      s.pos[k] += s.vel[k] * dt;
    }
  }
  return s;
}

NBodyState nbody_reference_one_step(std::span<const Body> initial, std::span<const int> which) {
  NBodyState all, out;
  std::vector<double> m;
  load_double(initial, all, m);
  const double dt = delta_time;
  out.pos.resize(3 * which.size());
  out.vel.resize(3 * which.size());
#pragma omp parallel for schedule(static)
  for (std::size_t k = 0; k < which.size(); ++k) {
    const std::size_t i = static_cast<std::size_t>(which[k]);
    double a[3];
    accel_double(all.pos, m, i, a);
    for (int axis = 0; axis < 3; ++axis) {
      out.vel[3 * k + axis] = all.vel[3 * i + axis] + a[axis] * dt;
      out.pos[3 * k + axis] = all.pos[3 * i + axis] + out.vel[3 * k + axis] * dt;
    }
  }
  return out;
}

namespace {

// clang 19 cannot vectorize for NVIDIA GPUs and, asked to by `omp simd`, warns
// (an error under the course's -Werror): ask for vector lanes only where
// there are some. (The lesson's own CMakeLists switches the warning off instead.)
#if defined(__NVPTX__)
constexpr bool vector_lanes = false;
#else
constexpr bool vector_lanes = true;
#endif

// lesson7::step_aos (lesson07_nbody_shared.hpp) with `omp simd` on the inner loop:
// thread i reads body i, walks over every body j (fields 32 bytes apart) in
// vector lanes, and writes body i of the next state.
void step_aos_simd(const Body *in, Body *out, int n) {
#pragma omp target teams distribute parallel for map(to : in[0:n]) map(from : out[0:n])
  for (int i = 0; i < n; ++i) {
    const float xi = in[i].x, yi = in[i].y, zi = in[i].z;
    float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az) if(simd : vector_lanes)
    for (int j = 0; j < n; ++j) bodybody_interaction(xi, yi, zi, in[j].x, in[j].y, in[j].z, in[j].m, ax, ay, az);
    Body b = in[i];
    b.vx += ax * delta_time;
    b.vy += ay * delta_time;
    b.vz += az * delta_time;
    b.x += b.vx * delta_time;
    b.y += b.vy * delta_time;
    b.z += b.vz * delta_time;
    out[i] = b;
  }
}

// Double buffering in AoS: the bodies and a scratch copy live on the device
// for all steps; each step reads one and writes the other.
void simulate_aos(std::span<Body> bodies, int steps, bool simd) {
  const int n = static_cast<int>(bodies.size());
  if (n == 0 || steps <= 0) return;
  std::vector<Body> scratch(bodies.size());
  Body *a = bodies.data(), *b = scratch.data();
#pragma omp target data map(tofrom : a[0:n]) map(alloc : b[0:n])
  {
    const auto step = simd ? step_aos_simd : lesson7::step_aos;
    for (int s = 0; s < steps; ++s) {
      if (s % 2 == 0)
        step(a, b, n);
      else
        step(b, a, n);
    }
    if (steps % 2 == 1) {
#pragma omp target update from(b[0:n])
    }
  }
  if (steps % 2 == 1) std::copy(scratch.begin(), scratch.end(), bodies.begin());
}

// Structure of arrays, position and velocity double-buffered, mass shared.
struct Soa {
  std::vector<float> x, y, z, vx, vy, vz;
  explicit Soa(std::size_t n) : x(n), y(n), z(n), vx(n), vy(n), vz(n) {}
};

void step_soa_plain(const float *m, const Soa &in, Soa &out, int n) {
  const float *x = in.x.data(), *y = in.y.data(), *z = in.z.data();
  const float *vx = in.vx.data(), *vy = in.vy.data(), *vz = in.vz.data();
  float *xo = out.x.data(), *yo = out.y.data(), *zo = out.z.data();
  float *vxo = out.vx.data(), *vyo = out.vy.data(), *vzo = out.vz.data();
#pragma omp target teams distribute parallel for map(to : m[0:n], x[0:n], y[0:n], z[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : xo[0:n], yo[0:n], zo[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  for (int i = 0; i < n; ++i) {
    const float xi = x[i], yi = y[i], zi = z[i];
    float ax = 0, ay = 0, az = 0;
    for (int j = 0; j < n; ++j) bodybody_interaction(xi, yi, zi, x[j], y[j], z[j], m[j], ax, ay, az);
    const float nvx = vx[i] + ax * delta_time, nvy = vy[i] + ay * delta_time, nvz = vz[i] + az * delta_time;
    vxo[i] = nvx, vyo[i] = nvy, vzo[i] = nvz;
    xo[i] = xi + nvx * delta_time, yo[i] = yi + nvy * delta_time, zo[i] = zi + nvz * delta_time;
  }
}

// Positions and mass packed in 16 bytes; the alignment lets a GPU load all
// four with one instruction.
struct alignas(16) Packed {
  float x, y, z, m;
};

void step_packed(const Packed *p, const float *vx, const float *vy, const float *vz, Packed *po, float *vxo,
                 float *vyo, float *vzo, int n) {
#pragma omp target teams distribute parallel for map(to : p[0:n], vx[0:n], vy[0:n], vz[0:n]) \
    map(from : po[0:n], vxo[0:n], vyo[0:n], vzo[0:n])
  for (int i = 0; i < n; ++i) {
    const Packed pi = p[i];
    float ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az) if(simd : vector_lanes)
    for (int j = 0; j < n; ++j) {
      const Packed pj = p[j];
      bodybody_interaction(pi.x, pi.y, pi.z, pj.x, pj.y, pj.z, pj.m, ax, ay, az);
    }
    const float nvx = vx[i] + ax * delta_time, nvy = vy[i] + ay * delta_time, nvz = vz[i] + az * delta_time;
    vxo[i] = nvx, vyo[i] = nvy, vzo[i] = nvz;
    po[i] = {pi.x + nvx * delta_time, pi.y + nvy * delta_time, pi.z + nvz * delta_time, pi.m};
  }
}

}  // namespace

void nbody_simulate_aos(std::span<Body> bodies, int steps) { simulate_aos(bodies, steps, false); }

void nbody_simulate_aos_simd(std::span<Body> bodies, int steps) { simulate_aos(bodies, steps, true); }

void nbody_simulate_soa_plain(std::span<Body> bodies, int steps) {
  const std::size_t n = bodies.size();
  if (n == 0 || steps <= 0) return;
  Soa a(n), b(n);
  std::vector<float> m(n);
  for (std::size_t i = 0; i < n; ++i) {
    a.x[i] = bodies[i].x, a.y[i] = bodies[i].y, a.z[i] = bodies[i].z, m[i] = bodies[i].m;
    a.vx[i] = bodies[i].vx, a.vy[i] = bodies[i].vy, a.vz[i] = bodies[i].vz;
  }
  const int ni = static_cast<int>(n);
  float *pm = m.data();
  float *ax = a.x.data(), *ay = a.y.data(), *az = a.z.data(), *avx = a.vx.data(), *avy = a.vy.data(),
        *avz = a.vz.data();
  float *bx = b.x.data(), *by = b.y.data(), *bz = b.z.data(), *bvx = b.vx.data(), *bvy = b.vy.data(),
        *bvz = b.vz.data();
#pragma omp target data map(to : pm[0:ni]) map(tofrom : ax[0:ni], ay[0:ni], az[0:ni], avx[0:ni], avy[0:ni], avz[0:ni]) \
    map(alloc : bx[0:ni], by[0:ni], bz[0:ni], bvx[0:ni], bvy[0:ni], bvz[0:ni])
  {
    for (int s = 0; s < steps; ++s) {
      if (s % 2 == 0)
        step_soa_plain(pm, a, b, ni);
      else
        step_soa_plain(pm, b, a, ni);
    }
    if (steps % 2 == 1) {
#pragma omp target update from(bx[0:ni], by[0:ni], bz[0:ni], bvx[0:ni], bvy[0:ni], bvz[0:ni])
    }
  }
  const Soa &r = steps % 2 == 1 ? b : a;
  for (std::size_t i = 0; i < n; ++i) {
    bodies[i].x = r.x[i], bodies[i].y = r.y[i], bodies[i].z = r.z[i];
    bodies[i].vx = r.vx[i], bodies[i].vy = r.vy[i], bodies[i].vz = r.vz[i];
  }
}

void nbody_simulate_packed(std::span<Body> bodies, int steps) {
  const std::size_t n = bodies.size();
  if (n == 0 || steps <= 0) return;
  std::vector<Packed> pa(n), pb(n);
  Soa va(n), vb(n);  // only the velocity arrays are used
  for (std::size_t i = 0; i < n; ++i) {
    pa[i] = {bodies[i].x, bodies[i].y, bodies[i].z, bodies[i].m};
    va.vx[i] = bodies[i].vx, va.vy[i] = bodies[i].vy, va.vz[i] = bodies[i].vz;
  }
  const int ni = static_cast<int>(n);
  Packed *p0 = pa.data(), *p1 = pb.data();
  float *vx0 = va.vx.data(), *vy0 = va.vy.data(), *vz0 = va.vz.data();
  float *vx1 = vb.vx.data(), *vy1 = vb.vy.data(), *vz1 = vb.vz.data();
#pragma omp target data map(tofrom : p0[0:ni], vx0[0:ni], vy0[0:ni], vz0[0:ni]) \
    map(alloc : p1[0:ni], vx1[0:ni], vy1[0:ni], vz1[0:ni])
  {
    for (int s = 0; s < steps; ++s) {
      if (s % 2 == 0)
        step_packed(p0, vx0, vy0, vz0, p1, vx1, vy1, vz1, ni);
      else
        step_packed(p1, vx1, vy1, vz1, p0, vx0, vy0, vz0, ni);
    }
    if (steps % 2 == 1) {
#pragma omp target update from(p1[0:ni], vx1[0:ni], vy1[0:ni], vz1[0:ni])
    }
  }
  const bool odd = steps % 2 == 1;
  for (std::size_t i = 0; i < n; ++i) {
    const Packed &p = odd ? pb[i] : pa[i];
    bodies[i].x = p.x, bodies[i].y = p.y, bodies[i].z = p.z;
    bodies[i].vx = odd ? vb.vx[i] : va.vx[i];
    bodies[i].vy = odd ? vb.vy[i] : va.vy[i];
    bodies[i].vz = odd ? vb.vz[i] : va.vz[i];
  }
}

}  // namespace course::baseline
