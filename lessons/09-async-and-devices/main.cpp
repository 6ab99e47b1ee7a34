// lesson09 -- runs lesson 9's job three ways and shows what each buys:
//   1. overlap: the synchronous version split into copy in / kernel / copy out,
//      the synchronous version whole and chunk by chunk, and your pipeline for
//      each chunk count (is the copy hidden behind the kernel?), then one run
//      of your pipeline drawn as a timeline from what the OpenMP runtime
//      reports to this program's OMPT tool (each row: chunk, stage, thread);
//   2. device memory you manage: your upload / kernel / download / release;
//   3. every device: one device (baseline), then your split over 1, 2, ...
//      devices, with each device's report (its share, and where it ran).
// Every result is verified. On the host device the program says what its
// times cannot show (copies hidden behind kernels, devices that add cores).
//   usage: lesson09 [--n N] [--chunks 1,4,8,16] [--terms T] [--reps 3] [--devices D] [--csv FILE]
//                   [--only-yours] [--no-timeline]
#include <omp.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "async.hpp"
#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "lesson09_async.hpp"
#include "lesson09_ompt.hpp"  // this program's OMPT tool: the pipeline's timeline

namespace {

namespace base = course::baseline::lesson9;
std::vector<course::ResultRow> rows;

course::Check outcome(bool ok, const std::string &message) {
  course::Check c;
  c.ok = ok;
  if (!ok) c.message = message;
  return c;
}

// Median milliseconds of `reps` runs after one warm-up run; a run longer than
// two seconds is timed once (so big sizes stay quick on a laptop).
double median_ms(const std::function<void()> &f, int reps) {
  const double first = course::time_once(f);
  if (first > 2.0) return first * 1e3;
  return course::time_median(f, reps, 0).median * 1e3;
}

void add_row(const std::string &experiment, const std::string &variant, const std::string &size, double ms,
             double rate, const std::string &unit, bool ok, const std::string &note = "") {
  rows.push_back(course::make_row(9, experiment, variant, size, ms, rate, unit, "", ok, note));
}

std::string ms_text(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", ms);
  return b;
}

std::string times(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2fx", x);
  return b;
}

struct Problem {
  int n, terms;
  std::vector<float> first, second, result;
  std::vector<double> ref;
  std::string size;
  Problem(int n_, int terms_)
      : n(n_),
        terms(terms_),
        first(course::random_vector<float>((std::size_t)n_, course::default_seed, -1.f, 1.f)),
        second(course::random_vector<float>((std::size_t)n_, course::default_seed + 1, -1.f, 1.f)),
        result((std::size_t)n_),
        ref(base::add_exp_reference(n_, first.data(), second.data())),
        size("n=" + std::to_string(n_) + ", " + std::to_string(terms_) + " terms") {}
  lesson9::Job job() {
    lesson9::Job j;
    j.n = n;
    j.first = first.data();
    j.second = second.data();
    j.result = result.data();
    j.terms = terms;
    return j;
  }
  void poison() { course::poison(std::span<float>(result)); }
  course::Check verify(const std::string &who) const {
    return course::check_close<float>(std::span<const float>(result), ref, 1e-6, who + " " + size);
  }
  // Elements per second of a whole run, in millions.
  double melems(double ms) const { return n / ms / 1e3; }
};

void print_line(const char *name, double ms, double gbs, const std::string &vs, const course::Check &c) {
  char rate[32] = "-";
  if (gbs > 0) std::snprintf(rate, sizeof rate, "%.2f", gbs);
  std::printf("  %-40s %10.3f %9s %10s  %s\n", name, ms, rate, vs.c_str(), c.ok ? "correct" : ("WRONG  " + c.message).c_str());
  std::fflush(stdout);
}

// One run of the pipeline as the runtime reported it: every copy and kernel
// with its start and end, its chunk and stage, and the thread that ran it (0
// is the caller; the others run `nowait` tasks). Overlap shows as bars that
// share columns, and the line below the table adds it up.
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

// ---- 1. overlap --------------------------------------------------------------------

void overlap(Problem &p, const std::vector<long long> &chunk_list, int reps, bool only_yours, bool show_timeline) {
  const int dev = omp_get_default_device();
  const float *f = p.first.data(), *s = p.second.data();
  float *r = p.result.data();
  std::printf("\n1. overlap: %s on device %d; ms (median of %d); copies in GB/s, whole runs in million elements/s\n",
              p.size.c_str(), dev, reps);
  std::printf("  %-40s %10s %9s %10s\n", "variant", "ms", "rate", "vs sync");
  double sync_ms = 0;
  if (!only_yours) {
    // The synchronous version in its three parts: what a pipeline can hide.
    std::vector<double> tin, tk, tout;
    p.poison();
    for (int k = 0; k <= reps; ++k) {
      const double a = course::time_once([&] { base::enter_inputs(p.n, f, s, r, dev); });
      const double b = course::time_once([&] { base::kernel_present(p.n, f, s, r, p.terms, dev); });
      const double c = course::time_once([&] { base::exit_result(p.n, f, s, r, dev); });
      if (k == 0) continue;  // warm-up
      tin.push_back(a);
      tk.push_back(b);
      tout.push_back(c);
    }
    const double in = course::summarize(tin).median * 1e3, kernel = course::summarize(tk).median * 1e3,
                 out = course::summarize(tout).median * 1e3;
    const auto c = p.verify("sync, split");
    print_line("sync: copy in", in, 8.0 * p.n / in / 1e6, "", c);
    print_line("sync: kernel", kernel, 0, "", c);
    print_line("sync: copy out", out, 4.0 * p.n / out / 1e6, "", c);
    add_row("overlap", "sync: copy in", p.size, in, 8.0 * p.n / in / 1e6, "GB/s", c.ok);
    add_row("overlap", "sync: kernel", p.size, kernel, 0, "", c.ok, "kernel only: data already on the device");
    add_row("overlap", "sync: copy out", p.size, out, 4.0 * p.n / out / 1e6, "GB/s", c.ok);
    const double longest = std::max({in, kernel, out});
    std::printf("  (a perfect pipeline approaches the longest stage, %.3f ms: %s of copy in + kernel + copy out)\n",
                longest, times((in + kernel + out) / longest).c_str());

    p.poison();
    sync_ms = median_ms([&] { base::add_exp_sync(p.n, f, s, r, p.terms, dev); }, reps);
    const auto cs = p.verify("sync, whole array");
    print_line("sync, whole array (baseline)", sync_ms, p.melems(sync_ms), "1.00x", cs);
    add_row("overlap", "sync, whole array (baseline)", p.size, sync_ms, p.melems(sync_ms), "Melem/s", cs.ok,
            "longest stage " + ms_text(longest) + " ms");
    for (const long long ch : chunk_list) {
      p.poison();
      const double ms = median_ms([&] { base::add_exp_sync_chunked(p.n, f, s, r, p.terms, (int)ch, dev); }, reps);
      const auto cc = p.verify("sync, chunked");
      const std::string name = "sync, " + std::to_string(ch) + " chunks (baseline)";
      print_line(name.c_str(), ms, p.melems(ms), times(sync_ms / ms), cc);
      add_row("overlap", name, p.size, ms, p.melems(ms), "Melem/s", cc.ok, times(sync_ms / ms) + " vs sync");
    }
  }
  for (const long long ch : chunk_list) {
    p.poison();
    const auto job = p.job();
    const double ms = median_ms([&] { lesson9::add_exp_pipelined(job, (int)ch); }, reps);
    const auto c = p.verify(COURSE_KERNELS " pipeline");
    const std::string name = std::string(COURSE_KERNELS) + ": pipeline, " + std::to_string(ch) + " chunks";
    const std::string vs = sync_ms > 0 ? times(sync_ms / ms) : "-";
    print_line(name.c_str(), ms, p.melems(ms), vs, c);
    add_row("overlap", name, p.size, ms, p.melems(ms), "Melem/s", c.ok, sync_ms > 0 ? vs + " vs sync" : "");
  }
  if (!course::device_info().is_gpu())
    std::printf("  (host device: these times cannot show overlap (README, concept 4). The program runs in a parallel\n"
                "  region of %d threads: a synchronous kernel started in it gets one thread, while a pipeline's tasks\n"
                "  run chunks' kernels on all of them at once -- that, not a hidden copy, is any gain above. The\n"
                "  speed test asks only that the pipeline is not much slower here; it grades the task graph.)\n",
                omp_get_num_threads());
  if (show_timeline) {
    // The smallest chunk count above 1 in the list (4 by default): few enough bars to read.
    long long ch = 0;
    for (const long long c : chunk_list)
      if (c > 1 && (ch == 0 || c < ch)) ch = c;
    timeline(p, ch ? (int)ch : 4);
  }
}

// ---- 2. device memory you manage ------------------------------------------------------

void device_memory(Problem &p, int reps) {
  const int dev = omp_get_default_device();
  std::printf("\n2. device memory you manage: %s on device %d, ms (median of %d)\n", p.size.c_str(), dev, reps);
  std::vector<double> tu, tk, td, tr;
  bool ok = true;
  std::string why;
  for (int k = 0; k <= reps; ++k) {
    p.poison();
    lesson9::DeviceArrays d;
    const double u = course::time_once([&] { d = lesson9::device_upload(p.n, p.first.data(), p.second.data(), dev); });
    const double kk = course::time_once([&] { lesson9::device_add_exp(d, p.terms); });
    const double dd = course::time_once([&] { lesson9::device_download(d, p.result.data()); });
    const double rr = course::time_once([&] { lesson9::device_release(d); });
    const auto c = p.verify(COURSE_KERNELS " device memory");
    if (!c.ok) {
      ok = false;
      why = c.message;
    }
    // A first call of over 5 s is the starter's serial host loop (minutes at
    // the default size on one core): that call is the measurement.
    const bool slow = k == 0 && u + kk + dd + rr > 5.0;
    if (slow)
      std::printf("  (the first call took %.1f s: timed once, not %d more times)\n", u + kk + dd + rr, reps);
    if (k == 0 && !slow) continue;
    tu.push_back(u);
    tk.push_back(kk);
    td.push_back(dd);
    tr.push_back(rr);
    if (slow) break;
  }
  const course::Check c = outcome(ok, why);
  const double u = course::summarize(tu).median * 1e3, k = course::summarize(tk).median * 1e3,
               d = course::summarize(td).median * 1e3, r = course::summarize(tr).median * 1e3;
  const std::string who = COURSE_KERNELS;
  std::printf("  %-40s %10s %9s\n", "part", "ms", "GB/s");
  print_line((who + ": upload (alloc + copy in)").c_str(), u, 8.0 * p.n / u / 1e6, "", c);
  print_line((who + ": kernel").c_str(), k, 0, "", c);
  print_line((who + ": download").c_str(), d, 4.0 * p.n / d / 1e6, "", c);
  print_line((who + ": release").c_str(), r, 0, "", c);
  add_row("device memory", who + ": upload", p.size, u, 8.0 * p.n / u / 1e6, "GB/s", ok);
  add_row("device memory", who + ": kernel", p.size, k, 0, "", ok, "is_device_ptr: no copies");
  add_row("device memory", who + ": download", p.size, d, 4.0 * p.n / d / 1e6, "GB/s", ok);
  add_row("device memory", who + ": release", p.size, r, 0, "", ok);
}

// ---- 3. every device ---------------------------------------------------------------------

// The reports must describe contiguous shares in device order, within one
// element of equal, each computed on an offload device.
course::Check check_reports(const std::vector<lesson9::DeviceReport> &rep, int n, int devices, std::string &shares) {
  course::Check c = outcome(true, "");
  long long at = 0;
  const long long small = n / devices, large = (n + devices - 1) / devices;
  shares.clear();
  if ((int)rep.size() != devices)
    return outcome(false, "expected " + std::to_string(devices) + " reports, got " + std::to_string(rep.size()));
  for (int d = 0; d < devices; ++d) {
    const auto &r = rep[(std::size_t)d];
    const long long len = r.end - r.begin;
    shares += (d ? ", " : "") + std::to_string(len);
    if (r.begin != at || (len != small && len != large) || r.is_initial != 0)
      c = outcome(false, "device " + std::to_string(d) + " reported share [" + std::to_string(r.begin) + ", " +
                             std::to_string(r.end) + "), omp_is_initial_device() = " + std::to_string(r.is_initial));
    at = r.end;
  }
  if (c.ok && at != n) c = outcome(false, "the shares end at " + std::to_string(at));
  return c;
}

void every_device(Problem &p, int devices, int reps, bool only_yours) {
  std::printf("\n3. every device: %s over 1 .. %d of %d device(s), ms (median of %d)\n", p.size.c_str(), devices,
              omp_get_num_devices(), reps);
  std::printf("  %-40s %10s %9s %10s\n", "variant", "ms", "Melem/s", "vs 1 dev");
  double one_ms = 0;
  if (!only_yours) {
    p.poison();
    one_ms = median_ms([&] { base::add_exp_sync(p.n, p.first.data(), p.second.data(), p.result.data(), p.terms, 0); },
                       reps);
    const auto c = p.verify("one device");
    print_line("one device (baseline)", one_ms, p.melems(one_ms), "1.00x", c);
    add_row("devices", "one device (baseline)", p.size, one_ms, p.melems(one_ms), "Melem/s", c.ok, "device 0");
  }
  for (int d = 1; d <= devices; ++d) {
    p.poison();
    const auto job = p.job();
    std::vector<lesson9::DeviceReport> rep;
    const double ms = median_ms([&] { rep = lesson9::add_exp_all_devices(job, d); }, reps);
    auto c = p.verify(COURSE_KERNELS " all devices");
    std::string shares;
    const auto cr = check_reports(rep, p.n, d, shares);
    if (c.ok && !cr.ok) c = cr;
    std::string where;
    for (const auto &r : rep) where += (where.empty() ? "" : ",") + std::to_string(r.device_num);
    const std::string name = std::string(COURSE_KERNELS) + ": " + std::to_string(d) + (d == 1 ? " device" : " devices");
    const std::string vs = one_ms > 0 ? times(one_ms / ms) : "-";
    print_line(name.c_str(), ms, p.melems(ms), vs, c);
    std::printf("  %-40s shares %s; omp_get_device_num() on each: %s\n", "", shares.c_str(), where.c_str());
    add_row("devices", name, p.size, ms, p.melems(ms), "Melem/s", c.ok,
            (one_ms > 0 ? vs + " vs one device; " : std::string()) + "shares " + shares);
  }
  if (!course::device_info().is_gpu())
    std::printf("  (host device: its devices share the same cores, so a split cannot be faster here; what it shows\n"
                "  is each device's share and report. Several GPUs show the time gained.)\n");
}

}  // namespace

int main(int argc, char **argv) {
  // LLVM 19's host device: `nowait` kernels on hidden helper threads abort
  // now and then (README, "Why the host device runs without hidden helper
  // threads"). The setting is read when the OpenMP runtime starts, which is
  // before main, so the program starts itself again with it -- and with
  // libomp's folder on LD_LIBRARY_PATH, where LLVM 19's offload runtime looks
  // for libomp.so to report copies and kernels to the timeline's OMPT tool
  // (ctest sets both for the tests).
  if (std::string(COURSE_DEVICE_CLASS) == "host" && !std::getenv("LIBOMP_USE_HIDDEN_HELPER_TASK")) {
    setenv("LIBOMP_USE_HIDDEN_HELPER_TASK", "0", 1);
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&omp_get_num_devices), &info) && info.dli_fname) {
      std::string dir = info.dli_fname;
      dir = dir.substr(0, dir.find_last_of('/'));
      const char *old = std::getenv("LD_LIBRARY_PATH");
      setenv("LD_LIBRARY_PATH", (dir + (old && *old ? ":" + std::string(old) : "")).c_str(), 1);
    }
    execv("/proc/self/exe", argv);  // returns only if it failed: go on as we are
  }
  course::Cli cli("lesson09", "lesson 9, asynchronous offload and many devices: a pipeline, device memory, every device");
  const auto &n_opt = cli.integer("--n", 0, "elements (0: 2^21 on the host device, 2^26 on a GPU)", 0, 1LL << 28);
  const auto &chunks = cli.integers("--chunks", {1, 4, 8, 16}, "pipeline chunk counts to run", 1, 4096);
  const auto &terms_opt = cli.integer("--terms", 0, "series terms per element: the work per element (0: 32 on the "
                                      "host device, 512 on a GPU)", 0, 1000000);
  const auto &reps = cli.integer("--reps", 3, "timed runs per variant (the median is reported)", 1, 1000);
  const auto &devices_opt = cli.integer("--devices", 0, "split over devices 1 .. D (0: all the runtime offers)", 0, 1024);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's kernels (" COURSE_KERNELS ")");
  const auto &no_timeline = cli.flag("--no-timeline", "leave out the pipeline's timeline");
  cli.parse(argc, argv);

  const bool gpu = course::device_info().is_gpu();
  const int available = omp_get_num_devices();
  const int terms = terms_opt ? (int)terms_opt : (gpu ? 512 : 32);
  if (terms < lesson9::min_terms) cli.fail("--terms must be 0 or at least " + std::to_string(lesson9::min_terms));
  if (available < 1) cli.fail("the runtime offers no offload device");
  if (devices_opt > available)
    cli.fail("--devices " + std::to_string(devices_opt) + ": the runtime offers only " + std::to_string(available));
  std::printf("%s\n", course::device_banner().c_str());
  const int devices = devices_opt ? (int)devices_opt : available;
  const int n = n_opt ? (int)n_opt : (gpu ? 1 << 26 : 1 << 21);
  Problem p(n, terms);
  // Everything runs on one thread of one parallel region (lesson9::in_team):
  // the `nowait` tasks then have the region's other threads to run on, also
  // on the host device, where the hidden helper threads are off -- and every
  // kernel of the program starts from the same context (LLVM 19's runtime
  // aborts now and then when host-device kernels start both inside and
  // outside parallel regions in one program).
  lesson9::in_team([&] {
    // Start every device (and load the kernels) before anything is timed.
    for (int d = 0; d < available; ++d) {
      int on_device = 0;
#pragma omp target device(d) map(from : on_device)
      on_device = !omp_is_initial_device();
      if (!on_device) std::printf("warning: a target region for device %d ran on the HOST\n", d);
    }
    std::printf("%d offload device(s) started; the program runs on 1 of %d threads of a parallel region\n",
                available, omp_get_num_threads());
    overlap(p, chunks, (int)reps, only_yours, !no_timeline);
    device_memory(p, (int)reps);
    every_device(p, devices, (int)reps, only_yours);
  });
  return course::finish(rows, csv);
}
