#!/usr/bin/env python3
"""The course report: measures the device's ceilings, runs every lesson
program found in a build (and, in the solutions track, each untouched
starter), and prints the tables the programs declare, each row with a "% of
ceiling" column, beside the source articles' figures. Writes report.md,
report.csv, each program's own CSV and log, and PNG plots (matplotlib) under
BUILD/report/ (or --out).

    report.py --build BUILD [--tiny | --full] [--lessons 1,3] [--out DIR] [--goals CSV] [--kernel-time]
              [--repeat N]

--repeat N runs the vendor programs and the lesson programs N times, round
after round (course_report/repeats.py), and adds a section with each goal
row's min / median / max over the rounds and its goal "met in k of N runs"
(and repeats.csv); the other tables show round 1.

How the host waits for the GPU is COURSE_CUDA_WAIT's (spin, the default, or
block; common/src/cuda_wait.cpp): every program gets it, and report.md says
under its title which wait was used.

The report knows no lesson. Each program's rows (course::ResultRow,
common/include/course/results.hpp) say which table they belong to, their
role (baseline, kernel under test, variant, part of a call, reference), the
bytes and flops they moved, the ceiling they are measured against, whether
their data sit in cache, the seed table and article figure they reproduce,
and how to plot them. The design's goals are not in the rows: one table
outside report/ (lessons/goals.csv, course_report/goals.py) selects the rows
that have one. Each program also describes itself (`PROGRAM
--describe`, course::Cli: one line of JSON with its options, its sizes and
the columns of its rows): the report runs it with `--size tiny|teaching|full`
(course::Cli::preset). A program that declares none of this still works:
roles are guessed from variant names and it runs at its defaults, with a note.

The work is in course_report/: run.py (the programs, their descriptions,
logs and rows), analyse.py (ceilings, % of ceiling, speedups), render.py
(Markdown and CSV) and plots.py (PNG); this file reads the options and runs
the steps in order.

scripts/report.sh configures and builds a release solutions build first;
scripts/report-gpu.sh runs this on a GPU node from prebuilt binaries.
Exit status: 0 all verified, 1 a lesson program or a verified row FAILED
(the report still finishes), 2 bad arguments. Starter rows may fail: the
untouched starter is meant to, and does not change the exit status.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True   # no __pycache__ in the source tree

from course_report.analyse import annotate, ceilings_from  # noqa: E402
from course_report.goals import DEFAULT_GOALS, apply_goals, read_goals  # noqa: E402
from course_report.kernel_time import DEFAULT_KERNELS, kernel_times, read_kernel_table  # noqa: E402
from course_report.render import missing_why, render, write_csv  # noqa: E402
from course_report.repeats import analyse_runs, repeat_section, write_repeat_csv  # noqa: E402
from course_report.run import (Step, build_info, commit_of, cuda_wait, describe, find_lessons,  # noqa: E402
                               finished_before, first_device_line, run_step, size_args, unread_columns)
from course_report.schema import SOURCE_DIR, source_lessons  # noqa: E402


class Parser(argparse.ArgumentParser):
    """argparse with the course's convention: one line on stderr, exit 2."""

    def error(self, message):
        sys.stderr.write(f"report: error: {message} (see --help)\n")
        sys.exit(2)


def parse_args(argv):
    p = Parser(prog="report", description="The course report: ceilings, every lesson program's declared tables, "
                                          "the articles' figures beside ours, CSV and plots.")
    p.add_argument("--build", default=os.path.join(SOURCE_DIR, "build-report"),
                   help="build folder holding lessons/NN-*/lessonNN and report/course_ceilings (default build-report)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--tiny", action="store_true", help="tiny sizes (seconds; for the test)")
    size.add_argument("--full", action="store_true", help="full sizes (the articles' and the design's sizes)")
    p.add_argument("--lessons", default="", help="comma-separated lesson numbers to run (default: all built)")
    p.add_argument("--out", default="", help="output folder (default BUILD/report)")
    p.add_argument("--timeout", type=int, default=0,
                   help="seconds allowed per program (default 120 tiny, 900 otherwise)")
    p.add_argument("--goals", default="",
                   help=f"the table of the design's goals (default {os.path.relpath(DEFAULT_GOALS, SOURCE_DIR)})")
    p.add_argument("--kernel-time", action="store_true",
                   help="GPU builds: run each lesson program that lessons/kernels.csv names once more under ncu "
                        "and show its kernels' own device time beside the vendor's")
    p.add_argument("--repeat", default="1", metavar="N",
                   help="run the vendor programs and the lesson programs N times, round after round, and show each "
                        "goal row's min / median / max %% over the rounds and its goal as 'met in k of N runs' "
                        "(default 1: one run, no such section)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--no-starters", action="store_true", help="do not run the untouched starters")
    p.add_argument("--resume", action="store_true",
                   help="keep the rows of each lesson program that finished in an earlier run into the same --out "
                        "folder and run only the others (the ceilings always run again): for a job cut by a time "
                        "limit")
    p.add_argument("--validate-only", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--no-build-check", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.timeout < 0:
        p.error(f"--timeout must be a positive number of seconds, got {a.timeout}")
    if not re.fullmatch(r"[1-9][0-9]{0,2}", a.repeat.strip()):
        p.error(f"--repeat expects a whole number of runs from 1 to 999, got '{a.repeat}'")
    a.repeat = int(a.repeat)
    a.lessons_wanted = []
    if a.lessons:
        try:
            wanted = [int(x) for x in a.lessons.split(",") if x.strip()]
        except ValueError:
            p.error(f"--lessons expects comma-separated lesson numbers, got '{a.lessons}'")
        known = source_lessons()
        bad = [n for n in wanted if n not in known]
        if bad or not wanted:
            p.error(f"--lessons: no lesson {bad[0] if bad else a.lessons!r} in lessons/; the course has lessons "
                    f"{', '.join(str(n) for n in sorted(known))}")
        a.lessons_wanted = wanted
    if not cuda_wait():
        p.error(f"COURSE_CUDA_WAIT must be 'spin' or 'block' (or unset: spin), got "
                f"'{os.environ.get('COURSE_CUDA_WAIT')}'")
    a.goals_table = None   # None: the default table is missing (a note says so)
    if a.goals or os.path.exists(DEFAULT_GOALS):
        a.goals_table = course_table(p, "--goals", a.goals or DEFAULT_GOALS, read_goals, "the goals table")
    a.kernel_table = (course_table(p, "--kernel-time", DEFAULT_KERNELS, read_kernel_table, "the kernels table")
                      if a.kernel_time else [])
    a.mode = "tiny" if a.tiny else "full" if a.full else "teaching"
    if not a.timeout:
        a.timeout = 120 if a.tiny else 900
    return a, p


def course_table(p, option, path, read, what):
    """One of the course's tables (goals, kernels) read by @p read; a bad one ends the run with one line."""
    try:
        return read(path)
    except OSError as e:
        p.error(f"{option}: cannot read '{path}': {e.strerror}")
    except ValueError as e:
        p.error(f"{what}: {e}")


def wait_text(device_class, said):
    """The report's line on how the host waited for the GPU: COURSE_CUDA_WAIT, and what
    course_ceilings says its start did (its "gpu wait:" line, @p said)."""
    if device_class != "gpu":
        return "none: the host device (COURSE_CUDA_WAIT acts on GPUs only)"
    mode = cuda_wait()
    how = {"spin": "every program made each GPU's CUDA primary context spin (CU_CTX_SCHED_SPIN) before LLVM's "
                   "plugin started it, the vendor programs with cudaDeviceScheduleSpin: the host polls, one core "
                   "busy while the GPU works",
           "block": "LLVM's CUDA plugin set CU_CTX_SCHED_BLOCKING_SYNC, the vendor programs "
                    "cudaDeviceScheduleBlockingSync: the host sleeps until an interrupt at the end of every "
                    "target region and synchronisation, about 0.1 ms a call"}[mode]
    said = said[len("gpu wait:"):].strip() if said else \
        "course_ceilings does not say: built before the course set the wait itself"
    return f"**{mode}** (COURSE_CUDA_WAIT={mode}): {how}; course_ceilings: {said}"


# ---- main -------------------------------------------------------------------

def main(argv):
    args, parser = parse_args(argv)
    build = os.path.abspath(args.build)
    if args.validate_only and args.no_build_check:
        return 0   # scripts/report.sh: the options are fine, the build comes next
    if not os.path.isdir(build):
        parser.error(f"--build: no folder '{args.build}' (run scripts/report.sh to configure and build it)")
    ceil_prog = os.path.join(build, "report", "course_ceilings")
    if not os.access(ceil_prog, os.X_OK):
        parser.error(f"--build: '{args.build}' has no report/course_ceilings: not a course build with the report "
                     "(build it with scripts/report.sh)")
    if args.validate_only:
        return 0

    info = build_info(build)
    device_class = info.get("device_class", "host")
    out = os.path.abspath(args.out) if args.out else os.path.join(build, "report")
    args.out_dir = out
    csvdir, logdir = os.path.join(out, "csv"), os.path.join(out, "logs")
    os.makedirs(csvdir, exist_ok=True)
    os.makedirs(logdir, exist_ok=True)

    lessons = find_lessons(build)
    track = info.get("track") or ("solutions" if any(s for _, _, s in lessons.values()) else "lessons")
    notes = []
    if args.goals_table is None:
        notes.append(f"no goals table at {DEFAULT_GOALS}: no design goals shown")
    wanted = args.lessons_wanted or sorted(set(lessons) | set(source_lessons()))
    for n in wanted:
        if n not in lessons:
            notes.append(f"lesson {n} ({source_lessons().get(n, '?')}) is not in this build: its program is not "
                         "built (configure with it in COURSE_LESSONS, or it failed to compile: see the build log)")

    steps = [Step("ceilings", ceil_prog, [], os.path.join(csvdir, "ceilings.csv"), 0, "ceiling", repeat=0)]
    gpu = device_class == "gpu"
    # (program, label, csv, where it applies, build-info.json's key for why it is missing)
    vendors = [("course_sgemm", "cuBLAS SGEMM ceiling", "sgemm.csv", gpu, "sgemm"),
               ("course_cub", "CUB reduce and histogram ceilings", "cub.csv", gpu, "cub"),
               ("course_cuda_nbody", "classic CUDA N-body (peer)", "cuda-nbody.csv", gpu, "cuda_nbody"),
               ("course_blas_sgemm", "OpenBLAS SGEMM ceiling (host CPU)", "blas-sgemm.csv", True, "host_sgemm")]
    rounds = args.repeat
    for k in range(1, rounds + 1):
        # Round k of --repeat: the vendors, then the lessons (the same order each round); its files are NAME-runK.
        tag = f" (run {k} of {rounds})" if rounds > 1 else ""
        suffix = f"-run{k}" if k > 1 else ""
        for prog, label, name, relevant, key in vendors:
            path = os.path.join(build, "report", prog)
            if relevant and os.access(path, os.X_OK):
                steps.append(Step(label + tag, path, [], os.path.join(csvdir, name.replace(".csv", suffix + ".csv")),
                                  0, "vendor", repeat=k))
            elif relevant and k == 1:
                notes.append(f"{label} skipped: " + missing_why(info, key, prog))
        for n in wanted:
            if n not in lessons:
                continue
            folder, prog, starter = lessons[n]
            run = "solution" if track == "solutions" else "yours"
            steps.append(Step(f"lesson {n} {run}{tag}", prog, [], os.path.join(csvdir, f"lesson{n:02d}{suffix}.csv"),
                              n, run, repeat=k))
            if starter and not args.no_starters and k == 1:   # the untouched starter: once
                steps.append(Step(f"lesson {n} starter", starter, ["--only-yours"],
                                  os.path.join(csvdir, f"lesson{n:02d}_starter.csv"), n, "starter"))
    if len(steps) > 1:
        # Again at the end: on a shared machine load comes and goes; a ceiling is the better of the two.
        steps.append(Step("ceilings again", ceil_prog, [], os.path.join(csvdir, "ceilings-end.csv"), 0, "ceiling",
                          repeat=0))
    print(f"report: {len(steps)} steps, {args.mode} sizes, build {build} ({track} track, {device_class} device), "
          f"output {out}" + (f", {rounds} runs of the vendor and lesson programs" if rounds > 1 else ""), flush=True)

    t_start = time.monotonic()
    rows, failures, abouts, described = [], [], {}, {}
    asked = set()
    for k, step in enumerate(steps, 1):
        name = os.path.basename(step.program)
        if name not in described:
            described[name] = describe(step.program)
        step.described = described[name]
        if step.lesson and step.run != "starter" and step.described:
            abouts[step.lesson] = re.sub(r"^lesson \d+,\s*", "", step.described.get("about", ""))
        if name not in asked:   # a note once per program, not again for its second run
            unread = unread_columns(step.described)
            if unread:
                notes.append(f"{name} writes columns the report does not read: {', '.join(unread)}")
        step.args = size_args(step.described, args.mode, notes if name not in asked else [], name) + step.args
        asked.add(name)
        srows = finished_before(step, logdir) if args.resume and step.lesson else None
        if srows is not None:
            print(f"[{k}/{len(steps)}] {step.label}: kept from an earlier run ({step.seconds:.1f} s, {len(srows)} rows, "
                  f"exit {step.rc})", flush=True)
            notes.append(f"{step.label}: rows kept from an earlier run into this folder (--resume)")
        else:
            srows = run_step(step, k, len(steps), args.timeout, logdir)
        if step.rc != 0 and not srows and step.lesson:
            # The program died before writing rows: one FAILED row says so in the CSV too.
            srows = [dict(lesson=step.lesson, experiment="(program)", variant=step.run, size="", time_ms=0.0,
                          rate=0.0, unit="", ceiling="", status="FAILED", note=step.error, role="", bytes=0.0,
                          flops=0.0, in_cache=False, seed="", article="", article_ms=0.0, plot="", param="",
                          goal_pct=0.0, program=name, run=step.run, repeat=step.repeat)]
        if step.label == "ceilings again":
            for r in srows:
                r["program"] += " (end of run)"
        rows.extend(srows)
        bad_rows = [r for r in srows if r["status"] != "PASS" and r["experiment"] != "(program)"]
        if step.run == "starter":
            continue   # the untouched starter is allowed (often meant) to fail
        if step.run == "vendor":
            if step.rc != 0 or not srows:
                notes.append(f"{step.label} failed ({step.error or 'wrote no rows'}; log: "
                             f"{os.path.relpath(step.log, out)}): the rows that name it use the next ceiling")
            continue
        if step.rc != 0 or bad_rows or not srows:
            why = step.error or (f"{len(bad_rows)} row(s) FAILED verification" if bad_rows else "wrote no rows")
            failures.append(f"{step.label} ({name}): {why}; log: {os.path.relpath(step.log, out)}")

    repeats_md = None
    if rounds > 1:
        # Each round against its own vendor rows; the tables below are round 1's (with the ceilings and the starters).
        by_run = {k: [r for r in rows if r["repeat"] == k and r["run"] != "starter"] for k in range(1, rounds + 1)}
        n_runs, summary = analyse_runs([r for r in rows if r["repeat"] == 0], by_run, args.goals_table or [],
                                       device_class)
        repeats_md = repeat_section(summary, n_runs, device_class)
        write_repeat_csv(summary, n_runs, os.path.join(out, "repeats.csv"))
        rows = [r for r in rows if r["repeat"] in (0, 1)]
    ceilings = ceilings_from(rows)
    annotate(rows, ceilings, device_class)
    apply_goals(rows, args.goals_table or [], device_class)
    if args.kernel_time:
        kernel_times(rows, [s for s in steps if s.repeat in (0, 1)], args.kernel_table, gpu, args.timeout, logdir,
                     notes)
    device_line = first_device_line(os.path.join(logdir, "ceilings.log")) or "device: unknown"
    wait_line = wait_text(device_class, first_device_line(os.path.join(logdir, "ceilings.log"), "gpu wait:"))
    elapsed = time.monotonic() - t_start

    plots = []
    if not args.no_plots:
        try:
            from course_report import plots as plotting
            plots = plotting.make_all(rows, ceilings, os.path.join(out, "plots"), device_class, device_line)
        except ImportError as e:
            notes.append(f"plots skipped: {e} (install python3-matplotlib, which scripts/install-deps.sh does, "
                         f"and run with the Python that has it: {sys.executable} has not)")

    md = render(rows, ceilings, info, commit_of(build, info), args, device_line, steps, failures, notes, plots, elapsed, lessons,
                wanted, abouts, wait_line, repeats_md)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(md)
    write_csv(rows, os.path.join(out, "report.csv"))
    print()
    print(md)
    print(f"report: {len(steps)} steps in {elapsed:.0f} s; wrote {os.path.join(out, 'report.md')}, "
          f"{os.path.join(out, 'report.csv')}" + (f", {os.path.join(out, 'repeats.csv')}" if rounds > 1 else "")
          + (f" and {len(plots)} plots in {os.path.join(out, 'plots')}" if plots else ""))
    if failures:
        print(f"report: FAILED: {len(failures)} step(s) failed (see the Failures section)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
