#!/usr/bin/env python3
"""What the course gives, and whether a checkout still has it as given.

A student edits the inside of the TODO blocks of a few files (the files
solutions/ lists). Everything else is given: the lines of those files outside
the blocks, the lesson's other files, its test file, the baselines, the
build. A student who edits a given thing (a threshold in tests/, the
kernel in a given .inc, a `num_threads` line outside a block) can pass tests
without the lesson's technique. This script says so, and lets a grader grade
only what is the student's.

tests/given.json, the manifest, holds a short hash of every given file and,
for every file a student edits, the sequence of its given lines (hashed; blank
and comment-only lines left out, so a note of the student's own is no edit)
with a placeholder per TODO block; and, under "steps", each starter's TODO
blocks as released, by which scripts/progress.sh tells a step not started. It is written from the course's own
starters (`given.py write`) and checked to be current in CI (`given.py stale`).

  given.py write [ROOT]                  rewrite ROOT/tests/given.json
  given.py stale [ROOT]                  exit 1 (one line) when the manifest is out of date
  given.py check ROOT --lesson N [--track lessons|solutions]
        lesson N's given files and given lines in ROOT against the manifest:
        one line per edit, exit 1 when there is one (the test "lessonN: given
        code unchanged" runs this)
  given.py grade --course STAGE --checkout DIR --lessons 1,3 --edits FILE
        for a grader: copies the student's files of those lessons from DIR into
        STAGE (a copy of the instructor's course), each put into the course's
        own given lines (the student's TODO blocks spliced into the pristine
        starter), and writes every edit of a given thing in DIR to FILE, one
        line each ("edited given file: PATH", "edited given line: PATH:N: ...")

Exit status: 0 nothing to report, 1 something to report, 2 bad arguments.
"""
import difflib
import hashlib
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_blocks  # noqa: E402  (the marked-block parser, written once)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "progress"))
import grades  # noqa: E402  (the starters' steps, as scripts/progress.sh judges them)

MANIFEST = pathlib.PurePosixPath("tests/given.json")
# Given to every lesson: the build, the shared library, the test support, the
# baselines that are not one lesson's.
COURSE_GLOBS = ["CMakeLists.txt", "CMakePresets.json", "CTestTestfile.cmake", "CTestCustom.cmake",
                "cmake/**/*", "common/**/*", "tests/CMakeLists.txt", "tests/support/**/*", "reference/**/*"]
LESSON_OF = re.compile(r"lesson(\d\d)[_.]")  # reference/lesson05_x.cpp, tests/lesson05_x.cpp


def die(msg):
    print(f"given.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def digest(data):
    return hashlib.sha256(data).hexdigest()[:16]


def lesson_dirs(root):
    """{N: 'NN-topic'} for every lesson folder."""
    out = {}
    for d in sorted((root / "lessons").glob("[0-9][0-9]-*")):
        if d.is_dir():
            out[int(d.name[:2])] = d.name
    return out


def student_files(root, folder):
    """The files a student edits in lessons/<folder>: the names solutions/ lists."""
    sol = root / "solutions" / folder
    if sol.is_dir():
        return sorted(f.name for f in sol.iterdir() if f.is_file())
    return None


def student_kind(path):
    """How a student's file marks its blocks: TODO markers as the starter
    gave them, or SOLUTION markers where the student copied a solution in."""
    nodes, problems = check_blocks.parse(path, "starter")
    if not problems and not any(isinstance(n, check_blocks.Block) for n in nodes):
        other, p2 = check_blocks.parse(path, "solution")
        if not p2 and any(isinstance(n, check_blocks.Block) for n in other):
            return "solution"
    return "starter"


def given_lines(path, kind):
    """[(line_no, text, key)] of @p path outside its top-level blocks; key is
    a short hash of the line, or '[id]' for a block. Blank and comment-only
    lines are left out: they change nothing the compiler sees. kind None:
    whichever markers the student's file has."""
    kind = kind or student_kind(path)
    nodes, problems = check_blocks.parse(path, kind)
    if problems:
        return None, problems
    out = []
    for no, line in check_blocks._lines_outside(path, kind, nodes):
        if line.startswith("<<block ") and line.endswith(">>"):
            out.append((no, line, f"[{line[8:-2]}]"))
            continue
        text = line.strip()
        if not text or text.startswith("//"):
            continue
        out.append((no, line.rstrip(), digest(text.encode())))
    return out, []


def course_files(root):
    files = set()
    for g in COURSE_GLOBS:
        for p in root.glob(g):
            if p.is_file() and not LESSON_OF.search(p.name) and "__pycache__" not in p.parts:
                files.add(p.relative_to(root).as_posix())
    return sorted(files)


def lesson_given_files(root, n, folder, edits):
    """Lesson N's given files: its folder but the student's files and the
    prose, its test file, its baselines."""
    files = []
    for p in sorted((root / "lessons" / folder).rglob("*")):
        if p.is_file() and p.name not in edits and p.suffix not in (".md", ".png", ".svg") \
                and "__pycache__" not in p.parts:
            files.append(p.relative_to(root).as_posix())
    for g in (f"tests/lesson{n:02d}_*.cpp", f"reference/lesson{n:02d}_*"):
        files += sorted(p.relative_to(root).as_posix() for p in root.glob(g) if p.is_file())
    return files


def build_manifest(root):
    lessons = {}
    for n, folder in lesson_dirs(root).items():
        edits = student_files(root, folder)
        if edits is None:
            die(f"solutions/{folder} is missing: the manifest is written from the course's own checkout")
        student = {}
        for name in edits:
            rel = f"lessons/{folder}/{name}"
            seq, problems = given_lines(root / rel, "starter")
            if problems:
                die("; ".join(problems))
            student[rel] = [k for _, _, k in seq]
        lessons[str(n)] = {
            "folder": folder,
            "files": {f: digest((root / f).read_bytes()) for f in lesson_given_files(root, n, folder, edits)},
            "student": student,
        }
    return {
        "about": "what the course gives: written by scripts/given.py write; do not edit",
        "course": {f: digest((root / f).read_bytes()) for f in course_files(root)},
        "lessons": lessons,
        "steps": grades.starters_record(root),
    }


def dump(manifest):
    return json.dumps(manifest, indent=1, sort_keys=True) + "\n"


def load_manifest(root):
    path = root / MANIFEST
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        die(f"{MANIFEST} is missing in {root}")
    except json.JSONDecodeError as e:
        die(f"{MANIFEST} is not valid JSON ({e})")


def line_edits(rel, path, kind, expected):
    """Edits of the given lines of the student file @p path (one line each, at most 3)."""
    seq, problems = given_lines(path, kind)
    if problems:
        return [f"{rel}: the TODO markers do not pair up ({problems[0].split(': ', 1)[-1]}): "
                f"keep every `// TODO(...)` and `// END TODO` line as the course gave it"]
    keys = [k for _, _, k in seq]
    want_blocks = [k for k in expected if k.startswith("[")]
    have_blocks = [k for k in keys if k.startswith("[")]
    if want_blocks != have_blocks:
        gone = [b[1:-1] for b in want_blocks if b not in have_blocks]
        what = f"the markers of TODO({', '.join(gone)}) are gone" if gone else "the TODO blocks are not as given"
        return [f"{rel}: {what}: keep each `// TODO(...)` line and its `// END TODO` around your code"]
    out = []
    for op, a0, a1, b0, b1 in difflib.SequenceMatcher(None, expected, keys, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if b0 < len(seq) and op != "delete":
            no, text = seq[b0][0], seq[b0][1].strip()
            verb = "added" if op == "insert" else "changed"
            out.append(f"{rel}:{no}: a given line (outside the TODO blocks) was {verb}: `{text[:90]}`")
        else:
            after = seq[b0 - 1][0] if b0 > 0 else 0
            out.append(f"{rel}:{after + 1}: a given line (outside the TODO blocks) was deleted here")
        if len(out) == 3:
            break
    return out


def check(root, n, track):
    manifest = load_manifest(root)
    lesson = manifest["lessons"].get(str(n))
    if lesson is None:
        die(f"no lesson {n} in {MANIFEST}")
    out = []
    for rel, want in list(manifest["course"].items()) + list(lesson["files"].items()):
        p = root / rel
        if not p.is_file():
            out.append(f"{rel}: a given file is missing")
        elif digest(p.read_bytes()) != want:
            out.append(f"{rel}: a given file was edited (the grader uses the course's copy, not yours)")
    for rel, expected in lesson["student"].items():
        path = root / rel
        kind = None
        if track == "solutions":
            path, kind = root / "solutions" / pathlib.PurePosixPath(rel).relative_to("lessons"), "solution"
        if not path.is_file():
            out.append(f"{rel}: your file is missing")
            continue
        out += line_edits(rel, path, kind, expected)
    return out


def splice(pristine, student):
    """The pristine starter with each top-level TODO block replaced by the
    student's block of the same id: the student's work inside the course's
    given lines. None when the blocks do not pair up (ids, order)."""
    a, pa = check_blocks.parse(pristine, "starter")
    b, pb = check_blocks.parse(student, student_kind(student))
    if pa or pb:
        return None
    ta = [x for x in a if isinstance(x, check_blocks.Block)]
    tb = [x for x in b if isinstance(x, check_blocks.Block)]
    if [x.id for x in ta] != [x.id for x in tb]:
        return None
    out, depth, blocks = [], 0, iter(tb)
    for line in pristine.read_text().splitlines():
        if check_blocks.START["starter"].match(line):
            if depth == 0:
                out += next(blocks).render()
            depth += 1
        elif check_blocks.END["starter"].match(line) and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(line)
    return "\n".join(out) + "\n"


def grade(stage, checkout, lessons, edits_path):
    manifest = load_manifest(stage)
    edits = []
    # Course-wide given files, then each graded lesson's.
    rels = list(manifest["course"])
    for n in lessons:
        lesson = manifest["lessons"].get(str(n))
        if lesson:
            rels += list(lesson["files"])
    for rel in rels:
        mine, theirs = stage / rel, checkout / rel
        if not theirs.is_file():
            if mine.is_file():
                edits.append(f"deleted given file: {rel}")
        elif not mine.is_file() or mine.read_bytes() != theirs.read_bytes():
            edits.append(f"edited given file: {rel}")
    for n in lessons:
        lesson = manifest["lessons"].get(str(n))
        if not lesson:
            continue
        for rel in lesson["student"]:
            mine, theirs = stage / rel, checkout / rel
            if not theirs.is_file():
                edits.append(f"missing student file: {rel} (the starter is graded)")
                continue
            spliced = splice(mine, theirs)
            if spliced is None:
                # Blocks that no longer pair up: graded as the student left it;
                # the lesson's given-code test then fails and says why.
                mine.write_bytes(theirs.read_bytes())
                edits.append(f"edited TODO markers: {rel} (graded as is)")
                continue
            mine.write_text(spliced)
            for e in line_edits(rel, theirs, None, lesson["student"][rel]):
                edits.append("edited given line: " + e)
    edits_path.write_text("".join(e + "\n" for e in edits))
    return edits


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    cmd, rest = argv[0], argv[1:]
    opts, pos = {}, []
    i = 0
    while i < len(rest):
        if rest[i].startswith("--"):
            if i + 1 >= len(rest):
                die(f"{rest[i]} needs a value")
            opts[rest[i][2:]] = rest[i + 1]
            i += 2
        else:
            pos.append(rest[i])
            i += 1
    default_root = pathlib.Path(__file__).resolve().parent.parent
    if cmd in ("write", "stale"):
        root = pathlib.Path(pos[0]) if pos else default_root
        text = dump(build_manifest(root))
        if cmd == "write":
            (root / MANIFEST).write_text(text)
            print(f"given.py: wrote {MANIFEST}")
            return 0
        current = (root / MANIFEST).read_text() if (root / MANIFEST).is_file() else ""
        if current != text:
            print(f"{MANIFEST} is out of date: a given file or a starter's given line changed; "
                  f"run `scripts/given.py write` and commit it")
            return 1
        print(f"given.py: {MANIFEST} is current")
        return 0
    if cmd == "check":
        if not pos or "lesson" not in opts:
            die("usage: given.py check ROOT --lesson N [--track lessons|solutions]")
        track = opts.get("track", "lessons")
        if track not in ("lessons", "solutions"):
            die(f"--track must be lessons or solutions, got '{track}'")
        if not opts["lesson"].isdigit():
            die(f"--lesson must be a number, got '{opts['lesson']}'")
        found = check(pathlib.Path(pos[0]), int(opts["lesson"]), track)
        for f in found:
            print(f)
        if found:
            print(f"lesson {opts['lesson']}: {len(found)} given thing(s) changed: a grader grades the course's "
                  f"copies (and your TODO blocks inside the course's given lines), not these edits")
            return 1
        print(f"lesson {opts['lesson']}: the given code is as the course gave it")
        return 0
    if cmd == "grade":
        for k in ("course", "checkout", "lessons", "edits"):
            if k not in opts:
                die(f"grade needs --{k}")
        if not re.fullmatch(r"\d+(,\d+)*", opts["lessons"]):
            die(f"--lessons must be numbers separated by commas, got '{opts['lessons']}'")
        edits = grade(pathlib.Path(opts["course"]), pathlib.Path(opts["checkout"]),
                      [int(x) for x in opts["lessons"].split(",")], pathlib.Path(opts["edits"]))
        for e in edits:
            print(e)
        return 1 if edits else 0
    die(f"unknown command '{cmd}' (write, stale, check, grade)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
