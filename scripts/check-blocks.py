#!/usr/bin/env python3
"""Checks that every starter and its solution differ only inside marked blocks.

A starter (lessons/NN-topic/FILE) marks what the student changes:

    // TODO(3.1): what to do ...        (more TODO(...) lines may follow)
    ... starter code ...
    // END TODO

and the solution (solutions/NN-topic/FILE) the same places:

    // SOLUTION(3.1): what was done
    ... finished code ...
    // END SOLUTION

solutions/NN-topic holds only the files a student edits; each has its
starter under lessons/NN-topic and is no byte copy of it. Outside the blocks
each pair must be identical line for line, and the blocks must carry the same
ids in the same order. Exit status 0 when all
pairs agree, 1 with one line per problem otherwise.

    usage: check-blocks.py [REPO_ROOT] [--only NN]   (NN: a lesson folder prefix, e.g. 03)
"""
import pathlib
import re
import sys

START = {"starter": re.compile(r"^\s*// TODO\(([^)]*)\)"), "solution": re.compile(r"^\s*// SOLUTION\(([^)]*)\)")}
CONTINUE = {"starter": START["starter"], "solution": re.compile(r"(?!)")}  # (?!) never matches
END = {"starter": re.compile(r"^\s*// END TODO\b"), "solution": re.compile(r"^\s*// END SOLUTION\b")}


def ids(text):
    return [i for i in re.split(r"[,\s]+", text.strip()) if i]


def skeleton(path, kind):
    """The file with each block replaced by one placeholder line: [(line_no, text)]."""
    out, block, problems = [], None, []
    for no, line in enumerate(path.read_text().splitlines(), 1):
        if block is None:
            m = START[kind].match(line)
            if m:
                block = {"ids": ids(m.group(1)), "line": no}
            elif END[kind].match(line):
                problems.append(f"{path}:{no}: END without a block start")
            else:
                out.append((no, line))
        else:
            m = CONTINUE[kind].match(line)
            if m:
                block["ids"] += ids(m.group(1))
            elif END[kind].match(line):
                out.append((block["line"], "<<block " + ",".join(sorted(set(block["ids"]))) + ">>"))
                block = None
            elif START[kind].match(line):
                problems.append(f"{path}:{no}: a block starts inside the block opened on line {block['line']}")
    if block is not None:
        problems.append(f"{path}:{block['line']}: block {','.join(block['ids'])} has no END line")
    return out, problems


def main():
    args = sys.argv[1:]
    only = "[0-9][0-9]"
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1] if i + 1 < len(args) else ""
        if not re.fullmatch(r"[0-9][0-9]", only):
            print("check-blocks: --only expects a two-digit lesson number, e.g. 03")
            return 2
        del args[i:i + 2]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    problems, pairs = [], 0
    for sol_dir in sorted((root / "solutions").glob(only + "-*")):
        les_dir = root / "lessons" / sol_dir.name
        names = lambda d: {f.name for f in d.iterdir() if f.is_file()} if d.is_dir() else set()
        sol_names, les_names = names(sol_dir), names(les_dir)
        for missing in sorted(sol_names - les_names):
            problems.append(f"solutions/{sol_dir.name}/{missing}: no lessons/{sol_dir.name}/{missing} (solutions hold only finished copies of starter files)")
        blocks = 0
        for name in sorted(sol_names & les_names):
            starter, solution = les_dir / name, sol_dir / name
            if starter.read_bytes() == solution.read_bytes():
                problems.append(f"{solution.relative_to(root)} is a byte copy of {starter.relative_to(root)}: keep one copy, in lessons/")
                continue
            pairs += 1
            a, pa = skeleton(starter, "starter")
            b, pb = skeleton(solution, "solution")
            problems += pa + pb
            blocks += sum(t.startswith("<<block") for _, t in b)
            for (na, ta), (nb, tb) in zip(a, b):
                if ta != tb:
                    problems.append(f"{starter.relative_to(root)}:{na} and {solution.relative_to(root)}:{nb} differ "
                                    f"outside the marked blocks:\n    starter:  {ta.strip()}\n    solution: {tb.strip()}")
                    break
            else:
                if len(a) != len(b):
                    problems.append(f"{starter.relative_to(root)} and {solution.relative_to(root)}: "
                                    f"one has {abs(len(a) - len(b))} more unmarked lines at the end")
        if blocks == 0:
            problems.append(f"solutions/{sol_dir.name}: no SOLUTION(...) block in any file")
    if pairs == 0:
        problems.append(f"no solutions/NN-*/ files found under {root}")
    for p in problems:
        print(p)
    print(f"check-blocks: {pairs} starter/solution pairs, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
