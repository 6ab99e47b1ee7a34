"""`report.py --repeat N`: a goal judged on more than one draw. The vendor
programs and the lesson programs run N times, one round after another (each
round the vendors, then the lessons: a noisy machine moves both sides);
course_ceilings runs once at the start and once at the end, as in one run.
Each round is analysed alone, against the vendor's figures of the same round
(analyse.py, goals.py): for each row that has a goal, and each experiment's
kernel under test, its % as the goal is judged (per call, host clock both,
where the round's vendor program timed its call at the row's size; else its
% of ceiling), then min / median / max over the rounds and the goal "met in
k of N runs", naming each run that missed it and why (below the goal, the
row FAILED, no row, or a % of another ceiling than the other runs': its
vendor program failed that round).

The report's other tables show run 1 (report.csv too); repeats.csv holds one
line per run per row and one summary line per row."""
from __future__ import annotations

import csv
import statistics

from .analyse import annotate, ceilings_from
from .goals import apply_goals
from .render import call_share, fmt, md_table, per_call_rows

PER_CALL_LABEL = "% of vendor per call (host clock both)"
REPEAT_COLUMNS = ["lesson", "experiment", "variant", "size", "run", "pct", "measured_as", "ceiling_used", "status",
                  "goal_pct", "met", "min", "median", "max", "met_runs", "runs"]


def key_of(r):
    return r["lesson"], r["experiment"], r["variant"], r["size"]


def judged(r, calls):
    """(the row's % as its goal is judged, what it is a % of): the share of the vendor's per-call time
    at the row's size where that was measured (render.goal_text's rule), else its % of ceiling."""
    share = call_share(r, calls.get((r["ceiling_used"], r["size"])))
    if share is not None:
        return share, PER_CALL_LABEL
    if not r["ceiling_used"]:
        return r["pct_of_ceiling"], ""
    return r["pct_of_ceiling"], f"% of {r['ceiling_used']}" + (" (in cache)" if r["in_cache"] else "")


def analyse_runs(once, by_run, goals_table, device_class):
    """@p once: rows measured once for all rounds (course_ceilings, start and end); @p by_run: {k: the rows of
    round k}. Each round is annotated against its own vendor rows. Returns (n, [summary]) where each summary
    is a dict: the row's key fields, `per_run` ({k: (pct or None, PASS or FAILED, what the % is of, the ceiling
    used)}), goal_pct, goal_from."""
    n = max(by_run) if by_run else 0
    seen, order = {}, []
    for k in sorted(by_run):
        rows = once + by_run[k]
        annotate(rows, ceilings_from(rows), device_class)
        apply_goals(rows, goals_table, device_class)
        calls = per_call_rows(rows)
        for r in by_run[k]:
            if r["lesson"] == 0 or r["run"] == "starter" or r["experiment"] == "(program)":
                continue
            key = key_of(r)
            entry = seen.get(key)
            wanted = r["goal_pct"] > 0 or r["is_main"] or r.get("goal_from")
            if entry is None:
                # A row is shown where it has a goal or is the kernel under test in any round.
                entry = dict(lesson=r["lesson"], experiment=r["experiment"], variant=r["variant"], size=r["size"],
                             per_run={}, goal_pct=0.0, goal_from=None, wanted=False)
                seen[key] = entry
                order.append(key)
            entry["wanted"] = entry["wanted"] or bool(wanted)
            entry["goal_pct"] = max(entry["goal_pct"], r["goal_pct"])
            entry["goal_from"] = entry["goal_from"] or r.get("goal_from")
            pct, label = judged(r, calls) if r["status"] == "PASS" else (None, "")
            entry["per_run"][k] = (pct, r["status"] if r["status"] == "PASS" else "FAILED", label,
                                   r["ceiling_used"])
    return n, [seen[k] for k in order if seen[k]["wanted"]]


def usual_label(entry):
    """What most runs' % is of (the vendor per call, or a ceiling): a run measured against something
    else (its vendor program failed that round: the row's ceiling stood in) is not counted as met."""
    labels = [v[2] for v in entry["per_run"].values() if v[0] is not None]
    # On a tie, the vendor's per-call time: what the goals are judged on (lessons/goals.csv).
    return max(sorted(set(labels)), key=lambda x: (labels.count(x), x == PER_CALL_LABEL)) if labels else ""


def counts(entry, k):
    """Whether run @p k's % counts: a % there, measured as most runs were."""
    v = entry["per_run"].get(k)
    return v is not None and v[0] is not None and v[2] == usual_label(entry)


def stats(entry, n):
    """min, median, max over the runs whose % counts, and how many of them met the goal (None: no goal)."""
    got = [entry["per_run"][k][0] for k in range(1, n + 1) if counts(entry, k)]
    lo, mid, hi = (min(got), statistics.median(got), max(got)) if got else (None, None, None)
    met = None
    if entry["goal_pct"] > 0:
        met = sum(1 for v in got if v >= entry["goal_pct"])
    return lo, mid, hi, met


def why_missed(entry, k):
    """Why run @p k did not meet the row's goal: its %, FAILED, no row (the program died, or left it out),
    or its % measured against another ceiling than the other runs'."""
    if k not in entry["per_run"]:
        return f"run {k}: no row"
    pct, status, label, _ = entry["per_run"][k]
    if status != "PASS":
        return f"run {k}: FAILED"
    if pct is None:
        return f"run {k}: no %"
    if label != usual_label(entry):
        return f"run {k}: {label or 'no ceiling'}, not {usual_label(entry)}"
    return f"run {k}: {fmt(pct, 1)} %"


def verdict(entry, n):
    """The design-goal cell: 'met in k of N runs', each run that missed it named."""
    if entry["goal_pct"] > 0:
        _, _, _, met = stats(entry, n)
        missed = [why_missed(entry, k) for k in range(1, n + 1)
                  if not counts(entry, k) or entry["per_run"][k][0] < entry["goal_pct"]]
        text = f"≥ {fmt(entry['goal_pct'], 0)} %: " + (f"met in {met} of {n} runs" if met == n
                                                        else f"**met in {met} of {n} runs**")
        return text + (f" (not in {'; '.join(missed)})" if missed else "")
    if entry["goal_from"]:
        pct, size = entry["goal_from"]
        return f"≥ {fmt(pct, 0)} % at {size} and up: not judged at this size"
    return ""


def measured_as(entry):
    return usual_label(entry)


def repeat_section(summary, n, device_class):
    """The report's section on the N rounds (Markdown)."""
    md = [f"## Over {n} runs (`--repeat {n}`)\n"]
    if not summary:
        md.append("_No row has a goal or is a kernel under test in these runs._\n")
        return "\n".join(md)
    per_run = n <= 10   # one column per run while the table stays readable; repeats.csv has them all
    head = (["lesson", "experiment", "kernel", "size", "measured as"] + ([f"run {k}" for k in range(1, n + 1)]
                                                                         if per_run else [])
            + ["min", "median", "max", "design goal" + (" (H100/H200)" if device_class == "gpu" else " (GPU only)")])
    body = []
    for e in summary:
        lo, mid, hi, _ = stats(e, n)
        cells = [f"L{e['lesson']}", e["experiment"], e["variant"], e["size"], measured_as(e)]
        if per_run:
            for k in range(1, n + 1):
                v = e["per_run"].get(k)
                cells.append("no row" if v is None else "FAILED" if v[1] != "PASS" else
                             fmt(v[0], 1, " %") + ("" if counts(e, k) or v[0] is None else f" ({v[2]})"))
        cells += [fmt(lo, 1, " %"), fmt(mid, 1, " %"), fmt(hi, 1, " %"), verdict(e, n)]
        body.append(cells)
    md.append(md_table(head, body, ["---"] * 5 + ["---:"] * ((n if per_run else 0) + 3) + ["---"]))
    md.append("")
    md.append(f"Each run is one round: the vendor programs, then the lesson programs, one after the other, so load "
              f"on the machine moves both sides of a share; each run's % divides by the vendor measured in the same "
              f"round (per call, host clock both, where its program timed the call at the row's size; else the "
              f"row's ceiling, course_ceilings' measured once at the start and once at the end). A goal is met in a "
              f"run when that run's % reaches it; a run without the row, or with the row FAILED, does not meet it. "
              f"The tables above and report.csv are run 1's; repeats.csv has every run.\n")
    return "\n".join(md)


def write_repeat_csv(summary, n, path):
    """repeats.csv: one line per run per row (its %, status, whether it met the goal), then one summary line
    per row (run `summary`: min, median, max, met_runs of runs)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(REPEAT_COLUMNS)
        for e in summary:
            base = [e["lesson"], e["experiment"], e["variant"], e["size"]]
            goal = f"{e['goal_pct']:g}" if e["goal_pct"] > 0 else ""
            for k in range(1, n + 1):
                v = e["per_run"].get(k)
                pct, status, label, used = (None, "missing", "", "") if v is None else v
                met = "" if not goal else int(counts(e, k) and pct >= e["goal_pct"])
                w.writerow(base + [k, "" if pct is None else f"{pct:.6g}", label, used, status, goal, met,
                                   "", "", "", "", ""])
            lo, mid, hi, met = stats(e, n)
            w.writerow(base + ["summary", "", measured_as(e), "", "", goal, ""]
                       + ["" if x is None else f"{x:.6g}" for x in (lo, mid, hi)]
                       + ["" if met is None else met, n])
