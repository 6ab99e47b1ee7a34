#!/usr/bin/env python3
"""plot-trace.py -- draw a LIBOMPTARGET_PROFILE trace as a timeline PNG.

The offload runtime writes a Chrome trace (JSON: one "complete" event per
kernel, copy and runtime call, with start and duration in microseconds) when
LIBOMPTARGET_PROFILE=<file> is set. Perfetto (ui.perfetto.dev) or
chrome://tracing open it interactively; this script draws the same events
with matplotlib, offline, one lane per kind of event, and prints a summary
(how many of each, total time).

  lessons/10-profiling/plot-trace.py TRACE.json [OUT.png] [--title TEXT] [--from MS --to MS]

Needs matplotlib for the PNG (the summary needs nothing). When the python3
that runs it has none (a pyenv or venv first on PATH), it runs itself again
with a python3 that has: /usr/bin/python3 (Debian's python3-matplotlib, which
scripts/install-deps.sh installs) or another on PATH.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict

# Lanes, top to bottom, and the colour of each; other events go to "other".
LANES = [
    ("Runtime: target exe", "target region (whole)", "#9e9e9e"),
    ("Kernel Target", "kernel", "#d62728"),
    ("HostToDev", "copy host -> device", "#1f77b4"),
    ("DevToHost", "copy device -> host", "#2ca02c"),
    ("Runtime: Data Copy", "data region map / unmap", "#ff7f0e"),
]


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot-trace: cannot read {path}: {e}")
    events = data["traceEvents"] if isinstance(data, dict) else data
    # Complete events ("ph": "X") of the process; the "Total ..." events are
    # the runtime's own sums, not moments in time.
    return [e for e in events if e.get("ph") == "X" and not e.get("name", "").startswith("Total ")]


def has_matplotlib(python):
    try:
        return subprocess.run([python, "-c", "import matplotlib"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def ensure_matplotlib():
    """Returns when this interpreter can import matplotlib; otherwise runs the
    script again with one that can, or exits saying what to install."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    tried = [sys.executable]
    if not os.environ.get("PLOT_TRACE_REEXEC"):  # once: never loop between interpreters
        seen = {os.path.realpath(sys.executable)}
        path_pythons = [os.path.join(d, "python3") for d in os.environ.get("PATH", "").split(os.pathsep) if d]
        for python in ["/usr/bin/python3"] + path_pythons:
            if not os.access(python, os.X_OK) or os.path.realpath(python) in seen:
                continue
            seen.add(os.path.realpath(python))
            tried.append(python)
            if has_matplotlib(python):
                print(f"plot-trace: {sys.executable} has no matplotlib; running with {python}", file=sys.stderr)
                os.environ["PLOT_TRACE_REEXEC"] = "1"
                sys.stdout.flush()
                os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])
    pip = shutil.which("pip3") and f"{sys.executable} -m pip install matplotlib"
    sys.exit("plot-trace: no python3 here has matplotlib (tried " + ", ".join(tried) + "). Install it: "
             "sudo apt-get install python3-matplotlib (Debian, Ubuntu: /usr/bin/python3 then has it)" +
             (f", or {pip} for this python3" if pip else "") +
             ". Without OUT.png the script prints the summary alone, which needs nothing")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--title", default="")
    ap.add_argument("--from", dest="t0", type=float, default=None, help="start of the window, ms")
    ap.add_argument("--to", dest="t1", type=float, default=None, help="end of the window, ms")
    args = ap.parse_args()

    if args.out:
        ensure_matplotlib()  # before any output: a second interpreter would print it again
    events = load(args.trace)
    if not events:
        sys.exit(f"plot-trace: {args.trace} holds no events (was LIBOMPTARGET_PROFILE_GRANULARITY left at 500 us?)")
    start = min(e["ts"] for e in events)
    summary = defaultdict(lambda: [0, 0.0])
    for e in events:
        summary[e["name"]][0] += 1
        summary[e["name"]][1] += e.get("dur", 0) / 1e3
    print(f"{'event':40s} {'count':>7s} {'total ms':>10s}")
    for name, (count, ms) in sorted(summary.items(), key=lambda kv: -kv[1][1]):
        print(f"{name[:40]:40s} {count:7d} {ms:10.3f}")
    if not args.out:
        return

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lane_of = {key: i for i, (key, _, _) in enumerate(LANES)}
    labels = [label for _, label, _ in LANES] + ["other runtime calls"]
    colours = [c for _, _, c in LANES] + ["#c7c7c7"]
    bars = defaultdict(list)
    for e in events:
        lane = lane_of.get(e["name"], len(LANES))
        t = (e["ts"] - start) / 1e3
        d = e.get("dur", 0) / 1e3
        if args.t0 is not None and t + d < args.t0:
            continue
        if args.t1 is not None and t > args.t1:
            continue
        bars[lane].append((t, max(d, 1e-4)))
    fig, ax = plt.subplots(figsize=(12, 3.6), dpi=120)
    for lane, spans in bars.items():
        ax.broken_barh(spans, (lane - 0.4, 0.8), facecolors=colours[lane], edgecolor="none")
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.set_xlabel("time since the first event (ms)")
    if args.t0 is not None or args.t1 is not None:
        ax.set_xlim(args.t0 if args.t0 is not None else 0, args.t1 if args.t1 is not None else None)
    counts = (f"{summary['Kernel Target'][0]} kernel launches, {summary['HostToDev'][0]} copies to the device, "
              f"{summary['DevToHost'][0]} back")
    ax.set_title((args.title + "\n" if args.title else "") + counts, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
