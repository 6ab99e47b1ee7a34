// cli.cpp -- self-describing options with one-line errors (see course/cli.hpp).
#include "course/cli.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace course {

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

void Cli::parse(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << program_ << ": " << about_ << "\n\noptions:\n";
      for (const auto &o : options_) {
        std::string left = "  " + o.flag + (o.kind == "flag" ? "" : o.kind == "list" ? " N,N,..." : o.kind == "int" ? " N" : " TEXT");
        std::cout << left << std::string(left.size() < 26 ? 26 - left.size() : 1, ' ') << o.help;
        if (o.kind == "int" || o.kind == "list") std::cout << " [" << o.min << ".." << o.max << "]";
        if (o.kind != "flag") std::cout << " (default " << o.shown_default << ")";
        std::cout << "\n";
      }
      std::exit(0);
    }
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
      if (i + 1 >= argc) fail(opt->flag + " needs a value");
      value = argv[++i];
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
