"""The course report's plots (matplotlib, PNG): speedup per lesson, a
roofline-style chart placing each solution against the measured ceilings,
the tile-size sweeps, the atomics matrix, and access patterns against threads
in flight. Each function takes the report's annotated rows and returns the
path it wrote, or None when the build has no rows for it.
"""
from __future__ import annotations

import math
import os
import re

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402,F401

DPI = 130
COLORS = {"solution": "#1f77b4", "yours": "#1f77b4", "starter": "#d62728", "baseline": "#7f7f7f",
          "copy-bandwidth": "#2ca02c", "fp32-peak": "#ff7f0e", "sgemm": "#9467bd"}


def _first_int(text):
    m = re.search(r"\d+", text or "")
    return int(m.group()) if m else None


def _size_key(size):
    nums = [int(x) for x in re.findall(r"\d+", size or "")]
    return math.prod(nums) if nums else 0


def _finish(fig, path, device_line):
    fig.text(0.01, 0.005, device_line[:150], fontsize=7, color="#555555", ha="left", va="bottom")
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _is_main(r):
    """The kernel under test in its lesson program (report.py marks one row per experiment, size and role)."""
    return bool(r.get("is_main"))


def _largest_size_rows(rows):
    """For each (lesson, experiment), the rows at the largest size."""
    best = {}
    for r in rows:
        key = (r["lesson"], r["experiment"])
        best[key] = max(best.get(key, 0), _size_key(r["size"]))
    return [r for r in rows if _size_key(r["size"]) == best[(r["lesson"], r["experiment"])]]


# ---------------------------------------------------------------------------

def speedup_per_lesson(rows, path, device_line):
    """Horizontal bars: each lesson's solution (and untouched starter) against the lesson's baseline,
    one pair per experiment at its largest size."""
    pts = [r for r in _largest_size_rows([r for r in rows if r["lesson"] > 0])
           if _is_main(r) and r.get("speedup_vs_baseline")]
    if not pts:
        return None
    groups = {}
    for r in pts:
        groups.setdefault((r["lesson"], r["experiment"]), {})[r["role"]] = r
    keys = sorted(groups)
    fig, ax = plt.subplots(figsize=(10, 0.62 * len(keys) + 2.2))
    h = 0.38
    for i, key in enumerate(keys):
        for role in ("solution", "yours", "starter"):
            r = groups[key].get(role)
            if not r:
                continue
            y = i + (h / 2 if role == "starter" else -h / 2)
            v = r["speedup_vs_baseline"]
            ax.barh(y, v, h, color=COLORS[role], label=role)
            ax.annotate(f"{v:.1f}x", (v, y), va="center", fontsize=7, xytext=(3, 0), textcoords="offset points")
    ax.axvline(1.0, color="black", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yticks(range(len(keys)))
    some = lambda g: g.get("solution") or g.get("yours") or g.get("starter")  # noqa: E731
    ax.set_yticklabels([f"L{n} {e} ({some(groups[(n, e)])['size']})" for n, e in keys], fontsize=8)
    ax.invert_yaxis()
    lo, hi = ax.get_xlim()
    ax.set_xlim(lo, hi * 3)  # room for the labels
    ax.set_xlabel("speedup over the lesson's baseline (x, log scale; 1 = as fast)")
    ax.set_title("Speedup per lesson: the solution and the untouched starter, same baseline")
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), loc="lower right", fontsize=8)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def _intensity(r):
    """Flops per byte of compulsory traffic, for the roofline's x axis (None when unknown)."""
    n = _first_int(r["size"])
    if not n:
        return None
    exp = r["experiment"].lower()
    if "matmul" in exp or r["lesson"] in (1, 4, 5):
        return n / 6.0          # 2n^3 flops over A, B read and C written once: 12 n^2 bytes
    if r["lesson"] == 7 or "body" in exp:
        return 20.0 * n / 64.0  # 20 flops x n per body over 64 bytes (position + velocity in and out)
    return None


def roofline(rows, ceilings, path, device_line, lessons, goals, device_class):
    """Left: roofline (copy bandwidth x intensity, FP32 peak, SGEMM) with each solution's GFLOP/s.
    Right: every solution row's % of the ceiling it names."""
    bw = ceilings.get("copy-bandwidth", {}).get("rate")
    peak = ceilings.get("fp32-peak", {}).get("rate")
    sgemm = ceilings.get("sgemm", {}).get("rate")
    sol = [r for r in _largest_size_rows([r for r in rows if r["lesson"] > 0 and r["role"] in ("solution", "yours")])
           if _is_main(r)]
    pct_rows = [r for r in sol if r.get("pct_of_ceiling") is not None]
    if not (bw or peak) or not sol:
        return None
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 6.5), gridspec_kw={"width_ratios": [1.15, 1]})

    # Roofline.
    xs = [10 ** (k / 10) for k in range(-20, 51)]
    if bw and peak:
        ax.plot(xs, [min(peak, bw * x) for x in xs], color="black", lw=1.8,
                label=f"roof: min(FP32 peak, {bw:,.0f} GB/s x intensity)")
    if peak:
        ax.axhline(peak, color=COLORS["fp32-peak"], ls="--", lw=1, label=f"FP32 peak {peak:,.0f} GFLOP/s")
    if sgemm:
        ax.axhline(sgemm, color=COLORS["sgemm"], ls="-.", lw=1, label=f"cuBLAS SGEMM {sgemm:,.0f} GFLOP/s")
    markers = "osD^v<>p*h"
    placed = 0
    for r in sol:
        ai = _intensity(r)
        lesson = lessons.get(r["lesson"])
        if ai is None or (lesson and lesson.host_only and device_class == "gpu"):
            continue   # unknown intensity, or host threads that a GPU's roof says nothing about
        g = r["rate"] if r["unit"] == "GFLOP/s" else (lesson.to_gflops(r) if lesson and lesson.to_gflops else None)
        if not g:
            continue
        ax.scatter([ai], [g], marker=markers[r["lesson"] % len(markers)], s=60, zorder=3,
                   label=f"L{r['lesson']} {r['experiment']} {r['size']}: {g:,.1f} GFLOP/s")
        placed += 1
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop per byte of compulsory traffic)")
    ax.set_ylabel("attained GFLOP/s (log scale)")
    ax.set_title("Roofline: compute kernels' solutions" + ("" if placed else " (none in this build)"))
    ax.grid(which="both", alpha=0.25)
    # below the axes: inside, it would hide the points of slow kernels
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)

    # % of ceiling bars.
    if pct_rows:
        pct_rows.sort(key=lambda r: (r["lesson"], r["experiment"]))
        labels = [f"L{r['lesson']} {r['experiment']} {r['size']}" for r in pct_rows]
        vals = [r["pct_of_ceiling"] for r in pct_rows]
        ys = range(len(pct_rows))
        bx.barh(list(ys), vals, color=[COLORS.get(r["ceiling_used"], "#888888") for r in pct_rows])
        for y, v, r in zip(ys, vals, pct_rows):
            bx.annotate(f"{v:.1f} % of {r['ceiling_used']}", (v, y), va="center", fontsize=7, xytext=(3, 0),
                        textcoords="offset points")
            goal = goals.get(r["lesson"]) if device_class == "gpu" else None
            if goal and goal[0] == r["ceiling_used"]:
                bx.plot([goal[1]], [y], marker="|", color="red", ms=14, mew=2)
        bx.set_yticks(list(ys))
        bx.set_yticklabels(labels, fontsize=7)
        bx.invert_yaxis()
        bx.axvline(100, color="black", lw=0.8, ls=":")
        bx.set_xlim(0, max(125, max(vals) * 1.45))
        from matplotlib.patches import Patch
        from matplotlib.lines import Line2D
        handles = [Patch(color=COLORS[c], label=c) for c in ("copy-bandwidth", "fp32-peak", "sgemm")
                   if any(r["ceiling_used"] == c for r in pct_rows)]
        if device_class == "gpu":
            handles.append(Line2D([], [], color="red", marker="|", ls="", ms=12, mew=2, label="design goal"))
        bx.legend(handles=handles, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13),
                  ncol=len(handles), title="ceiling", title_fontsize=7, frameon=False)
    else:
        bx.text(0.5, 0.5, "no solution row names a measured ceiling", ha="center", va="center",
                transform=bx.transAxes)
    bx.set_xlabel("% of the ceiling measured in this run")
    bx.set_title("Each solution against its ceiling")
    bx.grid(axis="x", alpha=0.3)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def tile_sweeps(rows, path, device_line):
    """Lesson 4's register-tile and lesson 5's team-tile sweeps in GFLOP/s, and
    lesson 5's times beside the CUDA article's 3464/523/92/52 ms."""
    sweeps = {}
    for r in rows:
        if r["lesson"] in (4, 5) and r["role"] != "starter" and r["unit"] == "GFLOP/s":
            # the tile in the variant ("tile 4x4") or, for the graded kernel, in its note
            # "tile 4", "tile 4x4", "tile 16x32 (article)"; not "tile 16, teams-region arrays"
            m = re.match(r"^tile\s*(\d+)(?:\s*[x×]\s*(\d+))?(?:\s*\([^)]*\))?$", r["variant"], re.I)
            if not m and re.match(r"^(solution|yours)$", r["variant"]):
                m = re.search(r"tile\s*(\d+)(?:\s*[x×]\s*(\d+))?", r["note"], re.I)
            if m:
                area = int(m.group(1)) * int(m.group(2) or m.group(1))
                label = re.sub(r"\s*\(.*\)$", "", m.group(0)) + (
                    "\n(" + r["variant"] + ")" if re.match(r"(solution|yours)$", r["variant"]) else "")
                sweeps.setdefault(r["lesson"], {}).setdefault(r["size"], []).append((label, int(m.group(1)), r, area))
    if not sweeps:
        return None
    panels = [("gflops", n) for n in sorted(sweeps)] + ([("article", 5)] if 5 in sweeps else [])
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.8), squeeze=False)
    what = {4: "register tile (rows x columns per thread)", 5: "team tile edge (elements)"}
    for ax, (kind, n) in zip(axes[0], panels):
        if kind == "gflops":
            for size, pts in sorted(sweeps[n].items()):
                pts.sort(key=lambda p: (p[3], p[0]))
                line, = ax.plot([p[0] for p in pts], [p[2]["rate"] for p in pts], marker="o", label=f"here, {size}")
                for b in rows:  # the lesson's baseline at the same size, for scale
                    if (b["lesson"] == n and b["size"] == size and b["role"] != "starter" and b["unit"] == "GFLOP/s"
                            and "baseline" in b["variant"]):
                        ax.axhline(b["rate"], color=line.get_color(), ls=":", lw=1.2,
                                   label=f"{b['variant']}, {size}: {b['rate']:.1f}")
            ax.set_xlabel(what[n])
            ax.set_ylabel("GFLOP/s")
            ax.set_title(f"Lesson {n}: matmul tile-size sweep")
            ax.tick_params(axis="x", labelsize=8)
        else:
            article = {2: 3464, 4: 523, 8: 92, 16: 52}
            ax.plot(list(article), list(article.values()), marker="s", color="#7f7f7f", ls="--",
                    label="CUDA article, Quadro 2000M (its own size)")
            for size, pts in sorted(sweeps[5].items()):
                pts = sorted((p for p in pts if "\n" not in p[0]), key=lambda p: p[1])
                ax.plot([p[1] for p in pts], [p[2]["time_ms"] for p in pts], marker="o", label=f"here, {size}")
            ax.set_xscale("log", base=2)
            ax.set_xticks([2, 4, 8, 16, 32])
            ax.set_xticklabels(["2", "4", "8", "16", "32"])
            ax.set_yscale("log")
            ax.set_xlabel("team tile edge (elements)")
            ax.set_ylabel("time per matmul (ms, log scale)")
            ax.set_title("Lesson 5 beside the CUDA article's table")
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


METHODS = ("global atomic", "reduction clause", "team-local")


def atomics_matrix(rows, path, device_line):
    """Lesson 6: GB/s for each sum type and the histogram x accumulation method, as a heat map."""
    import numpy as np
    cells = {}
    for r in rows:
        if r["lesson"] != 6 or r["role"] == "starter" or r["unit"] != "GB/s":
            continue
        if not re.match(r"(sum|histogram)", r["experiment"]):
            continue
        v = r["variant"].lower()
        m = next((m for m in METHODS if m in v), None)
        if m and "teams" not in v:
            cells[(r["experiment"], m)] = r
    if not cells:
        return None
    kinds = sorted({k for k, _ in cells}, key=lambda k: ("histogram" in k, ["int", "float", "double"].index(
        k.split()[-1]) if k.split()[-1] in ("int", "float", "double") else 9, k))
    methods = [m for m in METHODS if any(mm == m for _, mm in cells)]
    data = np.full((len(kinds), len(methods)), np.nan)
    pct = np.full_like(data, np.nan)
    for (k, m), r in cells.items():
        data[kinds.index(k), methods.index(m)] = r["rate"]
        if r.get("pct_of_ceiling") is not None:
            pct[kinds.index(k), methods.index(m)] = r["pct_of_ceiling"]
    fig, ax = plt.subplots(figsize=(2.3 * len(methods) + 3, 0.8 * len(kinds) + 2.4))
    logd = np.log10(np.where(data > 0, data, np.nan))
    im = ax.imshow(logd, cmap="viridis", aspect="auto")
    mid = np.nanmean(logd)
    for i in range(len(kinds)):
        for j in range(len(methods)):
            if not np.isnan(data[i, j]):
                label = f"{data[i, j]:,.2f} GB/s" + (f"\n{pct[i, j]:.1f} % of copy" if not np.isnan(pct[i, j]) else "")
                ax.text(j, i, label, ha="center", va="center", fontsize=8,
                        color="white" if logd[i, j] < mid else "black")
    ax.set_xticks(range(len(methods)))
    ax.set_xticklabels(methods)
    ax.set_yticks(range(len(kinds)))
    ax.set_yticklabels(kinds)
    ax.set_xlabel("accumulation method")
    ax.set_ylabel("kernel and element type")
    ax.set_title("Atomics matrix (lesson 6): input GB/s, larger is better")
    cb = fig.colorbar(im, ax=ax)
    cb.set_label("log10(GB/s)")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def _threads_in_flight(r):
    for text in (r["note"], r["variant"], r["size"], r["experiment"]):
        m = (re.search(r"threads\s*[=:]\s*(\d+)", text or "", re.I)
             or re.search(r"(\d+)\s*threads?(?:\s+in\s+flight)?", text or "", re.I))
        if m:
            return int(m.group(1))
    return None


PATTERNS = ("Simple", "Row4x4", "Row16x16", "Col4x4", "Col16x16", "Row4", "Row16", "Col4", "Col16")


def access_patterns(rows, path, device_line):
    """Lesson 8: bandwidth of each copy pattern against threads in flight (or per size when no sweep)."""
    pts = {}
    bars = {}
    for r in rows:
        if r["lesson"] != 8 or r["role"] == "starter" or r["unit"] != "GB/s":
            continue
        pat = next((p for p in PATTERNS if re.search(rf"\b{p}\b", r["variant"], re.I)), None)
        if not pat:
            continue
        th = _threads_in_flight(r)
        if th and re.search(r"flight|sweep|threads", r["experiment"], re.I):
            pts.setdefault(pat, []).append((th, r["rate"]))
        else:
            bars.setdefault(r["size"], {})[pat] = r["rate"]
    if not pts and not bars:
        return None
    panels = (1 if pts else 0) + (1 if bars else 0)
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 4.8))
    axes = list(axes) if panels > 1 else [axes]
    k = 0
    if pts:
        ax = axes[k]
        k += 1
        for pat in PATTERNS:
            if pat in pts:
                p = sorted(pts[pat])
                ax.plot([x for x, _ in p], [y for _, y in p], marker="o", label=pat)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{int(v):,}"))
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
        ax.set_yscale("log")
        ax.set_xlabel("threads in flight")
        ax.set_ylabel("GB/s (bytes read + written, log scale)")
        ax.set_title("Access patterns vs threads in flight (large image)")
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5), title="pattern", title_fontsize=7)
    if bars:
        ax = axes[k]
        sizes = sorted(bars, key=_size_key)
        w = 0.8 / len(sizes)
        for i, s in enumerate(sizes):
            ax.bar([j + i * w for j in range(len(PATTERNS))], [bars[s].get(p, 0) for p in PATTERNS], w,
                   label=f"image {s}")
        ax.set_xticks([j + 0.4 - w / 2 for j in range(len(PATTERNS))])
        ax.set_xticklabels(PATTERNS, rotation=30, fontsize=8)
        ax.set_ylabel("GB/s (bytes read + written)")
        ax.set_xlabel("copy pattern (the OpenCL paper's nine)")
        ax.set_title("Nine access patterns, image copy")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def transfer_split(rows, path, device_line):
    """Lesson 2: copy in / kernel / copy out as shares of each call, per kernel and size,
    with the total time written beside each bar: where offloading pays and where the copies eat it."""
    parts = ("copy in", "kernel", "copy out")
    calls = {}
    for r in rows:
        if r["lesson"] != 2 or r["role"] == "starter":
            continue
        # "solution: copy in", "solution: kernel" (or plain "solution": the kernel alone), "solution: copy out"
        m = re.match(r"^(solution|yours)(?:: (copy in|kernel|copy out))?$", r["variant"])
        if m:
            calls.setdefault((r["experiment"], r["size"]), {})[m.group(2) or "kernel"] = r["time_ms"]
    calls = {k: v for k, v in calls.items() if all(p in v for p in parts)}
    if not calls:
        return None
    keys = sorted(calls, key=lambda k: (k[0], _size_key(k[1])))
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(keys) + 2.6))
    colors = {"copy in": "#ff7f0e", "kernel": "#1f77b4", "copy out": "#2ca02c"}
    for y, key in enumerate(keys):
        total = sum(calls[key][p] for p in parts)
        left = 0.0
        for p in parts:
            share = 100.0 * calls[key][p] / total if total > 0 else 0
            ax.barh(y, share, left=left, color=colors[p], label=p if y == 0 else None)
            left += share
        shown = f"{total:,.2f} ms" if total < 1000 else f"{total / 1000:,.2f} s"
        ax.annotate(shown, (100, y), va="center", fontsize=8, xytext=(4, 0), textcoords="offset points")
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels([f"{e} {sz}" for e, sz in keys], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 118)
    ax.set_xlabel("share of the offloaded call (%); total time at the right")
    ax.set_title("Lesson 2: where an offloaded call's time goes")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, fontsize=8, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def make_all(rows, ceilings, outdir, device_class, device_line, lessons, goals):
    """Writes every plot the rows allow; returns [(title, path)]."""
    os.makedirs(outdir, exist_ok=True)
    for old in os.listdir(outdir):
        if old.endswith(".png"):
            os.remove(os.path.join(outdir, old))
    made = []
    jobs = [
        ("speedup per lesson", lambda p: speedup_per_lesson(rows, p, device_line), "speedup.png"),
        ("roofline: each solution against the ceilings",
         lambda p: roofline(rows, ceilings, p, device_line, lessons, goals, device_class), "roofline.png"),
        ("copy in / kernel / copy out (lesson 2)", lambda p: transfer_split(rows, p, device_line),
         "transfers.png"),
        ("tile-size sweep (lessons 4, 5)", lambda p: tile_sweeps(rows, p, device_line), "tile-sweep.png"),
        ("atomics matrix (lesson 6)", lambda p: atomics_matrix(rows, p, device_line), "atomics.png"),
        ("access patterns vs threads in flight (lesson 8)", lambda p: access_patterns(rows, p, device_line),
         "access-patterns.png"),
    ]
    for title, fn, name in jobs:
        p = fn(os.path.join(outdir, name))
        if p:
            made.append((title, p))
    return made
