#!/usr/bin/env python3
"""Keeps the slide decks' code in step with the sources, and renders them with Marp.

A deck shows code by naming a marked region of a source file; the committed
Markdown carries that region right below the name, so the deck reads with its
code on a code-hosting site, in an editor and in Marp alike:

    <!-- code: lessons/05-team-local-matmul/matmul.cpp TODO(5.1) -->
    ```cpp
    ... the region, generated: never edit it by hand ...
    ```
    <!-- end code -->

Regions: TODO(id) / SOLUTION(id) quote the marked block whose ids include `id`
(see scripts/check_blocks.py), from its opening line to the line before its
END; TODO(id@k) / SOLUTION(id@k) the k-th such block, for a step that spans
several functions; SNIPPET(name) quotes the lines between `// SNIPPET(name)` and
`// END SNIPPET`, less the markers of blocks inside it (bare `// SOLUTION(id)`,
`// END SOLUTION` and the like). A new quote needs only the first line: --update fills in
the rest.

A lesson deck (slides/NN-topic.md) teaches without giving the answer away: it
may quote starters, headers, lesson programs and baselines, never solutions/,
and shows no SOLUTION block. The answers go in the lesson's walk-through,
slides/NN-topic-walkthrough.md, for after the exercise.

    usage: build-slides.py --update [DECK.md ...]   rewrite the quoted code in place
           build-slides.py --check  [DECK.md ...]   exit 1 on drift, a missing region or a spoiler
           build-slides.py --render OUT_DIR [--pdf] [--marp MARP] [--chrome PATH] [DECK.md ...]

Without deck names: every slides/NN-*.md. --render writes OUT_DIR/md/<deck>.md
(the deck with its quotes regenerated and the marker comments removed, which
Marp would otherwise show as presenter notes) and OUT_DIR/<deck>.html (+ .pdf).
"""
import difflib
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!--\s*code:\s*(\S+)\s+(SOLUTION|TODO|SNIPPET)\(([^)]*)\)\s*-->\s*$")
END_MARKER = "<!-- end code -->"
LANG = {".cpp": "cpp", ".hpp": "cpp", ".h": "cpp", ".cmake": "cmake", ".txt": "cmake", ".py": "python", ".sh": "bash"}
# A path into solutions/ (not build-solutions/, not "--preset solutions").
SOLUTIONS_PATH = re.compile(r"(?<![\w.-])solutions/")
SOLUTION_BLOCK = re.compile(r"//\s*(END )?SOLUTION\b")


def ids(text):
    return {i for i in re.split(r"[,\s]+", text.strip()) if i}


def region(path, kind, name):
    """The lines of the SNIPPET, or of the TODO/SOLUTION block of id @p name.
    Blocks may nest (scripts/check_blocks.py): the outer block's text keeps
    the nested blocks' code, their END lines and bare SOLUTION(id) lines go.
    A step with several blocks (one per function): `9.2@3` is its third."""
    skip = 0
    if kind != "SNIPPET" and "@" in name:
        name, nth = name.split("@", 1)
        if not nth.isdigit() or int(nth) < 1:
            return None
        skip = int(nth) - 1
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
                if skip:  # an earlier block of the same step: not this one
                    skip -= 1
                    continue
                depth = 1
                out = [line] if kind != "SNIPPET" else []
            continue
        if kind == "SNIPPET":
            if end.match(line):
                return out
            # Marker lines go, as in a block's quote: a snippet may cut a
            # block with nested blocks in two (a block's opener that explains
            # stays).
            if not re.match(r"^\s*//\s*((END )?SNIPPET|(TODO|SOLUTION)\([^)]*\)\s*$|END (TODO|SOLUTION)\b)", line):
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
    """Removes the region's common indent; pragmas (written at column 0 in
    indented code) do not count, and lose what indent they have."""
    indents = [len(l) - len(l.lstrip()) for l in lines if l.strip() and not l.lstrip().startswith("#")]
    cut = min(indents) if indents else 0
    return [l[min(cut, len(l) - len(l.lstrip())):] for l in lines]


def is_walkthrough(deck):
    return deck.stem.endswith("-walkthrough")


def regenerate(deck):
    """The deck as it should be committed: (lines, problems)."""
    name = deck.relative_to(ROOT) if deck.is_relative_to(ROOT) else deck
    lines = deck.read_text().splitlines()
    out, problems, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == END_MARKER:
            problems.append(f"{name}:{i + 1}: '{END_MARKER}' without a '<!-- code: ... -->' line above it")
            i += 1
            continue
        m = MARKER.match(line.strip())
        if not m:
            out.append(line)
            i += 1
            continue
        out.append(line)
        # Skip the quote committed below the marker: a fence up to END_MARKER,
        # looked for before the next marker. A marker without one is new.
        j = i + 1
        if j < len(lines) and lines[j].startswith("```"):
            for k in range(j, len(lines)):
                if lines[k].strip() == END_MARKER:
                    i = k
                    break
                if MARKER.match(lines[k].strip()):
                    break
        i += 1
        rel, kind, rname = m.group(1), m.group(2), m.group(3).strip()
        src = ROOT / rel
        if not is_walkthrough(deck) and (kind == "SOLUTION" or SOLUTIONS_PATH.match(rel)):
            problems.append(f"{name}:{len(out)}: a lesson deck quotes {rel} {kind}({rname}): "
                            f"answers go in slides/{deck.stem}-walkthrough.md")
        if not src.is_file():
            problems.append(f"{name}:{len(out)}: {rel} does not exist")
            continue
        body = region(src, kind, rname)
        if body is None:
            problems.append(f"{name}:{len(out)}: no {kind}({rname}) region in {rel}")
            continue
        out.append(f"```{LANG.get(src.suffix, '')}")
        out.extend(dedent(body))
        out.append("```")
        out.append(END_MARKER)
    if not is_walkthrough(deck):
        for no, text in enumerate(out, 1):
            if SOLUTIONS_PATH.search(text):
                problems.append(f"{name}:{no}: a lesson deck names solutions/ (the walk-through deck may): {text.strip()}")
            elif SOLUTION_BLOCK.search(text):
                problems.append(f"{name}:{no}: a lesson deck shows a SOLUTION block: {text.strip()}")
    return out, problems


def decks_from(args):
    decks = [pathlib.Path(a).resolve() for a in args] or sorted((ROOT / "slides").glob("[0-9][0-9]-*.md"))
    return [d for d in decks if d.name != "README.md"]


def for_marp(lines):
    """The deck Marp renders: quotes kept, marker comments dropped."""
    return [l for l in lines if not (MARKER.match(l.strip()) or l.strip() == END_MARKER)]


def main(argv):
    args = list(argv)
    modes = [a for a in args if a in ("--update", "--check", "--render")]
    if len(modes) != 1:
        print("usage: build-slides.py --update|--check [DECK.md ...]  or  "
              "build-slides.py --render OUT_DIR [--pdf] [--marp MARP] [--chrome PATH] [DECK.md ...]")
        return 2
    mode = modes[0]
    args.remove(mode)
    out_dir = marp = chrome = None
    pdf = "--pdf" in args
    args = [a for a in args if a != "--pdf"]
    for opt in ("--marp", "--chrome"):
        if opt in args:
            i = args.index(opt)
            if i + 1 >= len(args):
                print(f"build-slides: {opt} needs a value")
                return 2
            marp, chrome = (args[i + 1], chrome) if opt == "--marp" else (marp, args[i + 1])
            del args[i:i + 2]
    if mode == "--render":
        if not args:
            print("build-slides: --render needs OUT_DIR")
            return 2
        out_dir = pathlib.Path(args.pop(0))
    bad = [a for a in args if a.startswith("-")]
    if bad:
        print(f"build-slides: unknown option {bad[0]}")
        return 2
    decks = decks_from(args)
    if not decks:
        print("build-slides: no decks found")
        return 2

    problems, drifted, fresh = [], [], {}
    for deck in decks:
        if not deck.is_file():
            problems.append(f"{deck}: no such deck")
            continue
        lines, p = regenerate(deck)
        problems += p
        fresh[deck] = lines
        old = deck.read_text().splitlines()
        if lines != old:
            drifted.append(deck)
            if mode == "--update":
                deck.write_text("\n".join(lines) + "\n")
            elif mode == "--check":
                rel = deck.relative_to(ROOT) if deck.is_relative_to(ROOT) else deck
                diff = list(difflib.unified_diff(old, lines, f"{rel} (committed)", f"{rel} (from the sources)",
                                                 n=1, lineterm=""))
                print("\n".join(diff[:40]) + ("\n  ..." if len(diff) > 40 else ""))
    for p in problems:
        print(p)

    if mode == "--update":
        print(f"build-slides: {len(decks)} deck(s), {len(drifted)} rewritten"
              + ("".join(f"\n  {d.name}" for d in drifted)))
        return 1 if problems else 0
    if mode == "--check":
        if drifted:
            print(f"build-slides: {len(drifted)} deck(s) differ from the code they quote: "
                  f"{', '.join(d.name for d in drifted)}; run scripts/build-slides.py --update and commit")
        if problems or drifted:
            return 1
        print(f"build-slides: {len(decks)} deck(s) show exactly the code they quote")
        return 0

    # --render
    if problems:
        print(f"build-slides: {len(problems)} problem(s); not rendering")
        return 1
    if drifted:
        print(f"build-slides: note: rendering the sources' code; {len(drifted)} committed deck(s) are stale "
              f"(scripts/build-slides.py --update)")
    (out_dir / "md").mkdir(parents=True, exist_ok=True)
    for deck, lines in fresh.items():
        (out_dir / "md" / deck.name).write_text("\n".join(for_marp(lines)) + "\n")
    if not marp:
        print("build-slides: no marp given (run scripts/install-deps.sh --slides)")
        return 1
    browser = ["--browser-path", chrome] if chrome else []
    for deck in fresh:
        src = out_dir / "md" / deck.name
        html = out_dir / (deck.stem + ".html")
        cmd = [marp, "--html", "--allow-local-files", str(src), "-o", str(html)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"build-slides: marp failed on {deck.name}: {' '.join(cmd)}\n{r.stderr.strip()}")
            return 1
        if pdf and chrome:
            r = subprocess.run([marp, "--pdf", "--allow-local-files", *browser, str(src), "-o",
                                str(out_dir / (deck.stem + ".pdf"))], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"build-slides: PDF failed on {deck.name}: {r.stderr.strip().splitlines()[-1:]}")
                return 1
        print(f"  {deck.name} -> {html.name}" + (" + pdf" if pdf and chrome else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
