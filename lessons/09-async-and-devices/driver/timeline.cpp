// lesson09: one run of the pipeline drawn as a timeline from what the OpenMP
// runtime reports to this program's OMPT tool (each row: chunk, stage, thread).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "course/device.hpp"
#include "experiments.hpp"
#include "lesson09_ompt.hpp"  // this program's OMPT tool: the pipeline's timeline (one source per program)

namespace driver {

// Every copy and kernel with its start and end, its chunk and stage, and the
// thread that ran it (0 is the caller; the others run `nowait` tasks).
// Overlap shows as bars that share columns, and the line below the table adds it up.
void timeline(Problem &p, int chunks) {
  namespace trace = course::lesson9_trace;
  const auto job = p.job();
  p.poison();
  const auto log = trace::record([&] { lesson9::add_exp_pipelined(job, chunks); });
  const auto check = p.verify(COURSE_KERNELS " pipeline (timeline run)");
  std::printf("\n  timeline of one run of %s's pipeline, %d chunks (ms since it started; thread 0 called it)\n",
              COURSE_KERNELS, chunks);
  if (log.events.empty()) {
    std::printf("  (the offload runtime reported no copies or kernels to the OMPT tool here; on NVIDIA, "
                "`nsys profile -t cuda,openmp` draws the same picture)\n");
    return;
  }
  double end = 0;
  for (const auto &e : log.events) end = std::max(end, e.end_ms);
  const int width = 50;
  const int size = (p.n + chunks - 1) / chunks;
  const char *names[3] = {"first", "second", "result"};
  const float *arrays[3] = {p.first.data(), p.second.data(), p.result.data()};
  // The chunk and array of a host address (-1: none of the job's arrays).
  auto locate = [&](std::uintptr_t host, int &array) -> int {
    for (int a = 0; a < 3; ++a) {
      const auto lo = reinterpret_cast<std::uintptr_t>(arrays[a]), hi = lo + sizeof(float) * (std::size_t)p.n;
      if (host >= lo && host < hi) {
        array = a;
        return (int)((host - lo) / sizeof(float) / (std::size_t)size);
      }
    }
    return -1;
  };
  auto events = log.events;
  std::sort(events.begin(), events.end(), [](const auto &a, const auto &b) { return a.begin_ms < b.begin_ms; });
  // The runtime reports a whole target region as the kernel event: one with
  // its own maps holds its copies (same thread, inside its span).
  auto inside = [&](const trace::Event &k, const trace::Event &e) {
    return e.kind != trace::Event::kernel && e.thread == k.thread && e.begin_ms >= k.begin_ms && e.end_ms <= k.end_ms;
  };
  auto is_region = [&](const trace::Event &k) {
    return std::any_of(events.begin(), events.end(), [&](const trace::Event &e) { return inside(k, e); });
  };
  // A kernel names no address: its chunk is the one its target task's depend
  // clauses name, else that of the copies it holds, else that of the copy in
  // that ended last on its thread before it began.
  auto kernel_chunk = [&](const trace::Event &k) {
    int array = -1;
    if (k.task >= 0 && k.task < (long)log.tasks.size())
      for (const auto &d : log.tasks[(std::size_t)k.task].depends)
        if (const int c = locate(d.address, array); c >= 0) return c;
    for (const auto &e : events)
      if (inside(k, e))
        if (const int c = locate(e.host, array); c >= 0) return c;
    int chunk = -1;
    double last = -1;
    for (const auto &e : events)
      if (e.kind == trace::Event::copy_in && e.thread == k.thread && e.end_ms <= k.begin_ms && e.end_ms > last)
        if (const int c = locate(e.host, array); c >= 0) chunk = c, last = e.end_ms;
    return chunk;
  };
  std::printf("  %5s  %-16s %6s %9s %9s  |%s|\n", "chunk", "stage", "thread", "begin", "end",
              std::string(width, '-').c_str());
  int shown = 0;
  for (const auto &e : events) {
    if (++shown > 64) {
      std::printf("  ... %zu more\n", events.size() - 64);
      break;
    }
    int array = -1;
    const int chunk = e.kind == trace::Event::kernel ? kernel_chunk(e) : locate(e.host, array);
    std::string stage = e.kind == trace::Event::kernel ? (is_region(e) ? "target region" : "kernel")
                        : e.kind == trace::Event::copy_in ? "copy in" : "copy out";
    if (array >= 0) stage += std::string(" ") + names[array];
    std::string bar((std::size_t)width, ' ');
    const int a = (int)(e.begin_ms / end * width), b = std::max(a + 1, (int)(e.end_ms / end * width + 0.5));
    for (int k = a; k < b && k < width; ++k) bar[(std::size_t)k] = e.kind == trace::Event::kernel ? '#' : '=';
    std::printf("  %5s  %-16s %6d %9.3f %9.3f  |%s|\n", chunk >= 0 ? std::to_string(chunk).c_str() : "?",
                stage.c_str(), e.thread, e.begin_ms, e.end_ms, bar.c_str());
  }
  // What overlapped: time a copy ran beside a kernel, and two kernels at once.
  // A region that holds its own copies is no kernel beside them: left out.
  double copying = 0, hidden = 0, two_kernels = 0;
  for (const auto &e : events) {
    if (e.kind == trace::Event::kernel) continue;
    copying += e.end_ms - e.begin_ms;
  }
  std::vector<std::pair<double, int>> edges;  // (time, +1/-1) for kernels and copies apart
  for (const auto &e : events) {
    if (e.kind == trace::Event::kernel && is_region(e)) continue;
    const int kind = e.kind == trace::Event::kernel ? 1 : 100;
    edges.push_back({e.begin_ms, kind});
    edges.push_back({e.end_ms, -kind});
  }
  std::sort(edges.begin(), edges.end());
  int open = 0;
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
    open += edges[i].second;
    const double dt = edges[i + 1].first - edges[i].first;
    if (open % 100 >= 1 && open / 100 >= 1) hidden += dt;
    if (open % 100 >= 2) two_kernels += dt;
  }
  std::printf("  in this run: copies %.3f ms, of which %.3f ms beside a kernel; two or more kernels at once %.3f ms\n",
              copying, hidden, two_kernels);
  if (!course::device_info().is_gpu())
    std::printf("  host device: a copy is a memcpy on the cores that run the kernels, so a copy beside a kernel\n"
                "  hides nothing: this device cannot show copies hidden behind kernels. It shows the order: a\n"
                "  pipeline's stages as rows of their own, chunks side by side in no promised order; a synchronous\n"
                "  version's target regions (kernel and copies in one) one after another.\n");
  if (!check.ok) std::printf("  WRONG  %s\n", check.message.c_str());
}

}  // namespace driver
