#!/usr/bin/env python3
"""A test skipped by design on this device is no failure in the progress view
(scripts/progress.sh) and the class table, as it is none for ctest.

A lesson's speed tests that do not apply on this device print "COURSE-SKIP:
..." (tests/support/course_test.hpp, COURSE_SKIP_SPEED) and CTest lists them
"Skipped" (SKIP_REGULAR_EXPRESSION, cmake/Course.cmake). Here a small CTest
project in a temporary folder is built like a lesson's tests (a build fixture,
correctness tests, three speed tests that skip on the host device) and ctest
itself writes the JUnit the progress view reads (`--output-junit`, as
scripts/progress.sh runs it). The view must say:

  1. every test passes or is skipped by design (ctest exits 0): lesson 9
     "done", every step done, the first line "lesson 9 done", the skipped
     tests shown apart with the reason they printed;
  2. one correctness test fails: not done, the step its message names next;
  3. a test's program is missing, so ctest does not run it ("Not Run", a
     failure for ctest): not done;
  4. Catch2's own JUnit (a GPU node's bundle), where a skipped speed test is a
     case that ran and printed "COURSE-SKIP:": done; one that failed: not done.

Exit 0 pass, 1 fail.   skipped-test.py SOURCE_DIR
"""
import pathlib
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
src = pathlib.Path(sys.argv[1]).resolve()
sys.path.insert(0, str(src / "scripts" / "progress"))
sys.path.insert(0, str(src / "scripts" / "slurm"))
import grades  # noqa: E402
import progress  # noqa: E402
import classtable  # noqa: E402

problems = []
N = 9
manifest = grades.load_manifest()
lesson = manifest.get(str(N))
if not lesson:
    print(f"FAILED: no lesson {N} in {grades.MANIFEST}")
    sys.exit(1)
edited = {s["id"]: "edited" for s in lesson["steps"]}

SKIPS = ["all devices", "pinned copies", "device kernel"]
# A correctness test as the lesson's test program fails: Catch's words, the step named.
CATCH_FAIL = ("-------------------------------------------------------------------------------\n"
              "pinned_alloc gives memory the runtime pins\n"
              "..............................................................................\n"
              "tests/lesson09_async_and_devices.cpp:1: FAILED:\n"
              "explicitly with message:\n"
              "  step 9.4: pinned_alloc's memory is not pinned\n")


def project(folder, fail_test=False, no_program=False):
    """A CTest project shaped like lesson 9's tests; returns (ctest's exit status, JUnit path)."""
    folder.mkdir()
    (folder / "fail.txt").write_text(CATCH_FAIL)
    lines = ["cmake_minimum_required(VERSION 3.20)", "project(lesson NONE)", "enable_testing()",
             f'add_test(NAME "lesson{N}: build" COMMAND "${{CMAKE_COMMAND}}" -E true)',
             f'set_tests_properties("lesson{N}: build" PROPERTIES LABELS lesson{N} FIXTURES_SETUP built)']
    for i in range(1, 6):
        cmd = '"${CMAKE_COMMAND}" -E echo "All tests passed (3 assertions)"'
        if fail_test and i == 4:
            # Catch's words on stdout, then a non-zero exit (cat of a file that is not there).
            cmd = '"${CMAKE_COMMAND}" -E cat "${CMAKE_CURRENT_SOURCE_DIR}/fail.txt" --bogus-to-fail'
        if no_program and i == 2:
            cmd = f'"{folder}/lesson09_test"'  # never built
        lines += [f'add_test(NAME "lesson{N}: correctness {i}" COMMAND {cmd})',
                  f'set_tests_properties("lesson{N}: correctness {i}" PROPERTIES LABELS lesson{N} '
                  f'FIXTURES_REQUIRED built)']
    for name in SKIPS:
        lines += [f'add_test(NAME "lesson{N}: {name} is faster" COMMAND "${{CMAKE_COMMAND}}" -E echo '
                  f'"COURSE-SKIP: lesson {N} {name}: not graded on the host device (graded on a GPU)")',
                  f'set_tests_properties("lesson{N}: {name} is faster" PROPERTIES LABELS "lesson{N};speedup" '
                  f'FIXTURES_REQUIRED built SKIP_REGULAR_EXPRESSION "COURSE-SKIP:")']
    (folder / "CMakeLists.txt").write_text("\n".join(lines) + "\n")
    # Ninja: the course's generator (install-deps.sh installs it; a clean root has no make).
    r = subprocess.run(["cmake", "-G", "Ninja", "-S", str(folder), "-B", str(folder / "b")], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"skipped-test: cmake could not configure the small project: {r.stdout[-400:]}{r.stderr[-400:]}")
    xml = folder / "junit.xml"
    p = subprocess.run(["ctest", "--test-dir", str(folder / "b"), "-L", f"^lesson{N}$", "--output-on-failure",
                        "--no-tests=error", "--output-junit", str(xml)], capture_output=True, text=True)
    return p.returncode, xml, p.stdout


def view_of(xml):
    result = grades.parse_lesson(xml)
    v = grades.lesson_progress(N, dict(lesson), dict(edited), result)
    first = progress.text([v], "host", False).splitlines()[0]
    return result, v, first


with tempfile.TemporaryDirectory() as d:
    d = pathlib.Path(d)

    # 1. all pass, three speed tests skipped by design: ctest 100 %, the view "done".
    rc, xml, out = project(d / "pass")
    if rc != 0 or "100% tests passed" not in out or "(Skipped)" not in out:
        problems.append(f"the CTest project did not pass with skips as planned (ctest exit {rc}): {out[-400:]}")
    result, v, first = view_of(xml)
    if v["status"] != "done" or first != f"lesson {N} done":
        problems.append(f"1: ctest passes with {len(SKIPS)} tests skipped by design, but the view says "
                        f"{v['status']!r}, first line {first!r} (wanted 'lesson {N} done')")
    if any(s["state"] != "done" for s in v["steps"]):
        problems.append(f"1: not every step done: {[(s['id'], s['state']) for s in v['steps']]}")
    if (v["passed"], v["total"]) != (6, 6) or len(v.get("skipped", [])) != len(SKIPS):
        problems.append(f"1: counts {v['passed']}/{v['total']} with {len(v.get('skipped', []))} skipped "
                        f"(wanted 6/6 graded here, {len(SKIPS)} skipped)")
    whole = progress.text([v], "host", False)
    if "graded on a GPU" not in whole or "3 skipped here by design" not in whole:
        problems.append(f"1: the skipped tests and their reason are not shown:\n{whole}")
    page = progress.page([v], "host", d)
    if "skipped here: all devices is faster" not in page:
        problems.append("1: the page does not list the skipped tests")
    cell = classtable.cell_text(result)
    if not cell.startswith("PASS 6/6") or "3 skipped" not in cell:
        problems.append(f"1: the class table's cell disagrees: {cell!r}")

    # 2. a real failure: ctest fails, the view is not done and names the step.
    rc, xml, out = project(d / "fail", fail_test=True)
    result, v, first = view_of(xml)
    if rc == 0:
        problems.append("2: the failing CTest project passed (the test of the test is wrong)")
    if v["status"] == "done" or "done" in first or v["next"] != "9.4":
        problems.append(f"2: a failed correctness test, yet the view says {v['status']!r}, next {v['next']!r}, "
                        f"first line {first!r} (wanted not done, step 9.4 next)")
    if not classtable.cell_text(result).startswith("FAIL 5/6"):
        problems.append(f"2: the class table's cell: {classtable.cell_text(result)!r} (wanted FAIL 5/6)")

    # 3. a test whose program is missing: ctest says "Not Run" (a failure), so must the view.
    rc, xml, out = project(d / "noprogram", no_program=True)
    result, v, first = view_of(xml)
    if rc == 0 or "Not Run" not in out:
        problems.append(f"3: the CTest project with a missing program did not fail as planned (exit {rc})")
    if v["status"] == "done" or "done" in first:
        problems.append(f"3: ctest did not run a test (its program is missing), yet the view says "
                        f"{v['status']!r}, {first!r}")

    # 4. Catch2's own JUnit (a GPU node): a skipped speed test ran and printed COURSE-SKIP.
    def catch2(bad):
        cases = [f'<testcase classname="t.global" name="c{i}" status="run"/>' for i in range(3)]
        cases.append('<testcase classname="t.global" name="pinned copies are faster" status="run">'
                     "<system-out>COURSE-SKIP: lesson 9 pinned copies: not graded on this machine\n"
                     "</system-out></testcase>")
        if bad:
            cases.append('<testcase classname="t.global" name="c9" status="run">'
                         '<failure message="step 9.2: a copy went through the host" type="FAIL"/></testcase>')
        x = d / f"catch2-{bad}.xml"
        x.write_text('<?xml version="1.0"?><testsuites><testsuite name="t">' + "".join(cases)
                     + "</testsuite></testsuites>")
        return view_of(x)
    _, v, first = catch2(False)
    if v["status"] != "done" or len(v.get("skipped", [])) != 1:
        problems.append(f"4: Catch2's JUnit with a COURSE-SKIP case: {v['status']!r}, skipped {v.get('skipped')}")
    _, v, first = catch2(True)
    if v["status"] == "done" or v["next"] != "9.2":
        problems.append(f"4: Catch2's JUnit with a failed case: {v['status']!r}, next {v['next']!r}")

if problems:
    print("FAILED: the progress view and ctest disagree on skipped tests:\n  " + "\n  ".join(problems))
    sys.exit(1)
print(f"progress: a lesson whose only non-passing tests are skipped by design ({len(SKIPS)} speed tests, "
      "COURSE-SKIP) is done, as ctest says; a failed test, a test not run and a failed Catch2 case are not")
