"""The two summary figures every report has: speedup.png (each kernel under
test and the untouched starter against its experiment's baseline) and
ceilings.png (a roofline and each kernel's % of its ceiling)."""
from __future__ import annotations

from .plot_base import CEILING_COLORS, COLORS, at_largest_size, group_by, plt, save_figure, verified_rows


def speedup(rows, path, device_line):
    pts = [r for r in at_largest_size([r for r in rows if r["lesson"] > 0]) if r.get("is_main") and
           r.get("speedup_vs_baseline")]
    if not pts:
        return None
    groups = group_by(pts, lambda r: (r["lesson"], r["experiment"]))
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
    return save_figure(fig, path, device_line)


def ceilings_plot(rows, ceilings, path, device_line, device_class):
    """Left: roofline from the copy and FP32 ceilings, each kernel under test placed by its declared
    flops / bytes. Right: each kernel under test's % of the ceiling it declares."""
    def top(name):
        c = ceilings.get(name)
        return max(x["rate"] for x in c) if c else None
    bw, peak, sgemm = top("copy"), top("fp32"), top("sgemm")
    mains = [r for r in at_largest_size(verified_rows(rows)) if r.get("is_main")]
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
    return save_figure(fig, path, device_line)
