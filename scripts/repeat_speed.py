#!/usr/bin/env python3
"""Does a speed verdict hold run after run? Runs test programs N times and
prints, per speed test, how often it passed and the min / median / max of its
measured ratio; and, per step's undone form (the step mutants of the
solutions build), how often the test that catches it caught it.

A GPU verdict is trusted only when it holds 20 runs out of 20: a solution
that passes 18 times in 20 fails a student one time in ten. scripts/report-gpu.sh
test --repeat N runs this on a GPU node; it works anywhere.

  repeat_speed.py --runs N [--runner CMD] [--md FILE] [--case NAME]... PROGRAM...

PROGRAM: a lesson's test program (lessonNN_test: its [speedup] cases run N
times; with --case, only the cases named) or a step mutant (lessonNN_stepN_k_test: its first failing case, found
by one run with --abort, runs N times in all). --runner: a command that starts
each program (e.g. "scripts/gpu-node.sh RUNTIME.tar.xz"), split at spaces.
The verdicts are read from the files grade_speedup() writes into
COURSE_VERDICT_DIR (common/src/grading.cpp), one folder per run.

Exit status: 0 every solution speed test passed every run and every step
mutant was caught every run; 1 otherwise; 2 bad arguments.
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

VERDICT = re.compile(r"^(lesson \d+ .*?): ([0-9.]+)x (faster|slower) than baseline \(needs >= ([0-9.eE+]+)x")
STEP = re.compile(r"^lesson(\d\d)_step(\d+)_(\d+)_test$")


def die(msg):
    print(f"repeat_speed.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def run(runner, prog, args, timeout):
    """(exit status, output, verdicts [(label, ratio, needed)]) of one run."""
    with tempfile.TemporaryDirectory(prefix="verdicts-") as d:
        env = dict(os.environ, COURSE_VERDICT_DIR=d)
        try:
            p = subprocess.run(runner + [str(prog)] + args, env=env, capture_output=True, text=True,
                               timeout=timeout, errors="replace")
            rc, out = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            rc, out = 124, f"no answer in {timeout} s"
        verdicts = []
        for f in sorted(pathlib.Path(d).glob("verdict-*.txt")):
            for line in f.read_text(errors="replace").splitlines():
                m = VERDICT.match(line)
                if m:
                    x = float(m.group(2))
                    ratio = x if m.group(3) == "faster" else (1 / x if x else 0.0)
                    verdicts.append((m.group(1), ratio, float(m.group(4))))
    return rc, out, verdicts


def solution_rows(runner, prog, runs, timeout, spec="[speedup]"):
    seen, skipped = {}, set()
    for i in range(runs):
        rc, out, verdicts = run(runner, prog, [spec, "--reporter", "compact"], timeout)
        if i == 0 and not verdicts and "No test cases matched" in out:
            return [], []  # none of the cases asked for is this program's
        for line in out.splitlines():
            if "COURSE-SKIP:" in line:
                skipped.add(line.split("COURSE-SKIP:", 1)[1].strip()[:110])
        for label, ratio, need in verdicts:
            seen.setdefault(label, {"need": need, "ratios": []})["ratios"].append(ratio)
        # Each run's ratios as they come: a run cut short still shows what it measured.
        shown = ", ".join(f"{label.split(' (')[0]} {r:.2f}x/{need:.3g}x" for label, r, need in verdicts)
        print(f"  {prog.name} run {i + 1}/{runs}: exit {rc}: {shown or 'no verdict'}", file=sys.stderr, flush=True)
    rows = []
    for label, v in sorted(seen.items()):
        r = v["ratios"]
        passed = sum(1 for x in r if x >= v["need"])
        rows.append((label, passed, runs, min(r), statistics.median(r), max(r), v["need"]))
    return rows, sorted(skipped)


TESTS = pathlib.Path(__file__).resolve().parent.parent / "tests"


def not_graded_here(runner, prog, step, timeout, device_class):
    """(why, excused) for a step mutant that passes every test. Two reasons
    excuse it, each said by the course, never guessed: the test file declares
    the step graded elsewhere for this device class
    (`// STEP-ELSEWHERE(9.3, gpu): why`), or the checks that grade it said they
    could not run here (a compiler-asking test on a node without clang warns
    "... not graded here"). Otherwise ("no test fails", False): a miss."""
    nn = prog.name[6:8]
    if device_class:
        for src in sorted(TESTS.glob(f"lesson{nn}_*.cpp")):
            m = re.search(rf"STEP-ELSEWHERE\({re.escape(step)}, *{device_class}\): *(.*)", src.read_text())
            if m:
                return f"declared elsewhere: {m.group(1).strip()[:160]}", True
    _rc, out, _ = run(runner, prog, ["--reporter", "compact"], timeout)
    why = sorted({ln.strip()[:160] for ln in out.splitlines() if "not graded here" in ln})
    if why:
        return "not graded on this node: " + "; ".join(why[:2]), True
    return "no test fails", False


def step_row(runner, prog, runs, timeout, jobs=1, device_class=""):
    """(step, the case that catches it, runs caught, runs, ratios seen, timed,
    excused: not caught, for a reason the course gives)."""
    m = STEP.match(prog.name)
    step = f"{int(m.group(2))}.{int(m.group(3))}"
    # As cmake/expect-failure.cmake does: declaration order, stop at the first
    # failure; the JUnit reporter names the case that failed.
    rc, out, _ = run(runner, prog, ["--order", "decl", "--abort", "--reporter", "junit"], timeout)
    if rc == 0:
        why, excused = not_graded_here(runner, prog, step, timeout, device_class)
        return step, why, 0, runs, [], False, excused
    cm = re.search(r'<testcase [^>]*name="([^"]*)"[^>]*>\s*<failure', out)
    if cm:
        name = (cm.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                .replace("&apos;", "'").replace("&amp;", "&"))
        args = [name, "--reporter", "compact"]
    else:  # a crash or a hang: the whole program each time
        name = "a hang" if rc == 124 else f"a crash (exit {rc})"
        args = ["--order", "decl", "--abort", "--reporter", "compact"]
    caught, ratios = 1, []
    left = runs - 1
    timed = True
    if left and cm:
        # One run of the catching case alone says whether it times anything.
        rc2, _o, verdicts = run(runner, prog, args, timeout)
        ratios += [r for _l, r, _n in verdicts]
        caught += rc2 != 0
        left -= 1
        timed = bool(verdicts)
    if timed or jobs <= 1:
        for _ in range(left):
            rc2, _o, verdicts = run(runner, prog, args, timeout)
            ratios += [r for _l, r, _n in verdicts]
            caught += rc2 != 0
    else:
        # The catching case times nothing (a wrong result, an OMPT count, the
        # compiler's view): its verdict does not depend on what else runs, so
        # the other runs go side by side, `jobs` programs at a time on the one GPU.
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for rc2, _o, _v in pool.map(lambda _i: run(runner, prog, args, timeout), range(left)):
                caught += rc2 != 0
    return step, name, caught, runs, ratios, timed, False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--runner", default="")
    ap.add_argument("--md", default="")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--jobs", type=int, default=1,
                    help="a step mutant caught by a check that times nothing runs this many copies at a time")
    ap.add_argument("--elsewhere", default="", metavar="CLASS",
                    help="this run's device class (gpu, host): a step the tests declare graded elsewhere "
                         "for it (STEP-ELSEWHERE) is reported so, not as a miss")
    ap.add_argument("--case", action="append", default=[],
                    help="only this speed test (its full name; repeatable): the cases near their threshold")
    ap.add_argument("programs", nargs="+")
    a = ap.parse_args()
    if a.runs < 1:
        die(f"--runs must be a positive number, got {a.runs}")
    runner = shlex.split(a.runner)
    progs = [pathlib.Path(p) for p in a.programs]
    for p in progs:
        if not (p.is_file() and os.access(p, os.X_OK)):
            die(f"{p} is not an executable test program")
    lines, bad = [], 0
    sol = [p for p in progs if not STEP.match(p.name)]
    steps = [p for p in progs if STEP.match(p.name)]
    if sol:
        lines += [f"### Solutions: each speed test, {a.runs} runs", "",
                  "| speed test | passed | min | median | max | needs |", "|---|---:|---:|---:|---:|---:|"]
        for p in sol:
            rows, skipped = solution_rows(runner, p, a.runs, a.timeout, ",".join(a.case) or "[speedup]")
            for label, passed, n, lo, med, hi, need in rows:
                bad += passed != n
                lines.append(f"| {label} | {passed}/{n} | {lo:.2f}x | {med:.2f}x | {hi:.2f}x | {need:.3g}x |")
            for s in skipped:
                lines.append(f"| {p.name}: skipped here: {s} | — | | | | |")
        lines.append("")
    if steps:
        lines += [f"### Each step undone: caught in how many of {a.runs} runs", "",
                  "| step | caught by | caught | ratios (speed tests) |", "|---|---|---:|---|"]
        for p in steps:
            step, name, caught, n, ratios, timed, excused = step_row(runner, p, a.runs, a.timeout, a.jobs,
                                                                     a.elsewhere)
            bad += caught != n and not excused
            # As each step ends: a call cut short still shows the steps it finished.
            print(f"  {p.name}: caught {caught}/{n} by {name}", file=sys.stderr, flush=True)
            rs = (f"{min(ratios):.2f}-{max(ratios):.2f}x" if ratios
                  else "times nothing" + (f" ({a.jobs} runs at a time)" if a.jobs > 1 and not timed else ""))
            lines.append(f"| {p.name[6:8]}: {step} | {name} | {'—' if excused else f'{caught}/{n}'} | {rs} |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if a.md:
        pathlib.Path(a.md).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(a.md).write_text(text + "\n")
    print(f"repeat_speed.py: {'every verdict held' if not bad else f'{bad} verdict(s) did not hold every run'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
