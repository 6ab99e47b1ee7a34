#!/usr/bin/env python3
"""The speed tests of the last `ctest` run, each with its measured ratio, its
threshold and the margin between them, printed after CTest's own summary.

CTest shows a passing test's output only under -V, so a student near a
threshold (2.1x against 2.0x) would not see it. Each speed test appends its
verdict line to a file in COURSE_VERDICT_DIR; CTest runs this script after
the tests (CTEST_CUSTOM_POST_TEST, written into the build by
cmake/Course.cmake) and, before them, `--clear` empties the folder. A speed
test whose answers failed before it was timed is tagged WRONG, not ok: the
speed alone does not pass it.

  speed_summary.py DIR            print the summary (nothing when no speed test ran)
  speed_summary.py DIR --clear    remove the last run's verdicts
"""
import pathlib
import re
import shutil
import sys

VERDICT = re.compile(r"^lesson (\d+) (.*?): ([0-9.]+)x (faster|slower) than baseline "
                     r"\(needs >= ([0-9.eE+]+)x on (\w+)")
NEAR = 1.25  # a pass by less than this factor may fail on a busier run
WRONG = "answers wrong: "  # course_test.hpp: a COURSE_CHECK of the speed test had failed


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    folder = pathlib.Path(argv[0])
    if "--clear" in argv[1:]:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        return 0
    rows = []
    for f in sorted(folder.glob("verdict-*.txt")) if folder.is_dir() else []:
        lines = f.read_text(errors="replace").splitlines()
        # One file per test process: its answers failed before it was timed.
        wrong = {line[len(WRONG):] for line in lines if line.startswith(WRONG)}
        for line in lines:
            m = VERDICT.match(line)
            if m:
                factor = float(m.group(3))
                got = factor if m.group(4) == "faster" else (1 / factor if factor > 0 else 0.0)
                bad = any(line.startswith(label + ": ") for label in wrong)
                rows.append((int(m.group(1)), m.group(2), got, float(m.group(5)), line, bad))
    if not rows:
        return 0
    rows.sort(key=lambda r: (r[0], r[1]))
    print(f"\nSpeed tests in this run: measured against required ({len(rows)}):")
    for lesson, _, got, need, line, bad in rows:
        margin = got / need if need > 0 else float("inf")
        if bad:
            tag, line = "WRONG ", line + " -- but its answers were wrong: the test fails (its message above)"
        elif got < need:
            tag = "FAIL  "
        elif margin < NEAR:
            tag = "NEAR  "
        else:
            tag = "ok    "
        print(f"  {tag}{line}  [{margin:.2f} times what it needs]")
    near = sum(1 for _, _, g, n, _, bad in rows if not bad and n <= g < n * NEAR)
    if near:
        print(f"  NEAR: passed by less than {NEAR}x the threshold; a busier run may fail it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
