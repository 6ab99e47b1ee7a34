// What lesson09's experiments share: the problem they all run (one add-exp
// job, its inputs, output and reference) and the line each result prints.
// driver/main.cpp runs the experiments in the order declared below.
#pragma once

#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "async.hpp"
#include "course/data.hpp"
#include "course/results.hpp"
#include "course/verify.hpp"
#include "lesson09_async.hpp"

namespace driver {

// A check's outcome without an array behind it (a pass, or what went wrong).
inline course::Check outcome(bool ok, const std::string &message) {
  course::Check c;
  c.ok = ok;
  if (!ok) c.message = message;
  return c;
}

// The job every experiment runs: result = first + a series in second.
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
        ref(course::baseline::lesson9::add_exp_reference(n_, first.data(), second.data())),
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
    return course::check_close<float>(std::span<const float>(result), ref, lesson9::result_tolerance, who + " " + size);
  }
  // Elements per second of a whole run, in millions.
  double melems(double ms) const { return n / ms / 1e3; }
};

// One line of a table: name, ms, a rate ("-" when 0), the ratio and the answer.
inline void print_line(const char *name, double ms, double rate, const std::string &vs, const course::Check &c) {
  const std::string r = rate > 0 ? course::format("%.2f", rate) : "-";
  std::printf("  %-40s %10.3f %9s %10s  %s\n", name, ms, r.c_str(), vs.c_str(),
              course::answer_text(c.ok, c.message).c_str());
  std::fflush(stdout);
}

// 1. overlap: the synchronous version split and whole, your pipeline per chunk count (overlap.cpp).
void overlap(course::Rows &rows, Problem &p, const std::vector<long long> &chunk_list, int reps, bool only_yours,
             bool show_timeline);
// One run of the pipeline as the runtime reported it to this program's OMPT tool (timeline.cpp).
void timeline(Problem &p, int chunks);
// 2. device memory you manage: upload / kernel / download / release (devices.cpp).
void device_memory(course::Rows &rows, Problem &p, int reps);
// 3. every device: one device, then your split over 1, 2, ... devices (devices.cpp).
void every_device(course::Rows &rows, Problem &p, int devices, int reps, bool only_yours);
// 4. pinned host memory: copies from pageable and from your pinned_alloc() memory, and the pipeline on it (pinned.cpp).
void pinned(course::Rows &rows, Problem &p, int chunks, int reps, bool only_yours);

}  // namespace driver
