#!/usr/bin/env python3
"""The course report: measures the device's ceilings, runs every lesson
program found in a build (and, in the solutions track, each untouched
starter), and prints the tables the programs declare, each row with a "% of
ceiling" column, beside the source articles' figures. Writes report.md,
report.csv, each program's own CSV and log, and PNG plots (matplotlib) under
BUILD/report/ (or --out).

    report.py --build BUILD [--tiny | --full] [--lessons 1,3] [--out DIR]

The report knows no lesson. Each program's rows (course::ResultRow,
common/include/course/results.hpp) say which table they belong to, their
role (baseline, kernel under test, variant, part of a call, reference), the
bytes and flops they moved, the ceiling they are measured against, whether
their data sit in cache, the seed table and article figure they reproduce,
and how to plot them. Each program also declares its sizes: the report runs
it with `--size tiny|teaching|full` (course::Cli::preset). A program that
declares none of this still works: roles are guessed from variant names and
it runs at its defaults, with a note.

scripts/report.sh configures and builds a release solutions build first;
scripts/report-gpu.sh runs this on a GPU node from prebuilt binaries.
Exit status: 0 all verified, 1 a lesson program or a verified row FAILED
(the report still finishes), 2 bad arguments. Starter rows may fail: the
untouched starter is meant to, and does not change the exit status.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import glob
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True   # no __pycache__ in the source tree

# course::result_columns(), in order; rows of older programs have only the first ten.
COLUMNS = ["lesson", "experiment", "variant", "size", "time_ms", "rate", "unit", "ceiling", "status", "note",
           "role", "bytes", "flops", "in_cache", "seed", "article", "article_ms", "plot", "param", "goal_pct"]
NUMERIC = {"time_ms", "rate", "bytes", "flops", "article_ms", "goal_pct"}
# What the report adds to each row in report.csv.
EXTRA_COLUMNS = ["program", "run", "is_main", "gbs", "gflops", "ceiling_used", "ceiling_value", "ceiling_size",
                 "pct_of_ceiling", "pct_of_peak", "over_ceiling", "speedup_vs_baseline", "baseline"]

MODES = ("tiny", "teaching", "full")
# Older names of the ceilings, still accepted from older programs' rows.
CEILING_ALIASES = {"copy-bandwidth": "copy", "fp32-peak": "fp32"}
# Where a ceiling was not measured, the next best one (and the row says so).
CEILING_FALLBACK = {"sgemm": "fp32", "host-sgemm": "host-fp32"}
MEMORY_CEILINGS = {"copy", "host-copy", "omp-copy", "memory-peak"}
CEILING_WHAT = {
    "copy": "the device's best memory copy",
    "omp-copy": "the best OpenMP copy kernel the course writes",
    "memory-peak": "the physical memory bandwidth (device properties)",
    "fp32": "FP32 peak",
    "sgemm": "the vendor's SGEMM (cuBLAS) on the device",
    "host-copy": "a STREAM-like copy on every host core",
    "host-fp32": "the host CPU's FP32 peak",
    "host-sgemm": "OpenBLAS SGEMM on the host's cores: what a user would otherwise call",
}

# --------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    """argparse with the course's convention: one line on stderr, exit 2."""

    def error(self, message):
        sys.stderr.write(f"report: error: {message} (see --help)\n")
        sys.exit(2)


def source_lessons():
    """{n: folder} of the lessons in the source tree (lessons/NN-topic)."""
    found = {}
    for d in glob.glob(os.path.join(SOURCE_DIR, "lessons", "[0-9][0-9]-*")):
        if os.path.isdir(d):
            found[int(os.path.basename(d)[:2])] = os.path.basename(d)
    return found


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
    a.mode = "tiny" if a.tiny else "full" if a.full else "teaching"
    if not a.timeout:
        a.timeout = 120 if a.tiny else 900
    return a, p


# ---- running programs -----------------------------------------------------

@dataclass
class Step:
    label: str          # what the progress line says
    program: str        # path
    args: list
    csv: str
    lesson: int         # 0 for ceilings
    run: str            # "ceiling", "solution", "yours", "starter", "vendor"
    rc: int | None = None
    seconds: float = 0
    log: str = ""
    error: str = ""
    about: str = ""


def program_help(program):
    """(options the program lists in --help, its one-line description); (None, "") if --help does not answer."""
    try:
        out = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=60,
                             env=child_env()).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None, ""
    opts = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", out))
    first = out.strip().splitlines()[0] if out.strip() else ""
    about = first.split(": ", 1)[1] if ": " in first else ""
    return (opts or None), about


def size_args(options, mode, notes, name):
    """The arguments that pick the program's own sizes for this mode."""
    if options and "--size" in options:
        return ["--size", mode]
    notes.append(f"{name} declares no sizes (no --size: course::Cli::preset): ran at its defaults"
                 + (" with --reps 1" if mode == "tiny" and options and "--reps" in options else ""))
    return ["--reps", "1"] if mode == "tiny" and options and "--reps" in options else []


def child_env():
    env = dict(os.environ)
    # A kernel that cannot run on the device fails instead of quietly running on the host.
    env["OMP_TARGET_OFFLOAD"] = "MANDATORY"
    # scripts/report-gpu.sh: the packed LLVM runtime, for the programs and not for this Python
    if env.get("COURSE_CHILD_LD_LIBRARY_PATH"):
        env["LD_LIBRARY_PATH"] = env["COURSE_CHILD_LD_LIBRARY_PATH"]
    return env


FINISHED = "# report: finished:"


def log_path(step, logdir):
    """Where a step's output goes: logs/NAME.log beside csv/NAME.csv."""
    return os.path.join(logdir, os.path.basename(step.csv).replace(".csv", ".log"))


def finished_before(step, logdir):
    """The rows of a lesson program that ran to its end in an earlier run into this folder, else None."""
    log = log_path(step, logdir)
    try:
        with open(log, errors="replace") as f:
            last = [ln for ln in f if ln.strip()][-1]
    except (OSError, IndexError):
        return None
    m = re.match(re.escape(FINISHED) + r" exit (-?\d+) in ([\d.]+) s", last)
    if not m or not os.path.exists(step.csv):
        return None
    rc = int(m.group(1))
    if rc < 0 or rc >= 124:   # cut short (timed out, killed, could not start): run it again
        return None
    step.log, step.rc, step.seconds = log, rc, float(m.group(2))
    return read_rows(step)


def run_step(step, k, total, timeout, logdir):
    shown = " ".join([os.path.basename(step.program)] + [shlex.quote(x) for x in step.args])
    sys.stdout.write(f"[{k:>{len(str(total))}}/{total}] {step.label}: {shown} ... ")
    sys.stdout.flush()
    if os.path.exists(step.csv):
        os.remove(step.csv)
    step.log = log_path(step, logdir)
    t0 = time.monotonic()
    with open(step.log, "w") as log:
        log.write(f"$ {step.program} {' '.join(shlex.quote(a) for a in step.args + ['--csv', step.csv])}\n")
        log.flush()
        try:
            p = subprocess.run([step.program] + step.args + ["--csv", step.csv], stdout=log,
                               stderr=subprocess.STDOUT, timeout=timeout, env=child_env())
            step.rc = p.returncode
        except subprocess.TimeoutExpired:
            step.rc = 124
            step.error = f"timed out after {timeout} s (--timeout)"
        except OSError as e:
            step.rc = 127
            step.error = f"could not start: {e}"
    step.seconds = time.monotonic() - t0
    rows = read_rows(step)
    failed = sum(r["status"] != "PASS" for r in rows)
    if step.rc not in (0, None) and not step.error:
        tail = last_lines(step.log, 1)
        if step.rc < 0:
            try:
                import signal
                what = f"killed by {signal.Signals(-step.rc).name}"
            except ValueError:
                what = f"killed by signal {-step.rc}"
        else:
            what = f"exit status {step.rc}"
        step.error = what + (f": {tail}" if tail else "")
    verdict = "PASS" if step.rc == 0 and not failed else "FAILED"
    if verdict == "FAILED" and step.run == "starter":
        verdict = "FAILED (an untouched starter may: not counted)"
    extra = f", {failed} FAILED" if failed else ""
    if step.error:
        extra += f" ({step.error})"
    print(f"{step.seconds:.1f} s, {len(rows)} rows, {verdict}{extra}", flush=True)
    with open(step.log, "a") as log:   # what --resume looks for: how the program ended
        log.write(f"{FINISHED} exit {step.rc} in {step.seconds:.1f} s\n")
    return rows


def last_lines(path, n):
    try:
        with open(path, errors="replace") as f:
            lines = [ln.strip() for ln in f if ln.strip() and not ln.startswith("$ ")]  # not our command line
    except OSError:
        return ""
    return " | ".join(lines[-n:])[:300]


def read_rows(step):
    rows = []
    if not os.path.exists(step.csv):
        return rows
    with open(step.csv, newline="") as f:
        for r in csv.DictReader(f):
            try:
                r["lesson"] = int(r["lesson"])
                for c in NUMERIC:
                    r[c] = float(r.get(c) or 0)
            except (KeyError, ValueError):
                continue
            for c in COLUMNS:
                if r.get(c) is None:
                    r[c] = ""
            r["in_cache"] = str(r["in_cache"]).strip() in ("1", "true", "yes")
            r["ceiling"] = CEILING_ALIASES.get(r["ceiling"], r["ceiling"])
            r["role"] = r["role"] or guess_role(r)
            r["program"] = os.path.basename(step.program)
            r["run"] = step.run
            rows.append(r)
    return rows


def guess_role(r):
    """The role of a row from a program that does not declare it (older ResultRow)."""
    v = r["variant"].lower()
    if r["lesson"] == 0:
        return "ceiling" if r["experiment"] == "ceiling" else "reference"
    if "baseline" in v:
        return "baseline"
    if re.match(r"^(solution|yours|starter)\b", v) or re.search(r"\((solution|yours|starter)\)", v):
        return "kernel"
    return "variant"


# ---- the build ------------------------------------------------------------

def build_info(build):
    """Track, device class and friends, from report/build-info.json or CMakeCache.txt."""
    info = {}
    path = os.path.join(build, "report", "build-info.json")
    if os.path.exists(path):
        with open(path) as f:
            info = json.load(f)
    cache = os.path.join(build, "CMakeCache.txt")
    if not info and os.path.exists(cache):
        with open(cache, errors="replace") as f:
            for line in f:
                m = re.match(r"(COURSE_TRACK|COURSE_DEVICE|CMAKE_BUILD_TYPE):\w+=(.*)", line.strip())
                if m:
                    info[m.group(1).lower().replace("course_", "")] = m.group(2)
    return info


def commit_of(build, info):
    """The commit the binaries were built from: report/commit.txt in a packed
    bundle (scripts/report-gpu.sh pack), else git in the source tree."""
    path = os.path.join(build, "report", "commit.txt")
    if os.path.exists(path):
        with open(path) as f:
            return f.read().strip()
    for src in (info.get("source_dir"), SOURCE_DIR):
        if not src or not os.path.isdir(src):
            continue
        try:
            h = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                               timeout=20)
            if h.returncode == 0 and h.stdout.strip():
                dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--untracked-files=no"],
                                       capture_output=True, text=True, timeout=20).stdout.strip()
                return h.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
        except (OSError, subprocess.TimeoutExpired):
            pass
    return os.environ.get("COURSE_COMMIT", "unknown")


def find_lessons(build):
    """{n: (folder name, main program, starter program or None)} for every lesson program in the build."""
    found = {}
    for d in sorted(glob.glob(os.path.join(build, "lessons", "[0-9][0-9]-*"))):
        name = os.path.basename(d)
        n = int(name[:2])
        prog = os.path.join(d, f"lesson{n:02d}")
        if os.access(prog, os.X_OK):
            starter = os.path.join(d, f"lesson{n:02d}_starter")
            found[n] = (name, prog, starter if os.access(starter, os.X_OK) else None)
    return found


# ---- analysis -------------------------------------------------------------

def size_key(size):
    nums = [int(x) for x in re.findall(r"\d+", size or "")]
    return math.prod(nums) if nums else 0


def ceilings_from(rows):
    """{name: [rows]}: each ceiling, one row per size, the better run where measured twice."""
    best = {}
    for r in rows:
        if r["lesson"] == 0 and r["role"] == "ceiling" and r["status"] == "PASS" and r["rate"] > 0:
            key = (r["variant"], r["size"])
            if key not in best or r["rate"] > best[key]["rate"]:
                best[key] = r
    out = {}
    for (name, _), r in best.items():
        out.setdefault(name, []).append(r)
    for v in out.values():
        v.sort(key=lambda r: size_key(r["size"]))
    return out


def lookup_ceiling(name, ceilings, device_class):
    """The rows of a ceiling, by name; on the host device the host's ceilings are the device's."""
    if name in ceilings:
        return name, ceilings[name]
    if device_class != "gpu":
        alt = name[5:] if name.startswith("host-") else "host-" + name
        if alt in ceilings:
            return alt, ceilings[alt]
    return name, None


def ceiling_at(cands, size):
    """The ceiling measured at the row's own size, else the nearest size (a matmul's SGEMM), else the only one."""
    same = [c for c in cands if c["size"] == size]
    if same:
        return same[0]
    k = size_key(size)
    sized = [c for c in cands if size_key(c["size"]) > 0]
    if k > 0 and sized:
        return min(sized, key=lambda c: abs(math.log(size_key(c["size"])) - math.log(k)))
    return max(cands, key=lambda c: c["rate"])


def rate_in(row, unit):
    """The row's rate in a ceiling's unit, from what it declares (bytes or flops per run) or its own unit."""
    if row["unit"] == unit and row["rate"] > 0:
        return row["rate"]
    if row["time_ms"] > 0:
        if unit == "GB/s" and row["bytes"] > 0:
            return row["bytes"] / row["time_ms"] / 1e6
        if unit == "GFLOP/s" and row["flops"] > 0:
            return row["flops"] / row["time_ms"] / 1e6
    return None


def place_against_ceiling(r, ceilings, device_class):
    r.update(ceiling_used="", ceiling_value=None, ceiling_size="", pct_of_ceiling=None, pct_of_peak=None,
             over_ceiling=False)
    name = r["ceiling"]
    if not name or r["lesson"] == 0 or r["role"] == "ceiling":
        return
    used, cands = lookup_ceiling(name, ceilings, device_class)
    if not cands and name in CEILING_FALLBACK:
        used, cands = lookup_ceiling(CEILING_FALLBACK[name], ceilings, device_class)
    r["ceiling_used"] = used
    if not cands:
        return
    c = ceiling_at(cands, r["size"])
    r["ceiling_value"] = c["rate"]
    # Said where sizes compare (a matmul's SGEMM at another n), not for a copy of another length.
    alike = re.sub(r"\d+", "#", c["size"]) == re.sub(r"\d+", "#", r["size"])
    r["ceiling_size"] = c["size"] if c["size"] != r["size"] and alike else ""
    rate = rate_in(r, c["unit"])
    if rate is None or r["status"] != "PASS":
        return
    r["pct_of_ceiling"] = 100.0 * rate / c["rate"]
    # A memory ceiling can be beaten only from cache; anything else over 100 % is a measuring problem.
    r["over_ceiling"] = r["pct_of_ceiling"] > 100.0 and not r["in_cache"]
    if used == "copy" and "memory-peak" in ceilings:
        r["pct_of_peak"] = 100.0 * rate / ceilings["memory-peak"][0]["rate"]


def speedup_of(r, bases):
    """How many times faster than the baseline: the experiment's own at the same size; else (a
    baseline run on fewer elements, as lesson 6's global atomics) the ratio of rates in one unit;
    else the program's baseline at the same size and unit (a sweep without one of its own)."""
    same_exp = [b for b in bases if b["experiment"] == r["experiment"]]
    for b in same_exp:
        if b["size"] == r["size"] and b["time_ms"] > 0:
            return b["time_ms"] / r["time_ms"], b
    for b in same_exp:
        if b["unit"] == r["unit"] and b["rate"] > 0 and r["rate"] > 0:
            return r["rate"] / b["rate"], b
    for b in bases:
        if b["size"] == r["size"] and b["unit"] == r["unit"] and b["time_ms"] > 0:
            return b["time_ms"] / r["time_ms"], b
    return None, None


def annotate(rows, ceilings, device_class):
    for r in rows:
        place_against_ceiling(r, ceilings, device_class)
        r["gbs"] = rate_in(r, "GB/s")
        r["gflops"] = rate_in(r, "GFLOP/s")
        r["speedup_vs_baseline"], r["baseline"], r["is_main"] = None, "", False
    by_lesson = {}
    for r in rows:
        if r["lesson"] > 0:
            by_lesson.setdefault(r["lesson"], []).append(r)
    for lrows in by_lesson.values():
        # The baselines come from the lesson program proper (a starter runs only its own kernels).
        bases = [b for b in lrows if b["role"] == "baseline" and b["run"] != "starter" and b["status"] == "PASS"]
        for r in lrows:
            if r["role"] in ("kernel", "variant") and r["time_ms"] > 0:
                sp, b = speedup_of(r, bases)
                r["speedup_vs_baseline"] = sp
                r["baseline"] = b["variant"] if b else ""
        # The kernel under test, one row per (experiment, size, run): the best where several qualify.
        best = {}
        for r in lrows:
            if r["role"] == "kernel" and r["status"] == "PASS":
                key = (r["experiment"], r["size"], r["run"])
                score = r["pct_of_ceiling"] if r["pct_of_ceiling"] is not None else (
                    r["rate"] if r["rate"] > 0 else -r["time_ms"])
                if key not in best or score > best[key][0]:
                    best[key] = (score, r)
        for _, r in best.values():
            r["is_main"] = True


# ---- Markdown ---------------------------------------------------------------

def fmt(v, digits=1, suffix=""):
    if v is None or v == "" or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return ""
    if isinstance(v, float):
        if v != 0 and abs(v) < 10 ** -digits:
            return f"{v:.2g}{suffix}"
        return f"{v:,.{digits}f}{suffix}"
    return f"{v}{suffix}"


def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def md_table(header, rows, align=None):
    align = align or ["---"] * len(header)
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    for r in rows:
        out.append("| " + " | ".join(md_escape(c) for c in r) + " |")
    return "\n".join(out)


def status_of(r):
    if r["status"] == "PASS":
        return "PASS"
    return "FAILED (starter: expected)" if r["run"] == "starter" else "**FAILED**"


def variant_of(r):
    return r["variant"] + (" *(starter)*" if r["run"] == "starter" and "starter" not in r["variant"] else "")


def rate_text(r):
    if r["status"] != "PASS":
        # A wrong answer has no rate worth showing: an unfinished starter that
        # copies nothing would otherwise "reach" millions of GB/s.
        return "(wrong result)"
    return f"{fmt(r['rate'], 2)} {r['unit']}" if r["rate"] > 0 else ""


def pct_text(r):
    if r["status"] != "PASS":
        return ""
    if r["pct_of_ceiling"] is not None:
        t = f"{fmt(r['pct_of_ceiling'])} % {r['ceiling_used']}"
        if r["ceiling_size"]:
            t += f" (at {r['ceiling_size']})"
        if r["in_cache"]:
            t += " (in cache)"
        if r["over_ceiling"]:
            t += " ⚠ over the ceiling, not declared in cache"
        return t
    if r["ceiling_used"]:
        return f"n/a ({r['ceiling_used']} not measured)" if r["ceiling_value"] is None else "n/a (no bytes/flops)"
    return ""


def speedup_text(r):
    if r["status"] != "PASS" or not r["speedup_vs_baseline"]:
        return ""
    return fmt(r["speedup_vs_baseline"], 1, "x")


def experiment_table(erows):
    header = ["variant", "size", "time (ms)", "rate", "% of ceiling", "vs baseline", "article", "status", "note"]
    align = ["---", "---", "---:", "---:", "---:", "---:", "---", "---", "---"]
    body = [[variant_of(r), r["size"], fmt(r["time_ms"], 3 if r["time_ms"] < 1 else 2), rate_text(r), pct_text(r),
             speedup_text(r), (r["article"] if r["run"] != "starter" else ""), status_of(r), r["note"]]
            for r in erows]
    return md_table(header, body, align)


def grouped(rows, key):
    """[(key, [rows])] in order of first appearance."""
    out = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return list(out.items())


def seed_tables(rows):
    """The seeds' tables, measured here: rows that declare the seed table they reproduce, across lessons."""
    md = []
    seeded = [r for r in rows if r["seed"] and r["run"] != "starter" and r["lesson"] > 0]
    if not seeded:
        return "_No program in this run declares a seed table._\n"
    for seed, srows in grouped(sorted(seeded, key=lambda r: r["lesson"]), lambda r: r["seed"]):
        md.append(f"### {seed}\n")
        several = len({r["experiment"] for r in srows}) > 1
        refs = {}
        for r in srows:   # the reference: the first baseline (the lowest lesson's) of the same experiment and size
            if r["role"] == "baseline" and r["status"] == "PASS" and r["time_ms"] > 0:
                refs.setdefault((r["experiment"], r["size"]), r)
        body = []
        for r in srows:
            ref = refs.get((r["experiment"], r["size"]))
            vs = ""
            if ref and ref is not r and r["status"] == "PASS" and r["time_ms"] > 0:
                vs = f"{fmt(ref['time_ms'] / r['time_ms'], 1, 'x')} vs {ref['variant']} (L{ref['lesson']})"
            body.append([f"L{r['lesson']}"] + ([r["experiment"]] if several else []) +
                        [r["variant"], r["size"], fmt(r["time_ms"], 2), rate_text(r), pct_text(r), vs, r["article"]])
        md.append(md_table(["lesson"] + (["experiment"] if several else []) +
                           ["variant", "size", "time here (ms)", "rate here", "% of ceiling", "vs the baseline",
                            "article"], body,
                           ["---"] * (2 if several else 1) + ["---", "---", "---:", "---:", "---:", "---:", "---"]))
        md.append("")
    md.append("Speedups across lessons come from different processes, minutes apart: machine load moves them "
              "more than a lesson's own \"vs baseline\", which is measured inside one program.\n")
    return "\n".join(md)


def summary_table(rows, device_class):
    """Each lesson's kernel under test at its largest size against its ceiling (and the design's goal on a GPU)."""
    mains = [r for r in rows if r["is_main"] and r["run"] != "starter"]
    largest = {}
    for r in mains:
        key = (r["lesson"], r["experiment"])
        if key not in largest or size_key(r["size"]) > size_key(largest[key]["size"]):
            largest[key] = r
    if not largest:
        return "_No kernel under test in this run._\n"
    body = []
    for (n, exp), r in sorted(largest.items()):
        goal = ""
        if r["goal_pct"] > 0:
            met = r["pct_of_ceiling"] is not None and r["pct_of_ceiling"] >= r["goal_pct"]
            goal = f"≥ {fmt(r['goal_pct'], 0)} %: " + ("met" if met else "**not met**")
        body.append([f"L{n}", exp, r["variant"], r["size"], rate_text(r), pct_text(r),
                     fmt(r["pct_of_peak"], 1, " %") if r["pct_of_peak"] is not None else "", speedup_text(r), goal])
    head = ["lesson", "experiment", "kernel", "size", "rate", "% of ceiling", "% of memory peak", "vs baseline",
            "design goal" + (" (H100/H200)" if device_class == "gpu" else " (GPU only)")]
    return md_table(head, body, ["---", "---", "---", "---", "---:", "---:", "---:", "---:", "---"]) + "\n"


def missing_why(info, key, program):
    """Why a vendor ceiling program is missing: configure's reason, or that it did not build or run."""
    said = info.get(key) or ""
    if said.startswith("skipped"):
        return said
    return f"report/{program} did not build or did not run here" + (f" (configure found {said})" if said else "")


def ceilings_section(rows, ceilings, device_class, info, notes):
    md = ["## Ceilings, measured in this run\n"]
    order = ["copy", "omp-copy", "memory-peak", "fp32", "sgemm", "host-copy", "host-fp32", "host-sgemm"]
    names = [n for n in order if n in ceilings] + sorted(n for n in ceilings if n not in order)
    copy = ceilings.get("copy", [{}])[-1].get("rate")
    peak = ceilings.get("memory-peak", [{}])[-1].get("rate")
    body = []
    for name in names:
        for c in ceilings[name]:
            rel = []
            if name == "omp-copy" and copy:
                rel.append(f"{100 * c['rate'] / copy:.0f} % of copy")
            if name in ("copy", "omp-copy") and peak:
                rel.append(f"{100 * c['rate'] / peak:.0f} % of memory-peak")
            body.append([f"`{name}`", CEILING_WHAT.get(name, ""), c["size"], fmt(c["rate"], 1) + " " + c["unit"],
                         ", ".join(rel), c["note"]])
    md.append(md_table(["ceiling", "what", "size", "value", "relative", "how"], body,
                       ["---", "---", "---", "---:", "---", "---"]))
    md.append("")
    skipped = []
    if "sgemm" not in ceilings and device_class == "gpu":
        skipped.append("`sgemm` (cuBLAS): " + missing_why(info, "sgemm", "course_sgemm")
                       + "; matmul rows use `fp32` instead")
    if "host-sgemm" not in ceilings:
        skipped.append("`host-sgemm` (OpenBLAS): " + missing_why(info, "host_sgemm", "course_blas_sgemm")
                       + "; rows that name it use `host-fp32` instead"
                       + ("" if device_class == "gpu" else ", and the device's matmuls `fp32`"))
    if skipped:
        md.append("Skipped: " + "; ".join(skipped) + ".\n")
    details = [r for r in rows if r["lesson"] == 0 and r["role"] != "ceiling"]
    if details:
        body = [[r["variant"], r["size"], fmt(r["rate"], 1) + " " + r["unit"], fmt(r["time_ms"], 3), r["program"],
                 r["status"], r["note"]] for r in details]
        md.append("<details><summary>every measurement behind the ceilings</summary>\n")
        md.append(md_table(["what", "size", "rate", "time (ms)", "run", "status", "note"], body,
                           ["---", "---", "---:", "---:", "---", "---", "---"]))
        md.append("\n</details>\n")
    md.append("Each row's \"% of ceiling\" divides its rate by the ceiling it declares, measured in this run at the "
              "row's own size where the ceiling was measured at several: streaming kernels by `copy` (bytes read + "
              "written), compute kernels by `fp32`, matmuls by `sgemm` (the vendor's library) and code on host "
              "threads by the host's ceilings. Copies are the fastest run, measured at the start and the end of the "
              "report, the better kept (as STREAM reports). A row may exceed a memory ceiling only when its data "
              "sit in cache, and then says so; any other row over 100 % is flagged ⚠.\n")
    if device_class != "gpu":
        md.append("On the host device the lessons' code is compiled without -march (SSE2, no FMA), so it cannot "
                  "reach the CPU's FP32 peak, which counts AVX2/AVX-512 FMA lanes; the FP32 rate this build's flags "
                  "reach is among the measurements above.\n")
    return "\n".join(md)


def lesson_section(n, folder, about, lrows, built):
    md = [f"## Lesson {n}: {folder}" + (f" — {about}" if about else "") + "\n"]
    if not built:
        md.append("_Not in this build._\n")
        return "\n".join(md)
    if not lrows:
        md.append("_The lesson program wrote no rows (see Failures)._\n")
        return "\n".join(md)
    for exp, erows in grouped(lrows, lambda r: r["experiment"]):
        md.append(f"### {exp}\n")
        md.append(experiment_table(erows) + "\n")
    return "\n".join(md)


def render(rows, ceilings, info, build, args, device_line, steps, failures, notes, plots, elapsed, lessons, wanted,
           abouts):
    device_class = info.get("device_class", "host")
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    md = [f"# Course report — {device_class} device\n",
          f"- {device_line}",
          f"- date {now}; commit {commit_of(build, info)}",
          f"- build: {info.get('track', '?')} track, {info.get('build_type', 'Release')}, "
          f"{info.get('compiler', 'clang')}, triple {info.get('triple', '?')}"
          + (f", {info['arch']}" if info.get("arch") else ""),
          f"- sizes: **{args.mode}** (`--tiny` / default teaching sizes / `--full`, each program's own "
          f"`--size {args.mode}`); {len(steps)} steps in {elapsed:.0f} s",
          ""]
    if failures:
        md.append("**FAILED:** " + "; ".join(failures) + "\n")
    md.append(ceilings_section(rows, ceilings, device_class, info, notes))
    md.append("## Each lesson's kernel against its ceiling\n")
    md.append(summary_table(rows, device_class))
    md.append("## The articles' tables, measured here\n")
    md.append(seed_tables(rows))
    for n in wanted:
        folder = lessons[n][0] if n in lessons else source_lessons().get(n, f"lesson {n}")
        md.append(lesson_section(n, folder, abouts.get(n, ""), [r for r in rows if r["lesson"] == n], n in lessons))
    if plots:
        md.append("## Plots\n")
        for title, path in plots:
            md.append(f"- {title}: `{os.path.relpath(path, args.out_dir)}`")
        md.append("")
    over = [r for r in rows if r.get("over_ceiling") and r["run"] != "starter"]
    if over:
        notes.append(f"{len(over)} row(s) read over their memory ceiling without declaring their data in cache "
                     "(⚠ in the tables): a ceiling measured under load, or a working set the program did not "
                     "recognise as cached: " + "; ".join(f"L{r['lesson']} {r['experiment']} {r['variant']} "
                                                        f"{r['size']}" for r in over[:6]))
    if notes:
        md.append("## Notes\n")
        md.extend(f"- {x}" for x in notes)
        md.append("")
    if failures:
        md.append("## Failures\n")
        md.extend(f"- {f}" for f in failures)
        md.append("")
    return "\n".join(md)


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS + EXTRA_COLUMNS)
        for r in rows:
            vals = []
            for c in COLUMNS + EXTRA_COLUMNS:
                v = r.get(c, "")
                if v is None:
                    v = ""
                elif isinstance(v, bool):
                    v = int(v)
                elif isinstance(v, float):
                    v = f"{v:.6g}"
                vals.append(v)
            w.writerow(vals)


def first_device_line(log):
    try:
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith("device:"):
                    return line.strip()
    except OSError:
        pass
    return ""


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
    wanted = args.lessons_wanted or sorted(set(lessons) | set(source_lessons()))
    for n in wanted:
        if n not in lessons:
            notes.append(f"lesson {n} ({source_lessons().get(n, '?')}) is not in this build: its program is not "
                         "built (configure with it in COURSE_LESSONS, or it failed to compile: see the build log)")

    steps = [Step("ceilings", ceil_prog, [], os.path.join(csvdir, "ceilings.csv"), 0, "ceiling")]
    vendors = [("course_sgemm", "cuBLAS SGEMM ceiling", "sgemm.csv", device_class == "gpu"),
               ("course_blas_sgemm", "OpenBLAS SGEMM ceiling (host CPU)", "blas-sgemm.csv", True)]
    for prog, label, name, relevant in vendors:
        path = os.path.join(build, "report", prog)
        if relevant and os.access(path, os.X_OK):
            steps.append(Step(label, path, [], os.path.join(csvdir, name), 0, "vendor"))
        elif relevant:
            notes.append(f"{label} skipped: "
                         + missing_why(info, "sgemm" if prog == "course_sgemm" else "host_sgemm", prog))
    for n in wanted:
        if n not in lessons:
            continue
        folder, prog, starter = lessons[n]
        run = "solution" if track == "solutions" else "yours"
        steps.append(Step(f"lesson {n} {run}", prog, [], os.path.join(csvdir, f"lesson{n:02d}.csv"), n, run))
        if starter and not args.no_starters:
            steps.append(Step(f"lesson {n} starter", starter, ["--only-yours"],
                              os.path.join(csvdir, f"lesson{n:02d}_starter.csv"), n, "starter"))
    if len(steps) > 1:
        # Again at the end: on a shared machine load comes and goes; a ceiling is the better of the two.
        steps.append(Step("ceilings again", ceil_prog, [], os.path.join(csvdir, "ceilings-end.csv"), 0, "ceiling"))
    print(f"report: {len(steps)} steps, {args.mode} sizes, build {build} ({track} track, {device_class} device), "
          f"output {out}", flush=True)

    t_start = time.monotonic()
    rows, failures, abouts = [], [], {}
    asked = set()
    for k, step in enumerate(steps, 1):
        opts, about = program_help(step.program)
        if step.lesson and step.run != "starter":
            abouts[step.lesson] = re.sub(r"^lesson \d+,\s*", "", about)
        name = os.path.basename(step.program)
        # a note about missing presets once per program, not again for its second run
        step.args = size_args(opts, args.mode, notes if name not in asked else [], name) + step.args
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
                          goal_pct=0.0, program=name, run=step.run)]
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

    ceilings = ceilings_from(rows)
    annotate(rows, ceilings, device_class)
    device_line = first_device_line(os.path.join(logdir, "ceilings.log")) or "device: unknown"
    elapsed = time.monotonic() - t_start

    plots = []
    if not args.no_plots:
        try:
            import plots as plotting
            plots = plotting.make_all(rows, ceilings, os.path.join(out, "plots"), device_class, device_line)
        except ImportError as e:
            notes.append(f"plots skipped: {e} (install python3-matplotlib, which scripts/install-deps.sh does, "
                         f"and run with the Python that has it: {sys.executable} has not)")

    md = render(rows, ceilings, info, build, args, device_line, steps, failures, notes, plots, elapsed, lessons,
                wanted, abouts)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(md)
    write_csv(rows, os.path.join(out, "report.csv"))
    print()
    print(md)
    print(f"report: {len(steps)} steps in {elapsed:.0f} s; wrote {os.path.join(out, 'report.md')}, "
          f"{os.path.join(out, 'report.csv')}" + (f" and {len(plots)} plots in {os.path.join(out, 'plots')}"
                                                  if plots else ""))
    if failures:
        print(f"report: FAILED: {len(failures)} step(s) failed (see the Failures section)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
