#!/usr/bin/env python3
"""Checks docs/CONCEPTS.md, the table of OpenMP device concepts the course teaches.

Each table row is `| concept | step | graded by | proved by | note |`. What must hold:

  - every step id `N.k` in the step column is a marked step of lesson N: some
    file of lessons/NN-topic/ holds its `TODO(N.k)` block;
  - every backticked name in the graded-by column is a TEST_CASE of the test
    file of one of the row's lessons (tests/lessonNN_*.cpp), or of any
    lesson when the row names no step;
  - a row that names steps names the proof that its tests grade the concept:
    in "proved by", `mistake N.x` (an entry of tests/mistakes/lessonNN.toml
    whose named test is one of the row's graded-by tests: CI's `ctest
    --preset mistakes` proves that leaving the concept out that way fails it
    with the entry's words) and/or `step N.k` (one of the row's steps: CI's
    `lessonN: step N.k is graded` proves that undoing the step fails a test);
    a row that nothing proves must say "read", not name tests;
  - a row that names no step (not taught, or read only) names no test and no
    proof, and says why in its note, unless it points to a README ("read: ...");
  - every concept of REQUIRED (the device chapters of the OpenMP Examples
    document) appears, backticked, in some row's concept column.

    usage: check_concepts.py [REPO_ROOT]
           check_concepts.py --self-test [REPO_ROOT]   the page as it is must hold, and
                     the same page with one row's proof taken away (or pointed at an entry
                     whose test the row does not name) must not: the check can fail

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
PROOF = re.compile(r"\b(mistake|step)\s+(\d{1,2})\.([a-z]{1,2}|\d{1,2})\b")


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


def mistakes_of(root):
    """{(lesson, id): the test that entry must fail} from tests/mistakes/lessonNN.toml."""
    import tomllib
    out = {}
    for t in sorted(root.glob("tests/mistakes/lesson[0-9][0-9].toml")):
        for m in tomllib.loads(t.read_text()).get("mistake", []):
            out[(int(t.name[6:8]), m["id"])] = m.get("test", "")
    return out


def check(root, text=None):
    page = root / "docs" / "CONCEPTS.md"
    rel = page.relative_to(root).as_posix()
    if text is None:
        if not page.is_file():
            return [f"{rel}: missing"]
        text = page.read_text()
    steps, tests, mistakes = steps_of(root), tests_of(root), mistakes_of(root)
    errors, concepts = [], set()
    for i, line in enumerate(text.split("\n"), 1):
        if not line.startswith("|") or re.match(r"\|\s*-", line) or line.startswith("| concept |"):
            continue
        row = cells(line)
        if len(row) != 5:
            errors.append(f"{rel}:{i}: a row has {len(row)} cells, not 5 (concept, step, graded by, proved by, note)")
            continue
        concept, step, graded, proved, note = row
        proofs = PROOF.findall(proved)
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
            if proofs:
                errors.append(f"{rel}:{i}: names a proof but no step")
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
        if not proofs:
            errors.append(f"{rel}:{i}: {concept}: nothing proves that its tests fail without it: "
                          "name `mistake N.x` or `step N.k` in \"proved by\", or call the row \"read\"")
        for kind, n, pid in proofs:
            n = int(n)
            if kind == "step":
                if f"{n}.{pid}" not in ids:
                    errors.append(f"{rel}:{i}: proved by step {n}.{pid}, which is not one of the row's steps")
            elif (n, pid) not in mistakes:
                errors.append(f"{rel}:{i}: proved by mistake {n}.{pid}: no entry id = \"{pid}\" in tests/mistakes/lesson{n:02d}.toml")
            elif n not in lessons:
                errors.append(f"{rel}:{i}: proved by mistake {n}.{pid}, of lesson {n}, which none of the row's steps belongs to")
            elif mistakes[(n, pid)] not in names:
                errors.append(f"{rel}:{i}: proved by mistake {n}.{pid}, whose test \"{mistakes[(n, pid)]}\" "
                              "is not one of the row's graded-by tests")
    for want in REQUIRED:
        if want not in concepts:
            errors.append(f"{rel}: no row for `{want}`")
    return errors


def self_test(root):
    """The page holds; each way of taking a row's proof away is refused."""
    text = (root / "docs" / "CONCEPTS.md").read_text()
    if check(root, text):
        print("self-test: the page itself does not hold (run without --self-test)")
        return 1
    lines = text.split("\n")
    row = next(i for i, l in enumerate(lines) if l.startswith("|") and PROOF.search(l) and "mistake" in l)
    cells_ = re.split(r"(?<!\\)\|", lines[row])
    tampered = {
        "its proof taken away": "",
        "a proof that names no entry": " mistake 99.zz ",
        "an entry whose test the row does not name": None,
    }
    mistakes = mistakes_of(root)
    graded = cells_[3]
    other = next(((n, m) for (n, m), t in mistakes.items() if t and t not in graded and f" {n}." in cells_[2]), None)
    tampered["an entry whose test the row does not name"] = f" mistake {other[0]}.{other[1]} " if other else None
    failed = 0
    for what, proof in tampered.items():
        if proof is None:
            continue
        c = list(cells_)
        c[4] = proof
        bad = list(lines)
        bad[row] = "|".join(c)
        errs = [e for e in check(root, "\n".join(bad)) if f":{row + 1}:" in e]
        print(f"self-test: row {row + 1} with {what}: " + (f"refused ({errs[0].split(': ', 1)[1][:100]})" if errs else "ACCEPTED"))
        failed += not errs
    print("self-test: " + ("the check can fail" if not failed else f"{failed} tampered page(s) accepted"))
    return 1 if failed else 0


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv and argv[0] == "--self-test":
        root = pathlib.Path(argv[1]) if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
        return self_test(root.resolve())
    root = pathlib.Path(argv[0]) if argv else pathlib.Path(__file__).resolve().parent.parent
    errors = check(root.resolve())
    for e in errors:
        print(e)
    print(f"check_concepts: {len(errors)} problem(s) in docs/CONCEPTS.md" if errors
          else "check_concepts: every step, test and proof docs/CONCEPTS.md names exists, every graded row is proved, every concept has a row")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
