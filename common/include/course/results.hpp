/// @file results.hpp
/// @brief Result rows shared by the lesson programs and the report: one
///        schema, written as CSV for the report and as Markdown for people.
///
/// A row describes itself: which table it belongs to, what it moved (bytes,
/// flops), which ceiling it is measured against, whether its data sit in a
/// cache, which article figure it reproduces and how to plot it. The report
/// (report/report.py) reads only these columns, so a new lesson program needs
/// no change in report/. Every field after @c note is optional: a row that
/// fills only the first ten still works (the report guesses the role from the
/// variant name and takes the rate as given).
#pragma once

#include <deque>
#include <string>
#include <vector>

namespace course {

/// One measured variant of one kernel. The report reads these from CSV.
struct ResultRow {
  int lesson = 0;            ///< lesson number
  std::string experiment;    ///< the table this row belongs to, e.g. "matmul", "tile sweep"
  std::string variant;       ///< e.g. "serial i-j-k (baseline)", "solution", "tile 16"
  std::string size;          ///< problem size as text, e.g. "1024x1024"
  double time_ms = 0;        ///< median time of one run, milliseconds
  double rate = 0;           ///< throughput in @c unit (0 when not meaningful)
  std::string unit;          ///< "GB/s", "GFLOP/s", "steps/s", "ms" or ""
  /// The ceiling the row is measured against: "copy" (the device's best
  /// memory copy), "fp32" (FP32 compute peak), "sgemm" (the vendor's BLAS on
  /// the device), "host-copy" / "host-fp32" / "host-sgemm" (the same on the
  /// host CPU, for code that runs on host threads in every build), or "".
  std::string ceiling;
  std::string status;        ///< "PASS" or "FAILED" (verification of this run)
  std::string note;          ///< free text, e.g. "registers 64, spills 0"

  // ---- what the report needs to place the row (all optional) ----
  /// "baseline" (what the experiment's speedups are against), "kernel" (the
  /// lesson's kernel under test: solution, yours or starter), "variant" (a
  /// fixed alternative), "part" (a piece of a call, e.g. its copies: no
  /// speedup), "reference" (a ceiling-like measurement inside the program).
  /// Empty: guessed from the variant name.
  std::string role;
  double bytes = 0;          ///< bytes read + written by one run (for GB/s and % of a copy ceiling)
  double flops = 0;          ///< floating-point operations of one run (for GFLOP/s and % of fp32/sgemm)
  bool in_cache = false;     ///< the data fit in the device's last-level cache: may exceed a memory ceiling
  std::string seed;          ///< the seed table this row reproduces, e.g. "1024² fp32 matmul (C++ AMP, Intel GFX)"
  std::string article;       ///< the article's figure for this row, with its source, e.g. "7350 ms (C++ AMP article)"
  double article_ms = 0;     ///< that figure as a time in ms, when it is one (plotted beside ours)
  /// How the report plots the experiment beyond the summary plots: "sweep"
  /// (rate against @c param, a line per size), "split" (shares of a call's
  /// time by @c param), "matrix" (heat map: experiment x @c param), "lines"
  /// (rate against a numeric @c param, a line per variant, log axis), "bars"
  /// (rate per variant, a bar per size), or "" (summary plots only). The
  /// x-axis label may follow a colon: "sweep: team tile edge (elements)".
  std::string plot;
  std::string param;         ///< the plot's x value, column or part (e.g. "4x4", "team-local", "copy in", "256")
  /// Not read by the report: the design's goals live in one table beside the
  /// lessons (lessons/goals.csv), which the report applies to the rows. Kept
  /// while a program still sets it; a program leaves it 0.
  double goal_pct = 0;
};

/// A row with its first ten fields filled in and its status from @p ok
/// ("PASS" or "FAILED"): every lesson program starts its rows here and then
/// sets the optional fields the report needs (role, bytes, flops, plot ...).
ResultRow make_row(int lesson, std::string experiment, std::string variant, std::string size, double time_ms,
                   double rate, std::string unit, std::string ceiling, bool ok, std::string note = "");

/// The rows a lesson program collects, all of one lesson, in the order they
/// were added. add() hands back the new row so the caller can set the fields
/// the report needs (role, bytes, plot ...); the reference stays valid for
/// the life of the Rows (rows are kept in a std::deque, which never moves them).
class Rows {
 public:
  /// An empty list of rows of lesson @p lesson.
  explicit Rows(int lesson) : lesson_(lesson) {}
  /// Appends make_row(lesson, ...) and returns it.
  ResultRow &add(std::string experiment, std::string variant, std::string size, double time_ms, double rate,
                 std::string unit, std::string ceiling, bool ok, std::string note = "");
  /// Appends @p row (made with make_row() of this lesson) and returns it.
  ResultRow &add(ResultRow row);
  /// The rows, in the order added (what finish() and append_csv() take).
  std::vector<ResultRow> list() const { return {rows_.begin(), rows_.end()}; }
  /// The lesson these rows belong to.
  int lesson() const { return lesson_; }

 private:
  int lesson_;
  std::deque<ResultRow> rows_;
};

/// printf-style formatting into a string, for the notes of rows and the
/// columns of a program's console tables.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/// A speed ratio as text, e.g. "2.5x" (@p digits after the point).
std::string times(double ratio, int digits = 1);

/// @p part as a whole-number share of @p whole, e.g. "42 %" (0 % when @p whole
/// is not positive).
std::string percent(double part, double whole);

/// What a program prints after a verified result: "correct", or "WRONG"
/// followed by @p why (the failed check's message).
std::string answer_text(bool ok, const std::string &why);

/// Column names of the CSV, in order.
const std::vector<std::string> &result_columns();

/// A row as one CSV line (fields quoted where needed, no newline).
std::string to_csv(const ResultRow &row);

/// Appends @p rows to the CSV file @p path, writing the header first if the
/// file is new or empty. Throws std::runtime_error naming the path on failure.
void append_csv(const std::string &path, const std::vector<ResultRow> &rows);

/// What a lesson program prints for one verified result: "correct" or
/// "WRONG". It says whether the answer is right and nothing about speed,
/// which the speed tests grade (finish() prints the two apart).
const char *answer_word(bool ok);

/// answer_word() of a row's status.
const char *answer_word(const ResultRow &row);

/// @p rows as a Markdown table (time, rate and answer columns).
std::string to_markdown(const std::vector<ResultRow> &rows);

/// Ends a lesson program: prints @p rows as Markdown, then, apart, the speed
/// of each kernel row against its experiment's baseline row (information: a
/// line says what grades it: the lesson's @p speed_tests speed tests and the
/// command that runs them, or, with none, that its tests grade what the code
/// does; -1: not known, the command that runs all its tests) and, last, how
/// many answers were correct; appends @p rows to @p csv_path when it is not
/// empty. Returns the exit status: 0 when every answer is correct (status
/// PASS), 1 when any is wrong, 2 when the CSV cannot be written.
int finish(const std::vector<ResultRow> &rows, const std::string &csv_path, int speed_tests);

/// How many speed tests (tag [speedup]) the program's lesson has: the build
/// defines COURSE_SPEED_TESTS for a lesson program from its test file (so
/// common/ knows no lesson by number); -1 where it is not defined.
#ifdef COURSE_SPEED_TESTS
#define COURSE_SPEED_TESTS_OF_THIS_PROGRAM (COURSE_SPEED_TESTS)
#else
#define COURSE_SPEED_TESTS_OF_THIS_PROGRAM (-1)
#endif

// static: each program's own files see their lesson's count (one inline
// definition shared by programs with different counts would break the
// one-definition rule).
/// finish() of @p rows, with this program's lesson's speed tests.
[[maybe_unused]] static inline int finish(const std::vector<ResultRow> &rows, const std::string &csv_path) {
  return finish(rows, csv_path, COURSE_SPEED_TESTS_OF_THIS_PROGRAM);
}
/// finish() of @p rows.list().
[[maybe_unused]] static inline int finish(const Rows &rows, const std::string &csv_path) {
  return finish(rows.list(), csv_path, COURSE_SPEED_TESTS_OF_THIS_PROGRAM);
}

/// True when @p bytes (a run's working set) fit in the configured device's
/// last-level cache (course::device_info().cache_bytes), so a rate over a
/// memory ceiling is expected rather than a measuring error.
bool fits_in_cache(double bytes);

}  // namespace course
