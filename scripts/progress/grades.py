"""What a student's results say, lesson by lesson: the one place that reads
them, shared by the student's view (scripts/progress.sh) and the instructor's
class table (scripts/slurm/classtable.py), so the two cannot disagree.

It reads
  - ctest's JUnit XML of one lesson (`ctest -L '^lessonN$' --output-junit`),
    or Catch2's of its test program (a GPU node: scripts/report-gpu.sh test):
    each test's status, the first failure's message, the speed tests' verdict
    lines ("lesson 3 simd: 5.2x faster than baseline (needs >= 3.0x on host,
    2 threads)");
  - the student's own files against the starters' blocks as the course
    released them (the "steps" part of tests/given.json, written from lessons/
    by `scripts/given.py write`): a step whose every TODO block is still
    the starter's, byte for byte, is "not started";

and decides, per lesson, which steps are done and which step is next:

  1. every test of the lesson passed            -> every step done;
     a test skipped by design on this device counts as no failure, as
     ctest counts it: ctest lists it "Skipped" (its SKIP_REGULAR_EXPRESSION
     matched "COURSE-SKIP:", e.g. a speed test graded on a GPU only, or its
     SKIP_RETURN_CODE), or, in Catch2's own JUnit, it printed "COURSE-SKIP:";
     it is shown apart with the reason it printed. A test ctest did not run
     because its fixture failed or its program is missing ("Not Run") is a
     failure, as ctest says;
  2. otherwise a step whose blocks are all the starter's is "not started",
     one whose blocks changed is "edited" (the lesson's tests grade the
     lesson, not each step, so an edit is not called done before they pass);
  3. the next step is the one the first failing test's message names
     ("... step 4.2 ..."), else the first step not started (optional steps
     last), else the first edited step;
  4. a lesson whose every step is not started is "not started": its tests
     need not run (the course proves that every untouched starter fails).

Nothing here raises on bad input: a missing, unreadable or partial result
becomes one line of text (`error` / `note`).
"""
import hashlib
import json
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import check_blocks as blocks  # noqa: E402  (the course's block parser, not a copy)

HERE = pathlib.Path(__file__).resolve().parent
# The course's one record of what it gives (scripts/given.py writes it): its
# "steps" part holds the starters' blocks as released.
MANIFEST = HERE.parent.parent / "tests" / "given.json"

VERDICT = re.compile(r"^(lesson (\d+) ([^:]*)): ([0-9.]+)x (faster|slower) than baseline "
                     r"\(needs >= ([0-9.eE+]+)x on (\w+), ([^)]*)\)", re.M)
STEP_REF = re.compile(r"\bsteps? (\d+\.\d+)\b", re.I)


def times(x):
    """A speedup as the tests print it: one decimal, two digits below 1."""
    return f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def one_line(text, width=400):
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def numeric_id(step):
    return [int(x) if x.isdigit() else x for x in step.split(".")]


# --- JUnit ------------------------------------------------------------------

def failure_reasons(out):
    """The messages Catch printed for failed assertions, one line each (Catch
    wraps a long message over indented lines; they are joined again)."""
    reasons = []
    lines = out.splitlines()
    for i, line in enumerate(lines):
        s = line.strip()
        if s in ("with message:", "explicitly with message:", "due to a fatal error condition:",
                 "due to unexpected exception with message:"):
            msg = []
            for nxt in lines[i + 1:]:
                if not nxt.strip() or not nxt.startswith(" "):
                    break
                msg.append(nxt.strip())
            if msg:
                reasons.append(" ".join(msg))
    return reasons


def compile_error(out):
    """The first compiler error of a failed `lessonN: build` test, shortened."""
    for line in out.splitlines():
        if "error:" in line:
            return one_line(re.sub(r"^.*?/(lessons/)", r"\1", line.strip()), 200)
    return ""


# ctest's <skipped message=...> of a test skipped by design: its
# SKIP_REGULAR_EXPRESSION matched, or it exited with its SKIP_RETURN_CODE.
# ctest counts these as no failure ("100% tests passed"); its other not-run
# tests ("Fixture dependency failed", "Unable to find executable") fail.
SKIPPED_BY_DESIGN = re.compile(r"^SKIP_(REGULAR_EXPRESSION_MATCHED|RETURN_CODE)")
COURSE_SKIP = re.compile(r"^\s*COURSE-SKIP:", re.M)  # tests/support/course_test.hpp, COURSE_SKIP_SPEED
SKIP_LINE = re.compile(r"^\s*(?:COURSE-SKIP|SKIPPED):\s*(.*)$", re.M)


def skip_reason(out, fallback):
    """What a skipped test printed about why ("COURSE-SKIP: ..." or "SKIPPED: ...")."""
    m = SKIP_LINE.search(out)
    return one_line(m.group(1) if m and m.group(1).strip() else fallback, 300)


def parse_lesson(xml_path):
    """One lesson's JUnit XML -> dict(status, passed, total, skipped, speedups,
    note, test, banner, cases). status: PASS (every test graded here passed),
    SLOW (only speed verdicts failed), FAIL (a wrong result, crash, timeout or
    a test not run), ERROR (no usable result). total: the tests graded on this
    device; skipped: [(name, reason)] of those skipped here by design (not in
    total). cases: [(name, "passed"|"failed"|"not run"|"skipped", message)] in
    the file's order."""
    try:
        root = ET.parse(xml_path).getroot()
    except (ET.ParseError, OSError) as e:
        return {"status": "ERROR", "note": f"unreadable JUnit XML: {one_line(e)}"}
    passed = total = 0
    speedups, wrong, slow, cases, banner, skipped = [], [], [], [], "", []
    build_error = ""
    for case in root.iter("testcase"):
        out = "".join(e.text or "" for e in case.iter("system-out"))
        if not banner:
            m = re.search(r"^device: (.*)$", out, re.M)
            banner = m.group(1) if m else ""
        name = re.sub(r"^lesson\d+: ", "", case.get("name", "?"))
        status = case.get("status", "")
        fail, skip = case.find("failure"), case.find("skipped")
        # ctest writes status="fail"; Catch2's own JUnit (a GPU node's results,
        # scripts/report-gpu.sh test) writes "run" for every case it ran, and a
        # <failure> or <error> inside the one that failed.
        if status == "disabled" or (skip is not None and SKIPPED_BY_DESIGN.match(skip.get("message") or "")):
            why = "disabled" if status == "disabled" else skip_reason(out, skip.get("message"))
            skipped.append((name, why))
            cases.append((name, "skipped", why))
            continue
        if status in ("", "run") and (
                (fail is not None and (fail.get("message") or "").startswith("COURSE-SKIP:"))
                or (fail is None and case.find("error") is None and COURSE_SKIP.search(out))):
            # Catch2's own JUnit has no skip status: a case that printed
            # "COURSE-SKIP:" is the one ctest's SKIP_REGULAR_EXPRESSION lists skipped.
            why = skip_reason((fail.get("message") if fail is not None else "") + "\n" + out, "skipped")
            skipped.append((name, why))
            cases.append((name, "skipped", why))
            continue
        total += 1
        for m in VERDICT.finditer(out):
            factor = float(m.group(4))
            measured = factor if m.group(5) == "faster" else (1 / factor if factor else 0.0)
            speedups.append({"label": m.group(3).strip(), "measured": measured, "shown": f"{factor:g}x {m.group(5)}",
                             "required": float(m.group(6)), "on": f"{m.group(7)}, {m.group(8)}",
                             "line": m.group(0)})
        if fail is not None or case.find("error") is not None:
            status = "fail"
        elif skip is not None and status in ("", "run"):
            status = "notrun"
        elif status == "":
            status = "run"
        if status == "run":
            passed += 1
            cases.append((name, "passed", ""))
            continue
        if status == "notrun":
            why = "not run" + (f": {skip.get('message')}" if skip is not None and skip.get("message") else "")
            wrong.append((name, why))
            cases.append((name, "not run", why))
            continue
        reasons = failure_reasons(out)
        if fail is not None and fail.get("message"):
            reasons.append(fail.get("message"))
        if "***Timeout" in out or (fail is not None and "Timeout" in (fail.get("message") or "")):
            reasons.append("timed out")
        if name == "build" and not build_error:
            build_error = compile_error(out) or "the lesson does not build"
        if reasons and all(VERDICT.match(r) for r in reasons):
            slow.append(name)
            cases.append((name, "failed", reasons[0]))
        else:
            msg = reasons[0] if reasons else "failed with no message (a crash?)"
            wrong.append((name, msg))
            cases.append((name, "failed", msg))
    if total == 0:
        return {"status": "ERROR", "note": "no tests ran" + (f" ({len(skipped)} skipped here)" if skipped else ""),
                "speedups": speedups, "skipped": skipped}
    if build_error:
        # The build fixture failed, so the lesson's tests did not run: one line says why.
        return {"status": "ERROR", "note": f"does not compile: {build_error}", "test": "build", "speedups": [],
                "banner": banner, "cases": cases, "skipped": skipped}
    status = "PASS" if passed == total else ("FAIL" if wrong else "SLOW")
    # note: the first failure's message (a wrong result before a slow one); test: which test said it.
    note = one_line(wrong[0][1]) if wrong else ("too slow: " + ", ".join(slow) if slow else "")
    test = wrong[0][0] if wrong else ""
    # first: the failing test a student reads first, with its whole message (a speed verdict too).
    first = wrong[0] if wrong else next(((c[0], c[2]) for c in cases if c[1] == "failed"), ("", ""))
    return {"status": status, "passed": passed, "total": total, "skipped": skipped, "speedups": speedups,
            "note": note, "test": test, "banner": banner, "cases": cases, "first_test": first[0],
            "first_message": one_line(first[1])}


# --- the starters as released, and the student's blocks ----------------------

def _own_lines(block):
    """A block's own text: its lines, each nested block as one line naming it,
    so editing a nested step does not change the step around it."""
    out = [block.start]
    for n in block.body:
        out.append(f"<<{n.id}>>" if isinstance(n, blocks.Block) else n)
    return out + [block.end or ""]


def _digest(lines):
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def step_label(first_line):
    """A step's label: the first line of its TODO comment, cut at its first
    sentence or colon when that leaves enough to read."""
    text = re.sub(r"^\s*// TODO\([^)]*\):?\s*", "", first_line).strip()
    for sep in (". ", ": ", " -- "):
        head = text.split(sep, 1)[0]
        if len(head) >= 12 and head != text:
            return head
    return text if len(text) <= 80 else text[:79] + "…"


# A step's title, from its lesson's README (its Steps lines), in either form:
#   **1.1 — loop order.** ...            (a list item, or a table's step cell;
#   **7.1, 7.2 — `to_soa()` ...:**        several ids, "(optional)", and a line
#   **7.6 (optional) — ...**              break inside the bold are fine)
#   | step | where | what |               (a table whose header starts with
#   | 13.1 | the rules | make them ... |   "step": the "what" or "title" cell)
TITLE_BOLD = re.compile(r"\*\*(\d+\.\d+(?:\s*,\s*\d+\.\d+)*)(?:\s*\([^)*\n]*\))?\s*[—–]\s*"
                        r"((?:(?!\*\*|\n\s*\n).)+?)\*\*", re.S)
STEP_IDS = re.compile(r"^\d+\.\d+(?:\s*,\s*\d+\.\d+)*$")
TITLE_MAX = 72  # what fits beside the id and the state on one line of scripts/progress.sh


def _plain(md):
    """A title as plain text: no emphasis or code marks, one line, no end punctuation."""
    text = " ".join(md.replace("**", "").replace("`", "").split())
    return text.rstrip(" .:,;")


def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def readme_titles(text):
    """{step id: title} from a lesson README's text; the first title of an id wins."""
    titles = {}
    for m in TITLE_BOLD.finditer(text):
        for i in re.split(r"\s*,\s*", m.group(1)):
            titles.setdefault(i, _plain(m.group(2)))
    col = None
    for line in text.splitlines():
        if not line.lstrip().startswith("|"):
            col = None
            continue
        cells = _cells(line)
        if cells and cells[0].lower() == "step":
            heads = [c.lower() for c in cells]
            col = next((k for k, h in enumerate(heads) if h in ("what", "title")), None)
            continue
        if col is not None and len(cells) > col and STEP_IDS.match(cells[0]) and _plain(cells[col]):
            for i in re.split(r"\s*,\s*", cells[0]):
                titles.setdefault(i, _plain(cells[col]))
    return titles


def lesson_titles(folder, repo=HERE.parent.parent):
    """{step id: title} of lessons/FOLDER/README.md ({} when it cannot be read)."""
    try:
        return readme_titles((repo / "lessons" / folder / "README.md").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return {}


def lesson_blocks(path):
    """{step id: [digest of each TODO block of that id, in order]} and
    {step id: first line} of one file; raises nothing."""
    try:
        nodes, _ = blocks.parse(path, "starter")
    except (OSError, UnicodeDecodeError):
        return None, {}
    digests, first = {}, {}
    for b in blocks.blocks(nodes):
        digests.setdefault(b.id, []).append(_digest(_own_lines(b)))
        first.setdefault(b.id, b.start)
    return digests, first


def starters_record(repo):
    """The starters' blocks as the course releases them: for each lesson, the
    files a student edits (those solutions/ holds), and per step its label,
    whether it is optional and each block's digest. scripts/given.py keeps it
    in tests/given.json under "steps"."""
    data = {"lessons": {}}
    for sol_dir in sorted((repo / "solutions").glob("[0-9][0-9]-*")):
        n = int(sol_dir.name[:2])
        lesson = {"folder": sol_dir.name, "files": [], "steps": []}
        seen = {}
        for sol in sorted(f for f in sol_dir.iterdir() if f.is_file()):
            starter = repo / "lessons" / sol_dir.name / sol.name
            digests, first = lesson_blocks(starter)
            lesson["files"].append(sol.name)
            for step, ds in (digests or {}).items():
                if step not in seen:
                    seen[step] = {"id": step, "label": step_label(first[step]),
                                  "optional": "optional" in first[step].lower(), "blocks": {}}
                    lesson["steps"].append(seen[step])
                seen[step]["blocks"][sol.name] = ds
        lesson["steps"].sort(key=lambda s: numeric_id(s["id"]))
        data["lessons"][str(n)] = lesson
    return data["lessons"]


def load_manifest(path=MANIFEST):
    try:
        return json.loads(pathlib.Path(path).read_text())["steps"]
    except (OSError, ValueError, KeyError):
        return {}


def file_digests(tree, lesson, subdir="lessons"):
    """{file: sha256 prefix} of the student's files of a lesson ('' if missing)."""
    out = {}
    for name in lesson.get("files", {}):
        p = tree / subdir / lesson["folder"] / name
        try:
            out[name] = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
        except OSError:
            out[name] = ""
    return out


def step_states(tree, lesson, subdir="lessons"):
    """{step id: "not started" | "edited"} for the student's tree, and a list
    of problems (a file missing); the rule: a step is not started when every
    one of its TODO blocks is still the starter's, byte for byte."""
    states, problems = {}, []
    parsed = {}
    for name in lesson.get("files", {}):
        p = tree / subdir / lesson["folder"] / name
        if not p.is_file():
            problems.append(f"{subdir}/{lesson['folder']}/{name} is missing")
            parsed[name] = {}
            continue
        parsed[name], _ = lesson_blocks(p)
        parsed[name] = parsed[name] or {}
    for step in lesson.get("steps", []):
        same = all(parsed.get(f, {}).get(step["id"]) == ds for f, ds in step["blocks"].items())
        states[step["id"]] = "not started" if same else "edited"
    return states, problems


# --- one lesson's progress ---------------------------------------------------

def lesson_progress(n, lesson, states, result, problems=()):
    """Lesson n's view: dict(lesson, topic, status, steps, next, message,
    speedups, passed, total, skipped, note): total counts the tests graded
    here, skipped lists [name, reason] of those skipped here by design.
    status: done | in progress | not started | error. Each step: dict(id,
    label, optional, state) with state one of done, edited, not started, next."""
    # Each step's label is its title in the lesson's README; the starter's
    # TODO line (the manifest's label) only where the README has none.
    titles = lesson_titles(lesson.get("folder", "")) if lesson.get("folder") else {}
    steps = [dict(id=s["id"], label=titles.get(s["id"]) or s["label"], optional=s["optional"],
                  state=states.get(s["id"], "edited"))
             for s in lesson.get("steps", [])]
    view = {"lesson": n, "topic": lesson.get("folder", "")[3:], "steps": steps, "next": "", "message": "",
            "test": "", "speedups": [], "passed": None, "total": None, "skipped": [], "note": ""}
    touched = any(s["state"] == "edited" for s in steps)
    if problems:
        view.update(status="error", note="; ".join(problems))
        return view
    if result is None:
        if not touched:
            view["status"] = "not started"
            return view
        view.update(status="error", note="no test results for this lesson")
        return view
    view["speedups"] = result.get("speedups", [])
    view["passed"], view["total"] = result.get("passed"), result.get("total")
    view["skipped"] = [list(x) for x in result.get("skipped", [])]
    st = result.get("status")
    if st == "PASS":
        for s in steps:
            s["state"] = "done" if not (s["optional"] and s["state"] == "not started") else "not started"
        view["status"] = "done"
        return view
    if st == "ERROR":
        view.update(status="error", note=result.get("note", "could not be graded"))
        return view
    view["status"] = "in progress" if touched else "not started"
    view["message"], view["test"] = result.get("first_message", ""), result.get("first_test", "")
    named = [i for i in STEP_REF.findall(view["message"]) if i.split(".")[0] == str(n)]
    ids = [s["id"] for s in steps]
    nxt = next((i for i in named if i in ids), "")
    view["next"] = nxt or _first(steps, "not started") or _first(steps, "edited")
    _mark_next(view)
    return view


def _first(steps, state):
    for optional in (False, True):
        for s in steps:
            if s["state"] == state and s["optional"] == optional:
                return s["id"]
    return ""


def _mark_next(view):
    for s in view["steps"]:
        if s["id"] == view["next"]:
            s["state"] = "next"


def summary(views):
    """One line: "lessons 1-3 done, lesson 4: step 4.2 next, 5-11 not started"."""
    def runs(nums):
        out, start = [], None
        for i, k in enumerate(nums):
            if start is None:
                start = k
            if i + 1 == len(nums) or nums[i + 1] != k + 1:
                out.append(f"{start}" if start == k else f"{start}-{k}")
                start = None
        return ", ".join(out)
    done = [v["lesson"] for v in views if v["status"] == "done"]
    parts = []
    if done:
        parts.append(f"lesson{'s' if len(done) > 1 else ''} {runs(done)} done")
    errors = {}
    for v in views:
        if v["status"] == "in progress":
            parts.append(f"lesson {v['lesson']}: step {v['next']} next" if v["next"] else f"lesson {v['lesson']}: in progress")
        elif v["status"] == "error":
            errors.setdefault(one_line(v["note"], 70), []).append(v["lesson"])
    for note, nums in errors.items():
        parts.append(f"lesson{'s' if len(nums) > 1 else ''} {runs(nums)}: {note}")
    todo = [v["lesson"] for v in views if v["status"] == "not started"]
    if todo:
        parts.append(f"lesson{'s' if len(todo) > 1 else ''} {runs(todo)} not started")
    return ", ".join(parts) or "no lessons"
