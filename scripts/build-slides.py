#!/usr/bin/env python3
"""Builds the slide decks: quotes code from the sources, then renders with Marp.

A deck never pastes code. It names a marked region of a source file on a line
of its own, and this script replaces that line with the region as a fenced
code block:

    <!-- code: solutions/01-cpu-baseline/matmul.cpp SOLUTION(1.1) -->
    <!-- code: lessons/01-cpu-baseline/matmul.cpp TODO(1.1) -->
    <!-- code: lessons/02-target-offload/main.cpp SNIPPET(timing) -->

SOLUTION(id) / TODO(id) quote the block (see scripts/check-blocks.py) whose
ids include `id`; SNIPPET(name) quotes the lines between `// SNIPPET(name)`
and `// END SNIPPET`. Marker lines themselves are left out. A directive whose
file or region is missing is an error: the deck cannot drift from the code.

    usage: build-slides.py OUT_DIR [--check] [--pdf] [--marp MARP] [--chrome PATH] [DECK.md ...]

--check expands only (no rendering). Without deck names, every slides/*.md.
Writes OUT_DIR/md/<deck>.md (expanded) and OUT_DIR/<deck>.html (+ .pdf).
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DIRECTIVE = re.compile(r"^<!--\s*code:\s*(\S+)\s+(SOLUTION|TODO|SNIPPET)\(([^)]*)\)\s*-->\s*$")
LANG = {".cpp": "cpp", ".hpp": "cpp", ".h": "cpp", ".cmake": "cmake", ".txt": "cmake", ".py": "python", ".sh": "bash"}


def ids(text):
    return {i for i in re.split(r"[,\s]+", text.strip()) if i}


def region(path, kind, name):
    """The lines of the SNIPPET, or of the TODO/SOLUTION block of id @p name.
    Blocks may nest (scripts/check-blocks.py): the outer block's text keeps
    the nested blocks' code, their END lines and bare SOLUTION(id) lines go."""
    lines = path.read_text().splitlines()
    if kind == "SNIPPET":
        start = re.compile(r"^\s*//\s*SNIPPET\(" + re.escape(name) + r"\)")
        end = re.compile(r"^\s*//\s*END SNIPPET\b")
    else:
        start = re.compile(r"^\s*//\s*" + kind + r"\(([^)]*)\)(.*)$")
        end = re.compile(r"^\s*//\s*END " + kind + r"\b")
    out, depth = [], 0
    for line in lines:
        if depth == 0:
            m = start.match(line)
            if m and (kind == "SNIPPET" or name in ids(m.group(1))):
                depth = 1
                out = [line] if kind != "SNIPPET" else []
            continue
        if kind == "SNIPPET":
            if end.match(line):
                return out
            if not re.match(r"^\s*//\s*(END )?SNIPPET", line):
                out.append(line)
            continue
        m = start.match(line)
        if m:
            depth += 1
            if m.group(2).strip():  # a nested block's explanation stays
                out.append(line)
        elif end.match(line):
            depth -= 1
            if depth == 0:
                return out
        else:
            out.append(line)
    return None


def dedent(lines):
    indents = [len(l) - len(l.lstrip()) for l in lines if l.strip()]
    cut = min(indents) if indents else 0
    return [l[cut:] for l in lines]


def expand(deck):
    out, problems = [], []
    for no, line in enumerate(deck.read_text().splitlines(), 1):
        m = DIRECTIVE.match(line.strip())
        if not m:
            out.append(line)
            continue
        rel, kind, name = m.group(1), m.group(2), m.group(3).strip()
        src = ROOT / rel
        if not src.is_file():
            problems.append(f"{deck.relative_to(ROOT)}:{no}: {rel} does not exist")
            continue
        body = region(src, kind, name)
        if body is None:
            problems.append(f"{deck.relative_to(ROOT)}:{no}: no {kind}({name}) region in {rel}")
            continue
        out.append(f"```{LANG.get(src.suffix, '')}")
        out.extend(dedent(body))
        out.append("```")
    return "\n".join(out) + "\n", problems


def main(argv):
    args = list(argv)
    if not args or args[0].startswith("-"):
        print(__doc__.strip().splitlines()[-6])
        return 2
    out_dir = pathlib.Path(args.pop(0))
    check = "--check" in args
    pdf = "--pdf" in args
    args = [a for a in args if a not in ("--check", "--pdf")]
    marp = chrome = None
    for opt in ("--marp", "--chrome"):
        if opt in args:
            i = args.index(opt)
            if i + 1 >= len(args):
                print(f"build-slides: {opt} needs a value")
                return 2
            if opt == "--marp":
                marp = args[i + 1]
            else:
                chrome = args[i + 1]
            del args[i:i + 2]
    decks = [pathlib.Path(a).resolve() for a in args] or sorted((ROOT / "slides").glob("*.md"))
    decks = [d for d in decks if d.name != "README.md"]
    if not decks:
        print("build-slides: no decks found")
        return 2
    (out_dir / "md").mkdir(parents=True, exist_ok=True)
    problems = []
    for deck in decks:
        if not deck.is_file():
            problems.append(f"{deck}: no such deck")
            continue
        text, p = expand(deck)
        problems += p
        (out_dir / "md" / deck.name).write_text(text)
    for p in problems:
        print(p)
    if problems:
        print(f"build-slides: {len(problems)} missing code region(s)")
        return 1
    print(f"build-slides: {len(decks)} deck(s) expanded into {out_dir / 'md'}")
    if check:
        return 0
    if not marp:
        print("build-slides: no marp given (run scripts/install-deps.sh --slides)")
        return 1
    env_chrome = ["--browser-path", chrome] if chrome else []
    for deck in decks:
        src = out_dir / "md" / deck.name
        html = out_dir / (deck.stem + ".html")
        cmd = [marp, "--html", "--allow-local-files", str(src), "-o", str(html)]
        if subprocess.run(cmd, capture_output=True, text=True).returncode != 0:
            print(f"build-slides: marp failed on {deck.name}: {' '.join(cmd)}")
            return 1
        if pdf and chrome:
            r = subprocess.run([marp, "--pdf", "--allow-local-files", *env_chrome, str(src), "-o",
                                str(out_dir / (deck.stem + ".pdf"))], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"build-slides: PDF failed on {deck.name}: {r.stderr.strip().splitlines()[-1:]}")
                return 1
        print(f"  {deck.name} -> {html.name}" + (" + pdf" if pdf and chrome else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
