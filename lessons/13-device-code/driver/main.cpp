// lesson13 -- device code, on the configured device: the particles advanced
// through function pointers with their kinds interleaved and then grouped
// (step 13.2: the time a warp loses to divergence, on a GPU), the potential
// at several tile lengths chosen at run time (13.3), and the interop hand-off
// (13.4) with what the runtime says its object holds. Every answer is checked.
//   usage: lesson13 [--n N] [--steps S] [--tiles T,T,...] [--reps 5]
//                   [--size tiny|teaching|full] [--csv FILE] [--only-yours]
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "particles.hpp"

namespace l13 = lesson13;

namespace {

// The host's answer for advance(): the same rules, called directly.
bool advance_right(const l13::Particles &before, const l13::Particles &after, int steps, float dt) {
  const auto rules = l13::host_updates();
  for (std::size_t i = 0; i < before.size(); ++i) {
    float x = before.x[i], v = before.v[i];
    for (int s = 0; s < steps; ++s) rules[before.kind[i]](x, v, dt);
    if (std::fabs(x - after.x[i]) > 1e-4f * (1.f + std::fabs(x)) || std::fabs(v - after.v[i]) > 1e-4f * (1.f + std::fabs(v)))
      return false;
  }
  return true;
}

void row(course::Rows &rows, const std::string &experiment, const std::string &variant, const std::string &size,
         double ms, bool ok, const std::string &role, const std::string &note) {
  course::ResultRow &r = rows.add(course::make_row(13, experiment, variant, size, ms, 0, "ms", "", ok));
  r.role = role;
  r.note = note;
  std::printf("  %-12s %-34s %10.3f ms  %s  %s\n", experiment.c_str(), variant.c_str(), ms, course::answer_word(ok),
              note.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
  const bool gpu = course::device_info().is_gpu();
  course::Cli cli("lesson13", "lesson 13, device code: function pointers, divergence, run-time team-local memory, interop");
  const auto &n = cli.integer("--n", gpu ? 1 << 20 : 1 << 14, "particles", 1, 1 << 26);
  const auto &steps = cli.integer("--steps", gpu ? 200 : 50, "updates of each particle per advance()", 1, 100000);
  const auto &tiles = cli.integers("--tiles", {64, 256, 1000, 4096}, "tile lengths for the potential", 1, l13::max_tile);
  const auto &reps = cli.integer("--reps", 5, "timed runs per variant (the median is reported)", 1, 1000);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's kernels (" COURSE_KERNELS ")");
  cli.preset("tiny", {"--n", "3000", "--steps", "10", "--tiles", "64,1000", "--reps", "1"});
  cli.preset("teaching", {"--reps", "3"});
  cli.preset("full", {"--reps", "5"});
  cli.parse(argc, argv);
  std::printf("%s\n", course::device_banner().c_str());
  course::Rows rows(13);
  const std::string size = std::to_string(n);
  const float dt = 0.01f;

  try {
    // 13.1 + 13.2: the same kernel on interleaved and on grouped particles.
    const l13::Particles start = l13::make_particles(static_cast<std::size_t>(n), course::default_seed);
    l13::Particles grouped = start;
    l13::group_by_kind(grouped);
    for (const bool group : {false, true}) {
      if (only_yours && !group) continue;
      const l13::Particles &in = group ? grouped : start;
      l13::Particles out = in;
      l13::advance(out, steps, dt);
      const bool ok = advance_right(in, out, steps, dt);
      // Timed with the particles already on the device: advance()'s maps
      // find them present and copy nothing, so the time is the kernel's (and
      // the 3-entry table's), what grouping changes; a whole call also copies
      // 16 MiB on the host, 12 MiB to and 8 MiB from the device at the GPU size.
      l13::Particles p = in;
      float *px = p.x.data(), *pv = p.v.data();
      int *pk = p.kind.data();
      const std::size_t np = p.size();
      double ms = 0;
#pragma omp target data map(to : px[0:np], pv[0:np], pk[0:np])
      ms = course::median_ms([&] { l13::advance(p, steps, dt); }, reps);
      row(rows, "advance", group ? std::string(COURSE_KERNELS) + ": grouped by kind" : "kinds interleaved",
          size, ms, ok, group ? "kernel" : "baseline", group ? "13.1 + 13.2" : "13.1: every warp calls 3 rules");
    }
    // 13.3: the potential at each tile length.
    std::vector<float> x(start.x), phi(x.size());
    for (long long tile : tiles) {
      l13::potential(x.data(), static_cast<int>(n), static_cast<int>(tile), phi.data());
      const std::size_t probe[] = {0, x.size() / 2, x.size() - 1};
      bool ok = true;
      for (std::size_t i : probe) {  // three particles checked against a double sum
        double s = 0;
        for (float xj : x) s += 1.0 / (1.0 + (double(x[i]) - xj) * (double(x[i]) - xj));
        ok = ok && std::fabs(phi[i] - s) <= 1e-4 * s;
      }
      const double ms = course::median_ms([&] { l13::potential(x.data(), static_cast<int>(n), static_cast<int>(tile), phi.data()); }, reps);
      row(rows, "potential", std::string(COURSE_KERNELS) + ": tile " + std::to_string(tile), size, ms, ok,
          tile == tiles.front() ? "baseline" : "variant", "13.3: tile chosen at run time");
    }
    // 13.4: the hand-off, and what the interop object held. At least 2^20
    // floats, three times: a library that starts before the `nowait` kernel
    // is done shows as a wrong y. Where hidden helper threads are off (the
    // course's environment on the host device, for lesson 9) the kernel ends
    // before hand_off() starts and no order can show: the note says so.
    const int ny = n > (1 << 20) ? static_cast<int>(n) : 1 << 20;
    l13::Handoff h;
    bool ok = true;
    for (int rep = 0; rep < 3; ++rep) {
      std::vector<float> y(static_cast<std::size_t>(ny), 2.f);
      h = l13::add_then_scale(y.data(), ny, 0.5f);
      for (float v : y) ok = ok && std::fabs(v - 1.5f) < 1e-6f;
    }
    const char *helpers = std::getenv("LIBOMP_USE_HIDDEN_HELPER_TASK");
    const bool order_hidden = !gpu && helpers && std::string(helpers) == "0";
    row(rows, "interop", std::string(COURSE_KERNELS) + ": add then library scale", std::to_string(ny), 0, ok, "kernel",
        course::format("13.4: object %s, fr_id %ld, device %ld, stream %p, %s%s", h.created ? "made" : "NOT made",
                       h.fr_id, h.device_num, h.stream, h.destroyed ? "destroyed" : "NOT destroyed",
                       order_hidden ? " (hidden helper threads off: the order is not tested here; ctest tests it)"
                                    : ""));
  } catch (const std::exception &e) {
    std::printf("lesson13: %s\n", e.what());
    course::ResultRow &r = rows.add(course::make_row(13, "error", e.what(), size, 0, 0, "", "", false));
    r.role = "kernel";
  }
  return course::finish(rows, csv);
}
