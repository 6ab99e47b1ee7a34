#!/usr/bin/env python3
"""Where am I: every lesson's steps done and left, in one command.

Grades your tree the way `ctest -L lessonN` does (one `ctest -L '^lessonN$'`
per lesson you have started, its JUnit XML kept under BUILD/progress/), then
prints, per lesson, each step (done, edited, next, not started, optional),
the first failing test's message beside the next step, each speed test's
measured speedup against what it needs, and for lesson 11 each kernel's
percentage of the vendor's code (GPU builds; measured by the course report).
The first line sums it up: "lessons 1-3 done, lesson 4: step 4.2 next, ...".
It also writes the same as one self-contained page, BUILD/progress.html, and
as BUILD/progress/progress.json.

How a step is judged (scripts/progress/grades.py says it in full): a lesson
whose tests all pass (a test this device skips by design, as ctest lists it,
is shown apart and is no failure) has every step done; otherwise a step whose TODO blocks
are still the starter's, byte for byte, is not started, and one you changed
is "edited" until the lesson's tests pass. A lesson you have not started is
not run (its untouched starter fails by design).

  scripts/progress.sh [--build DIR] [--lessons 1,3] [--no-run] [--html FILE] [--color auto|always|never]
      --no-run       read the last results instead of running the tests
  scripts/progress.sh --bundle DIR   a GPU node's view of a bundle (scripts/report-gpu.sh pack):
      no CMake there, so nothing runs; reads what `report-gpu.sh test` and
      `report-gpu.sh run` left in the bundle (junit/lessonNN_test.xml, report/report.csv)
  (course authors: the starters' record is part of tests/given.json: scripts/given.py write)

Exit status: 0 the overview was printed (whatever it says); 2 bad arguments or no build.
"""
import argparse
import datetime
import html
import json
import os
import pathlib
import re
import signal
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import grades  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parent.parent.parent


def die(msg):
    print(f"progress: error: {msg}", file=sys.stderr)
    sys.exit(2)


def read_cache(build):
    out = {}
    try:
        for line in (build / "CMakeCache.txt").read_text(errors="replace").splitlines():
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):[A-Z]+=(.*)$", line)
            if m:
                out[m.group(1)] = m.group(2)
    except OSError:
        pass
    return out


def bundle_results(bundle, n):
    """Catch2's JUnit of lesson n's test program on a GPU node (report-gpu.sh
    test keeps it in BUNDLE/junit), or the note that says why there is none."""
    xml = bundle / "junit" / f"lesson{n:02d}_test.xml"
    if not any((bundle / "lessons").glob(f"{n:02d}-*/lesson{n:02d}_test")):
        return None, "not in this bundle"
    if not xml.is_file():
        return None, f"no results yet: run scripts/report-gpu.sh test RUNTIME {bundle} first"
    return xml, ""


def device_facts(build):
    try:
        d = json.loads((build / "course-env.json").read_text())["device"]
        return d.get("class", "host"), d.get("kind", "")
    except (OSError, ValueError, KeyError):
        return "host", ""


# What report.csv's percentage divides (report/report.py): the vendor's kernel
# time on CUDA events over the course's time per call on the host clock, so it
# charges the course for its launch and wait; the report's vendor table has
# the per-call figure of both sides beside it.
VENDOR_CLOCKS = "vendor kernel on CUDA events / course per call on the host clock"


def vendor_rows(build, device_class):
    """Lesson 11's kernels as % of the vendor's code: the course report's rows
    (report.csv), which times CUB, cuBLAS and the classic CUDA N-body beside
    them on the same card. The lesson program's own rows have no such column."""
    if device_class != "gpu":
        return "GPU only"
    import csv
    for p in (build / "report" / "report.csv", REPO / "build-report" / "report" / "report.csv"):
        if p.is_file():
            try:
                rows = [r for r in csv.DictReader(p.open()) if r.get("lesson") == "11" and r.get("role") == "kernel"
                        and r.get("pct_of_ceiling")]
            except (OSError, csv.Error):
                continue
            if rows:
                return [f"{r['experiment']}: {float(r['pct_of_ceiling']):.1f} % of {r.get('ceiling_used', '')}"
                        for r in rows]
    return "not measured yet: scripts/report.sh times lesson 11 beside the vendor's code"


def run_lesson(build, n, xml, log):
    """ctest for one lesson, JUnit out; returns its exit status (None if ctest is missing)."""
    xml.unlink(missing_ok=True)
    print(f"progress: lesson {n}: ctest -L '^lesson{n}$' (log: {log})", file=sys.stderr, flush=True)
    try:
        with log.open("w") as f:
            p = subprocess.run(["ctest", "--test-dir", str(build), "-L", f"^lesson{n}$", "--output-on-failure",
                                "--no-tests=error", "--output-junit", str(xml)], stdout=f, stderr=subprocess.STDOUT)
        return p.returncode
    except OSError:
        return None


def gather(args, build, tree, subdir):
    manifest = grades.load_manifest()
    if not manifest:
        die(f"no usable {grades.MANIFEST}: the course's record of its starters is missing")
    cache = read_cache(build)
    configured = cache.get("COURSE_LESSONS", "")
    out = build / "progress"
    out.mkdir(parents=True, exist_ok=True)
    device_class, _ = device_facts(build)
    wanted = sorted(int(k) for k in manifest)
    if args.lessons:
        wanted = [n for n in wanted if n in args.lessons]
    views = []
    for n in wanted:
        lesson = dict(manifest[str(n)])
        states, problems = grades.step_states(tree, lesson, subdir)
        touched = any(s == "edited" for s in states.values())
        result, note = None, ""
        in_build = any((build / "lessons").glob(f"{n:02d}-*")) if (build / "lessons").is_dir() else False
        xml, stamp = out / f"lesson{n}.xml", out / f"lesson{n}.json"
        now = grades.file_digests(tree, lesson, subdir)
        if args.bundle:
            # A bundle holds the solutions build: every lesson counts as started.
            xml_in, note = bundle_results(build, n)
            if xml_in:
                result = grades.parse_lesson(xml_in)
                result["when"] = _now()
        elif problems or not (touched or args.all):
            pass
        elif not in_build:
            note = (f"not built here (COURSE_LESSONS={configured}): configure {build.name} again with "
                    f"-DCOURSE_LESSONS= (empty: every lesson)")
        else:
            if not args.no_run:
                rc = run_lesson(build, n, xml, out / f"lesson{n}.log")
                if rc is None:
                    note = "ctest not found: is CMake installed (scripts/install-deps.sh)?"
                elif not xml.is_file():
                    note = f"ctest wrote no results (exit {rc}): see {out / f'lesson{n}.log'}"
                else:
                    stamp.write_text(json.dumps({"files": now, "when": _now()}) + "\n")
            if not note:
                if not xml.is_file():
                    note = "no results yet: run scripts/progress.sh (without --no-run)"
                else:
                    try:
                        then = json.loads(stamp.read_text())
                    except (OSError, ValueError):
                        then = {}
                    changed = [f for f, d in now.items() if then.get("files", {}).get(f) != d]
                    if changed:
                        note = (f"results older than your {', '.join(changed)}"
                                f" (or from another build): run scripts/progress.sh without --no-run")
                    else:
                        result = grades.parse_lesson(xml)
                        result["when"] = then.get("when", "")
        v = grades.lesson_progress(n, lesson, states, result, problems)
        if note:
            v.update(status="error", note=note, next="")
            for s in v["steps"]:
                if s["state"] == "next":
                    s["state"] = "not started"
        if n == 11:
            v["vendor"] = vendor_rows(build, device_class)
        views.append(v)
    return views, device_class


def _now():
    return datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M")


def skipped_words(v):
    """", 3 skipped here by design": the tests this device does not grade (a
    speed test graded on a GPU only), which ctest lists as skipped, not failed."""
    k = len(v.get("skipped", []))
    return f", {k} skipped here by design" if k else ""


# --- text ---------------------------------------------------------------------

COLOURS = {"done": "32", "next": "1;31", "edited": "33", "not started": "2", "in progress": "1;33",
           "error": "1;31", "ok": "32", "low": "31", "head": "1"}
MARK = {"done": "✓", "next": "→", "edited": "~", "not started": "·"}


def text(views, device_class, colour):
    def c(kind, s):
        return f"\033[{COLOURS[kind]}m{s}\033[0m" if colour else s
    lines = [c("head", grades.summary(views)), ""]
    for v in views:
        head = f"lesson {v['lesson']:>2} {v['topic']:<22} "
        st = v["status"]
        if v["total"]:
            st += f" ({v['passed']}/{v['total']} tests pass{skipped_words(v)})"
        lines.append(head + c(v["status"], st))
        if v["note"]:
            lines.append(f"    {c('error', grades.one_line(v['note'], 200))}")
        for name, why in v.get("skipped", []):
            lines.append(f"    {c('not started', 'skipped here: ' + name + ': ' + grades.one_line(why, 160))}")
        # The steps' titles (their README's Steps lines) whole, in one column.
        width = max((len(s["label"]) for s in v["steps"]), default=0)
        width = min(width, grades.TITLE_MAX)
        for s in v["steps"]:
            word = s["state"] + (", optional" if s["optional"] else "")
            label = s["label"] if len(s["label"]) <= width else s["label"][:width - 1] + "…"
            lines.append(f"  {c(s['state'], MARK[s['state']])} {s['id']:<5} {label:<{width}} {c(s['state'], word)}")
            if s["state"] == "next" and v["message"]:
                lines.append(f"          {v['test']}: {grades.one_line(v['message'], 300)}")
        for sp in v["speedups"]:
            ok = sp["measured"] >= sp["required"]
            lines.append(f"    speed {sp['label']}: {c('ok' if ok else 'low', grades.times(sp['measured']) + 'x')} "
                         f"(needs >= {sp['required']:g}x on {sp['on']})")
        if "vendor" in v:
            vend = v["vendor"]
            lines.append(f"    % of the vendor's code ({VENDOR_CLOCKS}): " + (vend if isinstance(vend, str) else "; ".join(vend)))
    return "\n".join(lines)


# --- HTML -----------------------------------------------------------------------

CSS = """
body { font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px; color: #1b1b1b; max-width: 1100px; }
h1 { font-size: 22px; margin: 0 0 4px; } p.sum { font-size: 17px; font-weight: 600; margin: 4px 0 14px; }
p.info { color: #555; margin: 0; font-size: 13px; }
section { border: 1px solid #ccc; border-radius: 6px; margin: 10px 0; padding: 8px 12px; }
section h2 { font-size: 16px; margin: 0 0 4px; } h2 .st { font-weight: 600; margin-left: 8px; padding: 1px 8px; border-radius: 10px; }
.done { background: #c8e6c9; color: #1b5e20; } .inprogress { background: #ffe0b2; color: #8a4b00; }
.notstarted { background: #eee; color: #555; } .error { background: #ffcdd2; color: #b71c1c; }
table { border-collapse: collapse; width: 100%; } td { padding: 3px 6px; border-top: 1px solid #eee; vertical-align: top; }
td.id { width: 48px; font-weight: 600; } td.state { width: 120px; }
tr.s-done td.state { color: #1b5e20; } tr.s-next td.state { color: #b71c1c; font-weight: 700; }
tr.s-edited td.state { color: #8a4b00; } tr.s-notstarted td { color: #777; }
tr.msg td { color: #b71c1c; font-size: 13px; border-top: none; }
ul.sp { margin: 6px 0 0; padding-left: 18px; font-variant-numeric: tabular-nums; } li.low { color: #b71c1c; font-weight: 600; }
p.note { color: #b71c1c; margin: 2px 0; } p.skip { color: #555; margin: 2px 0; font-size: 13px; }
"""


def page(views, device_class, build):
    e = html.escape
    slug = lambda s: s.replace(" ", "")
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>Course progress</title><style>{CSS}</style></head><body>",
           "<h1>Where am I</h1>", f'<p class="sum" id="summary">{e(grades.summary(views))}</p>',
           f'<p class="info">build {e(str(build))} · {e(device_class)} device · page written {e(_now())}</p>']
    for v in views:
        out.append(f'<section id="lesson{v["lesson"]}" data-status="{e(v["status"])}">'
                   f'<h2>lesson {v["lesson"]} {e(v["topic"])}<span class="st {slug(v["status"])}">{e(v["status"])}'
                   + (f' · {v["passed"]}/{v["total"]} tests pass{e(skipped_words(v))}' if v["total"] else "")
                   + "</span></h2>")
        if v["note"]:
            out.append(f'<p class="note">{e(v["note"])}</p>')
        for name, why in v.get("skipped", []):
            out.append(f'<p class="skip">skipped here: {e(name)}: {e(why)}</p>')
        out.append("<table>")
        for s in v["steps"]:
            word = s["state"] + (", optional" if s["optional"] else "")
            out.append(f'<tr class="s-{slug(s["state"])}" data-step="{e(s["id"])}"><td class="id">{e(s["id"])}</td>'
                       f'<td>{e(s["label"])}</td><td class="state">{e(word)}</td></tr>')
            if s["state"] == "next" and v["message"]:
                out.append(f'<tr class="msg"><td></td><td colspan="2">{e(v["test"])}: {e(v["message"])}</td></tr>')
        out.append("</table>")
        if v["speedups"] or "vendor" in v:
            out.append('<ul class="sp">')
            for sp in v["speedups"]:
                low = ' class="low"' if sp["measured"] < sp["required"] else ""
                out.append(f"<li{low}>{e(sp['label'])}: {grades.times(sp['measured'])}× "
                           f"(needs ≥ {sp['required']:g}× on {e(sp['on'])})</li>")
            if "vendor" in v:
                vend = v["vendor"]
                out.append(f"<li>% of the vendor's code ({e(VENDOR_CLOCKS)}): {e(vend if isinstance(vend, str) else '; '.join(vend))}</li>")
            out.append("</ul>")
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def lesson_list(text):
    if not re.fullmatch(r"\d+(,\d+)*", text):
        raise argparse.ArgumentTypeError(f"lessons are numbers separated by commas, e.g. 1,3; got '{text}'")
    return [int(x) for x in text.split(",")]


def main():
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly, no traceback
    ap = argparse.ArgumentParser(prog="progress.sh", description=__doc__.split("\n")[0])
    ap.add_argument("--build", help="the build folder (default: build/, the student preset's)")
    ap.add_argument("--bundle", help="a GPU node's bundle (scripts/report-gpu.sh pack) and the results left in it")
    ap.add_argument("--lessons", type=lesson_list, help="only these lessons, e.g. 1,3")
    ap.add_argument("--no-run", action="store_true", help="read the last results instead of running the tests")
    ap.add_argument("--all", action="store_true", help="also run the tests of lessons not started")
    ap.add_argument("--html", help="where to write the page (default BUILD/progress.html)")
    ap.add_argument("--json", help="where to write the same as JSON (default BUILD/progress/progress.json)")
    ap.add_argument("--color", "--colour", choices=("auto", "always", "never"), default="auto")
    a = ap.parse_args()

    if a.bundle:
        build = pathlib.Path(a.bundle).resolve()
        try:
            info = json.loads((build / "report" / "build-info.json").read_text())
        except (OSError, ValueError):
            die(f"{a.bundle} is not a bundle from scripts/report-gpu.sh pack (no report/build-info.json)")
        subdir = "solutions" if info.get("track") == "solutions" else "lessons"
        views, device_class = gather(a, build, REPO, subdir)
        return finish(a, views, device_class, build)
    build = pathlib.Path(a.build) if a.build else REPO / "build"
    if not (build / "CMakeCache.txt").is_file():
        die(f"no build in {build} yet: run `cmake --preset student && cmake --build --preset student` first"
            + ("" if a.build else " (or give --build DIR)"))
    build = build.resolve()
    cache = read_cache(build)
    tree = pathlib.Path(cache.get("CMAKE_HOME_DIRECTORY") or REPO)
    # The solutions track grades solutions/: its "student" files are those.
    subdir = "solutions" if cache.get("COURSE_TRACK") == "solutions" else "lessons"
    views, device_class = gather(a, build, tree, subdir)
    return finish(a, views, device_class, build)


def finish(a, views, device_class, build):
    """Prints the overview and writes the page and the JSON beside it."""
    colour = a.color == "always" or (a.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
                                     and os.environ.get("TERM") != "dumb")
    print(text(views, device_class, colour))
    target = pathlib.Path(a.html) if a.html else build / "progress.html"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page(views, device_class, build))
        (pathlib.Path(a.json) if a.json else build / "progress" / "progress.json").write_text(
            json.dumps({"summary": grades.summary(views), "device_class": device_class, "lessons": views},
                       indent=1, ensure_ascii=False) + "\n")
        print(f"\nprogress: the same as a page: {target}")
    except OSError as err:
        print(f"progress: could not write {target}: {err}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
