#!/usr/bin/env python3
"""Checks that every starter and its solution differ only inside marked blocks.

A starter (lessons/NN-topic/FILE) marks what the student changes:

    // TODO(3.1): what to do ...
    ... starter code ...
    // END TODO

and the solution (solutions/NN-topic/FILE) the same places:

    // SOLUTION(3.1): what was done
    ... finished code ...
    // END SOLUTION

Rules (docs/DEVELOPING.md, "Marked blocks"):
  - one id per block, so that each step can be undone on its own (the
    `steps` tests build the solution with one step put back to its starter
    text, scripts/make_steps.py); an id may mark several blocks (all of
    them are one step);
  - a block may hold nested blocks, for a step that only makes sense inside
    another (lesson 1: `simd` on the loop that 1.1 creates). Starter and
    solution then nest the same ids in the same order; the text around the
    nested blocks is the outer step's and may differ;
  - outside the top-level blocks each pair is identical line for line.

solutions/NN-topic holds only the files a student edits; each has its
starter under lessons/NN-topic and is no byte copy of it.

Includes between reference/ and the lessons (docs/DEVELOPING.md, "reference/
and the lessons"): the arrows run one way, lessons -> reference. reference/
includes only its own files and common/'s (never anything of lessons/ or
solutions/, by path or through an include folder). What a lesson's student
code and its baselines share sits in reference/lessonNN_<topic>_shared.hpp
(one for each of the lesson's interface headers), which includes nothing
else of reference/ but another shared header of its lesson; the lesson's
interface header (lessons/NN-topic/*.hpp) includes it by its path ("../../reference/lessonNN_<topic>_shared.hpp"), and no other
file of the lesson (lessons/NN-topic/* and solutions/NN-topic/*, not its
driver/) includes anything of reference/.

Exit status 0 when all pairs agree and the includes keep the rule, 1 with one
line per problem otherwise.

    usage: check_blocks.py [REPO_ROOT] [--only NN]   (NN: a lesson folder prefix, e.g. 03)

Other scripts import this file for its parser: parse(), ids_of(), pairs().
"""
import pathlib
import re
import sys

START = {"starter": re.compile(r"^\s*// TODO\(([^)]*)\)"), "solution": re.compile(r"^\s*// SOLUTION\(([^)]*)\)")}
END = {"starter": re.compile(r"^\s*// END TODO\b"), "solution": re.compile(r"^\s*// END SOLUTION\b")}


class Block:
    """One marked block: its id, the line that opens it, its body (lines and
    nested Blocks, in order), the END line, and where it starts (1-based)."""

    def __init__(self, ids, start, line):
        self.ids, self.start, self.line = ids, start, line
        self.body, self.end = [], None

    @property
    def id(self):
        return self.ids[0] if self.ids else "?"

    def nested(self):
        return [n for n in self.body if isinstance(n, Block)]

    def render(self):
        out = [self.start]
        for n in self.body:
            out += n.render() if isinstance(n, Block) else [n]
        return out + [self.end]


def ids_of(text):
    return [i for i in re.split(r"[,\s]+", text.strip()) if i]


def parse(path, kind):
    """The file as a list of nodes (plain lines and Blocks), and problems."""
    root, stack, problems = [], [], []
    for no, line in enumerate(path.read_text().splitlines(), 1):
        top = stack[-1].body if stack else root
        m = START[kind].match(line)
        if m:
            ids = ids_of(m.group(1))
            if len(ids) != 1:
                problems.append(f"{path}:{no}: a block marks {len(ids)} ids ({', '.join(ids) or 'none'}); "
                                f"give each step its own block (nest one inside another if it must be), "
                                f"so that the step check can undo each step on its own")
            b = Block(ids, line, no)
            top.append(b)
            stack.append(b)
        elif END[kind].match(line):
            if not stack:
                problems.append(f"{path}:{no}: END without a block start")
                top.append(line)
            else:
                stack.pop().end = line
        else:
            top.append(line)
    for b in stack:
        problems.append(f"{path}:{b.line}: block {b.id} has no END line")
        b.end = ""
    return root, problems


def blocks(nodes):
    """Every Block in @p nodes, outer before inner, in file order."""
    for n in nodes:
        if isinstance(n, Block):
            yield n
            yield from blocks(n.body)


def pairs(root, only="[0-9][0-9]"):
    """(lesson folder name, starter path, solution path) for every file in solutions/."""
    for sol_dir in sorted((root / "solutions").glob(only + "-*")):
        les_dir = root / "lessons" / sol_dir.name
        for sol in sorted(f for f in sol_dir.iterdir() if f.is_file()):
            yield sol_dir.name, les_dir / sol.name, sol


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


SHARED = re.compile(r"lesson(\d\d)_\w+_shared\.hpp")


def check_includes(root, only="[0-9][0-9]"):
    """Problems with the includes between reference/ and the lessons."""
    problems = []
    ref_dir = (root / "reference").resolve()
    common = (root / "common" / "include").resolve()
    ref_files = sorted(f for f in ref_dir.iterdir() if f.is_file() and f.suffix in (".cpp", ".hpp", ".inc")) \
        if ref_dir.is_dir() else []
    ref_names = {f.name for f in ref_files}
    shared = {}  # lesson number -> the names of its shared headers
    for f in ref_files:
        m = SHARED.fullmatch(f.name)
        if m:
            shared.setdefault(m.group(1), set()).add(f.name)
    for ref in ref_files:
        for no, line in enumerate(ref.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            target = (ref.parent / inc).resolve()
            if target.parent == ref_dir and target.is_file():
                mine, theirs = SHARED.fullmatch(ref.name), SHARED.fullmatch(target.name)
                if mine and not (theirs and theirs.group(1) == mine.group(1)):
                    problems.append(f"reference/{ref.name}:{no}: includes {inc}: a shared header includes only "
                                    f"its lesson's shared headers, no baseline (a student's build includes it)")
            elif not (common / inc).resolve().is_file():
                problems.append(f"reference/{ref.name}:{no}: includes {inc}: reference/ includes only its own "
                                f"files and common/'s, never lessons/ or solutions/ (what a lesson and its "
                                f"baselines share goes in reference/lessonNN_<topic>_shared.hpp, which the "
                                f"lesson's interface header includes)")
    for top in ("lessons", "solutions"):
        for les in sorted((root / top).glob(only + "-*")):
            for f in sorted(x for x in les.iterdir() if x.is_file() and x.suffix in (".cpp", ".hpp", ".inc")):
                for no, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    own = (root / "lessons" / les.name / inc).is_file() or (les / inc).is_file()
                    target = (f.parent / inc).resolve()
                    if not ("reference/" in inc or (not own and pathlib.PurePosixPath(inc).name in ref_names)):
                        continue
                    mine = shared.get(les.name[:2], set())
                    want = " or ".join(sorted(mine))
                    name = pathlib.PurePosixPath(inc).name
                    if top == "lessons" and f.suffix == ".hpp" and name in mine and target == ref_dir / name \
                            and inc == "../../reference/" + name:
                        continue
                    problems.append(f"{top}/{les.name}/{f.name}:{no}: includes {inc} of reference/: a lesson's "
                                    f"own files include only its shared header, from its interface header, by "
                                    f"its path (" + (want or f"lesson{les.name[:2]}_<topic>_shared.hpp")
                                    + ", as \"../../reference/NAME\"); the lesson program in driver/ may include any)")
    return problems


def compare(starter, solution, rel=lambda p: p):
    """Problems with one starter/solution pair; and the number of solution blocks."""
    a, pa = parse(starter, "starter")
    b, pb = parse(solution, "solution")
    problems = pa + pb
    if problems:
        return problems, sum(1 for _ in blocks(b))
    la, lb = _lines_outside(starter, "starter", a), _lines_outside(solution, "solution", b)
    for (na, ta), (nb, tb) in zip(la, lb):
        if ta != tb:
            if ta.startswith("<<block") and tb.startswith("<<block"):
                problems.append(f"{rel(starter)}:{na} and {rel(solution)}:{nb}: blocks {ta[8:-2]} (starter) and "
                                f"{tb[8:-2]} (solution) are in each other's place: mark the same ids in the same order")
            else:
                problems.append(f"{rel(starter)}:{na} and {rel(solution)}:{nb} differ "
                                f"outside the marked blocks:\n    starter:  {ta.strip()}\n    solution: {tb.strip()}")
            break
    else:
        if len(la) != len(lb):
            problems.append(f"{rel(starter)} and {rel(solution)}: "
                            f"one has {abs(len(la) - len(lb))} more unmarked lines at the end")
    if not problems:
        for sta, sol in top_pairs(a, b):
            problems += check_nesting(sta, sol, f"{rel(solution)}:{sol.line}")
    return problems, sum(1 for _ in blocks(b))


def _lines_outside(path, kind, nodes):
    """[(line_no, text)] of the top-level lines of @p path, each top-level
    block of @p nodes (its parse) as one placeholder line naming its ids."""
    out, depth = [], 0
    tops = iter([n for n in nodes if isinstance(n, Block)])
    for no, line in enumerate(path.read_text().splitlines(), 1):
        if START[kind].match(line):
            if depth == 0:
                out.append((no, f"<<block {next(tops).id}>>"))
            depth += 1
        elif END[kind].match(line) and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append((no, line))
    return out


def comment_only(block):
    """True when @p block holds nothing but comments and blank lines."""
    return all(isinstance(n, str) and (not n.strip() or n.strip().startswith("//")) for n in block.body)


def pair_nested(starter_block, solution_block):
    """Pairs the nested blocks of a solution block with the starter's.

    Returns ([(solution_nested, starter_nested, first)], problems). Nested
    blocks pair by id, in order. A starter may mark a nested id once, with
    instructions only (comments), where the solution marks it several times
    (lesson 4: `#pragma omp unroll full` on every tile loop): every one of
    those solution blocks then pairs with that one starter block, and `first`
    says which one takes its place when the step is undone (the others go).
    """
    def groups(block):
        g = {}
        for n in block.nested():
            g.setdefault(n.id, []).append(n)
        return g
    gs, gt = groups(starter_block), groups(solution_block)
    problems, out = [], []
    if list(gs) != list(gt):
        return out, [f"nested blocks {', '.join(gs) or 'none'} (starter) and {', '.join(gt) or 'none'} "
                     f"(solution) differ: nest the same ids in the same order"]
    for ident, sol in gt.items():
        sta = gs[ident]
        if len(sta) == len(sol):
            out += [(b, a, True) for a, b in zip(sta, sol)]
        elif len(sta) == 1 and comment_only(sta[0]) and not any(b.nested() for b in sol):
            out += [(b, sta[0], i == 0) for i, b in enumerate(sol)]
        else:
            problems.append(f"nested block {ident}: the starter marks it {len(sta)} times and the solution "
                            f"{len(sol)} times; mark it as often in both, or once in the starter with "
                            f"instructions only (comments)")
    return out, problems


def top_pairs(starter_nodes, solution_nodes):
    """The top-level blocks of a starter and its solution, paired in order."""
    a = [n for n in starter_nodes if isinstance(n, Block)]
    b = [n for n in solution_nodes if isinstance(n, Block)]
    return list(zip(a, b))


def check_nesting(starter_block, solution_block, where):
    pairs_, problems = pair_nested(starter_block, solution_block)
    problems = [f"{where}: block {solution_block.id}: {p}" for p in problems]
    for sol, sta, _ in pairs_:
        if sta.nested() or sol.nested():
            problems += check_nesting(sta, sol, where)
    return problems


def main():
    args = sys.argv[1:]
    only = "[0-9][0-9]"
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1] if i + 1 < len(args) else ""
        if not re.fullmatch(r"[0-9][0-9]", only):
            print("check_blocks: --only expects a two-digit lesson number, e.g. 03")
            return 2
        del args[i:i + 2]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    rel = lambda p: p.relative_to(root)
    problems, npairs, per_lesson = [], 0, {}
    lessons = {d.name for d in (root / "solutions").glob(only + "-*") if d.is_dir()}
    for name, starter, solution in pairs(root, only):
        per_lesson.setdefault(name, 0)
        if not starter.is_file():
            problems.append(f"solutions/{name}/{solution.name}: no lessons/{name}/{solution.name} "
                            f"(solutions hold only finished copies of starter files)")
            continue
        if starter.read_bytes() == solution.read_bytes():
            problems.append(f"{rel(solution)} is a byte copy of {rel(starter)}: keep one copy, in lessons/")
            continue
        npairs += 1
        p, n = compare(starter, solution, rel)
        problems += p
        per_lesson[name] += n
    for name in sorted(lessons):
        if per_lesson.get(name, 0) == 0:
            problems.append(f"solutions/{name}: no SOLUTION(...) block in any file")
    if npairs == 0:
        problems.append(f"no solutions/NN-*/ files found under {root}")
    problems += check_includes(root, only)
    for p in problems:
        print(p)
    print(f"check_blocks: {npairs} starter/solution pairs, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
