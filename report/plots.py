"""The course report's plots (matplotlib, PNG), made from what the rows
declare, never from lesson numbers:

- speedup.png   each experiment's kernel under test (role "kernel") and the
                untouched starter's against the experiment's baseline
- ceilings.png  a roofline (rows that declare bytes and flops) and every
                kernel under test's % of the ceiling it declares, with the
                design's goals where rows declare them
- one figure per declared plot kind, a panel per (lesson, experiment):
  sweep.png   rate against the swept parameter, a line per size, the
              baseline dotted, and the article's times beside ours
  split.png   shares of a call's time by part (copy in / kernel / copy out)
  matrix.png  heat map: experiment x parameter (e.g. type x method)
  lines.png   rate against a numeric parameter, a line per variant (log axes)
  bars.png    rate per parameter, a bar per size

make_all() writes every figure the rows allow and returns [(title, path)].
"""
from __future__ import annotations

import math
import os
import re

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

DPI = 130
COLORS = {"solution": "#1f77b4", "yours": "#1f77b4", "starter": "#d62728", "baseline": "#7f7f7f"}
CEILING_COLORS = {"copy": "#2ca02c", "host-copy": "#98df8a", "fp32": "#ff7f0e", "host-fp32": "#ffbb78",
                  "sgemm": "#9467bd", "host-sgemm": "#c5b0d5"}


def _size_key(size):
    nums = [int(x) for x in re.findall(r"\d+", size or "")]
    return math.prod(nums) if nums else 0


def _finish(fig, path, device_line):
    fig.text(0.01, 0.005, device_line[:150], fontsize=7, color="#555555", ha="left", va="bottom")
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _grouped(rows, key):
    out = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return out


def _largest(rows):
    """For each (lesson, experiment), its rows at the largest size."""
    best = {}
    for r in rows:
        k = (r["lesson"], r["experiment"])
        best[k] = max(best.get(k, 0), _size_key(r["size"]))
    return [r for r in rows if _size_key(r["size"]) == best[(r["lesson"], r["experiment"])]]


def _panels(n, width=6.2, height=4.6, cols_max=3):
    cols = min(n, cols_max)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    flat = [ax for line in axes for ax in line]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _kind(r):
    """The plot kind a row declares: "sweep" or "sweep: x-axis label"."""
    return (r["plot"] or "").split(":", 1)[0].strip()


def _axis(g, fallback):
    """The x-axis label the group's rows declare after the kind, else fallback."""
    for r in g:
        if ":" in (r["plot"] or ""):
            return r["plot"].split(":", 1)[1].strip()
    return fallback


def _plain(rows):
    """Rows of the lesson programs proper that verified (no starters, no ceilings)."""
    return [r for r in rows if r["lesson"] > 0 and r["run"] != "starter" and r["status"] == "PASS"]


# ---------------------------------------------------------------------------

def speedup(rows, path, device_line):
    pts = [r for r in _largest([r for r in rows if r["lesson"] > 0]) if r.get("is_main") and
           r.get("speedup_vs_baseline")]
    if not pts:
        return None
    groups = _grouped(pts, lambda r: (r["lesson"], r["experiment"]))
    keys = sorted(groups)
    fig, ax = plt.subplots(figsize=(10, 0.62 * len(keys) + 2.2))
    h = 0.38
    for i, key in enumerate(keys):
        for r in groups[key]:
            y = i + (h / 2 if r["run"] == "starter" else -h / 2)
            v = r["speedup_vs_baseline"]
            ax.barh(y, v, h, color=COLORS.get(r["run"], "#1f77b4"), label=r["run"])
            ax.annotate(f"{v:.1f}x", (v, y), va="center", fontsize=7, xytext=(3, 0), textcoords="offset points")
    ax.axvline(1.0, color="black", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels([f"L{n} {e} ({groups[(n, e)][0]['size']}) vs {groups[(n, e)][0]['baseline']}"[:70]
                        for n, e in keys], fontsize=7)
    ax.invert_yaxis()
    lo, hi = ax.get_xlim()
    ax.set_xlim(lo, hi * 3)  # room for the labels
    ax.set_xlabel("speedup over the experiment's baseline (x, log scale; 1 = as fast)")
    ax.set_title("Speedup over each experiment's baseline:\nthe kernel under test and the untouched starter")
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), loc="lower right", fontsize=8)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def ceilings_plot(rows, ceilings, path, device_line, device_class):
    """Left: roofline from the copy and FP32 ceilings, each kernel under test placed by its declared
    flops / bytes. Right: each kernel under test's % of the ceiling it declares."""
    def top(name):
        c = ceilings.get(name)
        return max(x["rate"] for x in c) if c else None
    bw, peak, sgemm = top("copy"), top("fp32"), top("sgemm")
    mains = [r for r in _largest(_plain(rows)) if r.get("is_main")]
    if not mains or not (bw or peak):
        return None
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 6.5), gridspec_kw={"width_ratios": [1.1, 1]})
    xs = [10 ** (k / 10) for k in range(-20, 51)]
    if bw and peak:
        ax.plot(xs, [min(peak, bw * x) for x in xs], color="black", lw=1.8,
                label=f"roof: min(FP32 peak, copy {bw:,.0f} GB/s x intensity)")
    if peak:
        ax.axhline(peak, color=CEILING_COLORS["fp32"], ls="--", lw=1, label=f"FP32 peak {peak:,.0f} GFLOP/s")
    if sgemm:
        ax.axhline(sgemm, color=CEILING_COLORS["sgemm"], ls="-.", lw=1, label=f"vendor SGEMM {sgemm:,.0f} GFLOP/s")
    markers = "osD^v<>p*h"
    placed = 0
    for r in mains:
        # Host-thread code (host-* ceilings) says nothing against a GPU's roof.
        if r["bytes"] <= 0 or r["flops"] <= 0 or not r.get("gflops") or \
                (device_class == "gpu" and r["ceiling"].startswith("host-")):
            continue
        ai = r["flops"] / r["bytes"]
        ax.scatter([ai], [r["gflops"]], marker=markers[r["lesson"] % len(markers)], s=60, zorder=3,
                   label=f"L{r['lesson']} {r['experiment']} {r['size']}: {r['gflops']:,.1f} GFLOP/s")
        placed += 1
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (declared flops per byte of compulsory traffic)")
    ax.set_ylabel("attained GFLOP/s (log scale)")
    ax.set_title("Roofline: kernels that declare flops and bytes" + ("" if placed else " (none in this run)"))
    ax.grid(which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)

    pct = sorted([r for r in mains if r.get("pct_of_ceiling") is not None],
                 key=lambda r: (r["lesson"], r["experiment"]))
    if pct:
        ys = list(range(len(pct)))
        vals = [r["pct_of_ceiling"] for r in pct]
        bx.barh(ys, vals, color=[CEILING_COLORS.get(r["ceiling_used"], "#888888") for r in pct],
                hatch=None)
        for y, v, r in zip(ys, vals, pct):
            tag = " (in cache)" if r["in_cache"] else (" ⚠" if r.get("over_ceiling") else "")
            bx.annotate(f"{v:.1f} % of {r['ceiling_used']}{tag}", (v, y), va="center", fontsize=7, xytext=(3, 0),
                        textcoords="offset points")
            if r["goal_pct"] > 0:
                bx.plot([r["goal_pct"]], [y], marker="|", color="red", ms=14, mew=2)
        bx.set_yticks(ys)
        bx.set_yticklabels([f"L{r['lesson']} {r['experiment']} {r['size']}"[:48] for r in pct], fontsize=7)
        bx.invert_yaxis()
        bx.axvline(100, color="black", lw=0.8, ls=":")
        bx.set_xlim(0, max(125, max(vals) * 1.45))
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
        handles = [Patch(color=CEILING_COLORS.get(c, "#888888"), label=c)
                   for c in sorted({r["ceiling_used"] for r in pct})]
        if any(r["goal_pct"] > 0 for r in pct):
            handles.append(Line2D([], [], color="red", marker="|", ls="", ms=12, mew=2, label="design goal"))
        bx.legend(handles=handles, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13),
                  ncol=min(len(handles), 4), title="ceiling", title_fontsize=7, frameon=False)
    else:
        bx.text(0.5, 0.5, "no kernel under test names a measured ceiling", ha="center", va="center",
                transform=bx.transAxes)
    bx.set_xlabel("% of the ceiling measured in this run")
    bx.set_title("Each kernel under test against its ceiling")
    bx.grid(axis="x", alpha=0.3)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def _title(key):
    return f"Lesson {key[0]}: {key[1]}"


def sweep(rows, path, device_line):
    """Rate against the declared parameter, a line per size; the experiment's (or program's) baseline
    at the same size dotted; a second panel with the article's times where rows declare them."""
    pts = [r for r in _plain(rows) if _kind(r) == "sweep" and r["param"] and r["rate"] > 0]
    if not pts:
        return None
    groups = _grouped(pts, lambda r: (r["lesson"], r["experiment"]))
    panels = []
    for key, g in sorted(groups.items()):
        panels.append(("rate", key, g))
        if len({r["param"] for r in g if r["article_ms"] > 0}) >= 2:   # a line, not a lone point
            panels.append(("article", key, g))
    fig, axes = _panels(len(panels))
    for ax, (kind, key, g) in zip(axes, panels):
        params = list(dict.fromkeys(r["param"] for r in g))
        for size, sr in sorted(_grouped(g, lambda r: r["size"]).items(), key=lambda kv: _size_key(kv[0])):
            best = {}
            for r in sr:   # where a parameter has several rows (variant and kernel), the kernel's
                if r["param"] not in best or r["role"] == "kernel":
                    best[r["param"]] = r
            xs = [p for p in params if p in best]
            if kind == "rate":
                line, = ax.plot(xs, [best[p]["rate"] for p in xs], marker="o", label=f"here, {size}")
                for p in xs:
                    if best[p]["role"] == "kernel":
                        ax.annotate("kernel", (p, best[p]["rate"]), fontsize=7, xytext=(0, 6),
                                    textcoords="offset points", ha="center")
                for b in rows:   # the baseline at the same size, for scale
                    if (b["lesson"] == key[0] and b["size"] == size and b["role"] == "baseline"
                            and b["run"] != "starter" and b["unit"] == sr[0]["unit"] and b["rate"] > 0):
                        ax.axhline(b["rate"], color=line.get_color(), ls=":", lw=1.2,
                                   label=f"{b['variant']}, {size}: {b['rate']:,.1f}")
                        break
            else:
                ax.plot(xs, [best[p]["time_ms"] for p in xs], marker="o", label=f"here, {size}")
        if kind == "rate":
            ax.set_ylabel(g[0]["unit"])
            ax.set_title(_title(key))
        else:
            art = {}
            for r in g:
                if r["article_ms"] > 0:
                    art[r["param"]] = r["article_ms"]
            xs = [p for p in params if p in art]
            ax.plot(xs, [art[p] for p in xs], marker="s", color="#7f7f7f", ls="--", label="the article")
            ax.set_yscale("log")
            ax.set_ylabel("time per run (ms, log scale)")
            ax.set_title(_title(key) + ": beside the article")
        ax.set_xlabel(_axis(g, f"{key[1]}: parameter"))
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def split(rows, path, device_line):
    """Each call's time by declared part, as shares, total time at the right."""
    pts = [r for r in _plain(rows) if _kind(r) == "split" and r["param"]]
    calls = _grouped(pts, lambda r: (r["lesson"], r["experiment"], r["size"]))
    calls = {k: v for k, v in calls.items() if len(v) > 1}
    if not calls:
        return None
    keys = sorted(calls, key=lambda k: (k[0], k[1], _size_key(k[2])))
    parts = list(dict.fromkeys(r["param"] for k in keys for r in calls[k]))
    palette = ["#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"]
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(keys) + 2.6))
    for y, key in enumerate(keys):
        t = {r["param"]: r["time_ms"] for r in calls[key]}
        total = sum(t.values())
        left = 0.0
        for i, p in enumerate(parts):
            share = 100.0 * t.get(p, 0) / total if total > 0 else 0
            ax.barh(y, share, left=left, color=palette[i % len(palette)], label=p if y == 0 else None)
            left += share
        shown = f"{total:,.2f} ms" if total < 1000 else f"{total / 1000:,.2f} s"
        ax.annotate(shown, (100, y), va="center", fontsize=8, xytext=(4, 0), textcoords="offset points")
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels([f"L{n} {e} {sz}" for n, e, sz in keys], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 118)
    ax.set_xlabel("share of the call (%); total time at the right")
    ax.set_title("Where a call's time goes")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=len(parts), fontsize=8, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def matrix(rows, path, device_line):
    """Heat map per lesson: declared experiment (rows) x parameter (columns), rate and % of ceiling."""
    import numpy as np
    pts = [r for r in _plain(rows) if _kind(r) == "matrix" and r["param"] and r["rate"] > 0]
    if not pts:
        return None
    groups = _grouped(pts, lambda r: r["lesson"])
    fig, axes = _panels(len(groups), width=8.5, height=5.0, cols_max=2)
    for ax, (lesson, g) in zip(axes, sorted(groups.items())):
        exps = list(dict.fromkeys(r["experiment"] for r in g))
        params = list(dict.fromkeys(r["param"] for r in g))
        data = np.full((len(exps), len(params)), np.nan)
        pct = np.full_like(data, np.nan)
        unit = g[0]["unit"]
        for r in g:
            i, j = exps.index(r["experiment"]), params.index(r["param"])
            if np.isnan(data[i, j]) or r["rate"] > data[i, j]:
                data[i, j] = r["rate"]
                if r.get("pct_of_ceiling") is not None:
                    pct[i, j] = r["pct_of_ceiling"]
        logd = np.log10(np.where(data > 0, data, np.nan))
        im = ax.imshow(logd, cmap="viridis", aspect="auto")
        mid = np.nanmean(logd)
        for i in range(len(exps)):
            for j in range(len(params)):
                if not np.isnan(data[i, j]):
                    label = f"{data[i, j]:,.2f} {unit}" + (f"\n{pct[i, j]:.1f} % of ceiling"
                                                           if not np.isnan(pct[i, j]) else "")
                    ax.text(j, i, label, ha="center", va="center", fontsize=8,
                            color="white" if logd[i, j] < mid else "black")
        ax.set_xticks(range(len(params)))
        ax.set_xticklabels(params, fontsize=8)
        ax.set_yticks(range(len(exps)))
        ax.set_yticklabels(exps, fontsize=8)
        ax.set_xlabel(_axis(g, ""))
        ax.set_title(f"Lesson {lesson}: {unit}, larger is better")
        fig.colorbar(im, ax=ax).set_label(f"log10({unit})")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def lines(rows, path, device_line):
    """Rate against a numeric parameter, a line per variant, log axes."""
    pts = [r for r in _plain(rows) if _kind(r) == "lines" and re.fullmatch(r"\d+(\.\d+)?", r["param"] or "")
           and r["rate"] > 0]
    if not pts:
        return None
    groups = _grouped(pts, lambda r: (r["lesson"], r["experiment"], r["size"]))
    fig, axes = _panels(len(groups), width=7.2)
    for ax, (key, g) in zip(axes, sorted(groups.items())):
        for variant, vr in _grouped(g, lambda r: r["variant"]).items():
            p = sorted((float(r["param"]), r["rate"]) for r in vr)
            ax.plot([x for x, _ in p], [y for _, y in p], marker="o", label=variant)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
        ax.set_yscale("log")
        ax.set_xlabel(_axis(g, f"{key[1]}: parameter") + " (log scale)")
        ax.set_ylabel(g[0]["unit"] + " (log scale)")
        ax.set_title(f"Lesson {key[0]}: {key[1]}, {key[2]}")
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


def bars(rows, path, device_line):
    """Rate per declared parameter, a bar per size; the copy ceiling of the run as a line where declared."""
    pts = [r for r in _plain(rows) if _kind(r) == "bars" and r["param"] and r["rate"] > 0]
    if not pts:
        return None
    groups = _grouped(pts, lambda r: (r["lesson"], r["experiment"]))
    fig, axes = _panels(len(groups), width=8.0, cols_max=2)
    for ax, (key, g) in zip(axes, sorted(groups.items())):
        params = list(dict.fromkeys(r["param"] for r in g))
        sizes = sorted({r["size"] for r in g}, key=_size_key)
        w = 0.8 / len(sizes)
        for i, s in enumerate(sizes):
            val = {r["param"]: r["rate"] for r in g if r["size"] == s}
            ax.bar([j + i * w for j in range(len(params))], [val.get(p, 0) for p in params], w, label=f"{s}")
        ax.set_xticks([j + 0.4 - w / 2 for j in range(len(params))])
        ax.set_xticklabels(params, rotation=30, fontsize=8)
        ax.set_xlabel(_axis(g, ""))
        ax.set_ylabel(g[0]["unit"])
        ax.set_title(_title(key))
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, title="size", title_fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _finish(fig, path, device_line)


# The order is the order of importance (scripts/report-gpu.sh brings back the first six).
PLOTS = [
    ("each kernel under test against the ceilings (roofline, % of ceiling)", "ceilings.png", "ceilings"),
    ("speedup over each experiment's baseline", "speedup.png", "speedup"),
    ("parameter sweeps, beside the articles' figures", "sweep.png", "sweep"),
    ("rate per parameter and size", "bars.png", "bars"),
    ("matrices of experiment x parameter", "matrix.png", "matrix"),
    ("where a call's time goes", "split.png", "split"),
    ("rate against a numeric parameter", "lines.png", "lines"),
]


def make_all(rows, ceilings, outdir, device_class, device_line):
    """Writes every plot the rows allow; returns [(title, path)]."""
    os.makedirs(outdir, exist_ok=True)
    for old in os.listdir(outdir):
        if old.endswith(".png"):
            os.remove(os.path.join(outdir, old))
    fns = {
        "ceilings": lambda p: ceilings_plot(rows, ceilings, p, device_line, device_class),
        "speedup": lambda p: speedup(rows, p, device_line),
        "sweep": lambda p: sweep(rows, p, device_line),
        "bars": lambda p: bars(rows, p, device_line),
        "matrix": lambda p: matrix(rows, p, device_line),
        "split": lambda p: split(rows, p, device_line),
        "lines": lambda p: lines(rows, p, device_line),
    }
    made = []
    for title, name, kind in PLOTS:
        p = fns[kind](os.path.join(outdir, name))
        if p:
            made.append((title, p))
    return made
