#!/usr/bin/env python3
"""The catalogue of common mistakes: one mutant of a lesson's solution per entry.

tests/mistakes/lessonNN.toml lists how students go wrong in lesson NN, each
entry an edit of the finished file that gives the mistake, the test that must
catch it and words its failure message must contain:

    [[mistake]]
    id = "a"                                  # lesson N's mistake N.a (after z: aa, ab, ...)
    title = "map(to:) for the output"         # what the student did, in their words
    kind = "wrong clause"                     # step half done | right answer without the technique |
                                              # wrong clause | race | off by one | needless copies |
                                              # one device or thread
    # file = "gravity.cpp"                    # which file of solutions/NN-topic/ it edits: needed
                                              # where the student edits several (the others go into
                                              # the mutant unchanged)
    replace = "map(from : c[0:n])"            # text of the solution file (exactly once) ...
    with = "map(to : c[0:n])"                 # ... and what the student wrote instead
    test = "add_exp at prime n = 31"          # the Catch test that must fail
    words = ["never written"]                 # in its failure message (case-insensitive)
    # race = true                             # optional: run the test under ThreadSanitizer +
                                              # Archer (host device); "ThreadSanitizer" joins words
    # elsewhere = "host: sanitize: why"       # optional: on this device class the test may pass
                                              # with the mistake (why: measured, with the device and
                                              # date); it is graded instead by a CTest label, by
                                              # `host` (the host-offload device's run) or by
                                              # `compiler` (a machine with LLVM on it)

Modes:
    make_mistakes.py REPO FOLDER OUT_DIR   writes OUT_DIR/<id>/<file> and OUT_DIR/mistakes.cmake
    make_mistakes.py REPO --markdown NN    prints lesson NN's "Common mistakes" table
    make_mistakes.py REPO --check          every README's table is the catalogue's (exit 1 if not)

A README carries its table between `<!-- mistakes:begin -->` and
`<!-- mistakes:end -->`; `--write` rewrites them from the catalogue.
"""
import pathlib
import re
import sys
import tomllib

KINDS = ("step half done", "right answer without the technique", "wrong clause", "race", "off by one",
         "needless copies", "one device or thread", "wrong size")
BEGIN, END = "<!-- mistakes:begin -->", "<!-- mistakes:end -->"


class CatalogueError(Exception):
    pass


def folder_of(root, nn):
    hits = sorted((root / "lessons").glob(f"{nn}-*"))
    if not hits:
        raise CatalogueError(f"no lessons/{nn}-* folder")
    return hits[0]


def load(root, nn):
    """The entries of lesson NN, checked; [] when it has no catalogue."""
    path = root / "tests" / "mistakes" / f"lesson{nn}.toml"
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise CatalogueError(f"{path}: {e}")
    sol_dir = root / "solutions" / folder_of(root, nn).name
    files = sorted(p.name for p in sol_dir.iterdir() if p.is_file())
    entries, seen = [], set()
    for i, m in enumerate(data.get("mistake", [])):
        where = f"{path.name} entry {i + 1}"
        for key in ("id", "title", "kind", "replace", "with", "test", "words"):
            if key not in m:
                raise CatalogueError(f"{where}: no '{key}'")
        if not re.fullmatch(r"[a-z]{1,2}", m["id"]) or m["id"] in seen:
            raise CatalogueError(f"{where}: id '{m['id']}' must be new: a letter a-z, then aa, ab, ...")
        seen.add(m["id"])
        if m["kind"] not in KINDS:
            raise CatalogueError(f"{where}: kind '{m['kind']}' is none of: {', '.join(KINDS)}")
        if not m["words"] or not all(isinstance(w, str) and w for w in m["words"]):
            raise CatalogueError(f"{where}: words must be a list of non-empty strings")
        file = m.get("file", files[0] if len(files) == 1 else None)
        if file not in files:
            raise CatalogueError(f"{where}: say which file (one of {files})")
        text = (sol_dir / file).read_text()
        count = text.count(m["replace"])
        if count != m.get("count", 1):
            raise CatalogueError(f"{where} ({m['id']}): the text to replace occurs {count} times in "
                                 f"solutions/{sol_dir.name}/{file} (expected {m.get('count', 1)}): {m['replace']!r}")
        tags = test_tags(root, nn).get(m["test"])
        if tags is None:
            raise CatalogueError(f"{where} ({m['id']}): no TEST_CASE named {m['test']!r} in tests/lesson{nn}_*.cpp")
        m = dict(m, speed="speedup" in tags)
        if m.get("elsewhere") and not re.fullmatch(r"(host|gpu): [a-z]+: .+", m["elsewhere"]):
            raise CatalogueError(f"{where}: elsewhere must read 'host|gpu: label: why'")
        entries.append(dict(m, file=file, mutant=text.replace(m["replace"], m["with"]), nn=nn,
                            number=str(int(nn))))
    return entries


def test_tags(root, nn):
    """{test name: [tags]} of lesson NN's Catch file (as cmake/Course.cmake reads them)."""
    found = {}
    for f in (root / "tests").glob(f"lesson{nn}_*.cpp"):
        for name, tags in re.findall(r'TEST_CASE\s*\(\s*"([^"]*)"\s*,\s*"([^"]*)"', f.read_text()):
            found[name] = re.findall(r"\[([^]]+)\]", tags)
    return found


def cmake_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace(";", "\\;") + '"'


def write_if_changed(path, text):
    if path.is_file() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_mutants(root, folder, out):
    entries = load(root, folder[:2])
    lines = ["# written by scripts/make_mistakes.py from tests/mistakes/lesson%s.toml" % folder[:2]]
    ids = []
    sol_dir = root / "solutions" / folder
    others = sorted(p for p in sol_dir.iterdir() if p.is_file()) if entries else []
    for m in entries:
        # A mutant is every file the student edits (the lesson's tests are
        # built against the whole set): the entry's file with the mistake in
        # it, the others as the solution has them.
        for p in others:
            if p.name != m["file"]:
                write_if_changed(out / m["id"] / p.name, p.read_text())
        write_if_changed(out / m["id"] / m["file"], m["mutant"])
        ids.append(m["id"])
        p = "COURSE_MISTAKE_" + m["id"]
        lines += [f"set({p}_TITLE {cmake_quote(m['title'])})", f"set({p}_TEST {cmake_quote(m['test'])})",
                  f"set({p}_WORDS {cmake_quote('|'.join(m['words']))})",
                  f"set({p}_ELSEWHERE {cmake_quote(m.get('elsewhere', ''))})",
                  f"set({p}_SPEED {'ON' if m['speed'] else 'OFF'})",
                  f"set({p}_RACE {'ON' if m.get('race') else 'OFF'})"]
    lines.insert(1, "set(COURSE_MISTAKE_IDS " + " ".join(ids) + ")")
    write_if_changed(out / "mistakes.cmake", "\n".join(lines) + "\n")


def markdown(root, nn):
    rows = ["| mistake | what you did | the test that fails | its message says |", "|---|---|---|---|"]
    for m in load(root, nn):
        words = ", ".join(f"“{w}”" for w in m["words"])
        where = " under ThreadSanitizer (`ctest -L lesson%s`)" % m["number"] if m.get("race") else ""
        if m.get("elsewhere"):
            cls, by = (s.strip() for s in m["elsewhere"].split(":")[:2])
            device = "a GPU" if cls == "gpu" else "the host device"
            by = {"host": "the host device catches it", "compiler": "graded where LLVM is installed"}.get(by, f"`ctest -L {by}`")
            where = f" (on {device}: {by})"
        rows.append(f"| {m['number']}.{m['id']} {m['kind']} | {m['title']} | `{m['test']}`{where} | {words} |")
    return "\n".join(rows)


def readme_blocks(root, write):
    """Problems with the READMEs' tables (rewriting them when @p write)."""
    problems = []
    for toml in sorted((root / "tests" / "mistakes").glob("lesson*.toml")):
        nn = toml.stem[len("lesson"):]
        readme = folder_of(root, nn) / "README.md"
        text = readme.read_text()
        if BEGIN not in text or END not in text:
            problems.append(f"{readme.relative_to(root)}: no {BEGIN} ... {END} block for the catalogue")
            continue
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        want = head + BEGIN + "\n" + markdown(root, nn) + "\n" + END + tail
        if want != text:
            if write:
                readme.write_text(want)
            else:
                problems.append(f"{readme.relative_to(root)}: its mistakes table differs from "
                                f"tests/mistakes/lesson{nn}.toml (run scripts/make_mistakes.py . --write)")
    return problems


def main(argv):
    try:
        if len(argv) == 3 and not argv[1].startswith("--"):
            write_mutants(pathlib.Path(argv[0]), argv[1], pathlib.Path(argv[2]))
            return 0
        if len(argv) == 3 and argv[1] == "--markdown":
            print(markdown(pathlib.Path(argv[0]), argv[2]))
            return 0
        if len(argv) == 2 and argv[1] in ("--check", "--write"):
            root = pathlib.Path(argv[0])
            problems = readme_blocks(root, argv[1] == "--write")
            for nn in sorted(p.stem[6:] for p in (root / "tests" / "mistakes").glob("lesson*.toml")):
                load(root, nn)
            print("\n".join(problems) if problems else "make_mistakes: every README's table is the catalogue's")
            return 1 if problems else 0
    except CatalogueError as e:
        print(f"make_mistakes: error: {e}", file=sys.stderr)
        return 1
    print(__doc__.strip().split("Modes:")[1].split("A README")[0].rstrip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
