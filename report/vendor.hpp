// vendor.hpp -- what the report's vendor programs share: course_sgemm
// (cuBLAS), course_blas_sgemm (OpenBLAS), course_cub (CUB's reduce and
// histogram) and course_cuda_nbody (the classic CUDA N-body kernel). Each
// times a vendor's code at the sizes the lessons run, checks its answer, and
// writes ceiling rows in the course's CSV columns
// (common/include/course/results.hpp) and its --describe JSON (course::Cli's)
// by hand: none links the course's OpenMP library, so nvcc builds the CUDA
// ones alone on a GPU node (scripts/report-gpu.sh).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace vendor {

struct Options {
  std::vector<long long> sizes;
  long long reps = 10;
  std::string csv;
};

/// A size preset (--size tiny|teaching|full): the sizes the lessons run at in
/// that mode, so each lesson row finds its ceiling at its own size.
struct Preset {
  const char *name;
  const char *sizes;
  long long reps;
};

/// One program's command line: what --n counts, its largest value, its presets.
struct Spec {
  const char *prog, *about, *sizes_are;
  long long max_size;
  std::vector<Preset> presets;
  Preset defaults;
};

[[noreturn]] inline void usage_error(const char *prog, const std::string &what) {
  std::fprintf(stderr, "%s: error: %s (see --help)\n", prog, what.c_str());
  std::exit(2);
}

inline long long parse_int(const char *prog, const std::string &flag, const std::string &text, long long lo,
                           long long hi) {
  errno = 0;
  char *end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno == ERANGE) usage_error(prog, flag + " expects an integer, got '" + text + "'");
  if (v < lo || v > hi)
    usage_error(prog, flag + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                          text);
  return v;
}

inline std::vector<long long> parse_list(const Spec &s, const std::string &text) {
  std::vector<long long> v;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    v.push_back(parse_int(s.prog, "--n", text.substr(at, comma == std::string::npos ? std::string::npos : comma - at),
                          1, s.max_size));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return v;
}

/// The CSV columns, in order: common/include/course/results.hpp's result_columns().
inline const char *const kColumns[] = {"lesson", "experiment", "variant", "size", "time_ms", "rate", "unit",
                                       "ceiling", "status", "note", "role", "bytes", "flops", "in_cache",
                                       "seed", "article", "article_ms", "plot", "param", "goal_pct"};

/// What course::Cli::describe() prints for a lesson program (the report reads
/// it: the program's sizes and the columns of its rows).
inline void describe(const Spec &s) {
  // The strings are the programs' own literals: no character needs escaping.
  std::printf("{\"describe\": 1, \"program\": \"%s\", \"about\": \"%s\", \"options\": ["
              "{\"flag\": \"--n\", \"kind\": \"list\", \"default\": \"%s\", \"min\": 1, \"max\": %lld, "
              "\"help\": \"%s\"}, "
              "{\"flag\": \"--reps\", \"kind\": \"int\", \"default\": \"%lld\", \"min\": 1, \"max\": 1000, "
              "\"help\": \"timed runs per size, the median is reported\"}, "
              "{\"flag\": \"--csv\", \"kind\": \"text\", \"default\": \"none\", "
              "\"help\": \"append result rows to this CSV file\"}], \"sizes\": {",
              s.prog, s.about, s.defaults.sizes, s.max_size, s.sizes_are, s.defaults.reps);
  for (std::size_t i = 0; i < s.presets.size(); ++i)
    std::printf("%s\"%s\": [\"--n\", \"%s\", \"--reps\", \"%lld\"]", i ? ", " : "", s.presets[i].name,
                s.presets[i].sizes, s.presets[i].reps);
  std::printf("}, \"rows\": {\"option\": \"--csv\", \"columns\": [");
  bool first = true;
  for (const char *c : kColumns) {
    std::printf("%s\"%s\"", first ? "" : ", ", c);
    first = false;
  }
  std::printf("]}}\n");
}

inline Options parse(int argc, char **argv, const Spec &s) {
  Options o;
  o.sizes = parse_list(s, s.defaults.sizes);
  o.reps = s.defaults.reps;
  bool n_given = false, reps_given = false;
  const Preset *chosen = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s: %s\n\noptions:\n  --n N,N,...      %s [1..%lld] (default %s)\n"
                  "  --reps N         timed runs per size, the median is reported [1..1000] (default %lld)\n"
                  "  --csv FILE       append result rows to this CSV file\n  --size NAME      sizes for the course report:",
                  s.prog, s.about, s.sizes_are, s.max_size, s.defaults.sizes, s.defaults.reps);
      for (const auto &p : s.presets) std::printf(" %s (--n %s --reps %lld)", p.name, p.sizes, p.reps);
      std::printf("\n  --describe       these options, sizes and CSV columns as one line of JSON (for the report)\n");
      std::exit(0);
    }
    if (a == "--describe") {
      describe(s);
      std::exit(0);
    }
    if (i + 1 >= argc) usage_error(s.prog, (a == "--n" || a == "--reps" || a == "--csv" || a == "--size")
                                               ? a + " needs a value"
                                               : "unknown option '" + a + "'");
    const std::string v = argv[++i];
    if (a == "--n") {
      o.sizes = parse_list(s, v);
      n_given = true;
    } else if (a == "--reps") {
      o.reps = parse_int(s.prog, a, v, 1, 1000);
      reps_given = true;
    } else if (a == "--csv") {
      o.csv = v;
    } else if (a == "--size") {
      chosen = nullptr;
      std::string names;
      for (const auto &p : s.presets) {
        names += (names.empty() ? "" : ", ") + std::string(p.name);
        if (v == p.name) chosen = &p;
      }
      if (!chosen) usage_error(s.prog, "--size must be one of " + names + ", got '" + v + "'");
    } else {
      usage_error(s.prog, "unknown option '" + a + "'");
    }
  }
  if (chosen && !n_given) o.sizes = parse_list(s, chosen->sizes);
  if (chosen && !reps_given) o.reps = chosen->reps;
  return o;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size();
  return k == 0 ? 0 : k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

inline std::string quote(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

inline std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

/// One row of lesson 0 in the course's CSV columns (see write_csv's header):
/// role "ceiling" for a ceiling the lessons' rows may name (variant = its
/// name), "reference" for a measurement shown beside the ceilings.
inline std::string row(const std::string &name, const std::string &role, const std::string &size, double ms,
                       double rate, const std::string &unit, double bytes, double flops, bool ok,
                       const std::string &note) {
  return "0,ceiling," + name + "," + size + "," + num(ms) + "," + num(rate) + "," + unit + "," +
         (role == "ceiling" ? name : std::string()) + "," + (ok ? "PASS" : "FAILED") + "," + quote(note) + "," + role +
         "," + num(bytes) + "," + num(flops) + ",0,,,0,,,0";
}

/// What a row's variant ends with when it is the per-call twin of the ceiling
/// row of the same name and size (report/course_report/schema.py PER_CALL).
inline const char *const kPerCall = " per call";

/// The per-call twin of ceiling row @p name: the same call timed on the host's
/// clock with its synchronisation (role "reference": no lesson row divides by
/// it, the report's vendor table sets it beside the lesson's own per-call time).
inline std::string call_row(const std::string &name, const std::string &size, double ms, double rate,
                            const std::string &unit, double bytes, double flops, bool ok, const std::string &note) {
  return row(name + kPerCall, "reference", size, ms, rate, unit, bytes, flops, ok, note);
}

inline int write_csv(const char *prog, const std::string &path, const std::vector<std::string> &rows) {
  if (path.empty()) return 0;
  FILE *f = std::fopen(path.c_str(), "a+");
  if (!f) {
    std::fprintf(stderr, "%s: error: cannot write CSV file '%s'\n", prog, path.c_str());
    return 2;
  }
  std::fseek(f, 0, SEEK_END);
  if (std::ftell(f) == 0) {
    bool first = true;
    for (const char *c : kColumns) {
      std::fprintf(f, "%s%s", first ? "" : ",", c);
      first = false;
    }
    std::fprintf(f, "\n");
  }
  for (const auto &r : rows) std::fprintf(f, "%s\n", r.c_str());
  std::fclose(f);
  return 0;
}

}  // namespace vendor
