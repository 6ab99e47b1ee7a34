"""The analysis: the ceilings measured in the run, each row placed against
the ceiling it declares (its % of it), its speedup over its experiment's
baseline, and the kernel under test of each experiment."""
from __future__ import annotations

import math
import re

from .schema import CEILING_FALLBACK, PEER_CEILINGS


def size_key(size):
    nums = [int(x) for x in re.findall(r"\d+", size or "")]
    return math.prod(nums) if nums else 0


def ceilings_from(rows):
    """{name: [rows]}: each ceiling, one row per size, the better run where measured twice."""
    best = {}
    for r in rows:
        if r["lesson"] == 0 and r["role"] == "ceiling" and r["status"] == "PASS" and r["rate"] > 0:
            key = (r["variant"], r["size"])
            if key not in best or r["rate"] > best[key]["rate"]:
                best[key] = r
    out = {}
    for (name, _), r in best.items():
        out.setdefault(name, []).append(r)
    for v in out.values():
        v.sort(key=lambda r: size_key(r["size"]))
    return out


def lookup_ceiling(name, ceilings, device_class):
    """The rows of a ceiling, by name; on the host device the host's ceilings are the device's."""
    if name in ceilings:
        return name, ceilings[name]
    if device_class != "gpu":
        alt = name[5:] if name.startswith("host-") else "host-" + name
        if alt in ceilings:
            return alt, ceilings[alt]
    return name, None


def ceiling_at(cands, size):
    """The ceiling measured at the row's own size, else the nearest size (a matmul's SGEMM), else the only one."""
    same = [c for c in cands if c["size"] == size]
    if same:
        return same[0]
    k = size_key(size)
    sized = [c for c in cands if size_key(c["size"]) > 0]
    if k > 0 and sized:
        return min(sized, key=lambda c: abs(math.log(size_key(c["size"])) - math.log(k)))
    return max(cands, key=lambda c: c["rate"])


def rate_in(row, unit):
    """The row's rate in a ceiling's unit, from what it declares (bytes or flops per run) or its own unit."""
    if row["unit"] == unit and row["rate"] > 0:
        return row["rate"]
    if row["time_ms"] > 0:
        if unit == "GB/s" and row["bytes"] > 0:
            return row["bytes"] / row["time_ms"] / 1e6
        if unit == "GFLOP/s" and row["flops"] > 0:
            return row["flops"] / row["time_ms"] / 1e6
    return None


def place_against_ceiling(r, ceilings, device_class):
    r.update(ceiling_used="", ceiling_value=None, ceiling_size="", pct_of_ceiling=None, pct_of_peak=None,
             over_ceiling=False)
    name = r["ceiling"]
    if not name or r["lesson"] == 0 or r["role"] == "ceiling":
        return
    used, cands = lookup_ceiling(name, ceilings, device_class)
    if not cands and name in CEILING_FALLBACK:
        used, cands = lookup_ceiling(CEILING_FALLBACK[name], ceilings, device_class)
    r["ceiling_used"] = used
    if not cands:
        return
    c = ceiling_at(cands, r["size"])
    r["ceiling_value"] = c["rate"]
    # Said where sizes compare (a matmul's SGEMM at another n), not for a copy of another length.
    alike = re.sub(r"\d+", "#", c["size"]) == re.sub(r"\d+", "#", r["size"])
    r["ceiling_size"] = c["size"] if c["size"] != r["size"] and alike else ""
    rate = rate_in(r, c["unit"])
    if rate is None or r["status"] != "PASS":
        return
    r["pct_of_ceiling"] = 100.0 * rate / c["rate"]
    # A memory ceiling can be beaten only from cache; anything else over 100 % is a measuring problem.
    r["over_ceiling"] = r["pct_of_ceiling"] > 100.0 and not r["in_cache"] and used not in PEER_CEILINGS
    if c["unit"] == "GB/s" and used != "host-copy" and "memory-peak" in ceilings:
        r["pct_of_peak"] = 100.0 * rate / ceilings["memory-peak"][0]["rate"]


def speedup_of(r, bases):
    """How many times faster than the baseline: the experiment's own at the same size; else (a
    baseline run on fewer elements, as lesson 6's global atomics) the ratio of rates in one unit;
    else the program's baseline at the same size and unit (a sweep without one of its own)."""
    same_exp = [b for b in bases if b["experiment"] == r["experiment"]]
    for b in same_exp:
        if b["size"] == r["size"] and b["time_ms"] > 0:
            return b["time_ms"] / r["time_ms"], b
    for b in same_exp:
        if b["unit"] == r["unit"] and b["rate"] > 0 and r["rate"] > 0:
            return r["rate"] / b["rate"], b
    for b in bases:
        if b["size"] == r["size"] and b["unit"] == r["unit"] and b["time_ms"] > 0:
            return b["time_ms"] / r["time_ms"], b
    return None, None


def annotate(rows, ceilings, device_class):
    for r in rows:
        place_against_ceiling(r, ceilings, device_class)
        r["gbs"] = rate_in(r, "GB/s")
        r["gflops"] = rate_in(r, "GFLOP/s")
        r["speedup_vs_baseline"], r["baseline"], r["is_main"] = None, "", False
    by_lesson = {}
    for r in rows:
        if r["lesson"] > 0:
            by_lesson.setdefault(r["lesson"], []).append(r)
    for lrows in by_lesson.values():
        # The baselines come from the lesson program proper (a starter runs only its own kernels).
        bases = [b for b in lrows if b["role"] == "baseline" and b["run"] != "starter" and b["status"] == "PASS"]
        for r in lrows:
            if r["role"] in ("kernel", "variant") and r["time_ms"] > 0:
                sp, b = speedup_of(r, bases)
                r["speedup_vs_baseline"] = sp
                r["baseline"] = b["variant"] if b else ""
        # The kernel under test, one row per (experiment, size, run): the best where several qualify.
        best = {}
        for r in lrows:
            if r["role"] == "kernel" and r["status"] == "PASS":
                key = (r["experiment"], r["size"], r["run"])
                score = r["pct_of_ceiling"] if r["pct_of_ceiling"] is not None else (
                    r["rate"] if r["rate"] > 0 else -r["time_ms"])
                if key not in best or score > best[key][0]:
                    best[key] = (score, r)
        for _, r in best.values():
            r["is_main"] = True
