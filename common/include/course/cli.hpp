/// @file cli.hpp
/// @brief Command-line options that describe themselves, to people (--help)
///        and to the course report (--describe, JSON). A bad value prints one
///        line naming the option and exits with status 2.
#pragma once

#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace course {

/// A tiny option parser for the lesson programs:
/// @code
///   course::Cli cli("lesson01", "CPU baseline matmul: serial vs yours");
///   int n = cli.integer("--n", 512, "matrix size", 1, 16384);
///   cli.parse(argc, argv);   // --help prints the options; bad input exits 2
/// @endcode
/// Every program built on it also answers `--describe` with one line of JSON:
/// its options, its size presets and, when it has a `--csv` option, the
/// columns of the rows it writes there (course::result_columns()). The
/// report reads that instead of the --help text (see describe()).
class Cli {
 public:
  /// @p program names the program in messages; @p about is the --help headline.
  Cli(std::string program, std::string about);

  /// Declares an integer option with a default and an inclusive range.
  /// The returned reference is filled in by parse().
  long long &integer(const std::string &flag, long long value, const std::string &help, long long min,
                     long long max);
  /// Declares a list of integers ("1,17,512") with an inclusive range per item.
  std::vector<long long> &integers(const std::string &flag, std::vector<long long> value, const std::string &help,
                                   long long min, long long max);
  /// Declares a string option (for example a CSV output path).
  std::string &text(const std::string &flag, std::string value, const std::string &help);
  /// Declares a flag that takes no value.
  bool &flag(const std::string &flag, const std::string &help);

  /// Declares what `--size NAME` sets, as options on a command line (e.g.
  /// {"--n", "33", "--reps", "1"}); options given explicitly win over it.
  /// The course's names: "tiny" (seconds: the report's test), "teaching" (the
  /// report's default: minutes on a laptop), "full" (the articles' and the
  /// design's sizes). The report runs every program with --size, so a
  /// program's sizes live in the program, not in the report. The first
  /// preset declared adds --size to --help.
  void preset(const std::string &name, std::vector<std::string> args);

  /// The --size given ("" when none).
  const std::string &size_preset() const { return size_; }

  /// Parses argv. --help prints usage and --describe the JSON description
  /// (both exit 0); an unknown option or a bad value prints
  /// "program: error: ..." on one line and exits 2.
  void parse(int argc, char **argv);

  /// The program described for tools, as one line of JSON:
  /// @code
  ///   {"describe": 1, "program": "lesson01", "about": "...",
  ///    "options": [{"flag": "--n", "kind": "int", "default": "512", "min": 1, "max": 16384,
  ///                 "help": "matrix size"}, ...],
  ///    "sizes": {"tiny": ["--n", "33"], "teaching": [], ...},
  ///    "rows": {"option": "--csv", "columns": ["lesson", "experiment", ...]}}
  /// @endcode
  /// "kind" is int, list, text or flag; "min"/"max" only for int and list;
  /// "sizes" is {} without presets; "rows" is null without a --csv option.
  /// "describe" is the format's version.
  std::string describe() const;

  /// Prints "program: error: what" and exits 2 (for checks across options).
  [[noreturn]] void fail(const std::string &what) const;

 private:
  struct Option {
    std::string flag, help, kind, shown_default;
    long long min = 0, max = 0;
    long long *integer = nullptr;
    std::vector<long long> *list = nullptr;
    std::string *text = nullptr;
    bool *set = nullptr;
  };
  long long parse_integer(const Option &o, const std::string &value) const;
  void parse_list(const std::vector<std::string> &args);
  void print_help() const;
  std::string program_, about_, size_;
  std::vector<std::pair<std::string, std::vector<std::string>>> presets_;
  // deques: references handed out stay valid as options are added
  std::deque<Option> options_;
  std::deque<long long> integers_;
  std::deque<std::vector<long long>> lists_;
  std::deque<std::string> texts_;
  std::deque<bool> flags_;
};

}  // namespace course
