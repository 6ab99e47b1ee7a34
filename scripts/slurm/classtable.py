#!/usr/bin/env python3
"""The class table: one row per student, one column per lesson.

Reads what grade.sh left for each student of a graded class (the folder
submit.sh made: roster.tsv, class.conf, students/NNN-name/) and writes

  class.md    Markdown (prints it too)
  class.csv   one line per student; status, tests passed, the next step, and
              every speedup measured and required in columns of their own
  edits       a column in each: how many files or given lines the student
              edited that are not theirs to edit (grade.sh's OUT/edits.txt;
              the lines themselves in class.csv and in class.html's tooltip)
  class.html  one static, self-contained page: a colour per cell

A cell is PASS (every test graded there passed; a test skipped by design on
that device, e.g. a speed test graded on a GPU only, is counted apart), SLOW (correct, but a speedup below what
is required), FAIL (a wrong result, a crash, a timeout), ERROR (could not be
graded: the one-line reason) or MISSING (the task never finished). Speedups
come from the tests' own verdict lines, e.g.
  lesson 3 simd: 5.2x faster than baseline (needs >= 3.0x on host, 2 threads)
Each lesson's result and next step are read by scripts/progress/grades.py,
the code of the student's own view (scripts/progress.sh).

  classtable.py CLASS_DIR [--title TEXT]
  classtable.py --student RESULT_DIR [--out DIR]   one checkout (a student's own job)

Exit status: 0 table written; 2 bad arguments or not a class folder.
"""
import argparse
import csv
import datetime
import html
import pathlib
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "progress"))
# The per-lesson reading (JUnit, verdicts, steps) is the student's own view's
# (scripts/progress.sh): one code, so the table and the student cannot disagree.
from grades import lesson_progress, load_manifest, one_line, parse_lesson, step_states, times  # noqa: E402

MANIFEST = load_manifest()


def die(msg):
    print(f"classtable.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def read_kv(path):
    kv = {}
    if path.is_file():
        for line in path.read_text(errors="replace").splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                kv[k.strip()] = v.strip()
    return kv


def read_edits(result_dir):
    """grade.sh's notes on files the student edited that are not theirs to edit
    (OUT/edits.txt, one line each; absent or empty: none)."""
    try:
        return [ln.strip() for ln in (result_dir / "edits.txt").read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return []


def next_step(n, cell, checkout):
    """The step the student's view calls next (scripts/progress.sh), from the
    same result and the checkout's files; '' where there is none to tell."""
    lesson = MANIFEST.get(str(n))
    if not lesson or cell.get("status") not in ("FAIL", "SLOW") or not checkout:
        return ""
    states, problems = step_states(pathlib.Path(checkout), lesson)
    return lesson_progress(n, lesson, states, cell, problems).get("next", "")


def student_row(result_dir, lessons, name=None, checkout=None):
    meta = read_kv(result_dir / "meta.txt")
    row = {"name": name or meta.get("name", result_dir.name), "checkout": checkout or meta.get("checkout", ""),
           "host": meta.get("host", ""), "commit": meta.get("commit", ""), "error": "", "cells": {}, "device": "",
           "edits": read_edits(result_dir)}
    if not result_dir.is_dir() or not (result_dir / "done").exists():
        why = "no result: the task did not run, or was killed before it finished (time limit?)"
        m = re.search(r"array (\S+)\)", meta.get("job", ""))
        row["error"] = why + (f"; its log: logs/grade-{m.group(1)}.out" if m else "")
        for n in lessons:
            row["cells"][n] = {"status": "MISSING", "note": "no result"}
        return row
    err = result_dir / "error"
    if err.exists():
        row["error"] = one_line(err.read_text(errors="replace"))
    for n in lessons:
        e, x = result_dir / f"lesson{n}.error", result_dir / f"lesson{n}.xml"
        if e.exists():
            cell = {"status": "ERROR", "note": one_line(e.read_text(errors="replace"))}
        elif x.exists():
            cell = parse_lesson(x)
            cell["next"] = next_step(n, cell, meta.get("checkout", ""))
        elif row["error"]:
            cell = {"status": "ERROR", "note": "not graded: see the row's error"}
        else:
            cell = {"status": "MISSING", "note": "no JUnit XML"}
        row["cells"][n] = cell
        if cell.get("banner") and not row["device"]:
            row["device"] = cell["banner"]
    if not row["device"]:
        row["device"] = meta.get("device", "")
    return row


def lesson_topics(repo, lessons):
    topics = {}
    for n in lessons:
        hits = sorted(repo.glob(f"lessons/{n:02d}-*"))
        topics[n] = hits[0].name[3:] if hits else ""
    return topics


def cell_text(cell):
    """The cell as one line of plain text (Markdown and CSV)."""
    s = cell["status"]
    parts = [s]
    if "total" in cell:
        parts[0] += f" {cell['passed']}/{cell['total']}"
    if cell.get("skipped"):
        parts.append(f"{len(cell['skipped'])} skipped here by design")
    for sp in cell.get("speedups", []):
        parts.append(f"{sp['label']} {times(sp['measured'])}x (needs {sp['required']:g}x)")
    if cell.get("next"):
        parts.append(f"next: step {cell['next']}")
    if cell.get("note") and s not in ("PASS", "SLOW"):
        parts.append(one_line(cell["note"], 140))
    return " · ".join(parts)


def write_markdown(path, title, info, lessons, topics, rows):
    md = [f"# {title}", "", info, "",
          "PASS: every test passed · SLOW: correct, but a speedup below the requirement · "
          "FAIL: a wrong result, crash or timeout · ERROR: could not be graded · MISSING: no result · "
          "edits: files edited that are not the student's to edit (not graded; class.csv and class.html name them)", ""]
    head = ["student", "passed", "edits"] + [f"lesson {n} {topics[n]}".strip() for n in lessons]
    md.append("| " + " | ".join(head) + " |")
    md.append("|" + "---|" * len(head))
    for r in rows:
        name = f"**{r['name']}**" + (f"<br>{r['error']}" if r["error"] else "")
        done = sum(r["cells"][n]["status"] == "PASS" for n in lessons)
        cells = [cell_text(r["cells"][n]).replace("|", "\\|") for n in lessons]
        md.append("| " + " | ".join([name.replace("|", "\\|"), f"{done}/{len(lessons)}", str(len(r["edits"]))] + cells)
                  + " |")
    totals = [f"{sum(r['cells'][n]['status'] == 'PASS' for r in rows)}/{len(rows)} pass" for n in lessons]
    md.append("| *class* | | | " + " | ".join(totals) + " |")
    md.append("")
    for r in rows:
        md.append(f"- {r['name']}: `{r['checkout']}`" + (f" on {r['host']}" if r["host"] else "")
                  + (f", {r['device']}" if r["device"] else "") + (f", commit {r['commit']}" if r["commit"] else ""))
    text = "\n".join(md) + "\n"
    path.write_text(text)
    return text


def speedup_columns(lessons, rows):
    cols = []
    for n in lessons:
        for r in rows:
            for sp in r["cells"][n].get("speedups", []):
                key = (n, sp["label"])
                if key not in cols:
                    cols.append(key)
    return cols


def write_csv(path, lessons, rows):
    sp_cols = speedup_columns(lessons, rows)
    head = ["student", "checkout", "host", "device", "commit", "error", "lessons_passed", "edits", "edit_notes"]
    for n in lessons:
        head += [f"lesson{n}_status", f"lesson{n}_tests_passed", f"lesson{n}_tests", f"lesson{n}_first_failed",
                 f"lesson{n}_note", f"lesson{n}_next_step"]
    for n, label in sp_cols:
        slug = re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")
        head += [f"lesson{n}_{slug}_speedup", f"lesson{n}_{slug}_required"]
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        for r in rows:
            line = [r["name"], r["checkout"], r["host"], r["device"], r["commit"], r["error"],
                    sum(r["cells"][n]["status"] == "PASS" for n in lessons), len(r["edits"]), "; ".join(r["edits"])]
            for n in lessons:
                c = r["cells"][n]
                line += [c["status"], c.get("passed", ""), c.get("total", ""), c.get("test", ""), c.get("note", ""),
                         c.get("next", "")]
            for n, label in sp_cols:
                sp = next((s for s in r["cells"][n].get("speedups", []) if s["label"] == label), None)
                line += [times(sp["measured"]), f"{sp['required']:g}"] if sp else ["", ""]
            w.writerow(line)


CSS = """
body { font: 14px/1.3 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 20px; color: #1b1b1b; }
h1 { font-size: 21px; margin: 0 0 2px; }
p.info { margin: 0 0 8px; color: #444; }
table { border-collapse: collapse; }
th, td { border: 1px solid #bbb; padding: 4px 8px; vertical-align: top; text-align: left; }
thead th { background: #263238; color: #fff; font-weight: 600; position: sticky; top: 0; }
thead th small { display: block; font-weight: 400; color: #cfd8dc; }
th.student { background: #fafafa; }
th.student small { display: block; color: #555; font-weight: 400; font-size: 12px; max-width: 260px;
                   white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
th.student small.rowerr { color: #b71c1c; font-weight: 600; white-space: normal; }
td.count { text-align: center; font-weight: 700; font-size: 16px; }
td.edits.some { background: #fff3cd; color: #8a4b00; cursor: help; }
td.cell { min-width: 180px; max-width: 300px; }
.st { font-weight: 700; font-size: 15px; }
.n { color: #444; font-size: 12px; margin-left: 4px; }
.PASS { background: #c8e6c9; } .PASS .st { color: #1b5e20; }
.SLOW { background: #ffe0b2; } .SLOW .st { color: #8a4b00; }
.FAIL { background: #ffcdd2; } .FAIL .st { color: #b71c1c; }
.ERROR { background: #e0e0e0; } .ERROR .st { color: #333; }
.MISSING { background: #f5f5f5; } .MISSING .st { color: #666; }
.sp { display: block; font-size: 12.5px; font-variant-numeric: tabular-nums; }
.sp.low { color: #b71c1c; font-weight: 700; }
.note { display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden;
        font-size: 12px; color: #444; }
tfoot td { background: #fafafa; font-weight: 600; }
.legend span { display: inline-block; padding: 1px 8px; margin-right: 6px; border: 1px solid #bbb; font-size: 13px; }
"""


def write_html(path, title, info, lessons, topics, rows):
    e = html.escape
    mark = {"PASS": "✔ PASS", "SLOW": "◔ SLOW", "FAIL": "✘ FAIL", "ERROR": "⚠ ERROR", "MISSING": "… MISSING"}
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{e(title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{e(title)}</h1>", f'<p class="info">{e(info)}</p>',
           '<p class="legend">' + "".join(f'<span class="{k}">{e(v)}</span>' for k, v in (
               ("PASS", "✔ PASS every test"), ("SLOW", "◔ SLOW correct, too slow"),
               ("FAIL", "✘ FAIL wrong, crash or timeout"), ("ERROR", "⚠ ERROR not graded"),
               ("MISSING", "… MISSING no result"))) + "</p>",
           "<table><thead><tr><th>student</th><th>passed</th>"
           '<th title="files edited that are not the student\'s to edit (not graded)">edits</th>']
    for n in lessons:
        out.append(f"<th>lesson {n}<small>{e(topics[n])}</small></th>")
    out.append("</tr></thead><tbody>")
    for r in rows:
        done = sum(r["cells"][n]["status"] == "PASS" for n in lessons)
        sub = r["checkout"] + (f" · {r['host']}" if r["host"] else "")
        err = f'<small class="rowerr">{e(r["error"])}</small>' if r["error"] else ""
        out.append(f'<tr><th class="student" title="{e(sub + " · " + r["device"])}">{e(r["name"])}<small>{e(sub)}</small>{err}</th>'
                   f'<td class="count">{done}/{len(lessons)}</td>')
        edits = r["edits"]
        out.append(f'<td class="count edits{" some" if edits else ""}" title="{e(chr(10).join(edits) or "none")}">'
                   f'{len(edits)}</td>')
        for n in lessons:
            c = r["cells"][n]
            body = [f'<span class="st">{e(mark[c["status"]])}</span>']
            if "total" in c:
                body.append(f'<span class="n">{c["passed"]}/{c["total"]} tests</span>')
            if c.get("skipped"):
                body.append(f'<span class="n" title="{e(chr(10).join(f"{a}: {b}" for a, b in c["skipped"]))}">'
                            f'{len(c["skipped"])} skipped here</span>')
            for sp in c.get("speedups", []):
                low = " low" if sp["measured"] < sp["required"] else ""
                body.append(f'<span class="sp{low}">{e(sp["label"])}: {times(sp["measured"])}× '
                            f'(needs ≥ {sp["required"]:g}×)</span>')
            if c.get("next"):
                body.append(f'<span class="sp">next: step {e(c["next"])}</span>')
            if c.get("note") and c["status"] not in ("PASS", "SLOW"):
                body.append(f'<span class="note">{e(c["note"])}</span>')
            tip = cell_text(c) + (f" — {c['test']}: {c['note']}" if c.get("test") else "")
            out.append(f'<td class="cell {c["status"]}" title="{e(tip)}">{"".join(body)}</td>')
        out.append("</tr>")
    out.append('</tbody><tfoot><tr><td>class</td><td></td><td></td>')
    for n in lessons:
        k = sum(r["cells"][n]["status"] == "PASS" for r in rows)
        out.append(f"<td>{k}/{len(rows)} pass</td>")
    out.append("</tr></tfoot></table></body></html>")
    path.write_text("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("class_dir", nargs="?", help="a class folder made by submit.sh class")
    ap.add_argument("--student", help="one grade.sh result folder instead of a class")
    ap.add_argument("--out", help="where to write the tables (default: the class or result folder)")
    ap.add_argument("--title", help="the page title")
    a = ap.parse_args()
    repo = pathlib.Path(__file__).resolve().parent.parent.parent
    if a.student:
        res = pathlib.Path(a.student)
        meta = read_kv(res / "meta.txt")
        if not meta:
            die(f"{res} holds no meta.txt: not a grade.sh result folder")
        lessons = [int(x) for x in meta.get("lessons", "").split(",") if x.strip()]
        rows = [student_row(res, lessons)]
        title = a.title or f"Lessons of {rows[0]['name']}"
        info = f"graded {meta.get('started', '')} on {meta.get('host', '')}"
        outdir = pathlib.Path(a.out or res)
    else:
        if not a.class_dir:
            die("give a class folder (made by submit.sh class) or --student DIR")
        cls = pathlib.Path(a.class_dir)
        conf = read_kv(cls / "class.conf")
        roster = cls / "roster.tsv"
        if not conf or not roster.is_file():
            die(f"{cls} has no class.conf and roster.tsv: not a class folder made by submit.sh class")
        lessons = [int(x) for x in conf.get("lessons", "").split(",") if x.strip()]
        rows = []
        for line in roster.read_text().splitlines():
            if not line.strip():
                continue
            idx, name, checkout = line.split("\t", 2)
            rows.append(student_row(cls / "students" / f"{idx}-{name}", lessons, name, checkout))
        title = a.title or conf.get("title") or "Class table"
        info = (f"{len(rows)} students, lessons {', '.join(map(str, lessons))}; submitted {conf.get('submitted', '?')}"
                f" (Slurm job {conf.get('array_job', '?')}); table made "
                f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}")
        outdir = pathlib.Path(a.out or cls)
    topics = lesson_topics(repo, lessons)
    outdir.mkdir(parents=True, exist_ok=True)
    text = write_markdown(outdir / "class.md", title, info, lessons, topics, rows)
    write_csv(outdir / "class.csv", lessons, rows)
    write_html(outdir / "class.html", title, info, lessons, topics, rows)
    print(text, end="")
    print(f"classtable.py: wrote {outdir}/class.md, class.csv, class.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
