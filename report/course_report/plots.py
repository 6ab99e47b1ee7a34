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

import os

from .plot_kinds import bars, lines, matrix, split, sweep
from .plot_summary import ceilings_plot, speedup


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
