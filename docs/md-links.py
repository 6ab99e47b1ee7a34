#!/usr/bin/env python3
"""Doxygen input filter for Markdown pages (docs/Doxyfile.in, FILTER_PATTERNS).

The READMEs link to files on GitHub terms: slides, sources, other results.
Doxygen turns every link to a .md file into a page reference and fails
(warnings are errors) when that page is not part of the docs. This filter
keeps links to pages that are in the docs and writes the others, and images,
as the path in code font, so the same Markdown reads well in both places.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = {p.resolve() for pat in ("lessons/[0-9][0-9]-*/README.md", "docs/results/*.md", "docs/DEVELOPING.md",
                                 "docs/mainpage.md") for p in ROOT.glob(pat)}
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def fix(match, here):
    bang, text, target = match.groups()
    if re.match(r"^[a-z]+://|^#|^mailto:", target):
        return match.group(0)
    path = (here / target.split("#")[0]).resolve()
    if not bang and path.suffix == ".md" and path in PAGES:
        return match.group(0)
    if not bang and path.suffix != ".md":
        return match.group(0)  # a source file or folder: Doxygen leaves it a plain link
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else target
    return f"{text} (`{rel}`)" if text else f"`{rel}`"


def main():
    src = pathlib.Path(sys.argv[1])
    text = src.read_text()
    sys.stdout.write(LINK.sub(lambda m: fix(m, src.resolve().parent), text))


if __name__ == "__main__":
    main()
