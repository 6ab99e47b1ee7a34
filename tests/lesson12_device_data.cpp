// Lesson 12 tests -- data that lives on the device. The thermometer pipeline
// must give the right temperatures, and each table must be where the lesson
// puts it. Two witnesses, as in lesson 2:
//  - device memory, on every device and runtime: the test makes the host's
//    copy and the device's copy of something differ (the calibration table,
//    the readings, the temperatures) and checks which one the code used:
//    the device's tables (12.1), a device copy brought up to date (12.2),
//    the caller's device copy and never the stale host one (12.3), the host
//    copy below the offload threshold and the device copy from it on (12.4);
//  - the device's copy changed behind the host's back: the test writes other
//    values into the device's copies of the tables (omp_target_memcpy to the
//    address omp_get_mapped_ptr gives) and convert() must follow them (12.1),
//    and it reads the device's copy back after set_calibration() (12.2);
//  - an OMPT tool (lesson02_ompt.hpp) that counts launches, constructs and
//    copies: no table crosses per convert() call (12.1), the linked table
//    crosses once, one way (12.1), set_calibration() is one `target update`
//    and no kernel (12.2), and no kernel is launched below the threshold (12.4);
//  - thermo.cpp as the compiler reads it (-ast-print of lesson12::source_file(),
//    string literals emptied): what no run can tell apart, since a right
//    answer comes either way: the large table declared `link` and the device
//    functions taking no table (12.1), `present, alloc` on apply_correction's
//    one region (12.3), convert's one region deciding with its own `if` clause
//    on kOffloadThreshold, nothing branching before it (12.4).
// No speed test: the threshold is a named constant (thermo.hpp) that the
// lesson program measures; the tests check that the code honours it.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <span>
#include <string>
#include <vector>

#include "course/data.hpp"
#include "course/device.hpp"
#include "course/verify.hpp"
#include "course_test.hpp"
#include "lesson02_ompt.hpp"  // defines this program's OMPT tool: include nowhere else
#include "lesson12_thermo.hpp"
#include "ompt_witness.hpp"
#include "thermo.hpp"

namespace {

namespace trace = course::lesson2_trace;
namespace ref = course::lesson12_ref;
using lesson12::kOffloadThreshold;

using course_test::expect;  // a check from a condition, for COURSE_CHECK

std::string str(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

// Temperatures of about 300 K from a float cubic: a few ulp each (1e-7
// relative); 2e-6 leaves room, while the other polynomial of the
// recalibration tests is off by 1e-2 or more.
constexpr double kTol = 2e-6;
// kelvin + a table entry of 0.05 K at most: one float rounding of the sum.
constexpr double kCorrectionTol = 1e-6;

std::vector<int> readings(int n, std::uint64_t salt = 0) {
  return course::random_vector<int>((std::size_t)n, course_test::seed() + salt, 0, 4095);
}

// Temperatures spread over the table's range and a little past both ends.
std::vector<float> temperatures(int n, std::uint64_t salt = 0) {
  return course::random_vector<float>((std::size_t)n, course_test::seed() + 7 + salt, 190.f, 410.f);
}

std::vector<float> converted(int n, const std::vector<int> &raw) {
  auto kelvin = course_test::poisoned<float>((std::size_t)n);
  lesson12::convert(n, raw.data(), kelvin.data());
  return kelvin;
}

void check_convert(int n) {
  lesson12::set_calibration(ref::kDefaultCalibration);
  const auto raw = readings(n);
  COURSE_CHECK(course::check_close<float>(converted(n, raw), ref::kelvin(raw, ref::kDefaultCalibration), kTol,
                                          "convert n=" + std::to_string(n)));
}

// Runs apply_correction() the way its callers do: kelvin mapped to the
// device first, the host copy then overwritten with @p stale, the device's
// copy brought back afterwards. What comes back is what the device holds.
// A plain function, not a lambda: clang 19 crashes on some data directives
// inside lambdas.
void correct_held_on_device(std::vector<float> &kelvin, const std::vector<float> &stale, bool &refused) {
  float *p = kelvin.data();
  const int n = (int)kelvin.size();
#pragma omp target enter data map(to : p[0:n])
  std::copy(stale.begin(), stale.end(), kelvin.begin());
  refused = false;
  try {
    lesson12::apply_correction(n, p);
  } catch (const lesson12::NotOnDevice &) {
    refused = true;
  }
#pragma omp target exit data map(from : p[0:n])
}

// Loads @p table and corrects n temperatures held on the device; the
// verdict (the caller asserts it, after any check it wants to come first).
course::Check corrected_on_device(int n, const std::vector<float> &table, const std::string &what) {
  lesson12::load_correction(table.data());
  const auto real = temperatures(n);
  auto kelvin = real;
  bool refused = false;
  correct_held_on_device(kelvin, temperatures(n, 1), refused);
  if (refused)
    return expect(false, what + ": apply_correction threw NotOnDevice although the caller had mapped kelvin on the "
                                "default device: ask omp_target_is_present about kelvin on "
                                "omp_get_default_device() (README, step 12.3)");
  auto c = course::check_close<float>(kelvin, ref::corrected(real, table), kCorrectionTol, what);
  if (!c.ok && kelvin == real)
    c.message += " -- the caller's device copy came back uncorrected: the correction ran on some other copy, or "
                 "the device's correction table held none of the host's entries (README, steps 12.1 and 12.3)";
  return c;
}

const char *kTablesHint =
    " Declare the small tables on the device (`begin declare target` ... `end declare target`) and let the functions "
    "read them there (README, step 12.1)";

// ---- thermo.cpp as the compiler reads it ------------------------------------------

// The graded thermo.cpp (in a step's or a mistake's build, the copy under
// test) printed back by clang (-ast-print), one section per declaration of
// namespace lesson12: "Printing lesson12::NAME:" and then the declaration,
// with the OpenMP directives the compiler attached to it.
struct Structure : course_test::Recompile {
  std::vector<std::pair<std::string, std::string>> sections;  // (name, text)

  /// The sections printed for lesson12::@p name that hold @p part (the definition: "{" or " = ").
  std::vector<std::string> of(const std::string &name, const std::string &part = "") const {
    std::vector<std::string> found;
    for (const auto &[n, text] : sections)
      if (n == "lesson12::" + name && text.find(part) != std::string::npos) found.push_back(text);
    return found;
  }
};

// @p p as it is, or, when it is a relative path that is not there from here
// (ccache with CCACHE_BASEDIR compiles with paths relative to its own working
// folder, so __FILE__ and __BASE_FILE__ may be), the same path without its
// leading ./ and ../ found from this folder or the nearest folder above.
std::filesystem::path located(const std::filesystem::path &p) {
  namespace fs = std::filesystem;
  if (p.is_absolute() || fs::exists(p)) return p;
  fs::path rest;
  for (const auto &part : p)
    if (!rest.empty() || (part != "." && part != "..")) rest /= part;
  for (fs::path dir = fs::current_path();; dir = dir.parent_path()) {
    if (fs::exists(dir / rest)) return dir / rest;
    if (dir == dir.parent_path()) return p;
  }
}

const Structure &structure() {
  static const Structure s = [] {
    namespace fs = std::filesystem;
    Structure r;
    const fs::path src = located(lesson12::source_file());
    const fs::path root = located(fs::path(__FILE__)).parent_path().parent_path();
    const fs::path headers = root / "lessons" / "12-device-data";
    const std::string cxx = course_test::recompiler({src, headers}, r);
    if (cxx.empty()) return r;
    r.cmd = cxx + " -std=c++20 -fopenmp -fsyntax-only -Xclang -ast-print -Xclang -ast-dump-filter -Xclang lesson12:: "
            "-I'" + headers.string() + "' -I'" + (root / "common" / "include").string() + "' '" + src.string() +
            "' 2>&1";
    course_test::run_recompile(r);
    if (!r.ok) return r;
    std::size_t at = 0;
    const std::string mark = "Printing ";
    while ((at = r.out.find(mark, at)) != std::string::npos) {
      const std::size_t colon = r.out.find(":\n", at);
      if (colon == std::string::npos) break;
      const std::size_t next = r.out.find("\n" + mark, colon);
      r.sections.emplace_back(r.out.substr(at + mark.size(), colon - at - mark.size()),
                              course_test::without_literals(r.out.substr(colon + 2, next == std::string::npos
                                                                           ? std::string::npos
                                                                           : next - colon - 2)));
      at = colon;
    }
    return r;
  }();
  return s;
}

// The lines of @p text that are OpenMP directives for a target construct
// ("#pragma omp target ..."), each with the text before it.
std::vector<std::pair<std::string, std::string>> target_directives(const std::string &text) {
  std::vector<std::pair<std::string, std::string>> found;
  std::size_t at = 0;
  while ((at = text.find("#pragma omp target", at)) != std::string::npos) {
    const std::size_t end = text.find('\n', at);
    found.emplace_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at), text.substr(0, at));
    at = end == std::string::npos ? text.size() : end;
  }
  return found;
}

// What clause @p name of @p directive holds between its parentheses ("" when
// it has none), parentheses inside it balanced.
std::string clause_of(const std::string &directive, const std::string &name) {
  const std::regex start("\\b" + name + " *\\(");
  std::smatch m;
  if (!std::regex_search(directive, m, start)) return "";
  std::size_t i = static_cast<std::size_t>(m.position(0) + m.length(0));
  const std::size_t from = i;
  for (int depth = 1; i < directive.size(); ++i) {
    depth += directive[i] == '(' ? 1 : directive[i] == ')' ? -1 : 0;
    if (depth == 0) break;
  }
  return directive.substr(from, i - from);
}

// The one target directive of function @p fn's definition as printed, or a
// failure that says why there is not exactly one: the step's region is the
// one that runs, and a second (in a branch that never runs, or a host copy)
// would let a clause be graded where it does nothing.
std::string one_region(const std::string &def, const std::string &fn, const std::string &step,
                       std::string &directive, std::string &before) {
  const auto ds = target_directives(def);
  if (ds.size() == 1) {
    directive = ds[0].first;
    before = ds[0].second;
    return "";
  }
  std::string seen;
  for (const auto &d : ds) seen += "\n  " + d.first;
  return fn + " has " + std::to_string(ds.size()) + " target directives where the lesson has one region" +
         (seen.empty() ? std::string(" (none found)") : ":" + seen) +
         "\nThe region that runs is the one graded: keep one, with its clauses on it (README, step " + step + ")";
}

}  // namespace

// ---- correctness: convert -----------------------------------------------------

TEST_CASE("convert at n = 1 and prime n = 1009 (on the host side of the threshold)", "[lesson12][correctness]") {
  check_convert(1);
  check_convert(1009);
}

TEST_CASE("convert at the threshold and at prime n = 100003 (on the device)", "[lesson12][correctness]") {
  check_convert(kOffloadThreshold);
  check_convert(100003);
}

// Step 12.1, on every device: the host's copy of the calibration table is
// changed behind the device's back (no target update). Tables declared on
// the device keep the device's copy, so convert() still gives the old
// polynomial's answer; tables mapped by each launch carry the host's copy in.
TEST_CASE("convert on the device reads the tables the device holds and not the host's", "[lesson12][correctness]") {
  const int n = kOffloadThreshold;
  const auto raw = readings(n, 1);
  lesson12::set_calibration(ref::kDefaultCalibration);
  std::copy(ref::kOtherCalibration, ref::kOtherCalibration + lesson12::kCoefficients, lesson12::calibration);
  const auto kelvin = converted(n, raw);
  lesson12::set_calibration(ref::kDefaultCalibration);  // both copies agree again
  auto c = course::check_close<float>(kelvin, ref::kelvin(raw, ref::kDefaultCalibration), kTol,
                                      "convert n=65536 with the host's calibration changed but not the device's");
  if (!c.ok && course::check_close<float>(kelvin, ref::kelvin(raw, ref::kOtherCalibration), kTol, "").ok)
    c.message += std::string(" -- convert used the HOST's calibration table: each launch maps the tables in again "
                             "(they are not declared on the device, so the region copies them).") +
                 kTablesHint;
  COURSE_CHECK(c);
}

// Step 12.1, the other way round: the DEVICE's copies of physics and
// calibration get other values behind the host's back (omp_target_memcpy to
// the device addresses omp_get_mapped_ptr gives), the host's stay as they
// are. A kernel that reads the tables the device holds follows; one that
// computes with a copy of its own (the host's tables mapped by each launch,
// values captured from the host, a private array) gives the host's answer.
TEST_CASE("convert computes with the device's copy of the tables when it differs from the host's",
          "[lesson12][correctness]") {
  const int n = kOffloadThreshold;
  const int device = omp_get_default_device(), host = omp_get_initial_device();
  const auto raw = readings(n, 5);
  lesson12::set_calibration(ref::kDefaultCalibration);
  (void)converted(n, raw);  // the device has started (LLVM 19 reports a declare-target global present only then)
  void *cal = omp_get_mapped_ptr(lesson12::calibration, device);
  void *phys = omp_get_mapped_ptr(lesson12::physics, device);
  const std::string missing = !cal && !phys ? "calibration and physics " : !cal ? "calibration " : "physics ";
  COURSE_CHECK(expect(cal && phys,
                      "the device holds no copy of " + missing + "(omp_get_mapped_ptr gives null for it after a "
                      "convert ran there): the kernels cannot be reading the device's copy of the tables." +
                          kTablesHint));
  if (!cal || !phys) return;
  COURSE_CHECK(expect(cal != (void *)lesson12::calibration, "the default device is the host itself (device " +
                                                                std::to_string(device) + "): no device copy to watch"));
  if (cal == (void *)lesson12::calibration) return;
  float saved_cal[lesson12::kCoefficients], saved_phys[lesson12::kPhysicsSize];
  omp_target_memcpy(saved_cal, cal, sizeof saved_cal, 0, 0, host, device);
  omp_target_memcpy(saved_phys, phys, sizeof saved_phys, 0, 0, host, device);
  const float zero = 300.f;  // kelvin at 0 degrees C on the device only
  const float other_phys[lesson12::kPhysicsSize] = {saved_phys[lesson12::kVoltsPerCount], zero};
  omp_target_memcpy(cal, ref::kOtherCalibration, sizeof saved_cal, 0, 0, device, host);
  omp_target_memcpy(phys, other_phys, sizeof saved_phys, 0, 0, device, host);
  const auto kelvin = converted(n, raw);
  omp_target_memcpy(cal, saved_cal, sizeof saved_cal, 0, 0, device, host);  // both copies agree again
  omp_target_memcpy(phys, saved_phys, sizeof saved_phys, 0, 0, device, host);
  auto c = course::check_close<float>(kelvin, ref::kelvin(raw, ref::kOtherCalibration, zero), kTol,
                                      "convert n=65536 with the device's copies of calibration and physics changed "
                                      "(the host's not)");
  if (!c.ok && course::check_close<float>(kelvin, ref::kelvin(raw, ref::kDefaultCalibration), kTol, "").ok)
    c.message += std::string(" -- convert gave the HOST's tables' answer: its kernel did not read the device's copy "
                             "of the tables but a copy of its own (tables mapped by each launch, values captured "
                             "from the host, or a private array).") + kTablesHint;
  else if (!c.ok)
    c.message += " -- convert followed only part of the device's copy: does every function read physics and "
                 "calibration themselves, on the device? (README, step 12.1)";
  COURSE_CHECK(c);
}

TEST_CASE("convert copies readings in and temperatures out and no table", "[lesson12][correctness][ompt]") {
  if (!course_test::ompt_witness_ready()) return;
  const int n = 100003;
  const auto raw = readings(n);
  auto kelvin = course_test::poisoned<float>((std::size_t)n);
  lesson12::set_calibration(ref::kDefaultCalibration);
  lesson12::convert(n, raw.data(), kelvin.data());  // a first call: device start-up is not this test's business
  const auto t = trace::record([&] { lesson12::convert(n, raw.data(), kelvin.data()); });
  const std::size_t bytes = (std::size_t)n * 4;
  COURSE_CHECK(expect(t.kernels == 1, "convert n=100003 launched " + str((double)t.kernels) +
                                          " kernels; one region above the threshold launches one (README, step 12.4)"));
  COURSE_CHECK(expect(t.to_device(raw.data(), bytes) == bytes && t.from_device(kelvin.data(), bytes) == bytes,
                      "convert n=100003 must copy raw[0:n] in and kelvin[0:n] out"));
  const std::size_t tables = t.to_device(lesson12::physics, sizeof lesson12::physics) +
                             t.from_device(lesson12::physics, sizeof lesson12::physics) +
                             t.to_device(lesson12::calibration, sizeof lesson12::calibration) +
                             t.from_device(lesson12::calibration, sizeof lesson12::calibration);
  COURSE_CHECK(expect(tables == 0, "convert n=100003 copied " + str((double)tables) +
                                       " bytes of the physics and calibration tables between host and device in one "
                                       "call: a table passed from the region is mapped by every launch, both ways." +
                                       kTablesHint));
  COURSE_CHECK(course::check_close<float>(kelvin, ref::kelvin(raw, ref::kDefaultCalibration), kTol,
                                          "convert n=100003 (traced run)"));
}

// ---- step 12.2: a changed global reaches the device ------------------------------

TEST_CASE("set_calibration reaches the device: convert follows a new polynomial", "[lesson12][correctness]") {
  const int n = kOffloadThreshold;
  const auto raw = readings(n, 2);
  for (const float *c : {ref::kDefaultCalibration, ref::kOtherCalibration, ref::kDefaultCalibration}) {
    const float *before = c == ref::kOtherCalibration ? ref::kDefaultCalibration : ref::kOtherCalibration;
    lesson12::set_calibration(c);
    const auto kelvin = converted(n, raw);
    const std::string name = c == ref::kOtherCalibration ? "the other polynomial" : "the default polynomial";
    auto check = course::check_close<float>(kelvin, ref::kelvin(raw, c), kTol,
                                            "convert n=65536 after set_calibration(" + name + ")");
    if (!check.ok && course::check_close<float>(kelvin, ref::kelvin(raw, before), kTol, "").ok)
      check.message += " -- the device still computes with the previous polynomial: set_calibration changed the "
                       "host's copy of the table and never copied it to the device's (`target update`; README, "
                       "step 12.2)";
    COURSE_CHECK(check);
  }
  lesson12::set_calibration(ref::kDefaultCalibration);
}

// Step 12.2, read where it lands: after set_calibration() the device's copy
// of calibration (read back through omp_get_mapped_ptr) holds the new table.
TEST_CASE("set_calibration writes the device's copy of the calibration table", "[lesson12][correctness]") {
  const int device = omp_get_default_device(), host = omp_get_initial_device();
  lesson12::set_calibration(ref::kDefaultCalibration);
  (void)converted(kOffloadThreshold, readings(kOffloadThreshold));  // the device has started
  for (const float *want : {ref::kOtherCalibration, ref::kDefaultCalibration}) {
    lesson12::set_calibration(want);
    void *cal = omp_get_mapped_ptr(lesson12::calibration, device);
    COURSE_CHECK(expect(cal != nullptr, "after set_calibration the device holds no copy of calibration "
                                        "(omp_get_mapped_ptr gives null): declare the table on the device (README, "
                                        "step 12.1) and copy the host's new table to it (step 12.2)"));
    if (!cal) return;
    float got[lesson12::kCoefficients];
    omp_target_memcpy(got, cal, sizeof got, 0, 0, host, device);
    std::string held, wanted;
    for (int i = 0; i < lesson12::kCoefficients; ++i) {
      held += (i ? ", " : "") + std::to_string(got[i]);
      wanted += (i ? ", " : "") + std::to_string(want[i]);
    }
    COURSE_CHECK(expect(std::equal(got, got + lesson12::kCoefficients, want),
                        "after set_calibration({" + wanted + "}) the device's copy of calibration holds {" + held +
                            "}: set_calibration changed the host's copy and left the device's behind (`target "
                            "update`, in which direction, after what? README, step 12.2)"));
  }
  lesson12::set_calibration(ref::kDefaultCalibration);
}

// Step 12.2's construct, seen by the runtime: `target update` is a device
// construct of its own (OMPT reports its kind). A kernel that copies the
// table, or a memcpy to the mapped address, lands the same bytes, but it is
// not the directive the step teaches.
TEST_CASE("set_calibration copies the table with one target update and launches no kernel",
          "[lesson12][correctness][ompt]") {
  if (!course_test::ompt_witness_ready()) return;
  lesson12::set_calibration(ref::kDefaultCalibration);
  (void)converted(kOffloadThreshold, readings(kOffloadThreshold));  // the device has started
  const auto t = trace::record([] { lesson12::set_calibration(ref::kOtherCalibration); });
  lesson12::set_calibration(ref::kDefaultCalibration);
  const std::size_t bytes = sizeof lesson12::calibration;
  COURSE_CHECK(expect(t.count(ompt_target_update) == 1 && t.kernels == 0,
                      "set_calibration ran " + str((double)t.count(ompt_target_update)) + " `target update` "
                      "construct(s) and launched " + str((double)t.kernels) + " kernel(s): the step is one "
                      "`target update` of the table, no kernel and no copy routine (README, step 12.2)"));
  COURSE_CHECK(expect(t.to_device(lesson12::calibration, bytes) == bytes,
                      "set_calibration copied " + str((double)t.to_device(lesson12::calibration, bytes)) + " of " +
                          str((double)bytes) + " bytes of calibration to the device (README, step 12.2)"));
}

// ---- correction: the linked table and data the caller holds ----------------------

TEST_CASE("apply_correction at n = 1 and prime n = 1009 and 100003 on data the caller mapped",
          "[lesson12][correctness]") {
  const auto table = ref::correction_table();
  for (int n : {1, 1009, 100003}) COURSE_CHECK(corrected_on_device(n, table, "apply_correction n=" + std::to_string(n)));
}

// Step 12.1's `link`: the device holds the large table only while a region
// maps it, and a region that maps it takes the host's current contents. A
// table declared `to` (enter) instead stays on the device for good, with the
// contents it had when the program's device code was loaded.
TEST_CASE("apply_correction maps the large table only while it runs and sees each new table",
          "[lesson12][correctness]") {
  const int n = 1009;
  for (int salt : {0, 1}) {
    const std::string what = "apply_correction n=1009 with correction table " + std::to_string(salt + 1);
    const auto c = corrected_on_device(n, ref::correction_table(salt), what);
    const int present = omp_target_is_present(lesson12::correction, omp_get_default_device());
    COURSE_CHECK(expect(present == 0,
                        what + ": the 4 MiB correction table is still on the device after the call. Declared `to` "
                               "(enter) it takes device memory for the whole run and keeps its first contents; "
                               "`declare target link` lets a region map it only while it needs it (README, step "
                               "12.1)"));
    COURSE_CHECK(c);
  }
}

// Step 12.1's `link`, as compiled: a table passed to the functions as a
// parameter and mapped by the region gives the same answers and the same
// copies, so only the declaration tells. Declared `link`, the device knows
// the table by name (any declare-target function can read it) and holds it
// only while a region maps it.
TEST_CASE("the large table is declared target link (thermo.cpp as the compiler reads it)", "[lesson12][correctness]") {
  const Structure &s = structure();
  if (!course_test::recompiled(s, "how thermo.cpp declares the correction table")) return;
  bool link = false, enter = false;
  for (const auto &text : s.of("correction")) {
    link = link || text.find("#pragma omp declare target link") != std::string::npos;
    enter = enter || (text.find("#pragma omp declare target\n") != std::string::npos);
  }
  COURSE_CHECK(expect(link, std::string("thermo.cpp does not declare the correction table `declare target link`") +
                                (enter ? " (it declares it `to`/`enter`: 4 MiB of device memory for the whole run)"
                                       : " (a parameter the region maps gives the same copies, but the device does "
                                         "not know the table: every function must be handed it)") +
                                ". Link it, and let correction_at() read the table by name (README, step 12.1; "
                                "compiler: " + s.cmd + ")"));
}

// Step 12.1's last line, as compiled: a function that still takes a table
// gives the same answers wherever the table lives, so only its signature
// tells whether the device reads the table by name.
TEST_CASE("the device functions take no table (thermo.cpp as the compiler reads it)", "[lesson12][correctness]") {
  const Structure &s = structure();
  if (!course_test::recompiled(s, "the signatures of to_kelvin and correction_at")) return;
  for (const std::string fn : {"to_kelvin", "correction_at"}) {
    const auto defs = s.of(fn, "{");
    COURSE_CHECK(expect(!defs.empty(), "the compiler printed no definition of lesson12::" + fn));
    if (defs.empty()) continue;
    const std::string signature = defs[0].substr(0, defs[0].find('{'));
    const std::string params = signature.substr(std::min(signature.size(), signature.find('(')));
    COURSE_CHECK(expect(params.find(',') == std::string::npos,
                        "lesson12::" + fn + " still takes more than its value: " + signature +
                            "\nthe tables are declared on the device; the function reads them by name, and the "
                            "regions pass none (README, step 12.1: the TODO's last line)"));
  }
}

TEST_CASE("apply_correction copies the large table in once and nothing back", "[lesson12][correctness][ompt]") {
  if (!course_test::ompt_witness_ready()) return;
  const auto table = ref::correction_table();
  lesson12::load_correction(table.data());
  const int n = 1009;
  auto kelvin = temperatures(n);
  const std::size_t bytes = sizeof lesson12::correction;
  float *p = kelvin.data();
  trace::Traffic t;
#pragma omp target enter data map(to : p[0:n])
  t = trace::record([&] { lesson12::apply_correction(n, p); });
#pragma omp target exit data map(from : p[0:n])
  COURSE_CHECK(expect(t.to_device(lesson12::correction, bytes) == bytes,
                      "apply_correction copied " + str((double)t.to_device(lesson12::correction, bytes)) + " of " +
                          str((double)bytes) + " bytes of the correction table to the device: a linked table must "
                          "be mapped (map(to : ...)) by the region that uses it (README, step 12.1)"));
  COURSE_CHECK(expect(t.from_device(lesson12::correction, bytes) == 0,
                      "apply_correction copied " + str((double)t.from_device(lesson12::correction, bytes)) +
                          " bytes of the correction table BACK from the device: the device only reads it, so "
                          "map(to : ...), not tofrom (a linked table mapped implicitly is tofrom too)"));
  COURSE_CHECK(expect(t.to_device(p, n * 4u) == 0 && t.from_device(p, n * 4u) == 0,
                      "apply_correction copied kelvin, which the caller holds on the device: the caller's copy is "
                      "the one to work on, and nothing needs to cross (README, step 12.3)"));
}

// ---- step 12.3: fail loudly when the data is not where it should be --------------

TEST_CASE("apply_correction works on the caller's device copy and not the stale host copy",
          "[lesson12][correctness]") {
  COURSE_CHECK(corrected_on_device(100003, ref::correction_table(), "apply_correction n=100003, host copy stale"));
}

TEST_CASE("apply_correction refuses data the caller did not map with NotOnDevice", "[lesson12][correctness]") {
  const auto table = ref::correction_table();
  lesson12::load_correction(table.data());
  const int n = 1009;
  const auto before = temperatures(n);
  auto kelvin = before;
  std::string said;
  try {
    lesson12::apply_correction(n, kelvin.data());
  } catch (const lesson12::NotOnDevice &e) {
    said = e.what();
  }
  COURSE_CHECK(expect(!said.empty(),
                      std::string("apply_correction n=1009 on data nobody mapped returned without a word") +
                          (kelvin != before ? " and changed the host copy: it mapped kelvin itself and corrected "
                                              "the stale host copy, "
                                            : ", ") +
                          "where it must throw NotOnDevice: ask omp_target_is_present first, and put `present` on "
                          "the map (README, step 12.3)"));
  COURSE_CHECK(expect(said.empty() || said.find("kelvin") != std::string::npos,
                      "NotOnDevice says \"" + said + "\": name the array that is missing (kelvin), so the caller "
                                                     "knows what to map"));
  COURSE_CHECK(expect(kelvin == before, "apply_correction changed data it refused (README, step 12.3)"));
}

// Step 12.3's `present`, as compiled: with the presence check in front, a
// region that maps kelvin `tofrom` gives the same answers and copies nothing
// on data already there, so only the directive tells. `present` makes the
// runtime itself refuse a section that is not all on the device (the check
// asks about one address; a caller that mapped only part of kelvin gets past it).
TEST_CASE("apply_correction's region requires kelvin present (thermo.cpp as the compiler reads it)",
          "[lesson12][correctness]") {
  const Structure &s = structure();
  if (!course_test::recompiled(s, "apply_correction's map clauses")) return;
  const auto defs = s.of("apply_correction", "{");
  COURSE_CHECK(expect(!defs.empty(), "the compiler printed no definition of lesson12::apply_correction"));
  if (defs.empty()) return;
  std::string line, before;
  const std::string why = one_region(defs[0], "apply_correction", "12.3", line, before);
  COURSE_CHECK(expect(why.empty(), why));
  if (!why.empty()) return;
  // kelvin's map clause: its modifiers and map type before the colon.
  const std::regex map(R"(map\(([^:)]*):[^)]*\bkelvin\b)");
  std::smatch m;
  const std::string kinds = std::regex_search(line, m, map) ? m[1].str() : "";
  const std::regex present(R"((^|[ ,])present\b)"), alloc(R"((^|[ ,])alloc\b)");
  COURSE_CHECK(expect(std::regex_search(kinds, present),
                      "apply_correction's region does not map kelvin with the `present` modifier:\n  " + line +
                          "\nThe presence check asks about one address; `present` makes the runtime refuse the "
                          "region when any part of kelvin[0:n] is not on the device, instead of copying the stale "
                          "host copy in (README, step 12.3)"));
  COURSE_CHECK(expect(!std::regex_search(kinds, present) || std::regex_search(kinds, alloc),
                      "apply_correction maps kelvin `" + kinds + "`:\n  " + line +
                          "\nOn data that is there, what must the map copy? Nothing: say so with the map type "
                          "`alloc` (a `to`, `from` or `tofrom` names a copy the region never means to make; "
                          "README, step 12.3)"));
}

// ---- step 12.4: offload only from the threshold on ------------------------------

// Step 12.4's `if(target : ...)`, as compiled: a branch of one's own around
// a host loop gives the same answers, launches and copies, so only the code
// tells. The clause keeps ONE region that the runtime runs on the host
// (its `parallel` part on host threads) or offloads.
TEST_CASE("convert lets its region's if clause decide where it runs (thermo.cpp as the compiler reads it)",
          "[lesson12][correctness]") {
  const Structure &s = structure();
  if (!course_test::recompiled(s, "convert's target region")) return;
  const auto defs = s.of("convert", "{");
  COURSE_CHECK(expect(!defs.empty(), "the compiler printed no definition of lesson12::convert"));
  if (defs.empty()) return;
  std::string line, before;
  const std::string why = one_region(defs[0], "convert", "12.4", line, before);
  COURSE_CHECK(expect(why.empty(), why));
  if (!why.empty()) return;
  const std::string condition = clause_of(line, "if");
  COURSE_CHECK(expect(!condition.empty(), "convert's target region has no `if` clause for the target construct:\n  " +
                                              line +
                                              "\nThe region itself should say when to offload: look up "
                                              "`if(target : ...)` (README, step 12.4)"));
  COURSE_CHECK(expect(condition.empty() || std::regex_search(condition, std::regex(R"(\bkOffloadThreshold\b)")),
                      "convert's `if(" + condition + ")` does not name kOffloadThreshold: the threshold is the "
                      "lesson's named constant (the lesson program measures it), not a number of your own "
                      "(README, step 12.4)"));
  // What runs before the region: no branch, loop or return of its own.
  const std::string body = before.substr(std::min(before.size(), before.find('{') + 1));
  COURSE_CHECK(expect(!std::regex_search(body, std::regex(R"(\b(if|for|while|do|switch|return|goto)\b|\?)")),
                      "convert branches (or loops, or returns) before its target region:\n" + body +
                          "\nthe region's `if(target : ...)` clause is where the choice belongs: it runs the same "
                          "region on the host, no launch, no copies (README, step 12.4)"));
}

// On every device: the device holds the real readings, the host a stale
// copy. Below the threshold convert() must run on the host (it reads the
// host's copy); from the threshold on, on the device (the device's copy).
TEST_CASE("convert runs on the host below the threshold and on the device from it on every device without OMPT",
          "[lesson12][correctness]") {
  lesson12::set_calibration(ref::kDefaultCalibration);
  for (int n : {kOffloadThreshold - 1, kOffloadThreshold}) {
    auto raw = readings(n, 3);
    const auto stale = readings(n, 4);
    auto kelvin = course_test::poisoned<float>((std::size_t)n);
    const auto real_ref = ref::kelvin(raw, ref::kDefaultCalibration);
    course_test::with_stale_host_copy(std::span<int>(raw), std::span<const int>(stale),
                                      [&] { lesson12::convert(n, raw.data(), kelvin.data()); });
    const bool device = n >= kOffloadThreshold;
    const auto want = device ? real_ref : ref::kelvin(stale, ref::kDefaultCalibration);
    auto c = course::check_close<float>(kelvin, want, kTol,
                                        "convert n=" + std::to_string(n) + (device ? " (must offload)" : " (must stay "
                                                                                                         "on the host)"));
    if (!c.ok)
      c.message += device ? " -- it ran on the host at the threshold: offload when n >= kOffloadThreshold "
                            "(`if(target : ...)`, README, step 12.4)"
                          : " -- it ran on the device below the threshold: the lesson keeps small inputs on the host; "
                            "offload only when n >= kOffloadThreshold (`if(target : ...)`, README, step 12.4)";
    COURSE_CHECK(c);
  }
}

TEST_CASE("convert launches no kernel below the threshold and one from it on", "[lesson12][correctness][ompt]") {
  if (!course_test::ompt_witness_ready()) return;
  lesson12::set_calibration(ref::kDefaultCalibration);
  for (int n : {1, 1009, kOffloadThreshold - 1, kOffloadThreshold}) {
    const auto raw = readings(n);
    auto kelvin = course_test::poisoned<float>((std::size_t)n);
    const auto t = trace::record([&] { lesson12::convert(n, raw.data(), kelvin.data()); });
    const long want = n >= kOffloadThreshold ? 1 : 0;
    COURSE_CHECK(expect(t.kernels == want && (want == 1 || t.copies.empty()),
                        "convert n=" + std::to_string(n) + " launched " + str((double)t.kernels) + " kernels and made " +
                            str((double)t.copies.size()) + " copies; the threshold is kOffloadThreshold = " +
                            std::to_string(kOffloadThreshold) +
                            (want ? ": from it on, convert offloads" : ": below it, convert runs on the host, "
                                                                       "no launch, no copies") +
                            " (`if(target : ...)`, README, step 12.4)"));
    COURSE_CHECK(course::check_close<float>(kelvin, ref::kelvin(raw, ref::kDefaultCalibration), kTol,
                                            "convert n=" + std::to_string(n) + " (traced run)"));
  }
}
