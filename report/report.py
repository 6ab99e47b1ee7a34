#!/usr/bin/env python3
"""The course report: measures the device's ceilings, runs every lesson
program found in a build (baselines, the lesson's extra variants, the
solution, and in the solutions track the untouched starter), and prints the
source articles' tables beside the numbers measured here, each row with a
"% of ceiling" column. Writes report.md, report.csv, the programs' own CSV and
logs, and PNG plots (matplotlib) under BUILD/report/ (or --out).

    report.py --build BUILD [--tiny | --full] [--lessons 1,3] [--out DIR]

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

COLUMNS = ["lesson", "experiment", "variant", "size", "time_ms", "rate", "unit", "ceiling", "status", "note"]
EXTRA_COLUMNS = ["program", "role", "is_main", "ceiling_used", "ceiling_value", "pct_of_ceiling",
                 "speedup_vs_baseline", "article"]

# --------------------------------------------------------------------------
# The one table of per-lesson run arguments and the articles' own figures.
#
# args: options per mode ("tiny" for the test, "teach" the default, "full");
#   "gpu_teach" / "gpu_full" override on a GPU build. Options a program does
#   not list in its --help are dropped with a note, so a lesson that renames
#   an option degrades to its defaults instead of failing.
# starter_args: the same for lessonNN_starter --only-yours (defaults to args).
# baseline: regex on the variant naming each experiment's baseline row.
# articles: (experiment regex, variant regex, the article's figure).
# --------------------------------------------------------------------------


@dataclass
class Lesson:
    number: int
    folder: str
    title: str
    args: dict
    starter_args: dict | None = None
    baseline: str = r"baseline"
    articles: list = field(default_factory=list)
    # the kernel under test's rows (the lesson's headline in plots): regex on the variant,
    # in experiments matching main_experiment (sweeps stay in the tables, out of the summary plots)
    main: str = r"^(solution|yours|starter)$"
    main_experiment: str = r"."
    # rows whose rate is not in the ceiling's unit: (row) -> rate in GFLOP/s or None
    to_gflops: object = None
    # the ceiling for rows that name none (lesson 7's steps/s rows)
    assume_ceiling: str = ""
    # an option through which the program takes the SGEMM GFLOP/s measured at its --n (lesson 5)
    sgemm_option: str = ""
    # experiments without a baseline of their own use the lesson's at the same size (lesson 5's tile sweep)
    shared_baseline: bool = False
    # rows that time a part of a call, not an alternative to the baseline: no speedup (lesson 2's copies)
    parts: str = r"^$"
    # the lesson runs on host threads in every build (lesson 1): no % of a GPU's ceiling
    host_only: bool = False
    # one more run of the kernel under test, per mode (e.g. "gpu_full"), for the 1024² headline table
    extra_args: dict = field(default_factory=dict)


def _first_int(text):
    m = re.search(r"\d+", text or "")
    return int(m.group()) if m else None


def _nbody_gflops(row):
    # 20 flops per body-body interaction (the CUDA samples' convention), n^2 per step.
    n = _first_int(row["size"])
    if row["unit"] == "steps/s" and n:
        return row["rate"] * 20.0 * n * n / 1e9
    return None


MAIN = r"^(solution|yours|starter)$"

LESSONS = {
    1: Lesson(
        1, "01-cpu-baseline", "CPU baseline: loop order, omp parallel for, simd",
        args={"tiny": ["--n", "33", "--reps", "1"],
              "teach": ["--n", "1024", "--reps", "1"],
              "full": ["--n", "1024", "--reps", "3"]},
        articles=[
            ("matmul", r"serial i-j-k", "7350 ms (C++ AMP article); 5.12 s (Intel GFX article), 1024²"),
            ("matmul", r"parallel i-j-k", "2.689 s on 2 cores (Intel GFX article), 1024²"),
        ],
        host_only=True),
    2: Lesson(
        2, "02-target-offload", "target teams distribute parallel for, map, target data",
        args={"tiny": ["--vec-n", "1000", "--mm-n", "33", "--heat-n", "33", "--heat-steps", "3", "--bw-n", "4096",
                       "--reps", "1"],
              "teach": ["--reps", "3"],
              "full": ["--reps", "5", "--shapes"]},
        main=r"^(solution|yours|starter)(: kernel)?$", parts=r": copy (in|out)$",
        articles=[
            ("matmul", r"^serial i-j-k", "7350 ms at 1024² (C++ AMP article)"),
            ("matmul", r"^(solution|yours)(: kernel)?$", "147x vs serial at 1024² (C++ AMP article, naive GPU matmul)"),
            ("add-exp", r"(solution|yours): whole call", "C++ AMP article: vector add is a poor GPU candidate, "
                                                         "the copies dominate"),
        ]),
    3: Lesson(
        3, "03-simd", "omp simd, declare simd, __restrict__, alignment",
        args={"tiny": ["--n", "1000", "--reps", "1"],
              "teach": ["--reps", "5"],
              "full": ["--reps", "9"],
              "gpu_teach": ["--n", str(1 << 26), "--reps", "9"],
              "gpu_full": ["--n", str(1 << 28), "--reps", "9"]},
        articles=[
            ("", MAIN, "Intel GFX article's rules: vectorize, reduction for reordered sums, 4-byte types, "
                       "aligned data, no gathers"),
        ]),
    4: Lesson(
        4, "04-register-tiles", "per-thread register tiles",
        args={"tiny": ["--n", "33", "--reps", "1"],
              "teach": ["--n", "1024", "--reps", "1"],
              "full": ["--n", "1024", "--reps", "3"],
              "gpu_teach": ["--n", "2048", "--reps", "3"],
              "gpu_full": ["--n", "4096", "--reps", "5"]},
        extra_args={m: ["--n", "1024", "--reps", "5", "--only-yours"] for m in ("gpu_teach", "gpu_full")},
        articles=[
            ("", r"16\s*[x×]\s*32", "TILE_M=TILE_K=16, TILE_N=32, under 4 KB per thread (Intel GFX article)"),
            ("", MAIN, "0.439 s for 1024² (Intel GFX article's offloaded matmul)"),
        ]),
    5: Lesson(
        5, "05-team-local-matmul", "team-local tiles, barriers, tile-size sweep",
        args={"tiny": ["--n", "33", "--tiles", "2,4,16", "--reps", "1"],
              "teach": ["--n", "1024", "--reps", "1"],
              "full": ["--n", "1024", "--reps", "3"],
              "gpu_teach": ["--n", "2048", "--reps", "3"],
              "gpu_full": ["--n", "4096", "--reps", "5"]},
        extra_args={m: ["--n", "1024", "--reps", "5", "--only-yours"] for m in ("gpu_teach", "gpu_full")},
        articles=[
            ("sweep", r"^tile 2$", "3464 ms (CUDA article, tile 2)"),
            ("sweep", r"^tile 4$", "523 ms (CUDA article, tile 4)"),
            ("sweep", r"^tile 8$", "92 ms (CUDA article, tile 8)"),
            ("sweep", r"^tile 16$", "52 ms (CUDA article, tile 16)"),
            ("matmul", MAIN, "17 ms, 430x vs serial at 1024² (C++ AMP article, tiled)"),
        ],
        sgemm_option="--sgemm", shared_baseline=True),
    6: Lesson(
        6, "06-atomic-reductions", "global vs team-local atomics, reduction, histogram",
        args={"tiny": ["--n", "1000", "--slow-n", "1000", "--reps", "1"],
              "teach": ["--reps", "3"],
              "full": ["--reps", "5"]},
        main=r"^(solution|yours|starter) \(team-local\)$",
        articles=[
            ("", r"global atomic", "oneAPI chapter: one global accumulator serialises; float/double atomics "
                                   "emulated on Gen9/Iris Xe"),
            ("", r"team-local", "oneAPI chapter: local-memory partials, one global atomic per work-group"),
        ]),
    7: Lesson(
        7, "07-soa-vs-aos", "structure of arrays vs array of structures, N-body",
        args={"tiny": ["--n", "64", "--steps", "1", "--reps", "1"],
              "teach": ["--n", "10240", "--steps", "1", "--reps", "1"],
              "full": ["--n", "10240", "--steps", "2", "--reps", "3"],
              "gpu_teach": ["--n", "10240,65536", "--steps", "5", "--reps", "3"],
              "gpu_full": ["--n", "10240,65536", "--steps", "10", "--reps", "3"]},
        articles=[
            ("article", r"^AoS \(article", "2.5 steps/s on a CPU at 10 240 bodies (C++ AMP article)"),
            ("article", MAIN, "160 steps/s on a GeForce GT 740M at 10 240 bodies (C++ AMP article)"),
        ],
        to_gflops=_nbody_gflops, assume_ceiling="fp32-peak"),
    8: Lesson(
        8, "08-access-patterns", "coalescing, vector width, threads in flight",
        args={"tiny": ["--small", "40,24", "--large", "100,50", "--sweep", "1,2", "--reps", "1"],
              "teach": ["--reps", "3"],
              "full": ["--reps", "5"],
              # 16000x8000 copies in ~0.1 ms on an H200, where launch cost and
              # clocks swing the result 3x; 32000x16000 (488 MiB) gave steady
              # rows (docs/results/report-gpu.md).
              "gpu_full": ["--reps", "20", "--large", "32000,16000"]},
        baseline=r"^Simple \(",
        main=r"\((solution|yours|starter)\)$", main_experiment=r"^nine patterns$",
        articles=[
            ("nine patterns", r"^Simple \(", "OpenCL paper: the 384x512 image reached only 12 % of a Tesla "
                                                "C2075's peak"),
        ]),
}

# The design's goals for the solutions on an H100/H200 (COURSE-DESIGN.md), shown on GPU reports.
GPU_GOALS = {2: ("copy-bandwidth", 85), 5: ("sgemm", 50), 6: ("copy-bandwidth", 80), 7: ("fp32-peak", 30),
             8: ("copy-bandwidth", 80)}

MODES = ("tiny", "teach", "full")

# --------------------------------------------------------------------------


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse with the course's convention: one line on stderr, exit 2."""

    def error(self, message):
        sys.stderr.write(f"report: error: {message} (see --help)\n")
        sys.exit(2)


def parse_args(argv):
    p = Parser(prog="report", description="The course report: ceilings, every lesson's variants, the articles' "
                                          "tables beside ours, CSV and plots.")
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
    p.add_argument("--validate-only", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--no-build-check", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.timeout < 0:
        p.error(f"--timeout must be a positive number of seconds, got {a.timeout}")
    if a.lessons:
        try:
            wanted = [int(x) for x in a.lessons.split(",") if x.strip()]
        except ValueError:
            p.error(f"--lessons expects comma-separated lesson numbers, got '{a.lessons}'")
        bad = [n for n in wanted if n not in LESSONS]
        if bad or not wanted:
            p.error(f"--lessons: no lesson {bad[0] if bad else a.lessons!r}; the course has lessons "
                    f"{min(LESSONS)}-{max(LESSONS)}")
        a.lessons = wanted
    else:
        a.lessons = []
    a.mode = "tiny" if a.tiny else "full" if a.full else "teach"
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
    role: str           # "ceiling", "solution", "yours", "starter", "sgemm"
    dropped: list = field(default_factory=list)
    rc: int | None = None
    seconds: float = 0
    log: str = ""
    error: str = ""


def program_options(program):
    """Options a course program lists in --help (None if --help does not answer)."""
    try:
        out = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=60,
                             env=child_env()).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    opts = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", out))
    return opts or None


def filter_args(args, options):
    """Keep the options the program knows; return (kept, dropped)."""
    if options is None:
        return list(args), []
    kept, dropped, i = [], [], 0
    while i < len(args):
        opt = args[i]
        has_value = i + 1 < len(args) and not args[i + 1].startswith("--")
        chunk = args[i:i + 2] if has_value else args[i:i + 1]
        (kept if opt in options else dropped).extend(chunk)
        i += len(chunk)
    return kept, dropped


def child_env():
    env = dict(os.environ)
    # A kernel that cannot run on the device fails instead of quietly running on the host.
    env["OMP_TARGET_OFFLOAD"] = "MANDATORY"
    # scripts/report-gpu.sh: the packed LLVM runtime, for the programs and not for this Python
    if env.get("COURSE_CHILD_LD_LIBRARY_PATH"):
        env["LD_LIBRARY_PATH"] = env["COURSE_CHILD_LD_LIBRARY_PATH"]
    return env


def run_step(step, k, total, timeout, logdir):
    shown = " ".join([os.path.basename(step.program)] + [shlex.quote(x) for x in step.args])
    sys.stdout.write(f"[{k:>{len(str(total))}}/{total}] {step.label}: {shown} ... ")
    sys.stdout.flush()
    if os.path.exists(step.csv):
        os.remove(step.csv)
    step.log = os.path.join(logdir, os.path.basename(step.csv).replace(".csv", ".log"))
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
    if verdict == "FAILED" and step.role == "starter":
        verdict = "FAILED (an untouched starter may: not counted)"
    extra = f", {failed} FAILED" if failed else ""
    if step.error:
        extra += f" ({step.error})"
    print(f"{step.seconds:.1f} s, {len(rows)} rows, {verdict}{extra}", flush=True)
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
                r["time_ms"] = float(r["time_ms"] or 0)
                r["rate"] = float(r["rate"] or 0)
            except (KeyError, ValueError):
                continue
            for c in COLUMNS:
                r.setdefault(c, "")
                if r[c] is None:
                    r[c] = ""
            r["program"] = os.path.basename(step.program)
            r["role"] = step.role
            rows.append(r)
    return rows


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
    """{n: (folder path, main program, starter program or None)} for every lesson program in the build."""
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

def ceilings_from(rows):
    """{name: row} of the measured ceilings: the higher where measured twice."""
    c = {}
    for r in rows:
        if r["lesson"] == 0 and r["experiment"] == "ceiling" and r["status"] == "PASS" and r["rate"] > 0:
            if r["variant"] not in c or r["rate"] > c[r["variant"]]["rate"]:
                c[r["variant"]] = r
    return c


def ceiling_for(row, ceilings, lesson, device_class="host"):
    """(ceiling name used, ceiling value, % of ceiling) for one row, or Nones."""
    name = row["ceiling"]
    if not name or row["lesson"] == 0 or row["rate"] <= 0:
        return None, None, None
    if lesson and lesson.host_only and device_class == "gpu":
        return "", None, None   # host threads against a GPU's roof would say nothing
    used = name
    if name == "sgemm" and "sgemm" not in ceilings:
        used = "fp32-peak"   # no vendor SGEMM on this device: compare with FP32 peak, and say so
    c = ceilings.get(used)
    if not c:
        return used, None, None
    rate = row["rate"]
    want = c["unit"]
    if row["unit"] != want:
        rate = lesson.to_gflops(row) if (lesson and lesson.to_gflops and want == "GFLOP/s") else None
        if rate is None:
            return used, c["rate"], None
    return used, c["rate"], 100.0 * rate / c["rate"]


def is_baseline(row, lesson):
    return bool(re.search(lesson.baseline, row["variant"], re.I)) if lesson else False


def baseline_rows(rows, lesson):
    """{experiment: [baseline rows]} from a lesson's rows (never the starter's)."""
    b = {}
    for r in rows:
        if r["role"] != "starter" and is_baseline(r, lesson) and r["time_ms"] > 0:
            b.setdefault(r["experiment"], []).append(r)
    return b


def speedup(row, base):
    """How many times faster than the baseline: time ratio at the same size,
    else (the baseline ran on fewer elements, as lesson 6's global atomics do)
    the ratio of rates in the same unit."""
    if not base or row["time_ms"] <= 0:
        return None
    same = [b for b in base if b["size"] == row["size"]]
    if same:
        return same[0]["time_ms"] / row["time_ms"]
    rated = [b for b in base if b["unit"] == row["unit"] and b["rate"] > 0 and row["rate"] > 0]
    return row["rate"] / rated[0]["rate"] if rated else None


def article_for(row, lesson):
    if not lesson or row["role"] == "starter":
        return ""
    texts = [t for exp, var, t in lesson.articles
             if re.search(exp, row["experiment"], re.I) and re.search(var, row["variant"], re.I)]
    return "; ".join(texts)


def annotate(rows, ceilings, device_class="host"):
    by_lesson = {}
    for r in rows:
        by_lesson.setdefault(r["lesson"], []).append(r)
    for n, lrows in by_lesson.items():
        lesson = LESSONS.get(n)
        base = baseline_rows(lrows, lesson)
        every_base = [b for bl in base.values() for b in bl]
        for r in lrows:
            if not r["ceiling"] and lesson and lesson.assume_ceiling and r["rate"] > 0:
                r["ceiling"] = lesson.assume_ceiling
            used, value, pct = ceiling_for(r, ceilings, lesson, device_class)
            r["ceiling_used"] = used or ""
            r["ceiling_value"] = value
            r["pct_of_ceiling"] = pct
            # the experiment's own baseline, else the lesson's at the same size and unit (lesson 5's tile sweep)
            own = base.get(r["experiment"])
            if not own and lesson and lesson.shared_baseline:
                own = [b for b in every_base if b["size"] == r["size"] and b["unit"] == r["unit"]]
            is_part = lesson and re.search(lesson.parts, r["variant"])
            r["speedup_vs_baseline"] = speedup(r, own) if n != 0 and not is_part else None
            r["article"] = article_for(r, lesson)
            r["is_main"] = False
        # The kernel under test, one row per (experiment, size, role): the best where several match (lesson 8).
        best = {}
        for r in lrows:
            if (lesson and r["role"] != "ceiling" and r["status"] == "PASS"
                    and re.search(lesson.main, r["variant"], re.I)
                    and re.search(lesson.main_experiment, r["experiment"], re.I)):
                key = (r["experiment"], r["size"], r["role"])
                score = r["rate"] if r["rate"] > 0 else -r["time_ms"]
                if key not in best or score > best[key][0]:
                    best[key] = (score, r)
        for _, r in best.values():
            r["is_main"] = True


# ---- Markdown ---------------------------------------------------------------

def fmt(v, digits=1, suffix=""):
    if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return ""
    if isinstance(v, float):
        if v != 0 and abs(v) < 10 ** -digits:
            return f"{v:.2g}{suffix}"
        return f"{v:,.{digits}f}{suffix}"
    return f"{v}{suffix}"


def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def status_of(r):
    if r["status"] == "PASS":
        return "PASS"
    return "FAILED (starter: expected)" if r["role"] == "starter" else "**FAILED**"


def md_table(header, rows, align=None):
    align = align or ["---"] * len(header)
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    for r in rows:
        out.append("| " + " | ".join(md_escape(c) for c in r) + " |")
    return "\n".join(out)


def lesson_table(lrows):
    header = ["experiment", "variant", "size", "time (ms)", "rate", "% of ceiling", "vs baseline", "article",
              "status", "note"]
    align = ["---", "---", "---", "---:", "---:", "---:", "---:", "---", "---", "---"]
    body = []
    for r in lrows:
        pct = ""
        if r["pct_of_ceiling"] is not None:
            pct = f"{fmt(r['pct_of_ceiling'])} % {r['ceiling_used']}"
        elif r["ceiling_used"]:
            pct = f"n/a ({r['ceiling_used']} not measured)" if r["ceiling_value"] is None else "n/a (unit)"
        rate = f"{fmt(r['rate'], 2)} {r['unit']}" if r["rate"] > 0 else ""
        sp = fmt(r["speedup_vs_baseline"], 1, "x") if r["speedup_vs_baseline"] else ""
        if r["status"] != "PASS":
            # A wrong answer has no rate worth showing: an unfinished starter that
            # copies nothing would otherwise "reach" millions of GB/s.
            rate, pct, sp = "(wrong result)", "", ""
        body.append([r["experiment"], r["variant"] + (" *(starter)*" if r["role"] == "starter" and
                                                     "starter" not in r["variant"] else ""),
                     r["size"], fmt(r["time_ms"], 2), rate, pct, sp, r["article"], status_of(r), r["note"]])
    return md_table(header, body, align)


def find_row(rows, lesson, variant_re, experiment_re=r".", size_re=r"."):
    for r in rows:
        if (r["lesson"] == lesson and re.search(variant_re, r["variant"], re.I)
                and re.search(experiment_re, r["experiment"], re.I) and re.search(size_re, r["size"])):
            return r
    return None


def headline_tables(rows, ceilings, device_class, built):
    """The seeds' tables, measured here, beside the articles' own figures."""
    md = []
    mm = r"^1024x1024$"
    serial = find_row(rows, 1, r"serial i-j-k", r"matmul", mm)

    def vs_serial(r):
        # Against the serial i-j-k of the row's own program where it has one (lesson 2), else lesson 1's.
        if not r or r["time_ms"] <= 0:
            return ""
        own = find_row([x for x in rows if x["role"] != "starter"], r["lesson"], r"^serial i-j-k", r"matmul", mm)
        ref = own or serial
        return fmt(ref["time_ms"] / r["time_ms"], 1, "x") + ("" if own else " (vs lesson 1)") if ref else ""

    def t(r, n):
        if r:
            return fmt(r["time_ms"], 1) + " ms"
        return "not at 1024² in this run" if n in built else "not in this build"

    md.append("### 1024² fp32 matmul across the course (C++ AMP and Intel GFX articles)\n")
    cands = [
        ("serial i-j-k (lesson 1 baseline)", 1, serial, "7350 ms (C++ AMP); 5.12 s (Intel GFX)"),
        ("i-j-k + omp parallel for (lesson 1)", 1, find_row(rows, 1, r"parallel i-j-k", r"matmul", mm),
         "2.689 s on 2 cores (Intel GFX)"),
        ("lesson 1 solution (loop order + threads + simd)", 1,
         find_row(rows, 1, r"^(solution|yours)$", r"matmul", mm), ""),
        ("naive offload, collapse(2): kernel (lesson 2)", 2,
         find_row(rows, 2, r"^(solution|yours)(: kernel)?$", r"matmul", mm), "147x vs serial (C++ AMP)"),
        ("naive offload: whole call with copies (lesson 2)", 2,
         find_row(rows, 2, r"^(solution|yours): whole call$", r"matmul", mm), ""),
        ("register tiles (lesson 4 solution)", 4, find_row(rows, 4, r"^(solution|yours)$", r".", mm),
         "0.439 s (Intel GFX, offloaded)"),
        ("team-local tiles (lesson 5 solution)", 5, find_row(rows, 5, r"^(solution|yours)$", r".", mm),
         "17 ms, 430x vs serial (C++ AMP, tiled)"),
    ]
    body = [[name, t(r, n), vs_serial(r) if r else "", fmt(r["rate"], 1) + " GFLOP/s" if r and r["rate"] else "",
             art] for name, n, r, art in cands]
    md.append(md_table(["variant", "time here", "vs serial here", "rate here", "article"], body,
                       ["---", "---:", "---:", "---:", "---"]))
    md.append("\nSpeedups are against the serial i-j-k at 1024² measured in the same program where it has one "
              "(lesson 2), else against lesson 1's (another process: machine load moves those more).\n")

    # CUDA article's tile table.
    article_ms = {2: 3464, 4: 523, 8: 92, 16: 52}
    sweep = [r for r in rows if r["lesson"] == 5 and re.search(r"^tile\s*\d+$", r["variant"], re.I)
             and r["role"] != "starter"]
    md.append("### Tile-size sweep, team-local tiles (CUDA article's table, Quadro 2000M)\n")
    if sweep:
        body = []
        for r in sweep:
            tile = _first_int(re.search(r"tile\s*(\d+)", r["variant"], re.I).group(1))
            body.append([r["variant"], r["size"], fmt(r["time_ms"], 2) + " ms", fmt(r["rate"], 1) + " " + r["unit"],
                         f"{article_ms[tile]} ms" if tile in article_ms else ""])
        md.append(md_table(["tile", "size", "time here", "rate here", "article"], body,
                           ["---", "---", "---:", "---:", "---:"]))
    else:
        md.append("_Lesson 5 is not in this build: the article's 2/4/8/16 → 3464/523/92/52 ms has nothing to sit "
                  "beside yet._")
    md.append("")

    # N-body.
    md.append("### N-body, 10 240 bodies (C++ AMP article: 2.5 steps/s CPU, 160 steps/s GPU)\n")
    nb = [r for r in rows if r["lesson"] == 7 and r["unit"] == "steps/s"]
    if nb:
        body = [[r["variant"] + (" *(starter)*" if r["role"] == "starter" and "starter" not in r["variant"] else ""),
                 r["size"], fmt(r["rate"], 2) + " steps/s", fmt(r["pct_of_ceiling"], 1, " %"), r["article"]]
                for r in nb]
        md.append(md_table(["variant", "bodies", "here", "% of FP32 peak", "article"], body,
                           ["---", "---", "---:", "---:", "---"]))
    else:
        md.append("_Lesson 7 is not in this build._" if 7 not in built else "_No 10 240-body rows in this run._")
    md.append("")

    # Atomics matrix.
    md.append("### Atomics matrix (oneAPI atomics chapter: int vs float vs double, global vs local)\n")
    cells, methods, kinds = {}, [], []
    for r in rows:
        if r["lesson"] != 6 or r["role"] == "starter" or not re.match(r"(sum|histogram)", r["experiment"]):
            continue
        m = atomics_method(r["variant"])
        if not m:
            continue
        cells[(r["experiment"], m)] = r
        if m not in methods:
            methods.append(m)
        if r["experiment"] not in kinds:
            kinds.append(r["experiment"])
    if cells:
        body = []
        for k in kinds:
            line = [k]
            for m in methods:
                r = cells.get((k, m))
                line.append(f"{fmt(r['rate'], 2)} GB/s ({fmt(r['pct_of_ceiling'], 1)} %)" if r else "")
            body.append(line)
        md.append(md_table(["GB/s (% of copy)"] + methods, body, ["---"] + ["---:"] * len(methods)))
        md.append("\nThe chapter measured integer atomics native everywhere and float/double atomics emulated on "
                  "Gen9/Iris Xe; the course's H200 prototype: global atomic sum int 142, float 2.3, double 4.5 GB/s.")
    else:
        md.append("_Lesson 6 is not in this build._" if 6 not in built else "_No atomics rows in this run._")
    md.append("")

    # Nine access patterns.
    md.append("### Nine access patterns, 8-bit image copy (OpenCL paper)\n")
    pats, sizes, cell = [], [], {}
    for r in rows:
        if r["lesson"] != 8 or r["experiment"] != "nine patterns" or r["role"] == "starter":
            continue
        name = re.sub(r"\s*\((solution|yours)\)$", "", r["variant"])
        cell[(name, r["size"])] = r
        if name not in pats:
            pats.append(name)
        if r["size"] not in sizes:
            sizes.append(r["size"])
    if cell:
        body = [[pname] + [f"{fmt(cell[(pname, sz)]['rate'], 2)} GB/s ({fmt(cell[(pname, sz)]['pct_of_ceiling'], 1)} %)"
                           if (pname, sz) in cell else "" for sz in sizes] for pname in pats]
        md.append(md_table(["pattern"] + [f"{sz}: GB/s (% of copy)" for sz in sizes], body,
                           ["---"] + ["---:"] * len(sizes)))
        md.append("\nThe paper: on a 384x512 image the pattern mattered only once enough threads were in flight "
                  "(Row16 vs Col16 more than 2x apart), and the small image reached 12 % of a Tesla C2075's peak.")
    else:
        md.append("_Lesson 8 is not in this build._" if 8 not in built else "_No nine-pattern rows in this run._")
    md.append("")
    return "\n".join(md)


def atomics_method(variant):
    """Lesson 6's accumulation method from a variant name, or None for sweeps and the copy."""
    v = variant.lower()
    if "teams" in v or "copy" in v:
        return None
    for m in ("global atomic", "reduction clause", "team-local"):
        if m in v:
            return m
    return None


def ceilings_section(rows, ceilings, device_class):
    md = ["## Ceilings, measured in this run\n"]
    body = [[name, r["size"], fmt(r["rate"], 1) + " " + r["unit"], r["program"], r["note"]]
            for name, r in sorted(ceilings.items())]
    md.append(md_table(["ceiling", "size", "value", "measured by", "how"], body, ["---", "---", "---:", "---", "---"]))
    md.append("")
    details = [r for r in rows if r["lesson"] == 0 and r["experiment"] != "ceiling"]
    if details:
        body = [[r["variant"], r["size"], fmt(r["rate"], 1) + " " + r["unit"], fmt(r["time_ms"], 3), r["program"],
                 r["status"], r["note"]] for r in details]
        md.append("<details><summary>every copy measured for the ceiling</summary>\n")
        md.append(md_table(["copy", "size", "rate", "time (ms)", "run", "status", "note"], body,
                           ["---", "---", "---:", "---:", "---", "---", "---"]))
        md.append("\n</details>\n")
    notes = ["Every row's \"% of ceiling\" divides its rate by the ceiling it names: streaming kernels by the "
             "copy bandwidth (bytes read + written), compute kernels by FP32 peak, matmul by cuBLAS SGEMM where "
             "measured. The ceilings run at the start and at the end of the report; each is the better of the two "
             "(the fastest run, as STREAM reports), so a burst of load elsewhere lowers it less. A kernel whose data "
             "fit in the caches can exceed the copy bandwidth, which streams from memory."]
    if "sgemm" not in ceilings:
        notes.append("No cuBLAS SGEMM on this device" + (" (host device: the course uses no vendor BLAS)"
                                                         if device_class != "gpu" else
                                                         " (course_sgemm not built or failed: see Notes)")
                     + ": rows whose ceiling is `sgemm` are compared with `fp32-peak` instead.")
    if device_class != "gpu":
        notes.append("On the host device FP32 peak is **measured** (independent multiply-add chains on every host "
                     "thread, compiled with this build's flags: no -march, so SSE2 without FMA), not a datasheet "
                     "figure: a build with -march=native would have a higher roof.")
    md.append("\n\n".join(notes) + "\n")
    return "\n".join(md)


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
    out = os.path.abspath(args.out) if args.out else os.path.join(build, "report")
    csvdir, logdir = os.path.join(out, "csv"), os.path.join(out, "logs")
    os.makedirs(csvdir, exist_ok=True)
    os.makedirs(logdir, exist_ok=True)

    lessons = find_lessons(build)
    track = info.get("track") or ("solutions" if any(s for _, _, s in lessons.values()) else "lessons")
    notes = []
    wanted = args.lessons or sorted(LESSONS)
    for n in wanted:
        if n not in lessons:
            src = os.path.join(SOURCE_DIR, "lessons", LESSONS[n].folder, "CMakeLists.txt")
            why = ("its sources exist but its program is not built (configure with it in COURSE_LESSONS, "
                   "or it failed to compile: see the build log)" if os.path.exists(src) else "not written yet")
            notes.append(f"lesson {n} ({LESSONS[n].folder}) is not in this build: {why}")

    device_gpu = info.get("device_class") == "gpu"
    steps = [Step("ceilings", ceil_prog, ceiling_args(args.mode, device_gpu),
                  os.path.join(csvdir, "ceilings.csv"), 0, "ceiling")]
    sgemm = os.path.join(build, "report", "course_sgemm")
    if device_gpu:
        if os.access(sgemm, os.X_OK):
            steps.append(Step("cuBLAS SGEMM ceiling", sgemm, sgemm_args(args.mode),
                              os.path.join(csvdir, "sgemm.csv"), 0, "sgemm"))
        else:
            notes.append("cuBLAS SGEMM ceiling skipped: report/course_sgemm is not built (no CUDA toolkit with "
                         "cuBLAS where this was built; scripts/report-gpu.sh builds it with nvcc on a GPU node)")
    for n in wanted:
        if n not in lessons:
            continue
        lesson = LESSONS[n]
        folder, prog, starter = lessons[n]
        role = "solution" if track == "solutions" else "yours"
        steps.append(Step(f"lesson {n} {role}", prog, lesson_args(lesson, args.mode, device_gpu, False),
                          os.path.join(csvdir, f"lesson{n:02d}.csv"), n, role))
        extra = lesson.extra_args.get(f"gpu_{args.mode}" if device_gpu else args.mode)
        if extra:
            steps.append(Step(f"lesson {n} {role}, extra size", prog, list(extra),
                              os.path.join(csvdir, f"lesson{n:02d}-extra.csv"), n, role))
        if starter and not args.no_starters:
            steps.append(Step(f"lesson {n} starter", starter,
                              lesson_args(lesson, args.mode, device_gpu, True) + ["--only-yours"],
                              os.path.join(csvdir, f"lesson{n:02d}_starter.csv"), n, "starter"))

    if len(steps) > 1:
        # Again at the end: on a shared machine load comes and goes; a ceiling is the better of the two.
        steps.append(Step("ceilings again", ceil_prog, ceiling_args(args.mode, device_gpu),
                          os.path.join(csvdir, "ceilings-end.csv"), 0, "ceiling"))
    print(f"report: {len(steps)} steps, {args.mode} sizes, build {build} ({track} track, "
          f"{info.get('device_class', '?')} device), output {out}", flush=True)
    t_start = time.monotonic()
    rows, failures = [], []
    for k, step in enumerate(steps, 1):
        opts = program_options(step.program)
        step.args, step.dropped = filter_args(step.args, opts)
        if step.dropped:
            notes.append(f"{os.path.basename(step.program)} has no option {' '.join(step.dropped)}: ran with its "
                         "default instead")
        lesson = LESSONS.get(step.lesson)
        if lesson and lesson.sgemm_option and opts and lesson.sgemm_option in opts:
            sg = ceilings_from(rows).get("sgemm")
            n_arg = step.args[step.args.index("--n") + 1] if "--n" in step.args else ""
            if sg and n_arg and sg["size"] == f"{n_arg}x{n_arg}":
                step.args += [lesson.sgemm_option, str(int(sg["rate"]))]
        srows = run_step(step, k, len(steps), args.timeout, logdir)
        if step.rc != 0 and not srows and step.lesson:
            # The program died before writing rows: one FAILED row says so in the CSV too.
            srows = [dict(lesson=step.lesson, experiment="(program)", variant=step.role, size="", time_ms=0.0,
                          rate=0.0, unit="", ceiling="", status="FAILED", note=step.error,
                          program=os.path.basename(step.program), role=step.role)]
        if step.label == "ceilings again":
            for r in srows:
                r["program"] += " (end of run)"
        rows.extend(srows)
        bad_rows = [r for r in srows if r["status"] != "PASS" and r["experiment"] != "(program)"]
        if step.role == "starter":
            continue   # the untouched starter is allowed (often meant) to fail
        if step.rc != 0 or bad_rows or (not srows and step.role != "sgemm"):
            why = step.error or (f"{len(bad_rows)} row(s) FAILED verification" if bad_rows else "wrote no rows")
            failures.append(f"{step.label} ({os.path.basename(step.program)}): {why}; log: "
                            f"{os.path.relpath(step.log, out)}")
        if step.role == "sgemm" and step.rc != 0:
            notes.append(f"cuBLAS SGEMM ceiling failed ({step.error}); matmul rows use fp32-peak")

    ceilings = ceilings_from(rows)
    annotate(rows, ceilings, info.get("device_class", "host"))
    device_line = first_device_line(os.path.join(logdir, "ceilings.log")) or "device: unknown"
    elapsed = time.monotonic() - t_start

    plots, plot_note = [], ""
    if not args.no_plots:
        try:
            import plots as plotting
            plots = plotting.make_all(rows, ceilings, os.path.join(out, "plots"), info.get("device_class", "host"),
                                      device_line, LESSONS, GPU_GOALS)
        except ImportError as e:
            plot_note = (f"plots skipped: {e} (install python3-matplotlib, which scripts/install-deps.sh does, "
                         f"and run with the Python that has it: {sys.executable} has not)")
            notes.append(plot_note)

    md = render(rows, ceilings, info, build, out, args, device_line, steps, failures, notes, plots, elapsed, lessons,
                wanted)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(md)
    write_csv(rows, os.path.join(out, "report.csv"))
    print()
    print(md)
    print(f"report: {len(steps)} steps in {elapsed:.0f} s; wrote {os.path.join(out, 'report.md')}, {os.path.join(out, 'report.csv')}"
          + (f" and {len(plots)} plots in {os.path.join(out, 'plots')}" if plots else ""))
    if failures:
        print(f"report: FAILED: {len(failures)} step(s) failed (see the Failures section)")
        return 1
    return 0


def ceiling_args(mode, gpu):
    if mode == "tiny":
        return ["--n", str(1 << 16), "--reps", "3"]
    if mode == "full":
        return ["--reps", "30"] if gpu else ["--n", str(1 << 25), "--reps", "9"]
    return []


def sgemm_args(mode):
    # the sizes lesson 5 runs on a GPU, so its rows can quote the SGEMM at their own size
    return {"tiny": ["--n", "256", "--reps", "3", "--copy-n", str(1 << 16)], "teach": ["--n", "2048", "--reps", "10"],
            "full": ["--n", "4096", "--reps", "20"]}[mode]


def lesson_args(lesson, mode, gpu, starter):
    table = lesson.starter_args if (starter and lesson.starter_args) else lesson.args
    if gpu and f"gpu_{mode}" in table:
        return list(table[f"gpu_{mode}"])
    return list(table.get(mode, []))


def first_device_line(log):
    try:
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith("device:"):
                    return line.strip()
    except OSError:
        pass
    return ""


def render(rows, ceilings, info, build, out, args, device_line, steps, failures, notes, plots, elapsed, lessons,
           wanted):
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    md = [f"# Course report — {info.get('device_class', '?')} device\n",
          f"- {device_line}",
          f"- date {now}; commit {commit_of(build, info)}",
          f"- build: {info.get('track', '?')} track, {info.get('build_type', 'Release')}, "
          f"{info.get('compiler', 'clang')}, triple {info.get('triple', '?')}"
          + (f", {info['arch']}" if info.get("arch") else ""),
          f"- sizes: **{args.mode}** (`--tiny` / default teaching sizes / `--full`); {len(steps)} steps in "
          f"{elapsed:.0f} s",
          ""]
    if failures:
        md.append("**FAILED:** " + "; ".join(failures) + "\n")
    md.append(ceilings_section(rows, ceilings, info.get("device_class")))
    md.append("## The articles' tables, measured here\n")
    md.append(headline_tables(rows, ceilings, info.get("device_class"), lessons))
    for n in wanted:
        lesson = LESSONS[n]
        md.append(f"## Lesson {n}: {lesson.title}\n")
        if n not in lessons:
            md.append(f"_Not in this build (`lessons/{lesson.folder}` not built)._\n")
            continue
        lrows = [r for r in rows if r["lesson"] == n]
        if not lrows:
            md.append("_The lesson program wrote no rows (see Failures)._\n")
            continue
        md.append(lesson_table(lrows) + "\n")
        if lesson.host_only and info.get("device_class") == "gpu":
            md.append("This lesson runs on the host CPU in every build: its rows are not compared with the GPU's "
                      "ceilings.\n")
        goal = GPU_GOALS.get(n)
        if goal and info.get("device_class") == "gpu":
            md.append(f"Design goal on an H100/H200: the solution at ≥ {goal[1]} % of {goal[0]}.\n")
    if plots:
        md.append("## Plots\n")
        for title, path in plots:
            md.append(f"- {title}: `{os.path.relpath(path, out)}`")
        md.append("")
    if notes:
        md.append("## Notes\n")
        md.extend(f"- {n}" for n in notes)
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
                elif isinstance(v, float):
                    v = f"{v:.6g}"
                vals.append(v)
            w.writerow(vals)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
