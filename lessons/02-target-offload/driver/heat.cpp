// lesson02, experiment 2: heat with both grids mapped every step vs kept on
// the device, with the copies counted by the OpenMP tools interface.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "course/data.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "experiments.hpp"
#include "lesson02_offload.hpp"
#include "lesson02_ompt.hpp"  // this program's OMPT tool: counts the heat copies (one source per program)
#include "offload.hpp"

namespace driver {

namespace base = course::baseline;

void heat_run(course::Rows &rows, int nx, int steps, int reps, bool only_yours) {
  const int ny = nx;
  const std::size_t n = (std::size_t)nx * ny;
  const double grid = n * sizeof(float);
  const std::string size = std::to_string(nx) + "x" + std::to_string(ny) + ", " + std::to_string(steps) + " steps";
  const auto u0 = course::random_vector<float>(n, course::default_seed + 2, -1.f, 1.f);
  const auto ref = base::heat_reference(nx, ny, steps, u0.data(), 0);
  std::printf("\nheat: %s (grid %.1f MB); ms per run, grids copied in / out per run\n", size.c_str(), grid / 1e6);
  struct Variant {
    std::string name;
    std::function<void(float *)> run;
  };
  std::vector<Variant> variants;
  if (!only_yours)
    variants.push_back({"grids mapped every step (baseline)",
                        [&](float *u) { base::heat_mapped_every_step(nx, ny, steps, u); }});
  variants.push_back({COURSE_KERNELS, [&](float *u) { lesson2::heat(nx, ny, steps, u); }});
  double base_ms = 0;
  const bool traced = course::lesson2_trace::device_events();
  for (const auto &v : variants) {
    std::vector<float> u = u0;
    const auto traffic = course::lesson2_trace::record([&] { v.run(u.data()); });
    const auto check = course::check_close<float>(u, ref.final, lesson2::heat_tolerance, "heat " + v.name);
    const double ms = course::median_ms(
        [&] {
          u = u0;
          v.run(u.data());
        },
        reps);
    std::string note = traced ? course::format("%.1f grids in, %.1f out, %ld kernels", traffic.total(true) / grid,
                                               traffic.total(false) / grid, traffic.kernels)
                              : "copies not traced: the runtime reports no OMPT device events";
    if (base_ms > 0) note += "; " + course::times(base_ms / ms) + " vs mapped every step";
    if (base_ms == 0 && !only_yours) base_ms = ms;
    auto &h = rows.add("heat", v.name, size, ms, steps / (ms / 1e3), "steps/s", "", check.ok, note);
    h.role = v.name.find("(baseline)") != std::string::npos ? "baseline" : "kernel";
    std::printf("  %-36s %9.2f ms  %8.0f steps/s  %s  %s\n", v.name.c_str(), ms, steps / (ms / 1e3), note.c_str(),
                course::answer_text(check.ok, check.message).c_str());
    std::fflush(stdout);
  }
}

}  // namespace driver
