// Lesson 6 tests -- atomic reductions: the sums (int exactly, float and double
// within a tolerance stated from the summation length) and the histograms
// (exactly) are right at awkward sizes and for any launch shape the runtime
// grants, the team-local versions beat one global atomic per element, and the
// sum's technique shows where its answer cannot: conforming OpenMP (the
// compiler asked with its extensions off), no partial lost when many teams
// add at once, x copied one way and the launch's teams asked for (an OMPT
// witness, as in lesson 2).
#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "atomics.hpp"
#include "course/device.hpp"
#include "course_test.hpp"
#include "lesson02_ompt.hpp"  // the OMPT witness of launches and copies (this program's only OMPT tool)
#include "ompt_witness.hpp"
#include "lesson06_atomics.hpp"

// Speedup thresholds: this lesson's grading numbers, {host, gpu} (see course/grading.hpp).
// Each is at most half of what the solution measured on that class.
// lesson 6: team-local partials vs one global atomic per element, n = 2^22 host, 2^26 gpu.
// Solution measured: host by process CPU time (2-core EPYC under load, 3 runs of 9
// interleaved pairs): int 5.9-6.7x, float 11.6-12.0x, double 6.8-7.0x, histogram
// 3.2-3.7x; with its step undone (6.1 sums, 6.2 histogram) 1.0-1.1x, once 1.6x
// (docs/results/steps-check.md). GPU (H200, wall clock, medians): int 4.2x, float
// 245x, double 175x, histogram 42x. GPU int atomics are fast, hence its margin.
namespace thresholds {
constexpr course::Threshold kSumInt{"lesson6.sum_int", 1.5, 1.5, course::Scaling::fixed, 0};
constexpr course::Threshold kSumFloat{"lesson6.sum_float", 2.5, 25.0, course::Scaling::fixed, 0};
constexpr course::Threshold kSumDouble{"lesson6.sum_double", 2.5, 25.0, course::Scaling::fixed, 0};
constexpr course::Threshold kHistogram{"lesson6.histogram", 1.5, 5.0, course::Scaling::fixed, 0};
}  // namespace thresholds

namespace {

namespace ref = course::baseline::lesson6;
using lesson6::Launch;

static_assert(lesson6::hist_bins == 256, "the baselines' histograms have 256 bins");

// 1, a prime, a size that is no multiple of 4 x 256 (the unrolled step of a
// GPU team), a prime just past 64 Ki (a team's share on the host), and a real size.
const std::vector<std::size_t> sizes = {1, 97, 1000, 65537, std::size_t(1) << 22};

std::string shape_name(const Launch &l) {
  return l.teams == 0 ? std::string("default launch")
                      : std::to_string(l.teams) + " teams x " + std::to_string(l.threads) + " threads";
}

// Launch shapes the runtime does not grant as asked. On the host-offload
// device a team of 256 or 33 gets the 1-2 cores there are (without a
// warning); on an H100 LLVM granted them as asked, partial warps included.
std::vector<Launch> odd_shapes() {
  std::vector<Launch> s = {{1, 1}, {1, 33}, {1, 256}, {2, 1}};
#ifdef COURSE_DEVICE_GPU
  s.push_back({3, 33});
  s.push_back({7, 1000});
  s.push_back({5000, 64});
#endif
  return s;
}

// ---- the technique, as the compiler reads it (lesson6::source_file) --------
// The answers cannot tell a team-local partial from OpenMP's `reduction`
// clause or from a private sum per thread with one global atomic each: all
// are right, and on the host device (one thread per team) all cost the same
// CPU time. -ast-print (the graded atomics.cpp as the compiler parsed it,
// about a second) shows the constructs each function uses.

// A line of a function's definition in -ast-print output: its indentation
// (ast-print indents each nested statement by 4) and its text.
struct AstLine {
  std::size_t indent;
  std::string text;
};

// What a kernel function is made of, as the tests grade it.
struct Construction {
  bool found = false;      // its definition was in the compiler's output
  bool combined = false;   // `target teams` combined with distribute / parallel / loop
  bool reduction = false;  // a `reduction` clause
  int atomics = 0, barriers = 0;
  std::string teams_line;             // the `target teams` directive ("" if none)
  std::vector<std::string> team_vars;  // declared in `teams`, outside `parallel`, and used inside `parallel`
};

// What the compiler's -ast-print shows of the three functions.
struct Structure : course_test::Recompile {
  Construction sum, count, count_reduction;
};

// Whether @p line uses the name @p id (a whole identifier).
bool uses_name(const std::string &line, const std::string &id) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (auto at = line.find(id); at != std::string::npos; at = line.find(id, at + 1))
    if ((at == 0 || !word(line[at - 1])) && (at + id.size() == line.size() || !word(line[at + id.size()])))
      return true;
  return false;
}

// The definition whose first line contains @p head and ends with `{`, up to
// the `}` at its own indentation.
std::vector<AstLine> definition_of(const std::string &ast, const std::string &head) {
  std::vector<AstLine> body;
  std::istringstream in(ast);
  std::size_t at = std::string::npos;
  for (std::string line; std::getline(in, line);) {
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    const std::string text = line.substr(indent);
    if (at == std::string::npos) {
      if (line.find(head) != std::string::npos && !line.empty() && line.back() == '{') at = indent;
      continue;
    }
    if (indent == at && text == "}") return body;
    body.push_back({indent, text});
  }
  return {};
}

Construction construction_of(const std::vector<AstLine> &body) {
  Construction c;
  c.found = !body.empty();
  // A declaration: `T team_total = 0;`, `int local[hist_bins];`.
  const std::regex decl(R"(^(?:const |static )?[A-Za-z_][\w:<>]*\s+(\w+)\s*(?:\[[^\]]*\])*\s*(?:=.*)?;$)");
  std::size_t teams = std::string::npos, team_level = std::string::npos, parallel = std::string::npos;
  std::vector<std::string> declared;
  for (const auto &l : body) {
    if (l.text.rfind("#pragma omp ", 0) == 0) {
      c.reduction = c.reduction || l.text.find("reduction(") != std::string::npos;
      c.atomics += l.text.rfind("#pragma omp atomic", 0) == 0;
      c.barriers += l.text.rfind("#pragma omp barrier", 0) == 0;
    }
    if (l.text.rfind("#pragma omp target teams", 0) == 0 && teams == std::string::npos) {
      teams = l.indent;
      c.teams_line = l.text;
      const std::string rest = l.text.substr(24);
      c.combined = rest.rfind(" distribute", 0) == 0 || rest.rfind(" parallel", 0) == 0 || rest.rfind(" loop", 0) == 0;
      continue;
    }
    if (teams == std::string::npos || c.combined) continue;
    if (l.indent <= teams) {  // past the teams region
      teams = std::string::npos;
      continue;
    }
    if (team_level == std::string::npos && l.text != "{") team_level = l.indent;
    if (l.indent == team_level && parallel == std::string::npos) {
      std::smatch m;
      if (l.text.rfind("#pragma omp parallel", 0) == 0)
        parallel = l.indent;
      else if (std::regex_match(l.text, m, decl))
        declared.push_back(m[1].str());
    } else if (parallel != std::string::npos && l.indent > parallel) {
      for (const auto &v : declared)
        if (uses_name(l.text, v) && std::find(c.team_vars.begin(), c.team_vars.end(), v) == c.team_vars.end())
          c.team_vars.push_back(v);
    } else if (parallel != std::string::npos && l.indent <= parallel) {
      parallel = std::string::npos;
    }
  }
  return c;
}

const Structure &structure() {
  static const Structure s = [] {
    namespace fs = std::filesystem;
    Structure r;
    const fs::path src = lesson6::source_file();
    const fs::path root = fs::path(__FILE__).parent_path().parent_path();
    const fs::path headers = root / "lessons" / "06-atomic-reductions", common = root / "common" / "include";
    const std::string cxx = course_test::recompiler({src, headers}, r);
    if (cxx.empty()) return r;
    r.cmd = cxx + " -std=c++20 -fopenmp -fsyntax-only -Xclang -ast-print -Xclang -ast-dump-filter -Xclang lesson6:: -I'" +
            headers.string() + "' -I'" + common.string() + "' '" + src.string() + "' 2>&1";
    course_test::run_recompile(r);
    if (!r.ok) return r;
    const std::string &out = r.out;
    r.sum = construction_of(definition_of(out, "> T sum_impl("));
    r.count = construction_of(definition_of(out, "void count_bins("));
    r.count_reduction = construction_of(definition_of(out, "void count_bins_reduction("));
    return r;
  }();
  return s;
}

// A kernel whose atomics are there but whose team has no barrier before its
// partial leaves: what a lost update most likely means then ("" otherwise,
// or where the compiler cannot be asked).
std::string missing_barrier(const Construction Structure::*which, const char *fn, const char *step) {
  const Structure &s = structure();
  const Construction &c = s.*which;
  if (!s.ok || !c.found || c.combined || c.reduction || c.atomics < 2 || c.barriers > 0) return "";
  return std::string("\n") + fn + " has its atomics but no barrier: a thread passes the team's partial on before the "
         "team's other threads have added their shares to it, and what they add later never leaves the team. "
         "Every thread must have finished its adds before one thread reads the partial: what makes the team "
         "wait? (step " + step + ", README, Concepts: 4. Team-local)";
}

// What a wrong sum most likely means, for the failure message. The inputs
// are positive, so a total below the reference lost contributions and one
// above counted some twice. @p tail: the number of LAST elements whose sum is
// exactly what is missing (0 when none is): the split's rounding dropped them.
std::string sum_hint(double got, double want, const Launch &l, std::size_t tail) {
  const bool odd_shape = l.teams != 0;
  if (got == 0 && want != 0)
    return "\nThe total stayed 0: no team's partial reached `total` (the one global atomic per team, made by one "
           "thread after the team's barrier, inside the parallel region), `total` is not map(tofrom), or a "
           "thread's add to the team's partial was lost and the partial ended as some thread's 0 (that add must be "
           "indivisible too) (README, Concepts: 4. Team-local).";
  if (got < want && tail > 0)
    return "\nExactly the last " + std::to_string(tail) +
           " element(s) are missing from the total.\nThe split into blocks rounds down, so the elements after "
           "the last whole block belong to no team or thread. Count them on paper for this n (README, Hints: "
           "6.1, 'count the elements on paper').";
  if (got < want && !missing_barrier(&Structure::sum, "sum_impl", "6.1").empty())
    return "\nLost updates: part of the sum never reached the total." +
           missing_barrier(&Structure::sum, "sum_impl", "6.1");
  if (got < want)
    return std::string("\nLost updates: part of the sum never reached the total. Two threads added to the same "
                       "variable without an atomic (the adds to the team's partial must be indivisible, and so "
                       "must those to `total`), or some elements were never visited") +
           (odd_shape ? ": with this launch the runtime granted other counts than asked; split the elements by "
                        "omp_get_num_teams() and omp_get_num_threads() (README, Concepts: 5. Split by what you get)"
                      : "") +
           " (README, Concepts: 1. An atomic is a read-modify-write).";
  return "\nMore than the sum: added once per thread instead of once per team?\nOnly one thread of a team adds "
         "the team's partial to `total`, after the barrier; or else two threads' shares overlap and some elements "
         "were added twice (README, Concepts: 4. Team-local).";
}

// How many of the last elements of x add up to @p missing (within @p tol); 0
// if no run of up to 4096 of them does.
template <class T>
std::size_t missing_tail(const T *x, std::size_t n, double missing, double tol) {
  double tail = 0;
  for (std::size_t k = 1; k <= n && k <= 4096; ++k) {
    tail += static_cast<double>(x[n - k]);
    if (std::abs(tail - missing) <= tol) return k;
    if (tail > missing + tol) break;
  }
  return 0;
}

course::Check check_sum(const int *x, std::size_t n, Launch l, const std::string &what) {
  const int got = lesson6::sum(x, n, l);
  const long long want = ref::sum_reference(x, n);
  std::vector<long long> g{got}, w{want};
  auto c = course::check_equal<long long>(g, w, what);
  if (!c.ok) c.message += sum_hint(got, static_cast<double>(want), l, missing_tail(x, n, double(want - got), 0.5));
  return c;
}

template <class T>
course::Check check_sum(const T *x, std::size_t n, Launch l, const std::string &what) {
  const T got = lesson6::sum(x, n, l);
  const double want = ref::sum_reference(x, n);
  const double tol = course::sum_tolerance<T>(n);
  auto c = course::check_scalar(static_cast<double>(got), want, tol, what);
  if (!c.ok)
    c.message += sum_hint(static_cast<double>(got), want, l, missing_tail(x, n, want - got, 2 * tol * want));
  return c;
}

template <class T>
void sum_at_sizes(const char *type) {
  for (std::size_t n : sizes) {
    const auto x = ref::sum_input<T>(n, course_test::seed());
    COURSE_CHECK(check_sum(x.data(), n, Launch{}, std::string(type) + " sum, n=" + std::to_string(n)));
  }
}

template <class T>
void sum_with_odd_shapes(const char *type) {
  const std::size_t n = 100003;  // prime
  const auto x = ref::sum_input<T>(n, course_test::seed());
  for (const auto &l : odd_shapes())
    COURSE_CHECK(check_sum(x.data(), n, l, std::string(type) + " sum, n=" + std::to_string(n) + ", " + shape_name(l)));
}

course::Check check_histogram(const std::vector<float> &x, Launch l, bool reduction, const std::string &what) {
  // hist is poisoned on the device too: its device copy is what the kernels update.
  std::vector<int> hist(lesson6::hist_bins);
  course_test::with_device_poison(std::span<int>(hist), [&] {
    if (reduction)
      lesson6::histogram_reduction(x.data(), x.size(), hist.data());
    else
      lesson6::histogram(x.data(), x.size(), hist.data(), l);
  });
  const auto want = ref::histogram_reference(x.data(), x.size());
  auto c = course::check_equal<int>(hist, want, what);
  if (c.ok) return c;
  long long counted = 0;
  bool poisoned = false;
  for (int b : hist) {
    poisoned = poisoned || b == course::poison_value<int>();
    counted += b;
  }
  const char *step = reduction ? "6.3" : "6.2";
  if (poisoned)
    c.message += std::string("\nA bin was never written: hist must be zeroed (the kernel before step ") + step +
                 " does it) and every bin added to (README, Concepts: 4. Team-local).";
  else if (counted < static_cast<long long>(x.size()) && !reduction &&
           !missing_barrier(&Structure::count, "count_bins", "6.2").empty())
    c.message += "\nLost updates: " + std::to_string(x.size() - counted) + " of " + std::to_string(x.size()) +
                 " elements were never counted." + missing_barrier(&Structure::count, "count_bins", "6.2") +
                 " The team's phases are: zero its histogram, count, merge into hist; each waits for the one before.";
  else if (counted < static_cast<long long>(x.size()))
    c.message += "\nLost updates: " + std::to_string(x.size() - counted) + " of " + std::to_string(x.size()) +
                 " elements were never counted. Two threads incremented the same bin without an atomic" +
                 (reduction ? std::string(": OpenMP can give each thread a private copy of the whole array and "
                                          "add the copies up at the end; which clause, and does it take an "
                                          "array section? (step 6.3, README, Concepts: 6. The reduction clause)")
                            : std::string(" (each team's private histogram needs indivisible increments when "
                                          "a team has several threads, and so does hist; step 6.2, README, "
                                          "Concepts: 1. An atomic is a read-modify-write), or a missing "
                                          "barrier between the team's phases: a thread counted "
                                          "into bins not yet zeroed, or merged bins others were still counting "
                                          "into (README, Hints: 6.2)")) +
                 ".";
  else if (counted > static_cast<long long>(x.size()))
    c.message += "\n" + std::to_string(counted - static_cast<long long>(x.size())) +
                 " elements counted twice: two threads' shares overlap, or a team's histogram was added to hist "
                 "more than once (step " + step + ").";
  return c;
}

// Times `candidate` against `baseline` with x already on the device, so only
// the kernels are compared, never the copies.
template <class T, class FB, class FC>
course::Comparison compare_on_device(const std::vector<T> &x, FB &&baseline, FC &&candidate) {
  const T *p = x.data();
  const std::size_t n = x.size();
  course::Comparison cmp;
  // On the host device the kernels run on this process's threads: CPU time,
  // which other programs on a busy 2-core machine cannot stretch (the wall
  // clock swung 10x there). A GPU works while this process waits: wall clock.
  const auto clock = course::device_info().is_gpu() ? course::Clock::wall : course::Clock::process_cpu;
#pragma omp target data map(to : p[0:n])
  cmp = course::compare_interleaved(baseline, candidate, 15, 1, clock);
  return cmp;
}

#ifdef COURSE_DEVICE_GPU
const std::size_t speedup_n = std::size_t(1) << 26;  // 256 MiB of int: long enough to time a GPU
#else
const std::size_t speedup_n = std::size_t(1) << 22;
#endif

template <class T>
void sum_speedup(const char *type, const course::Threshold &key) {
  const auto x = ref::sum_input<T>(speedup_n, course_test::seed());
  T got = 0;
  const auto cmp = compare_on_device(
      x, [&] { (void)ref::sum_global_atomic(x.data(), x.size()); }, [&] { got = lesson6::sum(x.data(), x.size()); });
  // A fast wrong answer earns nothing.
  const std::string what = std::string(type) + " sum, n=" + std::to_string(speedup_n) + " (speedup run)";
  if constexpr (std::is_same_v<T, int>) {
    std::vector<long long> g{got}, w{ref::sum_reference(x.data(), x.size())};
    COURSE_CHECK(course::check_equal<long long>(g, w, what));
  } else {
    COURSE_CHECK(course::check_scalar(got, ref::sum_reference(x.data(), x.size()), course::sum_tolerance<T>(x.size()), what));
  }
  COURSE_REQUIRE_SPEEDUP(key, std::string("lesson 6 ") + type + " sum", cmp);
}

}  // namespace

TEST_CASE("int sum at n = 1 97 1000 65537 and 2^22", "[lesson6][correctness]") { sum_at_sizes<int>("int"); }
TEST_CASE("float sum at n = 1 97 1000 65537 and 2^22", "[lesson6][correctness]") { sum_at_sizes<float>("float"); }
TEST_CASE("double sum at n = 1 97 1000 65537 and 2^22", "[lesson6][correctness]") { sum_at_sizes<double>("double"); }

TEST_CASE("sums are right whatever teams and threads the runtime grants", "[lesson6][correctness]") {
  sum_with_odd_shapes<int>("int");
  sum_with_odd_shapes<float>("float");
  sum_with_odd_shapes<double>("double");
}

TEST_CASE("histogram at n = 1 97 1000 65537 and 2^22", "[lesson6][correctness]") {
  for (std::size_t n : sizes) {
    const auto x = ref::histogram_input(n, course_test::seed());
    COURSE_CHECK(check_histogram(x, Launch{}, false, "histogram, n=" + std::to_string(n)));
  }
}

TEST_CASE("histogram is right whatever teams and threads the runtime grants", "[lesson6][correctness]") {
  const auto x = ref::histogram_input(100003, course_test::seed());
  for (const auto &l : odd_shapes())
    COURSE_CHECK(check_histogram(x, l, false, "histogram, n=100003, " + shape_name(l)));
}

void histogram_reduction_at(std::size_t n) {
  const auto x = ref::histogram_input(n, course_test::seed());
  COURSE_CHECK(check_histogram(x, Launch{}, true, "histogram_reduction, n=" + std::to_string(n)));
}

TEST_CASE("histogram with a reduction clause at n = 1 97 1000 and 65537", "[lesson6][correctness]") {
  for (std::size_t n : sizes)
    if (n != sizes.back()) histogram_reduction_at(n);
}

// [racecheck-slow]: the reduction-clause histogram keeps each thread's 256
// private bins in local memory (a 3072-byte stack on sm_90), and racecheck
// slows it about 1900x: on an H100 2^22 elements took 0.14 s alone and 265 s
// under racecheck, 2^20 in one bin 66 s, so the 2^25 case below would take
// over an hour. The GPU racecheck run leaves these three cases out and
// checks the same kernel at the sizes above (the first two were also run
// alone, clean: docs/results/h100-2026-11-25.md). Every other run keeps them.
TEST_CASE("histogram with a reduction clause at n = 2^22", "[lesson6][correctness][racecheck-slow]") {
  histogram_reduction_at(sizes.back());
}

// Every thread hits the same counter: the worst case for contention, and the
// input on which an unprotected update loses counts most reliably.
const std::size_t one_bin_n = (std::size_t(1) << 20) + 3;

TEST_CASE("histogram with data that all fall in one bin", "[lesson6][correctness]") {
  const std::vector<float> x(one_bin_n, 0.75f);  // bin 192
  COURSE_CHECK(
      check_histogram(x, Launch{}, false, "histogram, n=" + std::to_string(one_bin_n) + ", all values in bin 192"));
}

TEST_CASE("histogram_reduction with data that all fall in one bin", "[lesson6][correctness][racecheck-slow]") {
  const std::vector<float> x(one_bin_n, 0.75f);  // bin 192
  COURSE_CHECK(check_histogram(x, Launch{}, true,
                               "histogram_reduction, n=" + std::to_string(one_bin_n) + ", all values in bin 192"));
}

// Step 6.3 on the host device. The starter's loop loses a count only when two
// threads load the same bin at the same instant, and on a busy 2-core machine
// a short run often has its threads take turns instead (2^22 elements under
// three busy processes: 0 of 5 runs lost a count; 2^25: 4 of 5 lost
// 0.2-0.4 million). So: 2^25 elements in one bin, run again until one run
// loses counts, at least 2 runs and at most 5 or 2 seconds. A reduction never
// loses a count, so this cannot fail a right answer; on a GPU the race loses
// counts at once. On a heavily loaded host (a CI run beside other builds, load
// 10 on 2 cores, 2026-11-26) even this lost none: the step is graded on every
// run by its construction ("histogram_reduction counts with a reduction
// clause and no atomic", below), and the race by the lesson's race check.
TEST_CASE("histogram_reduction loses no count when every thread adds to one bin",
          "[lesson6][correctness][racecheck-slow]") {
  const std::size_t n = std::size_t(1) << 25;
  const std::vector<float> x(n, 0.25f);  // bin 64
  const auto t0 = std::chrono::steady_clock::now();
  for (int run = 1; run <= 5; ++run) {
    const auto c = check_histogram(x, Launch{}, true,
                                   "histogram_reduction, n=2^25, all values in bin 64, run " + std::to_string(run));
    COURSE_CHECK(c);
    if (!c.ok) return;
    if (run >= 2 && std::chrono::steady_clock::now() - t0 > std::chrono::seconds(2)) break;
  }
}

// ---- the sum's technique, where its answer cannot tell ---------------------

// Step 6.1's combine, by the compiler. The global add must sit inside the
// parallel region: directly inside `teams` OpenMP allows only distribute,
// parallel and loop regions. clang accepts an `atomic` there as an extension
// and the total comes out right on every device, so no result can tell; GCC
// and flang reject it, and so does clang with -fno-openmp-extensions. This
// test compiles the graded atomics.cpp that way (syntax only, about a second).
TEST_CASE("atomics.cpp is conforming OpenMP (no atomic directly inside teams)", "[lesson6][correctness]") {
  namespace fs = std::filesystem;
  const fs::path src = lesson6::source_file();
  const fs::path root = fs::path(__FILE__).parent_path().parent_path();
  const fs::path headers = root / "lessons" / "06-atomic-reductions", common = root / "common" / "include";
  course_test::Recompile r;
  const std::string cxx = course_test::recompiler({src, headers}, r);
  if (cxx.empty()) {
    course_test::recompiled(r, src.filename().string());  // warns on a GPU node, fails elsewhere
    return;
  }
  const std::string cmd = cxx + " -std=c++20 -fopenmp -fno-openmp-extensions -fsyntax-only -I'" + headers.string() +
                          "' -I'" + common.string() + "' '" + src.string() + "' 2>&1";
  std::string out;
  const int status = course_test::run_command(cmd, out);
  REQUIRE(status >= 0);
  INFO("compiler: " << cmd);
  if (status != 0 && out.find("cannot be closely nested inside") != std::string::npos &&
      out.find("teams' region") != std::string::npos)
    FAIL(src.filename().string()
         << " is not OpenMP: a directive sits directly inside `teams`, where OpenMP allows only distribute, "
            "parallel and loop regions. clang accepts an `atomic` there as an extension, so the total came out "
            "right here; GCC and flang reject it, and so does clang with -fno-openmp-extensions:\n"
         << out.substr(0, 1200)
         << "Every add, the team's one add to `total` included, belongs inside the parallel region; what must "
            "come before it there, and which thread makes it? (README, Concepts: 4. Team-local)");
  if (status != 0) FAIL("the conformance compile of " << src.string() << " failed:\n" << out.substr(0, 3000));
  SUCCEED("conforming OpenMP");
}

// Step 6.1's global add, by many teams at once. `total += team_total`
// without an atomic loses a partial only when two teams update total at the
// same instant. On the host device a kernel gets at most one team per core,
// so a child process runs with KMP_TEAMS_THREAD_LIMIT=64 (read by the OpenMP
// runtime at start-up only): 64 teams of one thread, one element each, all
// adding into one total, int and double sums in turn, repeated until one
// launch loses a partial (at least 50 launches, at most 2 s). Measured with a
// stand-alone copy of that race on the 2-core machine under load: 2 teams
// lost a partial in 1 of 50000 launches; 64 teams in 0 to 13 of 700 (0-2 %,
// varying from run to run), and this test caught the race in 23 of 30 runs
// (tests/mistakes/lesson06.toml, 6.b). So it may miss the race: `ctest -L
// sanitize` (ThreadSanitizer + Archer) saw it in 6 of 6. A right answer never
// fails here. A GPU runs thousands of teams at once and loses partials at once.
constexpr const char *kManyTeams = "sums lose no partial when 64 teams add to one total at once";
TEST_CASE("sums lose no partial when 64 teams add to one total at once", "[lesson6][correctness]") {
  const bool gpu = course::device_info().is_gpu();
  const std::string why =
      "Teams race on `total`: two teams added their partials at the same instant without an atomic; each read "
      "the old total and wrote back its own sum, and one add vanished. Many teams update `total` at once: what "
      "makes that update indivisible? (README, Concepts: 1. An atomic is a read-modify-write, and 4. Team-local)";
  if (!gpu && !std::getenv("COURSE_LESSON6_CHILD")) {
    // Hidden helper threads on in the child, as lesson 5's two-thread run
    // needs them for its many threads (CTest sets them off for lesson 9).
    const auto r = course_test::run_self(
        kManyTeams, {"KMP_TEAMS_THREAD_LIMIT=64", "LIBOMP_USE_HIDDEN_HELPER_TASK=1", "COURSE_LESSON6_CHILD=1"});
    if (!r.started) FAIL("could not run the child process: " + r.output);
    if (r.exit_code != 0) {
      // The child's one line ("LOST: ..."), or its whole report if it failed otherwise.
      const auto at = r.output.find("LOST: ");
      if (at == std::string::npos) FAIL("with 64 teams (KMP_TEAMS_THREAD_LIMIT=64, in a child process):\n" + r.output);
      FAIL("with 64 teams (KMP_TEAMS_THREAD_LIMIT=64, in a child process), " +
           r.output.substr(at + 6, r.output.find('\n', at) - at - 6) + ".\n" + why);
    }
    SUCCEED("no partial lost");
    return;
  }
  const Launch l = gpu ? Launch{4096, 64} : Launch{64, 1};
  const std::size_t n = static_cast<std::size_t>(l.teams) * static_cast<std::size_t>(l.threads);
  const std::vector<int> ones(n, 1);
  const std::vector<double> ones_d(n, 1.0);
  const auto t0 = std::chrono::steady_clock::now();
  for (int run = 1; run <= 100000; ++run) {
    const bool as_int = run % 2 == 1;
    const double got = as_int ? lesson6::sum(ones.data(), n, l) : lesson6::sum(ones_d.data(), n, l);
    if (got < static_cast<double>(n)) {
      std::cout << "LOST: " << (as_int ? "int" : "double") << " sum of " << n << " ones, " << shape_name(l)
                << ", run " << run << ": got " << got << ", " << static_cast<double>(n) - got
                << " team partial(s) lost" << std::endl;
      FAIL((as_int ? "int" : "double") << " sum of " << n << " ones, " << shape_name(l) << ", run " << run
                                       << ": got " << got << "\n" << why);
    }
    if (got != static_cast<double>(n)) FAIL(check_sum(ones.data(), n, l, "int sum of ones, " + shape_name(l)).message);
    if (run >= 50 && std::chrono::steady_clock::now() - t0 > std::chrono::seconds(2)) break;
  }
  SUCCEED("no partial lost");
}


// Step 6.1's maps: x is input only. Mapped tofrom, the whole array comes
// back after every sum (n x 4 bytes for one number), and the total is right.
TEST_CASE("sum copies x to the device and nothing of it back", "[lesson6][correctness][ompt]") {
  if (!course_test::ompt_witness_ready()) return;
  const std::size_t n = 100003;
  const auto x = ref::sum_input<int>(n, course_test::seed());
  int got = 0;
  const auto t = course::lesson2_trace::record([&] { got = lesson6::sum(x.data(), n); });
  const std::size_t bytes = n * sizeof(int), in = t.to_device(x.data(), bytes), back = t.from_device(x.data(), bytes);
  INFO("int sum, n=" << n << ": " << t.kernels << " kernel(s); x: " << in << " of " << bytes
                     << " bytes to the device, " << back << " back; " << t.total(false) << " bytes back in all");
  COURSE_CHECK(course::check_equal<long long>(std::vector<long long>{got},
                                              std::vector<long long>{ref::sum_reference(x.data(), n)},
                                              "int sum, n=" + std::to_string(n)));
  if (back > 0)
    FAIL_CHECK("sum copies x back from the device (" << back << " bytes) after the kernel: x is input only, and "
               << "only `total` has to come back. Which map type copies in and not out? (README, What you start "
               << "from: the starter's maps)");
  if (in != bytes)
    FAIL_CHECK("sum copied " << in << " of x's " << bytes << " bytes to the device (once is what it needs): "
               << "does the kernel map all of x, in? (step 6.1; README, What you start from: the starter's maps)");
}

// Step 6.1's launch: `launch.teams` is how many teams to ask for. A kernel
// without `teams` (`target` around a `parallel` region) asks for ONE: the
// total is right, and the whole sum runs on one GPU multiprocessor.
TEST_CASE("sum asks for the teams its launch names", "[lesson6][correctness][ompt]") {
  if (!course_test::ompt_witness_ready()) return;
  const std::size_t n = 100003;
  const auto x = ref::sum_input<int>(n, course_test::seed());
  const Launch l{4, 2};
  int got = 0;
  const auto t = course::lesson2_trace::record([&] { got = lesson6::sum(x.data(), n, l); });
  COURSE_CHECK(course::check_equal<long long>(std::vector<long long>{got},
                                              std::vector<long long>{ref::sum_reference(x.data(), n)},
                                              "int sum, n=" + std::to_string(n) + ", " + shape_name(l)));
  REQUIRE(t.kernels >= 1);
  for (unsigned teams : t.requested_teams)
    if (teams != static_cast<unsigned>(l.teams))
      FAIL_CHECK("sum with " << shape_name(l) << " launched a kernel that asked for " << teams
                             << " team(s), not " << l.teams << (teams == 1 ? ": the whole sum ran in one team (one "
                             "multiprocessor of a GPU)" : "") << ". Ask for launch.teams teams with the construct "
                             << "that makes a league of teams, and keep the team's threads inside it (step 6.1, "
                             << "README, Concepts: 4. Team-local and 5. Split by what you get).");
}

TEST_CASE("int sum is faster than one global atomic per element", "[lesson6][speedup]") {
  sum_speedup<int>("int", thresholds::kSumInt);
}
TEST_CASE("float sum is faster than one global atomic per element", "[lesson6][speedup]") {
  sum_speedup<float>("float", thresholds::kSumFloat);
}
TEST_CASE("double sum is faster than one global atomic per element", "[lesson6][speedup]") {
  sum_speedup<double>("double", thresholds::kSumDouble);
}

TEST_CASE("histogram is faster than one global atomic per element", "[lesson6][speedup]") {
  const auto x = ref::histogram_input(speedup_n, course_test::seed());
  std::vector<int> h0(lesson6::hist_bins), h1(lesson6::hist_bins);
  const auto cmp = compare_on_device(
      x, [&] { ref::histogram_global_atomic(x.data(), x.size(), h0.data()); },
      [&] { lesson6::histogram(x.data(), x.size(), h1.data()); });
  COURSE_CHECK(course::check_equal<int>(h1, ref::histogram_reference(x.data(), x.size()),
                                        "histogram, n=" + std::to_string(speedup_n) + " (speedup run)"));
  COURSE_REQUIRE_SPEEDUP(thresholds::kHistogram, "lesson 6 histogram", cmp);
}

// ---- the technique: team-local partials, every thread at work ----------------

namespace {

// Fails (or, on a GPU node without the compiler or the sources, warns) when
// the compiler could not be asked; true when the test may go on.
bool structure_read(const char *what) {
  const Structure &s = structure();
  if (s.ok) {
    if (s.sum.found && s.count.found && s.count_reduction.found) return true;
    FAIL("could not find sum_impl, count_bins and count_bins_reduction in the compiler's -ast-print output (a "
         "newer clang may print them differently): this test, not your code, needs a look. Compiler: "
         << s.cmd);
  }
  return course_test::recompiled(s, what);
}

// Steps 6.1 and 6.2 by their construction: one `target teams` region (not
// combined with a loop), a variable declared in it outside `parallel` (one
// per team: shared memory on a GPU) that the team's threads add into, and a
// barrier before the team's partial leaves. No `reduction` clause: the
// lesson builds by hand what the clause does, because on a GPU the hand-made
// version was 6-10x faster (H200: 4-7 % of the memory bandwidth for the
// clause, 41-51 % for a team-local partial).
void check_team_local(const Construction &c, const char *fn, const char *result, const char *step) {
  if (c.reduction || c.combined) {
    FAIL_CHECK(fn << (c.reduction ? " uses a reduction clause" : " has no team region of its own") << ":\n    "
                  << (c.teams_line.empty() ? std::string("(no `target teams`)") : c.teams_line) << "\nThe "
                  << result << " is right, but the lesson's technique is the one the clause hides: a `target "
                  << "teams` region whose threads (a `parallel` region inside it) add into a partial that exists "
                  << "once per team, and one update of the global " << result << " per team. On a GPU the "
                  << "hand-made partial ran 6-10x faster than the clause (step " << step << ", README, Concepts: 4. "
                  << "Team-local, and 6. The reduction clause).");
    return;
  }
  if (c.team_vars.empty())
    FAIL_CHECK(fn << " keeps no partial per team: no variable declared inside `target teams` but outside "
                  << "`parallel` is used by the team's threads. A private partial per thread, each sent to the "
                  << "global " << result << " by its own atomic, is right, but on a GPU that is one global "
                  << "atomic per thread (hundreds of thousands at one address). The team's threads first combine "
                  << "in memory only the team sees (step " << step << ", README, Concepts: 3 and 4. Team-local).");
  else if (c.barriers == 0)
    FAIL_CHECK(fn << " has a team-local partial (" << c.team_vars.front() << ") but no barrier: nothing makes "
                  << "the thread that passes the partial on wait until every thread of its team has added its "
                  << "share (step " << step << ", README, Concepts: 4. Team-local).");
}

// Each thread's CPU time over repeated calls of @p call, x (n elements)
// already on the device so that only kernels run; fails when one thread did
// more than 75 % of the work.
template <class T, class F>
void check_shared(const char *what, const T *x, std::size_t n, const F &call) {
  std::vector<double> cpu;
#pragma omp target data map(to : x[0:n])
  {
    call();  // warm-up: the teams' threads exist before the count starts
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cpu = course_test::thread_cpu_seconds([&] {
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < 5 || std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(300); ++r) call();
    });
  }
  double total = 0;
  for (double s : cpu) total += s;
  const std::string split = course_test::describe_thread_split(cpu);
  std::cout << what << ", n=" << n << ", default launch: " << split << std::endl;
  if (cpu.empty() || total <= 0) {
    WARN("cannot read per-thread CPU time (/proc/self/task): not graded here");
    return;
  }
  const Launch l = lesson6::default_launch(n);
  if (cpu.front() / total > 0.75)
    FAIL_CHECK(what << " did its work on one thread: " << split << ", where the default launch asks for "
                    << l.teams << " teams x " << l.threads << " threads on " << omp_get_num_procs()
                    << " cores. The answer is right, but every element passed through one thread: each team "
                    << "takes its own block of the elements, and each thread of a team its own share of the "
                    << "block, split by what the runtime granted (README, Concepts: 5. Split by what you get).");
}

}  // namespace

TEST_CASE("sum and histogram keep a partial per team in team-local memory", "[lesson6][correctness]") {
  if (!structure_read("sum_impl and count_bins")) return;
  check_team_local(structure().sum, "sum_impl", "total", "6.1");
  check_team_local(structure().count, "count_bins", "histogram", "6.2");
}

// Step 6.3 by its construction: a `reduction` clause over the array section,
// and no atomic. An atomic per element gives the right counts and is what
// step 6.2 started from; the step is the clause (a run alone may not see the
// race the starter has, see above).
TEST_CASE("histogram_reduction counts with a reduction clause and no atomic", "[lesson6][correctness]") {
  if (!structure_read("count_bins_reduction")) return;
  const Construction &c = structure().count_reduction;
  if (c.atomics > 0)
    FAIL_CHECK("count_bins_reduction writes an atomic (" << c.atomics << " `omp atomic`): step 6.3 fixes the "
               << "race without writing one. OpenMP can give each thread a private copy of the whole array and add the "
               << "copies up at the end: which clause, and does it take an array section? (README, Concepts: 6. "
               << "The reduction clause)");
  if (!c.reduction)
    FAIL_CHECK("count_bins_reduction has no reduction clause: its threads increment the shared hist directly, and "
               << "two that meet on one bin lose a count (often only on a GPU or under the race check). Which "
               << "clause gives each thread a private copy of hist[0:hist_bins]? (step 6.3, README, Concepts: 6. "
               << "The reduction clause)");
}

// Steps 6.1 and 6.2 on the host device: the work is shared. By process CPU
// time (the speed tests' clock on the host device, which a busy machine
// cannot stretch) one thread's plain loop over all elements costs what the
// whole team-local sum costs, and it beat one global atomic per element
// 30-52x, passing every speed test. Here each thread's CPU time during the
// calls shows who worked: the default launch on the host device is one team
// per core, so the solution gives each thread about an equal share, and a
// loop that only thread 0 of team 0 runs leaves one thread with everything.
// Busiest thread allowed: 75 % of the work. On a GPU one thread's loop is far
// slower than the atomics, and the speed tests catch it there.
TEST_CASE("sums and histogram share their work among the teams the runtime grants", "[lesson6][correctness]") {
  if (course::device_info().is_gpu()) {
    SUCCEED("graded by the speed tests on a GPU: one thread's loop there is far slower than the atomics");
    return;
  }
  if (omp_get_num_procs() < 2) {
    WARN("only one core here: whether the work is shared cannot be seen (not graded here)");
    return;
  }
  const std::size_t n = std::size_t(1) << 22;
  // Threads that wait must sleep, not spin: a spinning thread burns CPU time
  // it did not work for (lesson 1's split test does the same).
  course::idle_threads_sleep();
  const auto xi = ref::sum_input<int>(n, course_test::seed());
  const auto xf = ref::sum_input<float>(n, course_test::seed());
  const auto xd = ref::sum_input<double>(n, course_test::seed());
  const auto xh = ref::histogram_input(n, course_test::seed());
  std::vector<int> hist(lesson6::hist_bins);
  check_shared("int sum", xi.data(), n, [&] { (void)lesson6::sum(xi.data(), n); });
  check_shared("float sum", xf.data(), n, [&] { (void)lesson6::sum(xf.data(), n); });
  check_shared("double sum", xd.data(), n, [&] { (void)lesson6::sum(xd.data(), n); });
  check_shared("histogram", xh.data(), n, [&] { lesson6::histogram(xh.data(), n, hist.data()); });
}
