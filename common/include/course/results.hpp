/// @file results.hpp
/// @brief Result rows shared by the lesson programs and the report: one
///        schema, written as CSV for the report and as Markdown for people.
#pragma once

#include <string>
#include <vector>

namespace course {

/// One measured variant of one kernel. The report reads these from CSV.
struct ResultRow {
  int lesson = 0;            ///< lesson number
  std::string experiment;    ///< what is measured, e.g. "matmul", "tile sweep"
  std::string variant;       ///< e.g. "serial baseline", "starter", "solution", "tile 16"
  std::string size;          ///< problem size as text, e.g. "1024x1024"
  double time_ms = 0;        ///< median time of one run, milliseconds
  double rate = 0;           ///< throughput in @c unit (0 when not meaningful)
  std::string unit;          ///< "GFLOP/s", "GB/s", "steps/s" or ""
  std::string ceiling;       ///< which ceiling the rate compares with: "copy-bandwidth", "fp32-peak", "sgemm" or ""
  std::string status;        ///< "PASS" or "FAILED" (verification of this run)
  std::string note;          ///< free text, e.g. "registers 64, spills 0"
};

/// Column names of the CSV, in order.
const std::vector<std::string> &result_columns();

/// A row as one CSV line (fields quoted where needed, no newline).
std::string to_csv(const ResultRow &row);

/// Appends @p rows to the CSV file @p path, writing the header first if the
/// file is new or empty. Throws std::runtime_error naming the path on failure.
void append_csv(const std::string &path, const std::vector<ResultRow> &rows);

/// @p rows as a Markdown table (time, rate and status columns).
std::string to_markdown(const std::vector<ResultRow> &rows);

/// Ends a lesson program: prints @p rows as Markdown, appends them to
/// @p csv_path when it is not empty, and returns the exit status: 0 when every
/// row is PASS, 1 when any is FAILED, 2 when the CSV cannot be written.
int finish(const std::vector<ResultRow> &rows, const std::string &csv_path);

}  // namespace course
