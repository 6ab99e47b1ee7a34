"""What the report's figures share: matplotlib on files only, the colours,
saving a figure with its device line, and grouping rows into panels."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402

from .analyse import size_key  # noqa: E402

DPI = 130
COLORS = {"solution": "#1f77b4", "yours": "#1f77b4", "starter": "#d62728", "baseline": "#7f7f7f"}
CEILING_COLORS = {"copy": "#2ca02c", "host-copy": "#98df8a", "fp32": "#ff7f0e", "host-fp32": "#ffbb78",
                  "sgemm": "#9467bd", "host-sgemm": "#c5b0d5"}


def save_figure(fig, path, device_line):
    fig.text(0.01, 0.005, device_line[:150], fontsize=7, color="#555555", ha="left", va="bottom")
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def group_by(rows, key):
    out = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return out


def at_largest_size(rows):
    """For each (lesson, experiment), its rows at the largest size."""
    best = {}
    for r in rows:
        k = (r["lesson"], r["experiment"])
        best[k] = max(best.get(k, 0), size_key(r["size"]))
    return [r for r in rows if size_key(r["size"]) == best[(r["lesson"], r["experiment"])]]


def panel_grid(n, width=6.2, height=4.6, cols_max=3):
    cols = min(n, cols_max)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    flat = [ax for line in axes for ax in line]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def plot_kind(r):
    """The plot kind a row declares: "sweep" or "sweep: x-axis label"."""
    return (r["plot"] or "").split(":", 1)[0].strip()


def axis_label(g, fallback):
    """The x-axis label the group's rows declare after the kind, else fallback."""
    for r in g:
        if ":" in (r["plot"] or ""):
            return r["plot"].split(":", 1)[1].strip()
    return fallback


def verified_rows(rows):
    """Rows of the lesson programs proper that verified (no starters, no ceilings)."""
    return [r for r in rows if r["lesson"] > 0 and r["run"] != "starter" and r["status"] == "PASS"]


def panel_title(key):
    return f"Lesson {key[0]}: {key[1]}"
