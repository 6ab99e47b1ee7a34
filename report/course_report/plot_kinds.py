"""The figures a row asks for by its plot kind (ResultRow::plot), a panel per
(lesson, experiment): sweep, split, matrix, lines and bars."""
from __future__ import annotations

import re

import matplotlib.ticker

from .analyse import size_key
from .plot_base import axis_label, group_by, panel_grid, panel_title, plot_kind, plt, save_figure, verified_rows


def sweep(rows, path, device_line):
    """Rate against the declared parameter, a line per size; the experiment's (or program's) baseline
    at the same size dotted; a second panel with the article's times where rows declare them."""
    pts = [r for r in verified_rows(rows) if plot_kind(r) == "sweep" and r["param"] and r["rate"] > 0]
    if not pts:
        return None
    groups = group_by(pts, lambda r: (r["lesson"], r["experiment"]))
    panels = []
    for key, g in sorted(groups.items()):
        panels.append(("rate", key, g))
        if len({r["param"] for r in g if r["article_ms"] > 0}) >= 2:   # a line, not a lone point
            panels.append(("article", key, g))
    fig, axes = panel_grid(len(panels))
    for ax, (kind, key, g) in zip(axes, panels):
        params = list(dict.fromkeys(r["param"] for r in g))
        for size, sr in sorted(group_by(g, lambda r: r["size"]).items(), key=lambda kv: size_key(kv[0])):
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
            ax.set_title(panel_title(key))
        else:
            art = {}
            for r in g:
                if r["article_ms"] > 0:
                    art[r["param"]] = r["article_ms"]
            xs = [p for p in params if p in art]
            ax.plot(xs, [art[p] for p in xs], marker="s", color="#7f7f7f", ls="--", label="the article")
            ax.set_yscale("log")
            ax.set_ylabel("time per run (ms, log scale)")
            ax.set_title(panel_title(key) + ": beside the article")
        ax.set_xlabel(axis_label(g, f"{key[1]}: parameter"))
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return save_figure(fig, path, device_line)


def split(rows, path, device_line):
    """Each call's time by declared part, as shares, total time at the right."""
    pts = [r for r in verified_rows(rows) if plot_kind(r) == "split" and r["param"]]
    calls = group_by(pts, lambda r: (r["lesson"], r["experiment"], r["size"]))
    calls = {k: v for k, v in calls.items() if len(v) > 1}
    if not calls:
        return None
    keys = sorted(calls, key=lambda k: (k[0], k[1], size_key(k[2])))
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
    return save_figure(fig, path, device_line)


def matrix(rows, path, device_line):
    """Heat map per lesson: declared experiment (rows) x parameter (columns), rate and % of ceiling."""
    import numpy as np
    pts = [r for r in verified_rows(rows) if plot_kind(r) == "matrix" and r["param"] and r["rate"] > 0]
    if not pts:
        return None
    groups = group_by(pts, lambda r: r["lesson"])
    fig, axes = panel_grid(len(groups), width=8.5, height=5.0, cols_max=2)
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
        ax.set_xlabel(axis_label(g, ""))
        ax.set_title(f"Lesson {lesson}: {unit}, larger is better")
        fig.colorbar(im, ax=ax).set_label(f"log10({unit})")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return save_figure(fig, path, device_line)


def lines(rows, path, device_line):
    """Rate against a numeric parameter, a line per variant, log axes."""
    pts = [r for r in verified_rows(rows) if plot_kind(r) == "lines" and re.fullmatch(r"\d+(\.\d+)?", r["param"] or "")
           and r["rate"] > 0]
    if not pts:
        return None
    groups = group_by(pts, lambda r: (r["lesson"], r["experiment"], r["size"]))
    fig, axes = panel_grid(len(groups), width=7.2)
    for ax, (key, g) in zip(axes, sorted(groups.items())):
        for variant, vr in group_by(g, lambda r: r["variant"]).items():
            p = sorted((float(r["param"]), r["rate"]) for r in vr)
            ax.plot([x for x, _ in p], [y for _, y in p], marker="o", label=variant)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
        ax.set_yscale("log")
        ax.set_xlabel(axis_label(g, f"{key[1]}: parameter") + " (log scale)")
        ax.set_ylabel(g[0]["unit"] + " (log scale)")
        ax.set_title(f"Lesson {key[0]}: {key[1]}, {key[2]}")
        ax.grid(which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return save_figure(fig, path, device_line)


def bars(rows, path, device_line):
    """Rate per declared parameter, a bar per size; the copy ceiling of the run as a line where declared."""
    pts = [r for r in verified_rows(rows) if plot_kind(r) == "bars" and r["param"] and r["rate"] > 0]
    if not pts:
        return None
    groups = group_by(pts, lambda r: (r["lesson"], r["experiment"]))
    fig, axes = panel_grid(len(groups), width=8.0, cols_max=2)
    for ax, (key, g) in zip(axes, sorted(groups.items())):
        params = list(dict.fromkeys(r["param"] for r in g))
        sizes = sorted({r["size"] for r in g}, key=size_key)
        w = 0.8 / len(sizes)
        for i, s in enumerate(sizes):
            val = {r["param"]: r["rate"] for r in g if r["size"] == s}
            ax.bar([j + i * w for j in range(len(params))], [val.get(p, 0) for p in params], w, label=f"{s}")
        ax.set_xticks([j + 0.4 - w / 2 for j in range(len(params))])
        ax.set_xticklabels(params, rotation=30, fontsize=8)
        ax.set_xlabel(axis_label(g, ""))
        ax.set_ylabel(g[0]["unit"])
        ax.set_title(panel_title(key))
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, title="size", title_fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return save_figure(fig, path, device_line)
