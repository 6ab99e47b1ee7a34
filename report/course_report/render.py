"""The report as Markdown (report.md) and CSV (report.csv), from annotated
rows: the ceilings, each lesson's kernel against its ceiling, the articles'
tables measured here, every lesson program's declared tables, notes and
failures."""
from __future__ import annotations

import csv
import datetime
import math
import os

from .analyse import ceiling_at, rate_in, size_key
from .schema import CEILING_FALLBACK, CEILING_WHAT, COLUMNS, EXTRA_COLUMNS, PER_CALL, source_lessons


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


def call_share(r, call):
    """The row's rate as a % of a vendor program's per-call twin (both sides per call, host clock), or None."""
    if not call or call["rate"] <= 0:
        return None
    mine = rate_in(r, call["unit"])
    return 100.0 * mine / call["rate"] if mine else None


def goal_text(r, per_call=None):
    """The design goal of a row (course_report/goals.py): met or not, or the size it is judged from. The goals
    against a vendor's code are per call on the host clock (lessons/goals.csv): where the vendor's per-call
    time was measured at the row's size (@p per_call, its share), that is what is judged, and said."""
    if r["goal_pct"] > 0:
        judged = per_call if per_call is not None else r["pct_of_ceiling"]
        met = judged is not None and judged >= r["goal_pct"]
        return (f"≥ {fmt(r['goal_pct'], 0)} %: " + ("met" if met else "**not met**")
                + (f" ({fmt(per_call, 1)} % per call, host clock both)" if per_call is not None else ""))
    if r.get("goal_from"):
        pct, size = r["goal_from"]
        return f"≥ {fmt(pct, 0)} % at {size} and up: not judged at this size"
    return ""


def summary_table(rows, device_class):
    """Each lesson's kernel under test at its largest size against its ceiling (and the design's goal on a GPU)."""
    calls = per_call_rows(rows)
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
        body.append([f"L{n}", exp, r["variant"], r["size"], rate_text(r), pct_text(r),
                     fmt(r["pct_of_peak"], 1, " %") if r["pct_of_peak"] is not None else "", speedup_text(r),
                     goal_text(r, call_share(r, calls.get((r["ceiling_used"], r["size"]))))])
    head = ["lesson", "experiment", "kernel", "size", "rate", "% of ceiling", "% of memory peak", "vs baseline",
            "design goal" + (" (H100/H200)" if device_class == "gpu" else " (GPU only)")]
    return md_table(head, body, ["---", "---", "---", "---", "---:", "---:", "---:", "---:", "---"]) + "\n"


def per_call_rows(rows):
    """{(ceiling name, size): row}: the vendor programs' per-call twins of their ceiling rows
    (report/vendor.hpp call_row), the faster where measured twice."""
    out = {}
    for r in rows:
        if (r["lesson"] == 0 and r["role"] == "reference" and r["variant"].endswith(PER_CALL)
                and r["status"] == "PASS" and r["time_ms"] > 0):
            key = (r["variant"][:-len(PER_CALL)], r["size"])
            if key not in out or r["time_ms"] < out[key]["time_ms"]:
                out[key] = r
    return out


# What the vendor table's clocks are, said under it.
VENDOR_CLOCKS = (
    "Clocks. *Kernel, CUDA events*: the vendor's call alone, timed on the GPU between two events. *Per call, host "
    "clock*: one call timed on the host's steady clock from the call to the end of its synchronisation "
    "(cudaDeviceSynchronize for the vendor; the end of the target region, with any result it maps back, for the "
    "course), the median of each program's runs. The per-call columns compare like with like. *Course kernel, "
    "device (ncu)*: LLVM 19's and 21's CUDA plugin give no device time for an OpenMP kernel (no OMPT device-trace "
    "records; LIBOMPTARGET_PROFILE's entries are host-side scopes), so `report.py --kernel-time` runs the lesson "
    "program once more under Nsight Compute with the clocks left alone and takes each kernel's "
    "`gpu__time_duration`: the kernels one call launches (lessons/kernels.csv), summed, the mean of the calls it "
    "timed; both kernel columns are then on the GPU's clock. Without `--kernel-time` (or without ncu) that column "
    "says n/a and the last one divides the vendor's kernel time by the course's per-call time, which charges the "
    "course for the launch and the wait that the vendor's figure leaves out. Under `--cuda-wait block` "
    "(COURSE_CUDA_WAIT=block) every per-call time holds a wake-up from sleep.\n")


def vendor_table(rows, ceilings):
    """The course's kernels against the vendor's code: for each ceiling a vendor program measured (cuBLAS, CUB,
    the classic CUDA N-body; OpenBLAS on the host), every lesson whose kernel under test names it, at its
    largest size: both sides per call on the host's clock, and the vendor's kernel on the GPU's (CUDA events),
    each column labelled with its clock (VENDOR_CLOCKS)."""
    vendors = [name for name, crows in ceilings.items() if any(c.get("run") == "vendor" for c in crows)]
    calls = per_call_rows(rows)
    body = []
    for name in vendors:
        mains = [r for r in rows if r["is_main"] and r["run"] != "starter" and r["ceiling_used"] == name
                 and r["pct_of_ceiling"] is not None]
        best = {}
        for r in mains:   # per lesson: its largest size, then its best share there
            key = r["lesson"]
            if key not in best or (size_key(r["size"]), r["pct_of_ceiling"]) > (size_key(best[key]["size"]),
                                                                               best[key]["pct_of_ceiling"]):
                best[key] = r
        if not best:
            top = ceilings[name][-1]
            call = calls.get((name, top["size"]))
            body.append([f"`{name}`", "", "_no kernel in this run names it_", top["size"], fmt(top["time_ms"], 3),
                         fmt(call["time_ms"], 3) if call else "not measured", "", "", "", ""])
        for k, (n, r) in enumerate(sorted(best.items())):
            c = ceiling_at(ceilings[name], r["size"])
            call = calls.get((name, c["size"]))
            if name.startswith("host-"):   # OpenBLAS on the host: its one time is already per call, host clock
                call = c
            at = f" (at {c['size']})" if c["size"] != r["size"] else ""
            share = call_share(r, call)
            same = fmt(share, 1, " %") if share is not None else ""
            dev = r.get("device_ms")
            kernel_share = (fmt(100.0 * c["time_ms"] / dev, 1, " %") + " (device both)" if dev and at == ""
                            else fmt(r["pct_of_ceiling"], 1, " %") + " (course per call)")
            body.append([f"`{name}`" if k == 0 else "", f"L{n}", f"{r['experiment']}: {r['variant']}", r["size"],
                         fmt(c["time_ms"], 3) + at, (fmt(call["time_ms"], 3) + at) if call else "not measured",
                         fmt(r["time_ms"], 3), fmt(dev, 3) + f" ({r['device_calls']} calls)" if dev else "n/a",
                         same or "n/a", kernel_share])
    if not body:
        return "_No vendor program ran here (see the ceilings' notes)._\n"
    return md_table(["vendor's code", "lesson", "the course's kernel", "size",
                     "vendor kernel, ms (CUDA events)", "vendor per call, ms (host clock)",
                     "course per call, ms (host clock)", "course kernel, ms (device, ncu)",
                     "% of vendor per call (host clock both)", "% of vendor kernel"],
                    body, ["---", "---", "---", "---", "---:", "---:", "---:", "---:", "---:", "---:"]) + "\n\n" + \
        (VENDOR_CLOCKS if any(not n.startswith("host-") for n in vendors) else "") + \
        ("The host's vendor (`host-*`, OpenBLAS) runs on the host: its one time is per call, on the host's clock, "
         "in both vendor columns.\n" if any(n.startswith("host-") for n in vendors) else "")


# The vendor programs a ceiling may be missing from, as ceilings_section names them:
# (the ceiling, shown as, its key in build-info.json, the program, the rows that then
# use CEILING_FALLBACK's ceiling instead, GPU builds only).
VENDOR_PROGRAMS = [
    ("sgemm", "`sgemm` (cuBLAS)", "sgemm", "course_sgemm", "matmul rows", True),
    ("cub-sum-float", "`cub-*` (CUB)", "cub", "course_cub", "sums and histograms that name them", True),
    ("cuda-nbody", "`cuda-nbody` (the classic CUDA kernel)", "cuda_nbody", "course_cuda_nbody",
     "N-body rows that name it", True),
    ("host-sgemm", "`host-sgemm` (OpenBLAS)", "host_sgemm", "course_blas_sgemm", "rows that name it", False),
]


def missing_why(info, key, program):
    """Why a vendor ceiling program is missing: configure's reason, or that it did not build or run."""
    said = info.get(key) or ""
    if said.startswith("skipped"):
        return said
    return f"report/{program} did not build or did not run here" + (f" (configure found {said})" if said else "")


def ceilings_section(rows, ceilings, device_class, info, notes):
    md = ["## Ceilings, measured in this run\n"]
    order = ["copy", "omp-copy", "memory-peak", "fp32", "sgemm", "cub-sum-int", "cub-sum-float", "cub-sum-double",
             "cub-histogram", "cuda-nbody", "host-copy", "host-fp32", "host-sgemm"]
    names = [n for n in order if n in ceilings] + sorted(n for n in ceilings if n not in order)
    copy = ceilings.get("copy", [{}])[-1].get("rate")
    copy_by_events = "CUDA events" in ceilings.get("copy", [{}])[-1].get("note", "")
    peak = ceilings.get("memory-peak", [{}])[-1].get("rate")
    calls = per_call_rows(rows)
    body = []
    for name in names:
        for c in ceilings[name]:
            rel = []
            if name == "omp-copy" and copy:
                # The OpenMP copy is timed per call on the host's clock; the vendor's copy by CUDA events
                # and, where course_ceilings measured it, per call too: that share is like with like.
                twin = calls.get(("copy", c["size"]))
                if twin:
                    rel.append(f"{100 * c['rate'] / twin['rate']:.1f} % of copy per call (host clock both)")
                rel.append(f"{100 * c['rate'] / copy:.1f} % of copy" + ("'s CUDA-event time" if copy_by_events else ""))
            if name in ("copy", "omp-copy") and peak:
                rel.append(f"{100 * c['rate'] / peak:.0f} % of memory-peak")
            body.append([f"`{name}`", CEILING_WHAT.get(name, ""), c["size"], fmt(c["rate"], 1) + " " + c["unit"],
                         ", ".join(rel), c["note"]])
    md.append(md_table(["ceiling", "what", "size", "value", "relative", "how"], body,
                       ["---", "---", "---", "---:", "---", "---"]))
    md.append("")
    skipped = []
    for ceiling, shown, key, program, rows_, gpu_only in VENDOR_PROGRAMS:
        if ceiling in ceilings or (gpu_only and device_class != "gpu"):
            continue
        text = (f"{shown}: {missing_why(info, key, program)}; {rows_} use `{CEILING_FALLBACK[ceiling]}` instead"
                + (", and the device's matmuls `fp32`" if ceiling == "host-sgemm" and device_class != "gpu" else ""))
        skipped.append(text)
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
              "sit in cache, and then says so; any other row over a bound (a copy, a peak) is flagged ⚠. The vendor's "
              "code (CUB, cuBLAS) and the classic N-body kernel are no bound: a row may beat them unflagged.\n")
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


def render(rows, ceilings, info, commit, args, device_line, steps, failures, notes, plots, elapsed, lessons,
           wanted, abouts, wait_line="", repeats_md=None):
    """report.md: everything above, in order (args: the sizes' mode and the output folder; wait_line: how
    the host waited for the GPU, said under the title; repeats_md: the section of --repeat N, after the
    summary, None for one run)."""
    device_class = info.get("device_class", "host")
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    md = [f"# Course report — {device_class} device\n",
          f"- {device_line}",
          f"- GPU wait: {wait_line or 'not stated'}",
          f"- date {now}; commit {commit}",
          f"- build: {info.get('track', '?')} track, {info.get('build_type', 'Release')}, "
          f"{info.get('compiler', 'clang')}, triple {info.get('triple', '?')}"
          + (f", {info['arch']}" if info.get("arch") else ""),
          f"- sizes: **{args.mode}** (`--tiny` / default teaching sizes / `--full`, each program's own "
          f"`--size {args.mode}`); {len(steps)} steps in {elapsed:.0f} s",
          ""]
    if repeats_md is not None:
        md.insert(-1, f"- runs: **{args.repeat}** (`--repeat {args.repeat}`): the vendor and lesson programs ran "
                      f"{args.repeat} times, round after round; the section \"Over {args.repeat} runs\" judges the "
                      "goals on every run, the other tables show run 1")
    if failures:
        md.append("**FAILED:** " + "; ".join(failures) + "\n")
    md.append(ceilings_section(rows, ceilings, device_class, info, notes))
    md.append("## Each lesson's kernel against its ceiling\n")
    md.append(summary_table(rows, device_class))
    if repeats_md is not None:
        md.append(repeats_md)
    md.append("## The course against the vendor's code\n")
    md.append(vendor_table(rows, ceilings))
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
