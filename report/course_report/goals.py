"""The design's goals: one table, outside report/ (the report knows no lesson),
that says which rows have a goal and how high it is, as % of the row's
ceiling. The lesson programs write no goals; the report gives each row the
goal of the first line of the table that selects it.

A line of the table (CSV, GOAL_COLUMNS) selects a row by:
  lesson       the row's lesson number
  experiment   a pattern (fnmatch: `sum *`) for the row's experiment; empty: any
  variant      a pattern for the row's variant (`*(team-local)`); empty: any
  role         the row's role (`kernel`, ...); empty: any
  device       `gpu` or `host`, the build's device class; empty: any
  min_size     the smallest size the goal is judged at, as the row's size text
               (`n=268435456`, `65536 bodies`: compared by the product of the
               numbers in it); empty: every size
  in_cache     `yes` or `no`: whether the row's data sit in cache; empty: either
and gives goal_pct (> 0) and why (where the number comes from)."""
from __future__ import annotations

import fnmatch
import os

from .analyse import size_key
from .schema import SOURCE_DIR
from .tables import table_lines

GOAL_COLUMNS = ["lesson", "experiment", "variant", "role", "device", "min_size", "in_cache", "goal_pct", "why"]
# Where the course keeps its goals (report.py --goals names another table).
DEFAULT_GOALS = os.path.join(SOURCE_DIR, "lessons", "goals.csv")


def read_goals(path):
    """The lines of the goals table at @p path, checked; ValueError naming the file and line where one is wrong."""
    goals = []
    for where, g in table_lines(path, GOAL_COLUMNS):
        try:
            g["lesson"] = int(g["lesson"])
            g["goal_pct"] = float(g["goal_pct"])
        except (TypeError, ValueError):
            raise ValueError(f"{where}: lesson and goal_pct must be numbers") from None
        if g["goal_pct"] <= 0:
            raise ValueError(f"{where}: goal_pct must be above 0, not {g['goal_pct']:g}")
        if g["device"] not in ("", "gpu", "host"):
            raise ValueError(f"{where}: device must be gpu, host or empty, not '{g['device']}'")
        if g["in_cache"] not in ("", "yes", "no"):
            raise ValueError(f"{where}: in_cache must be yes, no or empty, not '{g['in_cache']}'")
        if g["min_size"] and size_key(g["min_size"]) <= 0:
            raise ValueError(f"{where}: min_size '{g['min_size']}' has no number in it")
        if not g["why"].strip():
            raise ValueError(f"{where}: why is empty: say where the goal comes from")
        goals.append(g)
    return goals


def selects(g, r, device_class):
    """Whether goal line @p g selects row @p r, its min_size aside."""
    return (g["lesson"] == r["lesson"]
            and (not g["experiment"] or fnmatch.fnmatchcase(r["experiment"], g["experiment"]))
            and (not g["variant"] or fnmatch.fnmatchcase(r["variant"], g["variant"]))
            and (not g["role"] or g["role"] == r["role"])
            and (not g["device"] or g["device"] == device_class)
            and (not g["in_cache"] or (g["in_cache"] == "yes") == bool(r["in_cache"])))


def apply_goals(rows, goals, device_class):
    """Sets each lesson row's goal_pct from the table (0: none; what a program wrote there is not read),
    and its goal_from: (goal_pct, min_size) of a line that selects the row but judges only from a
    larger size (the report says so instead of judging the row), else None."""
    for r in rows:
        r["goal_pct"], r["goal_from"] = 0.0, None
        if r["lesson"] == 0:
            continue
        for g in goals:
            if not selects(g, r, device_class):
                continue
            if g["min_size"] and size_key(r["size"]) < size_key(g["min_size"]):
                r["goal_from"] = r["goal_from"] or (g["goal_pct"], g["min_size"])
                continue
            r["goal_pct"], r["goal_from"] = g["goal_pct"], None
            break
