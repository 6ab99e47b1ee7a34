#!/usr/bin/env python3
"""Checks docs/CONCEPTS.md, the table of OpenMP device concepts the course teaches.

Each table row is `| concept | step | graded by | note |`. What must hold:

  - every step id `N.k` in the step column is a marked step of lesson N: some
    file of lessons/NN-topic/ holds its `TODO(N.k)` block;
  - every backticked name in the graded-by column is a TEST_CASE of the test
    file of one of the row's lessons (tests/lessonNN_*.cpp), or of any
    lesson when the row names no step;
  - a row that names no step (not taught, or read only) names no test and
    says why in its note, unless it points to a README ("read: ...");
  - every concept of REQUIRED (the device chapters of the OpenMP Examples
    document) appears, backticked, in some row's concept column.

    usage: check_concepts.py [REPO_ROOT]

Exit status 0 when the page holds, 1 with one line per problem
(docs/CONCEPTS.md:line: what is wrong).
"""
import pathlib
import re
import sys

sys.dont_write_bytecode = True

# The constructs, clauses and routines the page must cover, as they are
# written (backticked) in its concept column.
REQUIRED = [
    "target", "target data", "target enter data", "target exit data", "target update",
    "declare target", "link", "indirect", "to", "from", "tofrom", "alloc", "delete",
    "always", "present", "close", "declare mapper", "is_device_ptr", "use_device_ptr",
    "use_device_addr", "has_device_addr", "if(target : ...)", "device", "nowait", "depend",
    "teams", "distribute", "parallel for", "simd", "loop", "reduction", "atomic update",
    "allocate", "omp_pteam_mem_alloc", "uses_allocators", "metadirective", "declare variant",
    "declare mapper", "interop", "requires", "omp_target_alloc", "omp_target_free",
    "omp_target_memcpy", "omp_target_is_present", "omp_get_mapped_ptr", "omp_target_associate_ptr",
    "omp_get_num_devices", "omp_get_default_device", "omp_get_initial_device",
    "omp_is_initial_device", "omp_get_device_num",
]

STEP = re.compile(r"\b(\d{1,2})\.(\d{1,2})\b")
TICKED = re.compile(r"`([^`]+)`")
TEST_CASE = re.compile(r'TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"')


def cells(line):
    """A table row's cells; backslash-escaped pipes stay inside their cell."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip() for c in parts[1:-1]]


def steps_of(root):
    """{(lesson, step id)} of every TODO(N.k) block in the lessons' files."""
    found = set()
    for p in (root / "lessons").rglob("*"):
        if p.is_file() and p.suffix in (".cpp", ".hpp", ".inc", ".h"):
            for m in re.finditer(r"TODO\((\d+)\.(\d+)\)", p.read_text(errors="replace")):
                if p.parts[len(root.parts) + 1].startswith(f"{int(m.group(1)):02d}-"):
                    found.add(f"{int(m.group(1))}.{int(m.group(2))}")
    return found


def tests_of(root):
    """{lesson number: {test case names}} from tests/lessonNN_*.cpp."""
    out = {}
    for t in sorted(root.glob("tests/lesson[0-9][0-9]_*.cpp")):
        names = {m.group(1).replace('\\"', '"') for m in TEST_CASE.finditer(t.read_text())}
        out.setdefault(int(t.name[6:8]), set()).update(names)
    return out


def check(root):
    page = root / "docs" / "CONCEPTS.md"
    rel = page.relative_to(root).as_posix()
    if not page.is_file():
        return [f"{rel}: missing"]
    steps, tests = steps_of(root), tests_of(root)
    errors, concepts = [], set()
    for i, line in enumerate(page.read_text().split("\n"), 1):
        if not line.startswith("|") or re.match(r"\|\s*-", line) or line.startswith("| concept |"):
            continue
        row = cells(line)
        if len(row) != 4:
            errors.append(f"{rel}:{i}: a row has {len(row)} cells, not 4 (concept, step, graded by, note)")
            continue
        concept, step, graded, note = row
        for name in TICKED.findall(concept):
            concepts.add(name)
            concepts.update(re.split(r"\s*/\s*|,\s*", name))
        # Words in the concept column name parts too: "map types `to`, `from`" etc.
        ids = [f"{int(a)}.{int(b)}" for a, b in STEP.findall(step)] if not step.startswith("read") else []
        for sid in ids:
            if sid not in steps:
                errors.append(f"{rel}:{i}: step {sid}: no TODO({sid}) block in lessons/{int(sid.split('.')[0]):02d}-*/")
        names = TICKED.findall(graded)
        if not ids:
            if names:
                errors.append(f"{rel}:{i}: names tests but no step that they grade")
            if not step.startswith("read") and not note:
                errors.append(f"{rel}:{i}: {concept} is not taught: the note must say why")
            if step.startswith("read") and not re.search(r"README|given|tools/", step + note):
                errors.append(f"{rel}:{i}: a row read only must say where (a README, given code)")
            continue
        if not names:
            errors.append(f"{rel}:{i}: steps {', '.join(ids)} but no test that grades them")
        lessons = sorted({int(s.split(".")[0]) for s in ids})
        for name in names:
            if not any(name in tests.get(n, set()) for n in lessons):
                where = ", ".join(f"lesson {n}" for n in lessons)
                errors.append(f"{rel}:{i}: no TEST_CASE \"{name}\" in the tests of {where}")
    for want in REQUIRED:
        if want not in concepts:
            errors.append(f"{rel}: no row for `{want}`")
    return errors


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    root = pathlib.Path(argv[0]) if argv else pathlib.Path(__file__).resolve().parent.parent
    errors = check(root.resolve())
    for e in errors:
        print(e)
    print(f"check_concepts: {len(errors)} problem(s) in docs/CONCEPTS.md" if errors
          else "check_concepts: every step and test docs/CONCEPTS.md names exists, every concept has a row")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
