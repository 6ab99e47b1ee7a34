"""Running the programs a report needs: what each program declares about
itself (course::Cli's --describe), the environment it runs in, one step at a
time with its log, the rows it wrote, and what the build folder holds."""
from __future__ import annotations

import csv
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass

from .schema import CEILING_ALIASES, COLUMNS, CUDA_WAITS, NUMERIC, SOURCE_DIR


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
    described: dict | None = None   # the program's --describe, None where it gives none
    repeat: int = 1     # which round of --repeat N (1..N); 0: run once for every round (course_ceilings)


# ---- what a program declares about itself -----------------------------------

def command(program, args):
    """The command line that runs `program`: scripts/report-gpu.sh puts a launcher before it
    (COURSE_CHILD_LAUNCHER, split as a shell would) when its runtime pack brings its own C
    library and loader: a build from a newer system than the GPU node's."""
    return shlex.split(os.environ.get("COURSE_CHILD_LAUNCHER", "")) + [program] + args


def describe(program):
    """The program's own description (course::Cli::describe, `PROGRAM --describe`): a dict with its
    "about" line, its "options", its size presets ("sizes": {name: [args]}) and the "rows" it writes
    ({"option": "--csv", "columns": [...]}); None where the program gives none (not a course::Cli program)."""
    try:
        p = subprocess.run(command(program, ["--describe"]), capture_output=True, text=True, timeout=60, env=child_env(program))
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    # One line of JSON; a program may print something before it parses its options.
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            try:
                d = json.loads(line)
            except ValueError:
                return None
            return d if isinstance(d, dict) and d.get("describe") else None
    return None


def option_flags(described):
    """The option names a description lists ({} for None)."""
    return {o.get("flag") for o in (described or {}).get("options", []) if isinstance(o, dict)}


def size_args(described, mode, notes, name):
    """The arguments that pick the program's own sizes for this mode (its --size preset), else its
    defaults (with --reps 1 at --tiny where it has --reps), with a note saying so."""
    sizes = (described or {}).get("sizes") or {}
    if mode in sizes:
        return ["--size", mode]
    reps = mode == "tiny" and "--reps" in option_flags(described)
    if described is None:
        why = "gives no description (no --describe: course::Cli)"
    elif sizes:
        why = f"declares no size '{mode}' (only {', '.join(sizes)}: course::Cli::preset)"
    else:
        why = "declares no sizes (no --size: course::Cli::preset)"
    notes.append(f"{name} {why}: ran at its defaults" + (" with --reps 1" if reps else ""))
    return ["--reps", "1"] if reps else []


def unread_columns(described):
    """Columns the program says its rows have that the report does not read (a newer ResultRow)."""
    rows = (described or {}).get("rows") or {}
    return [c for c in rows.get("columns", []) if c not in COLUMNS]

def course_env(program):
    """The run environment of the build that holds `program`: the course-env.json that
    cmake/CourseEnvironment.cmake writes at the top of a build folder (the first one found
    above the program), as a dict; None where there is none."""
    d = os.path.dirname(os.path.abspath(program))
    while True:
        path = os.path.join(d, "course-env.json")
        if os.path.exists(path):
            with open(path) as f:
                return json.load(f)
        if os.path.dirname(d) == d:
            return None
        d = os.path.dirname(d)


_warned_env = set()


def cuda_wait():
    """How the programs wait for the GPU: COURSE_CUDA_WAIT as each reads it before its OpenMP
    runtime starts (common/src/cuda_wait.cpp): unset or empty is "spin"; "" for any other value,
    which every program refuses (report.py refuses it first)."""
    w = os.environ.get("COURSE_CUDA_WAIT") or CUDA_WAITS[0]
    return w if w in CUDA_WAITS else ""


def child_env(program):
    """This process's environment with the build's run environment over it: what CTest gives
    the tests (OMP_TARGET_OFFLOAD=MANDATORY, LLVM's lib folder first on LD_LIBRARY_PATH, ...)."""
    env = dict(os.environ)
    facts = course_env(program)
    if facts is None:
        if program not in _warned_env:
            _warned_env.add(program)
            print(f"report: warning: no course-env.json above {program} (configure the build again): "
                  "it runs without the course's run environment", file=sys.stderr)
    else:
        env.update(facts.get("environment", {}))
        for name, first in facts.get("paths_first", {}).items():
            env[name] = first + (":" + env[name] if env.get(name) else "")
    # The wait the report states under its title, for every program (a course-env.json
    # cannot change it behind the report's back).
    if cuda_wait():
        env["COURSE_CUDA_WAIT"] = cuda_wait()
    # scripts/report-gpu.sh: the packed LLVM runtime instead of the build machine's, for the
    # programs and not for this Python
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
            p = subprocess.run(command(step.program, step.args + ["--csv", step.csv]), stdout=log,
                               stderr=subprocess.STDOUT, timeout=timeout, env=child_env(step.program))
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
            r["repeat"] = step.repeat
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


def first_device_line(log, prefix="device:"):
    """The first line of a log that starts with @p prefix ("device:", "gpu wait:"), else ""."""
    try:
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith(prefix):
                    return line.strip()
    except OSError:
        pass
    return ""
