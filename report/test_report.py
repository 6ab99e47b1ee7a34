#!/usr/bin/env python3
"""The report's tests (CTest label 'report').

    test_report.py --build BUILD --out DIR    the report runs end to end at --tiny
                                              sizes; its CSV has rows for every
                                              lesson program in the build, each
                                              run at its own declared sizes; then
                                              --resume keeps the finished programs
                                              and runs one cut short again
    test_report.py --build BUILD --bad-arguments
                                              bad arguments: one line, exit 2
    test_report.py --old-rows                 rows of a program that fills only
                                              the first ten ResultRow columns
                                              still get a role, a ceiling and a %
    test_report.py --descriptions             what a program's --describe says
                                              picks its sizes (and none: defaults)
    test_report.py --vendor-clocks            the vendor table sets both sides per
                                              call (host clock) beside the vendor's
                                              kernel (CUDA events) and, with
                                              --kernel-time, the course's (ncu),
                                              each labelled; the GPU wait is said
                                              and passed on
    test_report.py --goals                    the design's goals come from one table
                                              (lessons/goals.csv): the rows a line
                                              selects get its goal, shown met or not
    test_report.py --repeats                  --repeat N: from fabricated rows of N
                                              runs, each run judged against its own
                                              vendor rows, min / median / max and
                                              "met in k of N runs", a run that missed
                                              named (below the goal, no row, FAILED,
                                              another ceiling), repeats.csv; bad
                                              --repeat values exit 2; a fake build's
                                              programs run round after round
    test_report.py                            the last five (no build needed)

Every check prints what it expected and what it found.
"""
import argparse
import csv
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "report.py")
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
from course_report import analyse, goals, kernel_time, render, repeats, run, schema  # noqa: E402

problems = []


def check(ok, what):
    print(("ok:      " if ok else "FAILED:  ") + what, flush=True)
    if not ok:
        problems.append(what)


def lesson_programs(build):
    """{n: has starter} for every lesson program built."""
    found = {}
    for d in glob.glob(os.path.join(build, "lessons", "[0-9][0-9]-*")):
        n = int(os.path.basename(d)[:2])
        if os.access(os.path.join(d, f"lesson{n:02d}"), os.X_OK):
            found[n] = os.access(os.path.join(d, f"lesson{n:02d}_starter"), os.X_OK)
    return found


def declares_sizes(program):
    """The program's --describe names the report's three sizes; checks that it describes its rows too."""
    d = run.describe(program)
    name = os.path.basename(program)
    check(d is not None, f"{name} --describe answers one line of JSON")
    rows = (d or {}).get("rows") or {}
    check(rows.get("columns") == schema.COLUMNS, f"{name} --describe: its rows have the report's columns "
                                                 f"({len(rows.get('columns', []))} of {len(schema.COLUMNS)})")
    return all(m in ((d or {}).get("sizes") or {}) for m in schema.MODES)


def end_to_end(build, out):
    cmd = [sys.executable, REPORT, "--build", build, "--tiny", "--out", out, "--timeout", "300"]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(p.stdout[-6000:])
    sys.stderr.write(p.stderr[-3000:])
    programs = lesson_programs(build)
    track = "solutions" if any(programs.values()) else "lessons"
    # The solutions must verify; a student build's own code may not yet (rc 1), but the report must finish.
    allowed = (0,) if track == "solutions" else (0, 1)
    check(p.returncode in allowed, f"report exit status {p.returncode} in {allowed} ({track} track)")
    lines = p.stdout.splitlines()
    progress = [ln for ln in lines if ln.startswith("[")]
    check(bool(progress) and all("/" in ln.split("]")[0] and " s, " in ln for ln in progress),
          f"one progress line per step with [k/N] and its time ({len(progress)} lines)")

    path = os.path.join(out, "report.csv")
    check(os.path.exists(path), f"{path} written")
    rows = list(csv.DictReader(open(path))) if os.path.exists(path) else []
    for col in ("lesson", "experiment", "variant", "size", "time_ms", "rate", "unit", "ceiling", "status", "role",
                "bytes", "flops", "in_cache", "seed", "plot", "param", "ceiling_used", "pct_of_ceiling",
                "over_ceiling", "speedup_vs_baseline"):
        check(bool(rows) and col in rows[0], f"report.csv has column '{col}'")
    for prog in ("course_ceilings", "course_blas_sgemm"):
        path = os.path.join(build, "report", prog)
        if os.access(path, os.X_OK):
            check(declares_sizes(path), f"{prog} --describe declares the sizes tiny, teaching and full")
    ceil = {r["variant"]: r for r in rows if r.get("lesson") == "0" and r.get("role") == "ceiling"}
    for name in ("copy", "omp-copy", "fp32"):
        r = ceil.get(name)
        check(r is not None and float(r["rate"] or 0) > 0 and r["status"] == "PASS",
              f"ceiling '{name}' measured: {r['rate'] + ' ' + r['unit'] if r else 'missing'}")
    if os.access(os.path.join(build, "report", "course_blas_sgemm"), os.X_OK):
        r = ceil.get("host-sgemm")
        check(r is not None and float(r["rate"] or 0) > 0, "course_blas_sgemm is built: ceiling 'host-sgemm' "
                                                           f"(OpenBLAS) measured: {r['rate'] if r else 'missing'}")
        host_rows = [r for r in rows if r.get("ceiling") == "host-sgemm" and r.get("status") == "PASS"
                     and r.get("run") != "starter" and r.get("lesson") != "0"]
        used = [r for r in host_rows if r.get("ceiling_used") == "host-sgemm" and r.get("pct_of_ceiling")]
        check(len(used) == len(host_rows), f"rows that declare host-sgemm are compared with OpenBLAS "
                                           f"({len(used)} of {len(host_rows)})")
    check(bool(programs), f"the build has lesson programs: {sorted(programs)}")
    for n, has_starter in sorted(programs.items()):
        prog = glob.glob(os.path.join(build, "lessons", f"{n:02d}-*", f"lesson{n:02d}"))[0]
        if declares_sizes(prog):
            ran = [ln for ln in progress if f" lesson{n:02d} " in ln + " " or f" lesson{n:02d} --" in ln]
            check(bool(ran) and all("--size tiny" in ln for ln in ran),
                  f"lesson {n}: run with its own --size tiny ({len(ran)} runs)")
        mine = [r for r in rows if r.get("lesson") == str(n) and r.get("run") in ("solution", "yours")]
        # A program that died leaves one "(program)" FAILED row; the solutions must leave real rows.
        real = [r for r in mine if r["experiment"] != "(program)"]
        check(bool(real) if track == "solutions" else bool(mine),
              f"lesson {n}: {len(real)} measured rows from lesson{n:02d} ({len(mine) - len(real)} crash rows)")
        if has_starter:
            st = [r for r in rows if r.get("lesson") == str(n) and r.get("run") == "starter"]
            check(bool(st), f"lesson {n}: {len(st)} rows from lesson{n:02d}_starter --only-yours")
        kernels = [r for r in real if r["role"] == "kernel" and r["ceiling"] and r["status"] == "PASS"]
        with_pct = [r for r in kernels if r.get("pct_of_ceiling")]
        check(len(with_pct) == len(kernels), f"lesson {n}: % of ceiling filled for every kernel row that names a "
                                             f"ceiling ({len(with_pct)} of {len(kernels)})")
    # No row reads over a memory ceiling unless it declares its data in cache, or the report flags it.
    for r in rows:
        pct = float(r.get("pct_of_ceiling") or 0)
        mem = r.get("ceiling_used") in ("copy", "host-copy")
        if mem and pct > 100 and r.get("in_cache") != "1" and r.get("over_ceiling") != "1":
            check(False, f"row over its memory ceiling unflagged: L{r['lesson']} {r['variant']} {pct:.0f} %")
    md = os.path.join(out, "report.md")
    text = open(md).read() if os.path.exists(md) else ""
    check(bool(text), f"{md} written")
    for n in sorted(programs):
        check(f"## Lesson {n}:" in text, f"report.md has a section for lesson {n}")
    check("% of ceiling" in text, "report.md tables have a '% of ceiling' column")
    head = text.split("\n## ")[0]
    check("\n- GPU wait: " in head, "report.md says under its title how the host waited for the GPU")
    for seed in sorted({r["seed"] for r in rows if r.get("seed") and r.get("run") != "starter"}):
        check(f"### {seed}" in text, f"report.md has the seed table '{seed}'")
    if any(r.get("over_ceiling") == "1" and r.get("run") != "starter" for r in rows):
        check("⚠" in text, "rows over their ceiling are flagged in report.md")
    try:
        import matplotlib  # noqa: F401
        have_mpl = True
    except ImportError:
        have_mpl = False
    if have_mpl:
        for name in ("ceilings.png", "speedup.png"):
            png = os.path.join(out, "plots", name)
            ok = os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
            check(ok, f"plot {png} is a PNG")
    else:
        check("plots skipped" in text, "without matplotlib the report says it skipped the plots")
    resume(build, out, programs, allowed)


def resume(build, out, programs, allowed):
    """--resume into the same folder keeps every program that finished and runs again one that was cut short."""
    if not programs:
        return
    cut = min(programs)
    log = os.path.join(out, "logs", f"lesson{cut:02d}.log")
    text = open(log).read() if os.path.exists(log) else ""
    check("# report: finished: exit " in text, f"{log} ends with the line --resume looks for")
    with open(log, "a") as f:   # as if a time limit had cut this program
        f.write("# report: finished: exit 124 in 1.0 s\n")
    cmd = [sys.executable, REPORT, "--build", build, "--tiny", "--out", out, "--timeout", "300", "--resume"]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(p.stdout[-3000:])
    check(p.returncode in allowed, f"--resume: exit status {p.returncode} in {allowed}")
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("[")]
    kept = [ln for ln in lines if "kept from an earlier run" in ln]
    rerun = [ln for ln in lines if f"lesson {cut} " in ln and "kept" not in ln and " s, " in ln]
    ceilings = [ln for ln in lines if "ceilings" in ln and " s, " in ln]
    want = sum(1 + bool(has_starter) for has_starter in programs.values()) - 1
    check(len(kept) == want, f"--resume kept {len(kept)} finished lesson programs (expected {want})")
    check(len(rerun) == 1, f"--resume ran lesson {cut}, cut short before, again ({len(rerun)} runs)")
    check(len(ceilings) == 2, f"--resume measured the ceilings again, start and end ({len(ceilings)} runs)")
    md = os.path.join(out, "report.md")
    check("(--resume)" in (open(md).read() if os.path.exists(md) else ""), "report.md notes the kept rows")


def bad_arguments(build):
    cases = [["--reps", "3"], ["--tiny", "--full"], ["--lessons", "42"], ["--lessons", "x"],
             ["--timeout", "-5"], ["--build", os.path.join(build, "no-such-folder")]]
    for extra in cases:
        args = extra if extra[0] == "--build" else ["--build", build] + extra
        p = subprocess.run([sys.executable, REPORT] + args + ["--validate-only"], capture_output=True, text=True)
        err = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(err) == 1 and err[0].startswith("report: error:"),
              f"report {' '.join(extra)}: exit {p.returncode}, stderr {err}")
    p = subprocess.run([sys.executable, REPORT, "--build", build, "--validate-only"], capture_output=True, text=True,
                       env=dict(os.environ, COURSE_CUDA_WAIT="sleepy"))
    err = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(err) == 1 and "COURSE_CUDA_WAIT" in err[0],
          f"COURSE_CUDA_WAIT=sleepy: exit {p.returncode}, one line naming the variable: {err}")


def old_rows():
    """A lesson program written against the first ten ResultRow columns (no role, bytes, ceiling names of old)."""
    with tempfile.TemporaryDirectory() as d:
        old = os.path.join(d, "lesson09.csv")
        with open(old, "w") as f:
            f.write("lesson,experiment,variant,size,time_ms,rate,unit,ceiling,status,note\n"
                    "9,pipeline,serial (baseline),n=1000,4,10,GB/s,copy-bandwidth,PASS,\n"
                    "9,pipeline,solution,n=1000,2,20,GB/s,copy-bandwidth,PASS,\n"
                    "9,pipeline,solution: overlap,n=1000,1,0,,,PASS,\n")
        cfile = os.path.join(d, "ceil.csv")
        with open(cfile, "w") as f:
            f.write(",".join(schema.COLUMNS) + "\n0,ceiling,copy,1000 floats,1,40,GB/s,,PASS,,ceiling,"
                    "8000,0,0,,,0,,,0\n")
        step = run.Step("x", os.path.join(d, "lesson09"), [], old, 9, "solution")
        rows = run.read_rows(step)
        crow = run.read_rows(run.Step("c", "course_ceilings", [], cfile, 0, "ceiling"))
        all_rows = crow + rows
        ceilings = analyse.ceilings_from(all_rows)
        analyse.annotate(all_rows, ceilings, "host")
    check(len(rows) == 3, f"old-style CSV read: {len(rows)} rows of 3")
    if len(rows) == 3:
        check([r["role"] for r in rows] == ["baseline", "kernel", "kernel"],
              f"roles guessed from variant names: {[r['role'] for r in rows]}")
        check(rows[1]["ceiling"] == "copy" and rows[1]["pct_of_ceiling"] == 50.0,
              f"old ceiling name 'copy-bandwidth' read as 'copy': {rows[1]['ceiling']}, "
              f"{rows[1]['pct_of_ceiling']} % (want 50)")
        check(rows[1]["speedup_vs_baseline"] == 2.0, f"speedup vs the guessed baseline: "
                                                     f"{rows[1]['speedup_vs_baseline']} (want 2.0)")
        check(rows[2]["pct_of_ceiling"] is None and not rows[2]["over_ceiling"],
              "a row without rate or ceiling gets no % and no flag")
        check(rows[1]["is_main"], "the guessed kernel row is the experiment's kernel under test")


def peer_ceilings():
    """Over a vendor's or a peer's rate is no measuring problem; over a bound (a copy, a peak) it is."""
    # (the ceiling a row names, the ceiling measured, its unit, flagged at 110 %)
    cases = [("cub-histogram", "cub-histogram", "GB/s", False), ("sgemm", "sgemm", "GFLOP/s", False),
             ("cuda-nbody", "cuda-nbody", "GFLOP/s", False), ("copy", "copy", "GB/s", True),
             ("cub-sum-int", "copy", "GB/s", True)]  # no CUB row: against the copy, a bound
    for name, measured, unit, flagged in cases:
        r = dict(lesson=11, role="kernel", ceiling=name, size="1000 floats", rate=110, unit=unit, status="PASS",
                 in_cache=False, bytes=0, flops=0, time_ms=0)
        analyse.place_against_ceiling(r, {measured: [dict(rate=100, unit=unit, size="1000 floats")]}, "gpu")
        check(r["pct_of_ceiling"] is not None and round(r["pct_of_ceiling"]) == 110 and r["over_ceiling"] == flagged,
              f"a row at 110 % of '{r['ceiling_used']}' (for '{name}') is {'' if flagged else 'not '}flagged: "
              f"{r['pct_of_ceiling']} %, over_ceiling {r['over_ceiling']}")


def descriptions():
    """What a program's --describe says decides how the report runs it: its own --size preset, else its
    defaults (--reps 1 at --tiny where it has --reps), each with a note; a program that gives no
    description, or one that is not JSON, runs at its defaults."""
    with tempfile.TemporaryDirectory() as d:
        def program(name, body):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write("#!/bin/sh\n" + body + "\n")
            os.chmod(path, 0o755)
            return path
        full = {"describe": 1, "program": "p", "about": "lesson 3, p", "options": [{"flag": "--reps", "kind": "int"}],
                "sizes": {"tiny": ["--reps", "1"], "teaching": [], "full": []},
                "rows": {"option": "--csv", "columns": schema.COLUMNS + ["new_column"]}}
        good = program("good", "echo 'device: a banner line first'; echo '" + json.dumps(full) + "'")
        silent = program("silent", "echo 'p: error: unknown option --describe' >&2; exit 2")
        garbled = program("garbled", "echo '{not json'")
        got = run.describe(good)
        check(got == full, f"--describe read past a banner line: {'the JSON' if got == full else got}")
        check(run.describe(silent) is None, "a program that refuses --describe gives no description")
        check(run.describe(garbled) is None, "a program whose --describe is not JSON gives no description")
        # A runtime pack with its own C library: each program starts through the pack's loader
        # (scripts/report-gpu.sh sets COURSE_CHILD_LAUNCHER); `env NAME=1` stands in for it here.
        launched = program("launched", '[ "$LAUNCHED" = 1 ] && echo \'' + json.dumps(full) + '\'')
        check(run.describe(launched) is None, "without a launcher the program runs alone (no LAUNCHED)")
        os.environ["COURSE_CHILD_LAUNCHER"] = "env LAUNCHED=1"
        try:
            got_launched = run.describe(launched)
        finally:
            del os.environ["COURSE_CHILD_LAUNCHER"]
        check(got_launched == full, "COURSE_CHILD_LAUNCHER starts the program: its --describe answers through it")
        check(run.unread_columns(got) == ["new_column"], f"a column the report does not read is named: "
                                                        f"{run.unread_columns(got)}")
        for mode in schema.MODES:
            notes = []
            args = run.size_args(got, mode, notes, "good")
            check(args == ["--size", mode] and not notes, f"{mode}: its own preset, no note: {args} {notes}")
        no_sizes = dict(full, sizes={})
        notes = []
        args = run.size_args(no_sizes, "tiny", notes, "nosizes")
        check(args == ["--reps", "1"] and len(notes) == 1 and "declares no sizes" in notes[0],
              f"no presets at --tiny: --reps 1 and a note: {args} {notes}")
        notes = []
        args = run.size_args(dict(full, sizes={"tiny": []}), "full", notes, "some")
        check(args == [] and len(notes) == 1 and "no size 'full'" in notes[0],
              f"a preset missing for the mode: its defaults and a note: {args} {notes}")
        notes = []
        args = run.size_args(None, "tiny", notes, "silent")
        check(args == [] and len(notes) == 1 and "no description" in notes[0],
              f"no description: its defaults (no --reps it may not have) and a note: {args} {notes}")


def vendor_clocks():
    """The vendor table: both sides per call on the host's clock, the vendor's kernel on CUDA events, the
    course's kernel time said to be unavailable; a bundle without per-call rows says so. And the wait."""
    cols = ",".join(schema.COLUMNS) + "\n"
    with tempfile.TemporaryDirectory() as d:
        def csv_of(name, lines):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(cols + "".join(ln + "\n" for ln in lines))
            return path
        # CUB: 4 MB read in 1.0 ms on CUDA events (4 GB/s), 1.25 ms per call (3.2 GB/s).
        cub = csv_of("cub.csv", ["0,ceiling,cub-sum-float,1000000,1,4,GB/s,cub-sum-float,PASS,events,ceiling,4e+06,0,0,,,0,,,0",
                                 "0,ceiling,cub-sum-float per call,1000000,1.25,3.2,GB/s,,PASS,host,reference,4e+06,0,0,"
                                 ",,0,,,0"])
        # cuBLAS from a bundle built before the per-call rows: the kernel row only.
        blas = csv_of("sgemm.csv", ["0,ceiling,sgemm,256x256,0.5,67.1,GFLOP/s,sgemm,PASS,events,ceiling,0,3.3554e+07,"
                                    "0,,,0,,,0"])
        # The course: the sum in 2.0 ms per call (2 GB/s); a matmul at 256.
        l11 = csv_of("lesson11.csv", ["11,sum float,solution,1000000,2,2,GB/s,cub-sum-float,PASS,,kernel,4e+06,0,0,,,0,,,0"])
        l4 = csv_of("lesson04.csv", ["4,matmul,solution,256x256,1,33.55,GFLOP/s,sgemm,PASS,,kernel,0,3.3554e+07,0,,,0,,,0"])
        rows = (run.read_rows(run.Step("c", "course_cub", [], cub, 0, "vendor"))
                + run.read_rows(run.Step("s", "course_sgemm", [], blas, 0, "vendor"))
                + run.read_rows(run.Step("l", "lesson11", [], l11, 11, "solution"))
                + run.read_rows(run.Step("m", "lesson04", [], l4, 4, "solution")))
    ceilings = analyse.ceilings_from(rows)
    analyse.annotate(rows, ceilings, "gpu")
    check("cub-sum-float per call" not in ceilings, f"a per-call row is no ceiling: {sorted(ceilings)}")
    table = render.vendor_table(rows, ceilings)
    print(table)
    head = table.splitlines()[0]
    for label in ("vendor kernel, ms (CUDA events)", "vendor per call, ms (host clock)",
                  "course per call, ms (host clock)", "course kernel, ms (device, ncu)",
                  "% of vendor per call (host clock both)", "% of vendor kernel"):
        check(label in head, f"the vendor table has the column '{label}'")
    line = next((ln for ln in table.splitlines() if "`cub-sum-float`" in ln), "")
    cells = [c.strip() for c in line.strip("|").split("|")]
    want = ["`cub-sum-float`", "L11", "sum float: solution", "1000000", "1.000", "1.250", "2.000", "n/a", "62.5 %",
            "50.0 % (course per call)"]
    check(cells == want, f"CUB's row: kernel 1.0 ms, per call 1.25 ms, the course 2.0 ms per call: 62.5 % on one "
                         f"clock, 50 % of the kernel: {cells}")
    line = next((ln for ln in table.splitlines() if "`sgemm`" in ln), "")
    check("not measured" in line, f"a vendor row without its per-call twin says 'not measured': {line}")
    check("--kernel-time" in table and "LIBOMPTARGET_PROFILE" in table,
          "the table says where the OpenMP kernel's own time comes from, and why not from LLVM")
    # With --kernel-time: the course's kernel alone took 0.8 ms (mean of 3 calls): 125 % of CUB's, both on the GPU.
    for r in rows:
        if r["lesson"] == 11:
            r["device_ms"], r["device_calls"] = 0.8, 3
    line = next((ln for ln in render.vendor_table(rows, ceilings).splitlines() if "`cub-sum-float`" in ln), "")
    cells = [c.strip() for c in line.strip("|").split("|")]
    check(cells[7:] == ["0.800 (3 calls)", "62.5 %", "125.0 % (device both)"],
          f"with ncu's 0.8 ms: the kernel column and 1.0 / 0.8 on the GPU's clock: {cells[7:]}")
    kernel_times_from_ncu()
    # The wait: said under the title, and given to every program.
    import report as report_main   # report/report.py
    saved = os.environ.pop("COURSE_CUDA_WAIT", None)
    try:
        text = report_main.wait_text("gpu", "gpu wait: spin: CU_CTX_SCHED_SPIN on 1 of 1 GPU(s)")
        check(text.startswith("**spin**") and "CU_CTX_SCHED_SPIN on 1 of 1" in text,
              f"unset, the report says spin and what course_ceilings did: {text[:80]}")
        check(run.child_env("/nonexistent/prog").get("COURSE_CUDA_WAIT") == "spin",
              "unset, every program is given COURSE_CUDA_WAIT=spin")
        os.environ["COURSE_CUDA_WAIT"] = "block"
        text = report_main.wait_text("gpu", "")
        check(text.startswith("**block**") and "does not say" in text,
              f"block, and a course_ceilings that does not say: {text[:60]} ... {text[-60:]}")
        check(run.child_env("/nonexistent/prog").get("COURSE_CUDA_WAIT") == "block",
              "COURSE_CUDA_WAIT=block reaches every program")
        check(report_main.wait_text("host", "").startswith("none"), "the host device: no GPU wait")
    finally:
        os.environ.pop("COURSE_CUDA_WAIT", None)
        if saved is not None:
            os.environ["COURSE_CUDA_WAIT"] = saved


def kernel_times_from_ncu():
    """--kernel-time: ncu's CSV (its raw page; another page is refused) is read in ms, a row's device time is its kernels' sum
    per call (the baseline's kernels left out), and the course's kernels table reads."""
    raw = ('==PROF== Connected to process\n"ID","Kernel Name","Block Size","gpu__time_duration.sum"\n'
           '"","","","nsecond"\n'
           '"0","__omp_offloading_1_2__ZN8lesson1114team_histogramIXadL_ZNS0_12thread_countEPKf_l144","(256,1,1)","2000"\n'
           '"1","__omp_offloading_1_2__ZN8lesson1114team_histogramIXadL_ZNS0_12thread_countEPKf_l146","(256,1,1)","300000"\n'
           '"2","__omp_offloading_1_2__ZN8lesson1114team_histogramIXadL_ZNS0_12thread_countEPKf_l144","(256,1,1)","2000"\n'
           '"3","__omp_offloading_1_2__ZN8lesson1114team_histogramIXadL_ZNS0_12thread_countEPKf_l146","(256,1,1)","310000"\n'
           '"4","__omp_offloading_1_2__ZN8lesson1114team_histogramIXadL_ZN6course8baseline18plain_thread_countE_l146",'
           '"(256,1,1)","900000"\n')
    kernels = kernel_time.parse_ncu_csv(raw)
    check(len(kernels) == 5 and abs(kernels[1][1] - 0.3) < 1e-12,
          f"the raw page: 5 kernels, the units line read (300000 nsecond = 0.3 ms): {kernels[:2]}")
    pattern = re.compile("team_histogram(?!.*plain_thread_count)")
    got = kernel_time.per_call_ms(kernels, pattern)
    check(got is not None and abs(got[0] - 0.307) < 1e-9 and got[1] == 2,
          f"two calls of a zeroing and a counting kernel, the baseline's left out: 0.307 ms per call: {got}")
    kernels = kernel_time.parse_ncu_csv(raw.replace('"nsecond"', '"usecond"'))
    check(abs(kernels[1][1] - 300.0) < 1e-9, f"the units line is read: 300000 usecond = 300 ms: {kernels[1]}")
    for bad in ("==PROF== no kernels were profiled\n", '"ID","Kernel Name","gpu__time_duration.sum"\n"","","ns"\n',
                '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","k1","gpu__time_duration.sum","ns","5"\n'):
        try:
            kernel_time.parse_ncu_csv(bad)
            check(False, f"ncu output without kernels (or not its raw page) is refused: {bad!r}")
        except ValueError as e:
            check(True, f"ncu output without kernels (or not its raw page) is refused: {e}")
    rows = [dict(lesson=11, experiment="histogram 256", variant="solution", size="1000", role="kernel", run="solution"),
            dict(lesson=11, experiment="histogram 256", variant="baseline", size="1000", role="baseline",
                 run="solution")]
    table = [dict(lesson=11, experiment="histogram *", kernels=pattern.pattern, pattern=pattern, why="x")]
    notes = []
    kernel_time.assign(rows, 11, table, kernel_time.parse_ncu_csv(raw), notes)
    check(abs(rows[0].get("device_ms", 0) - 0.307) < 1e-9 and "device_ms" not in rows[1] and not notes,
          f"assign: the kernel-under-test row gets 0.307 ms, the baseline's row nothing: {rows}, {notes}")
    course = kernel_time.read_kernel_table(kernel_time.DEFAULT_KERNELS)
    check(len(course) > 0 and all(t["lesson"] in schema.source_lessons() for t in course),
          f"{os.path.relpath(kernel_time.DEFAULT_KERNELS, schema.SOURCE_DIR)} reads: {len(course)} lines, "
          "every one of a lesson that exists")


def goals_table():
    """The design's goals: the course's table reads, and names only lessons that exist; a line gives its goal
    to the rows it selects (patterns, role, device class, in cache), the first line that does wins, a row
    below a line's smallest size is not judged but says from which size it is; what a program wrote in
    goal_pct is not read; the summary shows each goal met or not; a bad table stops the report (exit 2)."""
    course = goals.read_goals(goals.DEFAULT_GOALS)
    lessons = schema.source_lessons()
    check(course and all(g["lesson"] in lessons for g in course),
          f"{os.path.relpath(goals.DEFAULT_GOALS, schema.SOURCE_DIR)} reads: {len(course)} goals, every one of a "
          f"lesson in lessons/ ({sorted({g['lesson'] for g in course})})")
    head = ",".join(goals.GOAL_COLUMNS) + "\n"
    cols = ",".join(schema.COLUMNS) + "\n"
    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(text)
            return path
        table = goals.read_goals(write("goals.csv", head +
                                       "3,stream,,kernel,gpu,n=2000,,90,streams at 2000 and up\n"
                                       "3,sum *,*(team-local),kernel,gpu,,,80,the first line that selects wins\n"
                                       "3,sum *,,kernel,,,,60,a later line\n"
                                       "3,copy*,,,gpu,,no,70,not from cache\n"))
        # A copy ceiling of 40 GB/s; the rows' rates are % of it.
        ceil = write("ceil.csv", cols + "0,ceiling,copy,1000 floats,1,40,GB/s,,PASS,,ceiling,8000,0,0,,,0,,,0\n")
        lrows = write("lesson03.csv", cols + "".join(ln + "\n" for ln in [
            "3,stream,solution,n=4000,1,38,GB/s,copy,PASS,,kernel,0,0,0,,,0,,,0",              # 95 %
            "3,stream,solution,n=1000,1,30,GB/s,copy,PASS,,kernel,0,0,0,,,0,,,0",              # below n=2000
            "3,sum int,solution (team-local),n=4000,1,20,GB/s,copy,PASS,,kernel,0,0,0,,,0,,,0",  # 50 %
            "3,sum int,solution (reduction clause),n=4000,1,10,GB/s,copy,PASS,,kernel,0,0,0,,,0,,,0",
            "3,copy in cache,solution,n=4000,1,60,GB/s,copy,PASS,,kernel,0,0,1,,,0,,,0",
            "3,scan,solution,n=4000,1,30,GB/s,copy,PASS,,kernel,0,0,0,,,0,,,55"]))            # its own goal_pct
        rows = (run.read_rows(run.Step("c", "course_ceilings", [], ceil, 0, "ceiling"))
                + run.read_rows(run.Step("l", "lesson03", [], lrows, 3, "solution")))
        ceilings = analyse.ceilings_from(rows)
        analyse.annotate(rows, ceilings, "gpu")
        goals.apply_goals(rows, table, "gpu")
        got = [r["goal_pct"] for r in rows[1:]]
        check(got == [90, 0, 80, 60, 0, 0],
              f"goals on a GPU: the selected stream row 90, the smaller one none, the team-local sum 80 (the first "
              f"line), the other sum 60 (the later line), the in-cache copy none, a program's own goal_pct not "
              f"read: {got}")
        check(rows[2]["goal_from"] == (90, "n=2000") and "not judged" in render.goal_text(rows[2]),
              f"a row below the smallest size says from which size its goal is judged: {render.goal_text(rows[2])}")
        summary = render.summary_table(rows, "gpu")
        print(summary)
        check("≥ 90 %: met" in summary and "≥ 80 %: **not met**" in summary,
              "the summary's design-goal column: stream (95 % of copy) meets 90 %, the sum (50 %) misses 80 %")
        # A vendor's per-call twin of the ceiling at the stream's size (50 GB/s per call): the goal is then
        # judged per call, both sides on the host clock (76 %), not against the vendor's kernel alone (95 %).
        twin = dict(rows[0], lesson=0, role="reference", variant="copy" + schema.PER_CALL, size="n=4000",
                    rate=50.0, unit="GB/s", time_ms=1.0, status="PASS", is_main=False)
        judged = render.summary_table(rows + [twin], "gpu")
        check("≥ 90 %: **not met** (76.0 % per call, host clock both)" in judged,
              "with the vendor's per-call time at the row's size, the design goal is judged on it and says so")
        # The best OpenMP copy (per call, host clock) beside the vendor's copy: against its CUDA-event time
        # and, where course_ceilings timed it per call as well, against that (like with like).
        omp = dict(rows[0], variant="omp-copy", rate=38.0, time_ms=1.05)
        ceils = dict(ceilings, **{"omp-copy": [omp]})
        shown = render.ceilings_section(rows, ceils, "gpu", {}, [])
        check("95.0 % of copy |" in shown and "per call (host clock both)" not in shown,
              "omp-copy against a copy ceiling not timed by CUDA events (the host's, or the OpenMP copy standing "
              "in): its share, no clock claimed")
        ceils["copy"] = [dict(ceilings["copy"][-1], note="cuMemcpyDtoD, fastest of 30 runs, CUDA events")]
        shown = render.ceilings_section(rows, ceils, "gpu", {}, [])
        check("95.0 % of copy's CUDA-event time" in shown and "per call (host clock both)" not in shown,
              "omp-copy without the vendor copy's per-call twin: its share of the CUDA-event copy only")
        copy_twin = dict(rows[0], role="reference", variant="copy" + schema.PER_CALL, rate=39.0, time_ms=1.02)
        shown = render.ceilings_section(rows + [copy_twin], ceils, "gpu", {}, [])
        check("97.4 % of copy per call (host clock both)" in shown and "95.0 % of copy's CUDA-event time" in shown,
              f"omp-copy with the vendor copy timed per call: both shares, each labelled: {shown[:600]}")
        goals.apply_goals(rows, table, "host")
        got = [r["goal_pct"] for r in rows[1:]]
        check(got == [0, 0, 60, 60, 0, 0], f"on the host device only the line without a device class applies, to "
                                           f"both sums: {got}")
        bad = {"a header without why": head.replace(",why", "") + "3,stream,,kernel,gpu,,,90\n",
               "goal_pct 0": head + "3,stream,,kernel,gpu,,,0,none\n",
               "device cpu": head + "3,stream,,kernel,cpu,,,90,cpu\n",
               "in_cache maybe": head + "3,stream,,kernel,gpu,,maybe,90,cache\n",
               "a min_size without a number": head + "3,stream,,kernel,gpu,big,,90,big\n",
               "an empty why": head + "3,stream,,kernel,gpu,,,90,\n",
               "a lesson that is no number": head + "three,stream,,kernel,gpu,,,90,x\n"}
        for what, text in bad.items():
            path = write("bad.csv", text)
            try:
                goals.read_goals(path)
                err = None
            except ValueError as e:
                err = str(e)
            check(err is not None and path in err, f"a table with {what} is refused, naming the file: {err}")
            p = subprocess.run([sys.executable, REPORT, "--goals", path, "--validate-only", "--no-build-check"],
                               capture_output=True, text=True)
            lines = p.stderr.strip().splitlines()
            check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("report: error:"),
                  f"report --goals with {what}: exit {p.returncode}, one line: {lines}")


def repeat_rows():
    """--repeat N from fabricated per-run rows: each run is judged against the vendor's per-call time of its
    own round; the summary gives min / median / max and "met in k of N runs", naming each run that missed."""
    cols = ",".join(schema.COLUMNS) + "\n"
    tail = ",kernel,4e+06,0,0,,,0,,,0"
    with tempfile.TemporaryDirectory() as d:
        def rows_of(name, lines, lesson, kind, k):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(cols + "".join(ln + "\n" for ln in lines))
            return run.read_rows(run.Step(name, name, [], path, lesson, kind, repeat=k))
        once = rows_of("ceil.csv", ["0,ceiling,copy,n=4000,1,40,GB/s,,PASS,,ceiling,8000,0,0,,,0,,,0"], 0, "ceiling", 0)

        def vendor(k, per_call, double=True):
            names = ["cub-sum-float", "cub-sum-int", "cub-histogram"] + (["cub-sum-double"] if double else [])
            lines = []
            for c in names:
                lines.append(f"0,ceiling,{c},n=4000,1,{per_call * 1.2},GB/s,{c},PASS,events,ceiling,4e+06,0,0,,,0,,,0")
                lines.append(f"0,ceiling,{c} per call,n=4000,1,{per_call},GB/s,,PASS,host,reference,4e+06,0,0,,,0,,,0")
            return rows_of(f"cub{k}.csv", lines, 0, "vendor", k)
        # The vendor reads 10 GB/s per call in runs 1 and 2 and 8 GB/s in run 3 (a slow round: both sides slow).
        # sum float: 9.8, 9.4, 7.8 GB/s: 98 %, 94 %, 97.5 % of its own round's vendor (78 % of the best vendor).
        # histogram: no row in run 2. sum int: FAILED in run 3. sum double: in run 2 CUB timed no double sum, so the
        # row fell back to its ceiling (copy): another measure than the other runs', not counted.
        by_run = {
            1: vendor(1, 10) + rows_of("l1.csv", ["11,sum float,solution,n=4000,1,9.8,GB/s,cub-sum-float,PASS," + tail,
                                                 "11,histogram 256,solution,n=4000,1,9.7,GB/s,cub-histogram,PASS," + tail,
                                                 "11,sum int,solution,n=4000,1,9.9,GB/s,cub-sum-int,PASS," + tail,
                                                 "11,sum double,solution,n=4000,1,9.9,GB/s,cub-sum-double,PASS," + tail,
                                                 "11,N-body,solution,n=4000,1,20,GB/s,copy,PASS," + tail],
                                       11, "solution", 1),
            2: vendor(2, 10, double=False) + rows_of("l2.csv", ["11,sum float,solution,n=4000,1,9.4,GB/s,cub-sum-float,PASS," + tail,
                                  "11,sum int,solution,n=4000,1,9.6,GB/s,cub-sum-int,PASS," + tail,
                                  "11,sum double,solution,n=4000,1,39,GB/s,cub-sum-double,PASS," + tail,
                                  "11,N-body,solution,n=4000,1,22,GB/s,copy,PASS," + tail], 11, "solution", 2),
            3: vendor(3, 8) + rows_of("l3.csv", ["11,sum float,solution,n=4000,1,7.8,GB/s,cub-sum-float,PASS," + tail,
                                                 "11,histogram 256,solution,n=4000,1,7.9,GB/s,cub-histogram,PASS," + tail,
                                                 "11,sum int,solution,n=4000,1,0.1,GB/s,cub-sum-int,FAILED,wrong" + tail,
                                                 "11,sum double,solution,n=4000,1,7.9,GB/s,cub-sum-double,PASS," + tail,
                                                 "11,N-body,solution,n=4000,1,18,GB/s,copy,PASS," + tail],
                                       11, "solution", 3)}
        gfile = os.path.join(d, "g.csv")
        with open(gfile, "w") as f:
            f.write(",".join(goals.GOAL_COLUMNS) + "\n11,sum *,,kernel,gpu,,,95,sums\n"
                    "11,histogram 256,,kernel,gpu,,,95,hist\n")
        table = goals.read_goals(gfile)
        n, summary = repeats.analyse_runs(once, by_run, table, "gpu")
        md = repeats.repeat_section(summary, n, "gpu")
        print(md)
        out = os.path.join(d, "repeats.csv")
        repeats.write_repeat_csv(summary, n, out)
        lines = list(csv.DictReader(open(out)))

    def cells_of(exp):
        line = next((ln for ln in md.splitlines() if f"| {exp} |" in ln), "")
        return [c.strip() for c in line.strip("|").split("|")]
    check(n == 3 and [e["experiment"] for e in summary] == ["sum float", "histogram 256", "sum int", "sum double",
                                                              "N-body"],
          f"3 runs, one summary per goal row and per kernel under test: {n}, {[e['experiment'] for e in summary]}")
    got = cells_of("sum float")
    want = ["L11", "sum float", "solution", "n=4000", repeats.PER_CALL_LABEL, "98.0 %", "94.0 %", "97.5 %",
            "94.0 %", "97.5 %", "98.0 %", "≥ 95 %: **met in 2 of 3 runs** (not in run 2: 94.0 %)"]
    check(got == want, f"sum float, each run against its own round's vendor per call (run 3: 7.8 of 8 GB/s = 97.5 %, "
                       f"not 78 % of the best round's): min / median / max 94 / 97.5 / 98, met in 2 of 3, run 2 "
                       f"named: {got}")
    got = cells_of("histogram 256")
    check(got[5:8] == ["97.0 %", "no row", "98.8 %"] and got[-1] == "≥ 95 %: **met in 2 of 3 runs** (not in run 2: "
                                                                      "no row)",
          f"a row missing in run 2 of 3: 'no row' there, met in 2 of 3, the run named: {got[5:]}")
    got = cells_of("sum int")
    check(got[7] == "FAILED" and got[8:11] == ["96.0 %", "97.5 %", "99.0 %"]
          and got[-1] == "≥ 95 %: **met in 2 of 3 runs** (not in run 3: FAILED)",
          f"a row that FAILED verification in run 3 does not meet its goal there, nor counts in min / median / max: "
          f"{got[5:]}")
    got = cells_of("sum double")
    check(got[6].startswith("97.5 % (% of copy") and got[-1].startswith("≥ 95 %: **met in 2 of 3 runs** (not in run "
                                                                         "2: % of copy")
          and got[8:11] == ["98.8 %", "98.9 %", "99.0 %"],
          f"a run measured against another ceiling (its vendor missing that round) is shown, not counted: {got[5:]}")
    got = cells_of("N-body")
    check(got[4] == "% of copy" and got[8:] == ["45.0 %", "50.0 %", "55.0 %", ""],
          f"a kernel under test without a goal: its min / median / max, no verdict: {got[4:]}")
    per = [ln for ln in lines if ln["experiment"] == "sum float"]
    check([ln["run"] for ln in per] == ["1", "2", "3", "summary"] and [ln["met"] for ln in per[:3]] == ["1", "0", "1"]
          and [per[3][c] for c in ("min", "median", "max", "met_runs", "runs")] == ["94", "97.5", "98", "2", "3"],
          f"repeats.csv: one line per run (met 1/0/1) and a summary (94, 97.5, 98, 2 of 3): "
          f"{[(ln['run'], ln['pct'], ln['met']) for ln in per[:3]]}, {dict(list(per[3].items())[11:]) if per else {}}")
    hist = [ln for ln in lines if ln["experiment"] == "histogram 256"]
    check(len(hist) == 4 and hist[1]["status"] == "missing" and hist[1]["met"] == "0" and hist[3]["met_runs"] == "2",
          f"repeats.csv: the missing run's line says missing, not met: {[(ln['run'], ln['status'], ln['met']) for ln in hist]}")
    # All three met: no bold, nothing named.
    e = dict(summary[0], per_run={k: (97.0, "PASS", repeats.PER_CALL_LABEL, "cub-sum-float") for k in (1, 2, 3)})
    check(repeats.verdict(e, 3) == "≥ 95 %: met in 3 of 3 runs", f"met in every run: {repeats.verdict(e, 3)}")


def repeat_arguments():
    """--repeat takes a whole number of runs from 1: anything else, one line and exit 2."""
    for bad in ("0", "x", "-1", "2.5", ""):
        p = subprocess.run([sys.executable, REPORT, "--repeat", bad, "--validate-only", "--no-build-check"],
                           capture_output=True, text=True)
        err = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(err) == 1 and err[0].startswith("report: error:") and "--repeat" in err[0],
              f"report --repeat '{bad}': exit {p.returncode}, one line naming --repeat: {err}")
    p = subprocess.run([sys.executable, REPORT, "--repeat", "5", "--validate-only", "--no-build-check"],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"report --repeat 5 is accepted: exit {p.returncode} {p.stderr.strip()}")


def repeat_rounds():
    """The whole report with --repeat 3 over a fake GPU build whose programs are shell scripts: the vendor (CUB)
    and the lesson program run round after round, the ceilings once at each end; each round's rows are judged
    against that round's vendor; without --repeat the output has no such section and no repeats.csv."""
    with tempfile.TemporaryDirectory() as d:
        build = os.path.join(d, "build")
        os.makedirs(os.path.join(build, "report"))
        les = os.path.join(build, "lessons", "11-matching-the-vendor")
        os.makedirs(les)
        with open(os.path.join(build, "report", "build-info.json"), "w") as f:
            json.dump({"device_class": "gpu", "track": "solutions"}, f)
        with open(os.path.join(build, "course-env.json"), "w") as f:
            f.write("{}")   # no run environment to give (and no warning that there is none)
        order = os.path.join(d, "order.txt")
        cols = ",".join(schema.COLUMNS)

        def program(path, rows_by_round):
            """A program that logs its name, counts its runs and writes the rows of that round to --csv."""
            cases = "".join(f"  {k}) printf '%s\\n' {' '.join(repr(x) for x in [cols] + rows)} > \"$csv\" ;;\n"
                            for k, rows in rows_by_round.items())
            with open(path, "w") as f:
                f.write("#!/bin/sh\n[ \"$1\" = --describe ] && exit 2\n"
                        "csv=; while [ $# -gt 0 ]; do [ \"$1\" = --csv ] && csv=$2; shift; done\n"
                        f"echo {os.path.basename(path)} >> {order}\n"
                        f"c={path}.count; k=$(( $(cat $c 2>/dev/null || echo 0) + 1 )); echo $k > $c\n"
                        f"case $k in\n{cases}  *) printf '%s\\n' '{cols}' > \"$csv\" ;;\nesac\n")
            os.chmod(path, 0o755)
        ceil = ["0,ceiling,copy,n=4000,1,40,GB/s,,PASS,,ceiling,8000,0,0,,,0,,,0"]
        program(os.path.join(build, "report", "course_ceilings"), {1: ceil, 2: ceil, 3: ceil, 4: ceil, 5: ceil})

        def cub(v):
            return [f"0,ceiling,cub-sum-float,n=4000,1,{v * 1.2},GB/s,cub-sum-float,PASS,events,ceiling,4e+06,0,0,,,0,,,0",
                    f"0,ceiling,cub-sum-float per call,n=4000,1,{v},GB/s,,PASS,host,reference,4e+06,0,0,,,0,,,0"]
        program(os.path.join(build, "report", "course_cub"), {1: cub(10), 2: cub(10), 3: cub(8), 4: cub(10)})

        def l11(v):
            return [f"11,sum float,solution,n=4000,1,{v},GB/s,cub-sum-float,PASS,,kernel,4e+06,0,0,,,0,,,0"]
        program(os.path.join(les, "lesson11"), {1: l11(9.8), 2: l11(9.4), 3: l11(7.8), 4: l11(9.8)})
        gfile = os.path.join(d, "goals.csv")
        with open(gfile, "w") as f:
            f.write(",".join(goals.GOAL_COLUMNS) + "\n11,sum *,,kernel,gpu,,,95,sums\n")
        out = os.path.join(d, "out")
        cmd = [sys.executable, REPORT, "--build", build, "--tiny", "--no-plots", "--goals", gfile, "--out", out,
               "--repeat", "3"]
        print("$ " + " ".join(cmd), flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True)
        print(p.stdout[:1500])
        ran = open(order).read().split()
        want = ["course_ceilings"] + ["course_cub", "lesson11"] * 3 + ["course_ceilings"]
        check(ran == want, f"--repeat 3: the ceilings once at each end, the vendor then the lesson program each "
                           f"round: {ran}")
        check(p.returncode == 0, f"--repeat 3 over the fake build: exit {p.returncode} {p.stderr[-300:]}")
        md = open(os.path.join(out, "report.md")).read() if os.path.exists(os.path.join(out, "report.md")) else ""
        line = next((ln for ln in md.splitlines() if ln.startswith("| L11 | sum float |") and "of 3 runs" in ln), "")
        check("| 98.0 % | 94.0 % | 97.5 % | 94.0 % | 97.5 % | 98.0 % | ≥ 95 %: **met in 2 of 3 runs** (not in run 2: "
              "94.0 %) |" in line, f"report.md: each round against its own CUB, met in 2 of 3: {line}")
        check("- runs: **3** (`--repeat 3`)" in md, "report.md says under its title that it ran 3 rounds")
        summary = next((ln for ln in md.splitlines() if ln.startswith("| L11 | sum float |") and "≥ 95 %: met" in ln
                        and "98.0 %" in ln), "")
        check(bool(summary), f"the summary above shows run 1 (98 %: met): {summary}")
        check(os.path.exists(os.path.join(out, "repeats.csv")) and
              os.path.exists(os.path.join(out, "csv", "lesson11-run3.csv")),
              "repeats.csv written, and each round's own CSV (csv/lesson11-run3.csv)")
        for f in glob.glob(os.path.join(d, "**", "*.count"), recursive=True) + [order]:
            os.remove(f)
        one = os.path.join(d, "one")
        p = subprocess.run(cmd[:-4] + ["--out", one], capture_output=True, text=True)
        md = open(os.path.join(one, "report.md")).read() if os.path.exists(os.path.join(one, "report.md")) else ""
        check(p.returncode == 0 and open(order).read().split() == ["course_ceilings", "course_cub", "lesson11",
                                                                   "course_ceilings"]
              and "Over " not in md and "- runs:" not in md and not os.path.exists(os.path.join(one, "repeats.csv")),
              f"without --repeat: one round, no section, no repeats.csv (exit {p.returncode})")


def repeats_all():
    repeat_rows()
    repeat_arguments()
    repeat_rounds()


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--build")
    a.add_argument("--out")
    a.add_argument("--bad-arguments", action="store_true")
    a.add_argument("--old-rows", action="store_true")
    a.add_argument("--descriptions", action="store_true")
    a.add_argument("--vendor-clocks", action="store_true")
    a.add_argument("--goals", action="store_true")
    a.add_argument("--repeats", action="store_true")
    o = a.parse_args()
    if o.old_rows:
        old_rows()
        peer_ceilings()
    elif o.descriptions:
        descriptions()
    elif o.vendor_clocks:
        vendor_clocks()
    elif o.goals:
        goals_table()
    elif o.repeats:
        repeats_all()
    elif not o.build:   # no build: the tests that need none
        old_rows()
        peer_ceilings()
        descriptions()
        vendor_clocks()
        goals_table()
        repeats_all()
    elif o.bad_arguments:
        bad_arguments(o.build)
    else:
        end_to_end(o.build, o.out)
    print(f"\n{len(problems)} problem(s)" + (": " + "; ".join(problems) if problems else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
