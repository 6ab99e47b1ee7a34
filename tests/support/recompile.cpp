// recompile.cpp -- the one way a lesson test compiles the graded file again
// to read what the compiler made of it (course_test.hpp: Recompile).
#include <string>
#include <vector>

#include "course/device.hpp"
#include "course_test.hpp"

std::string course_test::recompiler(const std::vector<std::filesystem::path> &needs, Recompile &r) {
  const std::string cxx = course_clang();
  if (cxx.empty()) {
    r.why = "no clang++-" + std::to_string(__clang_major__) + " or clang++ on PATH";
  } else {
    for (const auto &p : needs)
      if (!std::filesystem::exists(p)) {
        r.why = p.string() + " is not on this machine";
        break;
      }
    if (r.why.empty()) return cxx;
  }
  r.skipped = course::device_info().is_gpu();  // a GPU node may run binaries built elsewhere
  return "";
}

void course_test::run_recompile(Recompile &r) {
  const int status = run_command(r.cmd, r.out);
  r.ok = status == 0;
  if (r.ok) return;
  r.why = status < 0 ? "cannot run the compiler" : "the compiler failed:\n" + r.out.substr(0, 3000);
  // The toolchain, not the student's code: not graded then; LLVM 21 compiles it.
  if (r.out.find("bits/floatn.h") != std::string::npos && r.out.find("unsupported machine mode") != std::string::npos) {
    r.why = "clang " + std::to_string(__clang_major__) +
            " cannot compile NVIDIA device code against this system's C library (clang 19 with glibc >= 2.41, "
            "Debian 13); LLVM 21 can (scripts/install-deps.sh --llvm 21)";
    r.skipped = true;
  }
}

bool course_test::recompiled(const Recompile &r, const std::string &what) {
  if (r.ok) return true;
  if (r.skipped) {
    WARN("cannot ask the compiler about " << what << " (" << r.why << "); not graded here");
    return false;
  }
  INFO("compiler: " << r.cmd);
  FAIL("cannot ask the compiler about " << what << ": " << r.why);
  return false;
}

// -ast-print writes each literal on one line, escapes kept.
std::string course_test::without_literals(const std::string &text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char q = text[i];
    out += q;
    if (q != '"' && q != '\'') continue;
    std::size_t j = i + 1;
    while (j < text.size() && text[j] != q && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
    if (j >= text.size() || text[j] != q) continue;  // not a literal after all (cannot happen in -ast-print)
    out += q;
    i = j;
  }
  return out;
}
