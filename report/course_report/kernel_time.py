"""The course's kernels on the GPU's own clock: LLVM 19's and 21's CUDA plugin
give no device time for an OpenMP kernel (no OMPT device-trace records;
LIBOMPTARGET_PROFILE's entries are host-side scopes), so `report.py
--kernel-time` runs a lesson program once more under Nsight Compute (`ncu`,
clocks left alone) and reads each kernel's `gpu__time_duration`.

Which kernels make one call of a row's code is the lessons' knowledge, kept
in a table outside report/ (lessons/kernels.csv, KERNEL_COLUMNS): a line
names a lesson, a pattern for the row's experiment (fnmatch) and a regular
expression over the kernels' mangled names. A row's device time per call is
the summed duration of the matching kernels over the number of calls (the
count of the most frequent matching kernel: a histogram call launches a
zeroing and a counting kernel, one each)."""
from __future__ import annotations

import csv
import fnmatch
import io
import os
import re
import shutil
import subprocess

from .run import child_env, command, option_flags
from .schema import SOURCE_DIR
from .tables import table_lines

KERNEL_COLUMNS = ["lesson", "experiment", "kernels", "why"]
DEFAULT_KERNELS = os.path.join(SOURCE_DIR, "lessons", "kernels.csv")
METRIC = "gpu__time_duration.sum"
# ncu's units for a duration, in milliseconds.
UNIT_MS = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0, "s": 1e3,
           "second": 1e3}


def read_kernel_table(path):
    """The lines of the kernels table at @p path, checked; ValueError naming the file and line where one is wrong."""
    lines = []
    for where, k in table_lines(path, KERNEL_COLUMNS):
        try:
            k["lesson"] = int(k["lesson"])
        except (TypeError, ValueError):
            raise ValueError(f"{where}: lesson must be a number") from None
        try:
            k["pattern"] = re.compile(k["kernels"])
        except re.error as e:
            raise ValueError(f"{where}: kernels is not a regular expression: {e}") from None
        if not k["experiment"] or not k["why"].strip():
            raise ValueError(f"{where}: experiment and why must be given")
        lines.append(k)
    return lines


def find_ncu():
    """The ncu to run: $COURSE_NCU, else ncu on PATH, else CUDA's usual place; None where there is none."""
    for p in (os.environ.get("COURSE_NCU"), shutil.which("ncu"), "/usr/local/cuda/bin/ncu"):
        if p and os.access(p, os.X_OK):
            return p
    return None


def ncu_command(ncu, log, argv):
    """ncu around the command @p argv: each kernel's duration on the GPU's clock, the clocks as the
    GPU sets them (--clock-control none: as in the timed run), CSV into @p log, mangled names."""
    return [ncu, "--clock-control", "none", "--metrics", METRIC, "--csv", "--page", "raw",
            "--print-units", "base", "--print-kernel-base", "mangled", "--log-file", log] + argv


def parse_ncu_csv(text):
    """[(kernel name, ms)] from ncu's CSV raw page (ncu_command's: a column per metric, a line of units
    under the header); lines before the header (==PROF== messages) are skipped. ValueError where no
    kernel line is found."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        raise ValueError("no CSV header (\"ID\", ...) in ncu's output")
    head, *body = csv.reader(io.StringIO("\n".join(lines[start:])))
    col = {name: k for k, name in enumerate(head)}
    if "Kernel Name" not in col or METRIC not in col:
        raise ValueError(f"ncu's CSV has no 'Kernel Name' or '{METRIC}' column (not its raw page?)")
    kernels = [r for r in body if len(r) == len(head) and r[col["ID"]].strip().isdigit()]
    units = next((r[col[METRIC]].strip() for r in body if len(r) == len(head) and not r[col["ID"]].strip()), "")
    scale = UNIT_MS[units or "ns"]
    out = [(r[col["Kernel Name"]], float(r[col[METRIC]].replace(",", "")) * scale) for r in kernels]
    if not out:
        raise ValueError(f"no kernel with {METRIC} in ncu's CSV")
    return out


def per_call_ms(kernels, pattern):
    """(ms per call, calls) of the kernels whose names @p pattern finds: their summed time over the count of
    the most frequent one; None where none matches."""
    counts, total = {}, 0.0
    for name, ms in kernels:
        if pattern.search(name):
            counts[name] = counts.get(name, 0) + 1
            total += ms
    if not counts:
        return None
    calls = max(counts.values())
    return total / calls, calls


def assign(rows, lesson, table, kernels, notes):
    """Sets device_ms and device_calls on the lesson's kernel-under-test rows (role `kernel`, not the
    starter's) from the kernels of one ncu run of its program; a row whose experiment ran at several
    sizes gets none (one program run cannot tell them apart), and a note says so."""
    for line in (t for t in table if t["lesson"] == lesson):
        mine = [r for r in rows if r["lesson"] == lesson and r.get("role") == "kernel" and r.get("run") != "starter"
                and fnmatch.fnmatchcase(r["experiment"], line["experiment"])]
        if not mine:
            continue
        if len({r["size"] for r in mine}) > 1:
            notes.append(f"lesson {lesson} {line['experiment']}: ran at several sizes, so ncu's kernels cannot be "
                         "told apart: no device time")
            continue
        got = per_call_ms(kernels, line["pattern"])
        if got is None:
            notes.append(f"lesson {lesson} {line['experiment']}: no kernel in ncu's run matches "
                         f"'{line['kernels']}' ({os.path.relpath(DEFAULT_KERNELS, SOURCE_DIR)})")
            continue
        for r in mine:
            r["device_ms"], r["device_calls"] = got


def kernel_times(rows, steps, table, gpu, timeout, logdir, notes):
    """`report.py --kernel-time`: each lesson program that ran and that @p table names runs once more under
    ncu (3 timed calls, only the lesson's own code where it has --only-yours); its rows get device_ms.
    What could not be measured is said in @p notes."""
    if not gpu:
        notes.append("--kernel-time: a host build has no GPU kernels to time")
        return
    ncu = find_ncu()
    if ncu is None:
        notes.append("--kernel-time: no ncu (Nsight Compute) here: not on PATH, not in /usr/local/cuda/bin, "
                     "no COURSE_NCU")
        return
    lessons = {t["lesson"] for t in table}
    for step in steps:
        if step.lesson not in lessons or step.run not in ("solution", "yours") or step.rc != 0:
            continue
        flags = option_flags(step.described)
        extra = (["--reps", "3"] if "--reps" in flags else []) + (["--only-yours"] if "--only-yours" in flags else [])
        csv_log = os.path.join(logdir, f"ncu-lesson{step.lesson:02d}.csv")
        out_log = os.path.join(logdir, f"ncu-lesson{step.lesson:02d}.log")
        argv = ncu_command(ncu, csv_log, command(step.program, step.args + extra))
        print(f"report: --kernel-time: lesson {step.lesson} under ncu ...", flush=True)
        try:
            with open(out_log, "w") as log:
                log.write("$ " + " ".join(argv) + "\n")
                log.flush()
                p = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, timeout=timeout,
                                   env=child_env(step.program))
            with open(csv_log) as f:
                kernels = parse_ncu_csv(f.read())
        except subprocess.TimeoutExpired:
            notes.append(f"--kernel-time: lesson {step.lesson} under ncu ran past {timeout} s (log: {out_log})")
            continue
        except (OSError, ValueError) as e:
            notes.append(f"--kernel-time: lesson {step.lesson}: {e} (log: {out_log})")
            continue
        if p.returncode != 0:
            notes.append(f"--kernel-time: lesson {step.lesson} under ncu exited {p.returncode}; its kernels' times "
                         f"are used as far as it got (log: {out_log})")
        assign(rows, step.lesson, table, kernels, notes)
