// cli.cpp -- self-describing options (--help for people, --describe as JSON
// for the report) with one-line errors (see course/cli.hpp).
#include "course/cli.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "course/results.hpp"

namespace course {
namespace {

// A JSON string literal: quotes, backslashes and control characters escaped.
std::string json_string(const std::string &s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_strings(const std::vector<std::string> &items) {
  std::string out = "[";
  for (const auto &s : items) out += (out.size() > 1 ? ", " : "") + json_string(s);
  return out + "]";
}

}  // namespace

Cli::Cli(std::string program, std::string about) : program_(std::move(program)), about_(std::move(about)) {}

long long &Cli::integer(const std::string &flag, long long value, const std::string &help, long long min,
                        long long max) {
  integers_.push_back(value);
  Option o{flag, help, "int", std::to_string(value), min, max};
  o.integer = &integers_.back();
  options_.push_back(o);
  return integers_.back();
}

std::vector<long long> &Cli::integers(const std::string &flag, std::vector<long long> value, const std::string &help,
                                      long long min, long long max) {
  std::string shown;
  for (auto v : value) shown += (shown.empty() ? "" : ",") + std::to_string(v);
  lists_.push_back(std::move(value));
  Option o{flag, help, "list", shown, min, max};
  o.list = &lists_.back();
  options_.push_back(o);
  return lists_.back();
}

std::string &Cli::text(const std::string &flag, std::string value, const std::string &help) {
  texts_.push_back(value);
  Option o{flag, help, "text", value.empty() ? "none" : value};
  o.text = &texts_.back();
  options_.push_back(o);
  return texts_.back();
}

bool &Cli::flag(const std::string &flag, const std::string &help) {
  flags_.push_back(false);
  Option o{flag, help, "flag", ""};
  o.set = &flags_.back();
  options_.push_back(o);
  return flags_.back();
}

void Cli::fail(const std::string &what) const {
  std::cerr << program_ << ": error: " << what << " (see --help)\n";
  std::exit(2);
}

long long Cli::parse_integer(const Option &o, const std::string &value) const {
  errno = 0;
  char *end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE)
    fail(o.flag + " expects an integer, got '" + value + "'");
  if (v < o.min || v > o.max)
    fail(o.flag + " must be between " + std::to_string(o.min) + " and " + std::to_string(o.max) + ", got " + value);
  return v;
}

void Cli::preset(const std::string &name, std::vector<std::string> args) {
  for (auto &p : presets_)
    if (p.first == name) {
      p.second = std::move(args);
      return;
    }
  presets_.emplace_back(name, std::move(args));
}

void Cli::print_help() const {
  std::cout << program_ << ": " << about_ << "\n\noptions:\n";
  auto line = [](const std::string &left, const std::string &help) {
    std::cout << left << std::string(left.size() < 26 ? 26 - left.size() : 1, ' ') << help << "\n";
  };
  for (const auto &o : options_) {
    std::string left = "  " + o.flag + (o.kind == "flag" ? "" : o.kind == "list" ? " N,N,..." : o.kind == "int" ? " N" : " TEXT");
    std::string help = o.help;
    if (o.kind == "int" || o.kind == "list") help += " [" + std::to_string(o.min) + ".." + std::to_string(o.max) + "]";
    if (o.kind != "flag") help += " (default " + o.shown_default + ")";
    line(left, help);
  }
  if (!presets_.empty()) {
    std::string names;
    for (const auto &p : presets_) names += (names.empty() ? "" : "|") + p.first;
    line("  --size " + names, "sizes for the course report; options given as well win:");
    for (const auto &p : presets_) {
      std::string args;
      for (const auto &a : p.second) args += (args.empty() ? "" : " ") + a;
      line("", "  " + p.first + ": " + (args.empty() ? "(the defaults)" : args));
    }
  }
  line("  --describe", "these options, sizes and CSV columns as one line of JSON (for the report)");
}

std::string Cli::describe() const {
  std::string out = "{\"describe\": 1, \"program\": " + json_string(program_) + ", \"about\": " + json_string(about_) +
                    ", \"options\": [";
  bool csv = false;
  for (std::size_t i = 0; i < options_.size(); ++i) {
    const Option &o = options_[i];
    out += (i ? ", " : "") + std::string("{\"flag\": ") + json_string(o.flag) + ", \"kind\": " + json_string(o.kind);
    if (o.kind != "flag") out += ", \"default\": " + json_string(o.shown_default);
    if (o.kind == "int" || o.kind == "list")
      out += ", \"min\": " + std::to_string(o.min) + ", \"max\": " + std::to_string(o.max);
    out += ", \"help\": " + json_string(o.help) + "}";
    csv = csv || (o.flag == "--csv" && o.kind == "text");
  }
  out += "], \"sizes\": {";
  for (std::size_t i = 0; i < presets_.size(); ++i)
    out += (i ? ", " : "") + json_string(presets_[i].first) + ": " + json_strings(presets_[i].second);
  out += "}, \"rows\": ";
  out += csv ? "{\"option\": \"--csv\", \"columns\": " + json_strings(result_columns()) + "}" : std::string("null");
  return out + "}";
}

void Cli::parse(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // --size first: its options are applied before the explicit ones, which win.
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      print_help();
      std::exit(0);
    }
    if (args[i] == "--describe") {
      std::cout << describe() << "\n";
      std::exit(0);
    }
    std::string value;
    if (args[i] == "--size") {
      if (i + 1 >= args.size()) fail("--size needs a value");
      value = args[++i];
    } else if (args[i].rfind("--size=", 0) == 0) {
      value = args[i].substr(7);
    } else {
      rest.push_back(args[i]);
      continue;
    }
    if (presets_.empty()) fail("unknown option '--size'");
    const std::pair<std::string, std::vector<std::string>> *found = nullptr;
    std::string names;
    for (const auto &p : presets_) {
      names += (names.empty() ? "" : ", ") + p.first;
      if (p.first == value) found = &p;
    }
    if (!found) fail("--size must be one of " + names + ", got '" + value + "'");
    size_ = value;
  }
  if (!size_.empty())
    for (const auto &p : presets_)
      if (p.first == size_) parse_list(p.second);
  parse_list(rest);
}

void Cli::parse_list(const std::vector<std::string> &args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string value;
    bool inline_value = false;
    if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inline_value = true;
    }
    Option *opt = nullptr;
    for (auto &o : options_)
      if (o.flag == arg) opt = &o;
    if (!opt) fail("unknown option '" + arg + "'");
    if (opt->kind == "flag") {
      if (inline_value) fail(opt->flag + " takes no value");
      *opt->set = true;
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) fail(opt->flag + " needs a value");
      value = args[++i];
    }
    if (opt->kind == "int") {
      *opt->integer = parse_integer(*opt, value);
    } else if (opt->kind == "list") {
      opt->list->clear();
      std::stringstream ss(value);
      std::string item;
      while (std::getline(ss, item, ',')) opt->list->push_back(parse_integer(*opt, item));
      if (opt->list->empty()) fail(opt->flag + " expects a comma-separated list of integers, got '" + value + "'");
    } else {
      *opt->text = value;
    }
  }
}

}  // namespace course
