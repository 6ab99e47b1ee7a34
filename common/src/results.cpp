// results.cpp -- CSV and Markdown output of result rows (see course/results.hpp).
#include "course/results.hpp"

#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "course/device.hpp"

namespace course {

ResultRow make_row(int lesson, std::string experiment, std::string variant, std::string size, double time_ms,
                   double rate, std::string unit, std::string ceiling, bool ok, std::string note) {
  ResultRow r;
  r.lesson = lesson;
  r.experiment = std::move(experiment);
  r.variant = std::move(variant);
  r.size = std::move(size);
  r.time_ms = time_ms;
  r.rate = rate;
  r.unit = std::move(unit);
  r.ceiling = std::move(ceiling);
  r.status = ok ? "PASS" : "FAILED";
  r.note = std::move(note);
  return r;
}

ResultRow &Rows::add(std::string experiment, std::string variant, std::string size, double time_ms, double rate,
                     std::string unit, std::string ceiling, bool ok, std::string note) {
  return add(make_row(lesson_, std::move(experiment), std::move(variant), std::move(size), time_ms, rate,
                      std::move(unit), std::move(ceiling), ok, std::move(note)));
}

ResultRow &Rows::add(ResultRow row) {
  rows_.push_back(std::move(row));
  return rows_.back();
}

std::string format(const char *fmt, ...) {
  va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  const int len = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string out(len > 0 ? static_cast<std::size_t>(len) : 0, '\0');
  if (len > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, again);
  va_end(again);
  return out;
}

std::string times(double ratio, int digits) { return format("%.*fx", digits, ratio); }

std::string percent(double part, double whole) { return format("%.0f %%", whole > 0 ? 100 * part / whole : 0.0); }

std::string answer_text(bool ok, const std::string &why) { return ok ? "correct" : "WRONG  " + why; }

namespace {

std::string quote(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number(double v) {
  std::ostringstream o;
  o << std::setprecision(6) << v;
  return o.str();
}

}  // namespace

const std::vector<std::string> &result_columns() {
  // The first ten are the original schema; the rest were added so rows
  // describe themselves (a reader that knows only the first ten still works).
  static const std::vector<std::string> cols = {
      "lesson", "experiment", "variant", "size", "time_ms", "rate",       "unit",  "ceiling", "status",
      "note",   "role",       "bytes",   "flops", "in_cache", "seed", "article", "article_ms", "plot",
      "param",  "goal_pct"};
  return cols;
}

std::string to_csv(const ResultRow &r) {
  return std::to_string(r.lesson) + "," + quote(r.experiment) + "," + quote(r.variant) + "," + quote(r.size) + "," +
         number(r.time_ms) + "," + number(r.rate) + "," + quote(r.unit) + "," + quote(r.ceiling) + "," +
         quote(r.status) + "," + quote(r.note) + "," + quote(r.role) + "," + number(r.bytes) + "," +
         number(r.flops) + "," + (r.in_cache ? "1" : "0") + "," + quote(r.seed) + "," + quote(r.article) + "," +
         number(r.article_ms) + "," + quote(r.plot) + "," + quote(r.param) + "," + number(r.goal_pct);
}

void append_csv(const std::string &path, const std::vector<ResultRow> &rows) {
  bool fresh = true;
  {
    std::ifstream in(path);
    fresh = !in || in.peek() == std::ifstream::traits_type::eof();
  }
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::runtime_error("cannot write CSV file '" + path + "'");
  if (fresh) {
    const auto &cols = result_columns();
    for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << cols[i];
    out << "\n";
  }
  for (const auto &r : rows) out << to_csv(r) << "\n";
  if (!out) throw std::runtime_error("writing CSV file '" + path + "' failed");
}

const char *answer_word(bool ok) { return ok ? "correct" : "WRONG"; }

const char *answer_word(const ResultRow &row) { return answer_word(row.status == "PASS"); }

std::string to_markdown(const std::vector<ResultRow> &rows) {
  std::ostringstream o;
  o << "| experiment | variant | size | time (ms) | rate | answer |\n|---|---|---|---:|---:|---|\n";
  for (const auto &r : rows) {
    o << "| " << r.experiment << " | " << r.variant << " | " << r.size << " | " << std::fixed << std::setprecision(2)
      << r.time_ms << " | ";
    if (r.rate > 0) o << std::setprecision(1) << r.rate << " " << r.unit << (r.in_cache ? " (in cache)" : "");
    o << " | " << answer_word(r) << (r.note.empty() ? "" : " (" + r.note + ")") << " |\n";
    o.unsetf(std::ios::floatfield);
  }
  return o.str();
}

namespace {

// Each kernel row against the baseline row of its experiment and size, where
// the program ran both and both answers were right.
std::string speed_lines(const std::vector<ResultRow> &rows) {
  std::string out;
  int shown = 0, more = 0;
  for (const auto &k : rows) {
    if (k.role != "kernel" || k.status != "PASS" || k.time_ms <= 0) continue;
    for (const auto &b : rows) {
      if (b.role != "baseline" || b.experiment != k.experiment || b.size != k.size || b.status != "PASS" ||
          b.time_ms <= 0)
        continue;
      if (shown == 8) {  // lesson 8 has a kernel row per pattern and size: the table holds them all
        ++more;
        break;
      }
      const double x = b.time_ms / k.time_ms;
      char line[512];
      std::snprintf(line, sizeof line, "  %s: %.1fx %s than %s (%s, %s)\n", k.variant.c_str(), x >= 1 ? x : 1 / x,
                    x >= 1 ? "faster" : "slower", b.variant.c_str(), k.experiment.c_str(), k.size.c_str());
      out += line;
      ++shown;
      break;
    }
  }
  if (more) out += "  ... and " + std::to_string(more) + " more kernel rows\n";
  return out;
}

}  // namespace

int finish(const std::vector<ResultRow> &rows, const std::string &csv_path, int speed_tests) {
  std::printf("\n%s", to_markdown(rows).c_str());
  int failed = 0;
  for (const auto &r : rows) failed += r.status != "PASS";
  if (!csv_path.empty()) {
    try {
      append_csv(csv_path, rows);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 2;
    }
  }
  // Correctness and speed apart, as the tests grade them: "correct" says
  // nothing about speed (an untouched starter is often correct and slow).
  // The answers come last: the report quotes a failed program's last line.
  const std::string speed = speed_lines(rows);
  if (!speed.empty()) std::printf("speed here and now, not a grade:\n%s", speed.c_str());
  // What grades speed, in a command that finds tests: `-L speedup` only where
  // the lesson has speed tests (ctest's student preset errors on none).
  const int lesson = rows.empty() ? 0 : rows.front().lesson;
  if (lesson > 0 && speed_tests > 0)
    std::printf("speed is graded by the lesson's %d speed test%s (fixed baselines, thresholds per device class): "
                "ctest --preset student -L '^lesson%d$' -L speedup\n",
                speed_tests, speed_tests == 1 ? "" : "s", lesson);
  else if (lesson > 0 && speed_tests == 0)
    std::printf("speed is not graded in this lesson (the times above are information); its tests grade what the "
                "code does: ctest --preset student -L '^lesson%d$'\n", lesson);
  else if (lesson > 0)
    std::printf("the lesson's tests grade it, speed by those labelled speedup where it has any: "
                "ctest --preset student -L '^lesson%d$' (list them: add -N)\n", lesson);
  std::printf("answers: %d of %zu variants correct%s\n", (int)rows.size() - failed, rows.size(),
              failed ? " (WRONG ones above)" : "");
  return failed ? 1 : 0;
}

bool fits_in_cache(double bytes) {
  const double cache = device_info().cache_bytes;
  return cache > 0 && bytes < cache;  // a working set as large as the cache does not stay in it
}

}  // namespace course
