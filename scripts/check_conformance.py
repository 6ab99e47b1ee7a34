#!/usr/bin/env python3
"""Checks that the solutions are conforming OpenMP, not clang's dialect of it.

Clang accepts some forms as extensions (an `atomic` directly inside `teams`,
`ompx_*` clauses and attributes); other compilers (GCC, flang, vendors'
clangs with the extensions off) reject them. Each solution is compiled, as
the build compiles it, with `-fno-openmp-extensions -fsyntax-only`; and,
since clang 19 still accepts `ompx_attribute` with that flag, its text is
searched for `ompx_`. An LLVM-only form a lesson teaches on purpose is
declared below with its reason, and the lesson labels it "LLVM" where it
teaches it.

    usage: check_conformance.py REPO_ROOT BUILD_DIR   (BUILD_DIR: a solutions build with compile_commands.json)
"""
import json
import pathlib
import re
import shlex
import subprocess
import sys

# "solutions/NN-topic/file.cpp": "why this LLVM-only form is taught on purpose".
DECLARED = {
    "solutions/13-device-code/particles.cpp": "step 13.3 teaches LLVM's ompx_dyn_cgroup_mem (run-time team-local memory), labelled as LLVM's; OpenMP 6.0's groupprivate is not in clang 19",
}


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    root, build = pathlib.Path(argv[0]).resolve(), pathlib.Path(argv[1]).resolve()
    db = build / "compile_commands.json"
    if not db.is_file():
        print(f"check_conformance: error: {db} is missing (configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)",
              file=sys.stderr)
        return 2
    commands = {}
    for e in json.loads(db.read_text()):
        commands.setdefault(str(pathlib.Path(e["directory"], e["file"]).resolve()), e)
    problems, checked = [], 0
    for src in sorted((root / "solutions").glob("[0-9][0-9]-*/*.cpp")):
        rel = str(src.relative_to(root))
        e = commands.get(str(src))
        if e is None:
            problems.append(f"{rel}: not in {db.name} (is this a solutions build?)")
            continue
        args = e.get("arguments") or shlex.split(e["command"])
        out = []
        skip = False
        for a in args:  # drop the output file and -c: only the front end runs
            if skip:
                skip = False
            elif a == "-o":
                skip = True
            elif a != "-c" and a != str(src) and a != e["file"]:
                out.append(a)
        run = subprocess.run(out + ["-fno-openmp-extensions", "-fsyntax-only", str(src)], cwd=e["directory"],
                             capture_output=True, text=True)
        checked += 1
        if run.returncode != 0:
            errors = [l for l in run.stderr.splitlines() if "error:" in l][:3]
            problems.append(f"{rel}: not conforming OpenMP (-fno-openmp-extensions): " + " | ".join(errors))
        for n, line in enumerate(src.read_text().splitlines(), 1):
            if re.search(r"\bompx_", line) and rel not in DECLARED:
                problems.append(f"{rel}:{n}: uses an LLVM extension (ompx_) that is not declared in "
                                f"scripts/check_conformance.py: {line.strip()}")
    for rel, why in DECLARED.items():
        print(f"declared LLVM-only: {rel}: {why}")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"check_conformance: {checked} solutions compile as conforming OpenMP (-fno-openmp-extensions)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
