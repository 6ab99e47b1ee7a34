#!/usr/bin/env python3
"""Writes one mutant of a lesson's solution per step: the solution with that
one step put back to its starter text.

For every TODO id of lessons/<FOLDER> it writes OUT_DIR/<id>/<file> for each
file of solutions/<FOLDER>: the finished file with every block of that id
(the outer block and what it holds, where blocks nest) replaced by the
starter's block. The `steps` CTest tests (cmake/CourseSteps.cmake) build the
lesson's tests against each mutant and pass only when some test fails: a
step that no test notices would let a student skip it.

Files are rewritten only when their text changes, so a rebuild recompiles
only what changed. OUT_DIR/steps.cmake lists the ids for CMake.
The block parser is scripts/check_blocks.py's (imported, not copied).

    usage: make_steps.py REPO_ROOT FOLDER OUT_DIR     (FOLDER e.g. 01-cpu-baseline)
"""
import pathlib
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_blocks as blocks  # noqa: E402


def undo(starter_nodes, solution_nodes, step):
    """The solution's lines with every block of id @p step put back to the starter's."""
    out = []
    pairs = dict((id(b), a) for a, b in blocks.top_pairs(starter_nodes, solution_nodes))
    for n in solution_nodes:
        if isinstance(n, blocks.Block):
            out += _undo_block(pairs[id(n)], n, step, True)
        else:
            out.append(n)
    return out


def _undo_block(sta, sol, step, first):
    if sol.id == step:
        return sta.render() if first else []
    nested, problems = blocks.pair_nested(sta, sol)
    assert not problems, problems  # check_blocks' rules hold (checked before)
    partner = {id(b): (a, f) for b, a, f in nested}
    out = [sol.start]
    for n in sol.body:
        if isinstance(n, blocks.Block):
            a, f = partner[id(n)]
            out += _undo_block(a, n, step, f)
        else:
            out.append(n)
    return out + [sol.end]


def write_if_changed(path, text):
    if path.is_file() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1].strip())
        return 2
    root, folder, out = pathlib.Path(argv[0]), argv[1], pathlib.Path(argv[2])
    files, problems, steps = [], [], []
    rel = lambda p: p.relative_to(root)
    for name, starter, solution in blocks.pairs(root, folder[:2]):
        if name != folder:
            continue
        if not starter.is_file():
            problems.append(f"{rel(solution)}: no starter {rel(starter)}")
            continue
        p, _ = blocks.compare(starter, solution, rel)
        problems += p
        a, pa = blocks.parse(starter, "starter")
        b, pb = blocks.parse(solution, "solution")
        files.append((solution.name, a, b))
        for blk in blocks.blocks(b):
            if blk.id not in steps:
                steps.append(blk.id)
    if problems:
        print("\n".join(problems))
        print(f"make_steps: {folder}: the starter and solution blocks disagree (scripts/check_blocks.py)")
        return 1
    steps.sort(key=lambda i: [int(x) if x.isdigit() else x for x in i.split(".")])
    for step in steps:
        for name, a, b in files:
            write_if_changed(out / step / name, "\n".join(undo(a, b, step)) + "\n")
    write_if_changed(out / "steps.cmake", "# written by scripts/make_steps.py\nset(COURSE_STEP_IDS " +
                     " ".join(steps) + ")\nset(COURSE_STEP_FILES " + " ".join(n for n, _, _ in files) + ")\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
