// vendor_sgemm.hpp -- what the two vendor-SGEMM ceiling programs share:
// course_sgemm (cuBLAS, on NVIDIA; built by CMake or with nvcc on a GPU node)
// and course_blas_sgemm (OpenBLAS on the host CPU). Each times a library's
// plain FP32 C = A x B at the sizes the lessons use, verifies a sample of C
// against double-precision dot products, and writes the course's CSV rows
// (common/include/course/results.hpp's columns) and its --describe JSON
// (course::Cli's) by hand: neither program links the course's OpenMP
// library, so nvcc can build the first alone.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace vendor_sgemm {

struct Options {
  std::vector<long long> sizes;
  long long reps = 10;
  std::string csv;
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

inline std::vector<long long> parse_list(const char *prog, const std::string &flag, const std::string &text) {
  std::vector<long long> v;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    v.push_back(parse_int(prog, flag, text.substr(at, comma == std::string::npos ? std::string::npos : comma - at), 1,
                          32768));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return v;
}

/// The CSV columns, in order: common/include/course/results.hpp's result_columns().
inline const char *const kColumns[] = {"lesson", "experiment", "variant", "size", "time_ms", "rate", "unit",
                                       "ceiling", "status", "note", "role", "bytes", "flops", "in_cache",
                                       "seed", "article", "article_ms", "plot", "param", "goal_pct"};

/// The size presets (--size tiny|teaching|full) name the sizes the lessons
/// run at in that mode, so each matmul row finds a ceiling at its own size.
struct Preset {
  const char *name;
  const char *sizes;
  long long reps;
};

/// What course::Cli::describe() prints for a lesson program, for these two
/// programs (the report reads it: their sizes and the columns of their rows).
inline void describe(const char *prog, const char *about, const std::vector<Preset> &presets,
                     const Preset &defaults) {
  // prog and about are the programs' own literals: no character needs escaping.
  std::printf("{\"describe\": 1, \"program\": \"%s\", \"about\": \"%s\", \"options\": ["
              "{\"flag\": \"--n\", \"kind\": \"list\", \"default\": \"%s\", \"min\": 1, \"max\": 32768, "
              "\"help\": \"matrix sizes\"}, "
              "{\"flag\": \"--reps\", \"kind\": \"int\", \"default\": \"%lld\", \"min\": 1, \"max\": 1000, "
              "\"help\": \"timed runs per size, the median is reported\"}, "
              "{\"flag\": \"--csv\", \"kind\": \"text\", \"default\": \"none\", "
              "\"help\": \"append result rows to this CSV file\"}], \"sizes\": {",
              prog, about, defaults.sizes, defaults.reps);
  for (std::size_t i = 0; i < presets.size(); ++i)
    std::printf("%s\"%s\": [\"--n\", \"%s\", \"--reps\", \"%lld\"]", i ? ", " : "", presets[i].name,
                presets[i].sizes, presets[i].reps);
  std::printf("}, \"rows\": {\"option\": \"--csv\", \"columns\": [");
  bool first = true;
  for (const char *c : kColumns) {
    std::printf("%s\"%s\"", first ? "" : ", ", c);
    first = false;
  }
  std::printf("]}}\n");
}

inline Options parse(int argc, char **argv, const char *prog, const char *about, const std::vector<Preset> &presets,
                     const Preset &defaults) {
  Options o;
  o.sizes = parse_list(prog, "--n", defaults.sizes);
  o.reps = defaults.reps;
  bool n_given = false, reps_given = false;
  const Preset *chosen = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s: %s\n\noptions:\n  --n N,N,...      matrix sizes [1..32768] (default %s)\n"
                  "  --reps N         timed runs per size, the median is reported [1..1000] (default %lld)\n"
                  "  --csv FILE       append result rows to this CSV file\n  --size NAME      sizes for the course report:",
                  prog, about, defaults.sizes, defaults.reps);
      for (const auto &p : presets) std::printf(" %s (--n %s --reps %lld)", p.name, p.sizes, p.reps);
      std::printf("\n  --describe       these options, sizes and CSV columns as one line of JSON (for the report)\n");
      std::exit(0);
    }
    if (a == "--describe") {
      describe(prog, about, presets, defaults);
      std::exit(0);
    }
    if (i + 1 >= argc) usage_error(prog, (a == "--n" || a == "--reps" || a == "--csv" || a == "--size")
                                             ? a + " needs a value"
                                             : "unknown option '" + a + "'");
    const std::string v = argv[++i];
    if (a == "--n") {
      o.sizes = parse_list(prog, a, v);
      n_given = true;
    } else if (a == "--reps") {
      o.reps = parse_int(prog, a, v, 1, 1000);
      reps_given = true;
    } else if (a == "--csv") {
      o.csv = v;
    } else if (a == "--size") {
      chosen = nullptr;
      std::string names;
      for (const auto &p : presets) {
        names += (names.empty() ? "" : ", ") + std::string(p.name);
        if (v == p.name) chosen = &p;
      }
      if (!chosen) usage_error(prog, "--size must be one of " + names + ", got '" + v + "'");
    } else {
      usage_error(prog, "unknown option '" + a + "'");
    }
  }
  if (chosen && !n_given) o.sizes = parse_list(prog, "--n", chosen->sizes);
  if (chosen && !reps_given) o.reps = chosen->reps;
  return o;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size();
  return k == 0 ? 0 : k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/// Row-major A and B of n x n with values in [-1, 1), a fixed seed.
inline void random_matrices(long long n, std::vector<float> &A, std::vector<float> &B) {
  const std::size_t nn = (std::size_t)n * (std::size_t)n;
  A.resize(nn);
  B.resize(nn);
  std::mt19937 gen(20261121);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (auto &x : A) x = d(gen);
  for (auto &x : B) x = d(gen);
}

/// Checks 64 elements of row-major C = A x B against double dot products,
/// within the worst-case FP32 summation bound. Returns the worst relative error
/// (negative when an element is outside the bound or not finite).
inline double verify(long long n, const std::vector<float> &A, const std::vector<float> &B,
                     const std::vector<float> &C) {
  double worst = 0;
  bool ok = true;
  for (int s = 0; s < 64; ++s) {
    const std::size_t i = (std::size_t)((s * 7919LL) % n), j = (std::size_t)((s * 104729LL) % n);
    const std::size_t nz = (std::size_t)n;
    double ref = 0, mag = 0;
    for (std::size_t k = 0; k < nz; ++k) {
      ref += (double)A[i * nz + k] * B[k * nz + j];
      mag += std::fabs((double)A[i * nz + k] * B[k * nz + j]);
    }
    const float got = C[i * nz + j];
    const double err = std::fabs(got - ref) / (mag > 0 ? mag : 1);
    worst = std::max(worst, err);
    ok = ok && std::isfinite(got) && err <= 2.0 * (double)n * std::ldexp(1.0, -24);
  }
  return ok ? worst : -1;
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

/// One ceiling row in the course's CSV columns (see write_csv's header).
inline std::string csv_row(const std::string &ceiling, long long n, double ms, double gflops, bool ok,
                           const std::string &note) {
  const std::string size = std::to_string(n) + "x" + std::to_string(n);
  const double flops = 2.0 * (double)n * (double)n * (double)n;
  return "0,ceiling," + ceiling + "," + size + "," + num(ms) + "," + num(gflops) + ",GFLOP/s," + ceiling + "," +
         (ok ? "PASS" : "FAILED") + "," + quote(note) + ",ceiling,0," + num(flops) + ",0,,,0,,,0";
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

}  // namespace vendor_sgemm
