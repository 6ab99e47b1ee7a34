#!/usr/bin/env python3
"""Prints the summary table of one toolchain's measure.sh run (sgemm_repro, lesson06's rows,
launch shapes, ncu kernel tables) from the files measure.sh left in DIR. measure.sh calls it:
    python3 tools/llvm21-sass/gpu/summarize.py 19|21 DIR        (DIR: $OUT/l21cmp-llvmNN)"""
import csv, io, os, re, statistics, sys
from collections import Counter, OrderedDict

if len(sys.argv) != 3:
    sys.exit("usage: summarize.py 19|21 DIR")
v, d = sys.argv[1], sys.argv[2]
UNIT_MS = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0, "s": 1e3, "second": 1e3}


def read(name):
    p = os.path.join(d, name)
    return open(p, errors="replace").read() if os.path.exists(p) else None


def short(k):
    """A readable name for an OpenMP kernel (__omp_offloading_<dev>_<file>_<mangled>_l<line>)."""
    m = re.search(r"(reduction_clause|global_atomic|sum_impl)I([idf])E", k)
    if m:
        return "%s<%s>" % (m.group(1), {"i": "int", "f": "float", "d": "double"}[m.group(2)])
    m = re.search(r"__omp_offloading_[0-9a-f]+_[0-9a-f]+_(.*?)(_l\d+)?$", k)
    s = m.group(1) if m else k
    ids, i = [], 0  # the mangled name's length-prefixed identifiers, roughly
    while i < len(s):
        m = re.match(r"\d+", s[i:])
        if m:
            j = i + len(m.group(0)); n = int(m.group(0))
            if n and re.match(r"[A-Za-z_]", s[j:j + 1]):
                ids.append(s[j:j + n]); i = j + n; continue
            i = j
        else:
            i += 1
    return (ids[-1] if ids else s)[:40]


def exit_of(txt):
    m = re.findall(r"^exit (\d+)$", txt or "", re.M)
    return m[-1] if m else "?"


def ncu_kernels(name):
    """[(kernel, ms, grid, block, regs)] from an ncu --csv --page raw log; (None, why) where none."""
    txt = read(name + ".csv")
    log = read(name + ".log") or ""
    if "skipped: no ncu" in log:
        return None, "no ncu on this node"
    if not txt:
        return None, "no ncu CSV (ncu %s; see %s.log)" % ("exit " + exit_of(log), name)
    lines = txt.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return None, "no CSV header in %s.csv (ncu exit %s)" % (name, exit_of(log))
    head, *body = csv.reader(io.StringIO("\n".join(lines[start:])))
    col = {h: i for i, h in enumerate(head)}
    need = ["Kernel Name", "gpu__time_duration.sum", "launch__grid_size", "launch__block_size",
            "launch__registers_per_thread"]
    miss = [n for n in need if n not in col]
    if miss:
        return None, "ncu CSV lacks %s" % ", ".join(miss)
    unit = next((r[col["gpu__time_duration.sum"]].strip() for r in body if len(r) == len(head) and not r[col["ID"]].strip()), "ns")
    scale = UNIT_MS.get(unit or "ns", 1e-6)
    out = []
    for r in body:
        if len(r) == len(head) and r[col["ID"]].strip().isdigit():
            num = lambda c: r[col[c]].replace(",", "").strip()
            out.append((r[col["Kernel Name"]], float(num("gpu__time_duration.sum")) * scale, num("launch__grid_size"),
                        num("launch__block_size"), num("launch__registers_per_thread")))
    return (out, "") if out else (None, "no kernel lines in %s.csv" % name)


def ncu_table(name, title):
    ks, why = ncu_kernels(name)
    print("\n%s (ncu, gpu__time_duration.sum, clocks as the GPU sets them)" % title)
    if ks is None:
        print("  not measured: " + why)
        return
    g = OrderedDict()
    for k, ms, grid, block, regs in ks:
        g.setdefault(k, []).append((ms, grid, block, regs))
    print("  %-26s %8s %11s %11s %8s %8s %6s" % ("kernel", "launches", "median ms", "min ms", "grid", "block", "regs"))
    for k, rs in g.items():
        t = [r[0] for r in rs]
        shape = Counter((r[1], r[2], r[3]) for r in rs).most_common(1)[0][0]
        print("  %-26s %8d %11.4f %11.4f %8s %8s %6s" % (short(k), len(rs), statistics.median(t), min(t), *shape))


gpu = (read("gpu.txt") or "?").strip().splitlines()
print("l21cmp LLVM %s | GPU: %s | bundle: %s" % (v, gpu[0] if gpu else "?",
      ((read("BUILD.txt") or "?").strip().splitlines() or ["?"])[0]))
ncu = (read("ncu.txt") or "").strip().splitlines()
print("ncu: %s" % (" ".join(ncu) if ncu else "?"))

print("\n1. sgemm_repro 4096^2 (its own timing: median of 20 calls)")
for s in ("llvm%s" % v, "llvm%s-fix" % v):
    t = read("sgemm-%s.txt" % s) or ""
    m = re.search(r"median of (\d+) calls ([\d.]+) ms \(([\d.]+) TFLOP/s\), worst relative error (\S+) ?(\S*)", t)
    if m:
        print("  %-11s %9s ms  %6s TFLOP/s  err %s %s" % (s, m.group(2), m.group(3), m.group(4), m.group(5)))
    else:
        print("  %-11s FAILED (exit %s): %s" % (s, exit_of(t), " | ".join(t.strip().splitlines()[-3:])[:200]))
for s in ("llvm%s" % v, "llvm%s-fix" % v):
    ncu_table("ncu-sgemm-" + s, "   sgemm kernel, %s" % s)

print("\n2. lesson06 (default size; its own table: median of --reps per row)")
t = read("lesson06.txt") or ""
rows = re.findall(r"^  (\S.{15}) (.+?) +([\d.]+) ms +([\d.]+) GB/s +(\S+) +(\S*)", t, re.M)
for e, var, ms, gbs, pct, word in rows:
    if not e.startswith("copy"):
        print("  %-16s %-34s %10s ms %9s GB/s %7s of copy %s" % (e.strip(), var.strip(), ms, gbs, pct, word))
for ln in t.splitlines():
    if re.match(r"\s*(n = |ceiling|cost of one call)", ln):
        print("  " + ln.strip())
if not rows:
    print("  no rows (exit %s): %s" % (exit_of(t), " | ".join(t.strip().splitlines()[-3:])[:300]))
elif exit_of(t) != "0":
    print("  (lesson06 exit %s: a check failed or it timed out; see lesson06.txt)" % exit_of(t))

print("\n   launch shapes, LIBOMPTARGET_INFO=16 (the plugin's 'Launching kernel ... blocks and ... threads')")
t = read("lesson06-info.txt") or ""
shapes = Counter()
for m in re.finditer(r"Launching kernel (\S+) with (\S+) blocks and (\S+) threads in (\S+) mode", t):
    shapes[(short(m.group(1)), m.group(2), m.group(3), m.group(4))] += 1
if shapes:
    print("  %-26s %14s %10s %-12s %8s" % ("kernel", "blocks", "threads", "mode", "launches"))
    for (k, bl, th, mode), c in sorted(shapes.items()):
        print("  %-26s %14s %10s %-12s %8d" % (k, bl, th, mode, c))
else:
    print("  no 'Launching kernel' lines (exit %s; see lesson06-info.txt)" % exit_of(t))
ncu_table("ncu-lesson06", "   lesson06 reduction-clause and team-local sum kernels (--reps 3)")
