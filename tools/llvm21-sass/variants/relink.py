#!/usr/bin/env python3
"""relink.py SRC VARIANT OUT BUILD < `ninja -C BUILD -t commands lessons/11-matching-the-vendor/lesson11`

Prints the two shell commands that build lesson 11's program again with the solution's gemm.cpp
taken from the tree VARIANT instead of SRC (the build's own source tree): its compile, with
VARIANT's include folders and the object in OUT/gemm.o, and the program's link with that object,
to OUT/lesson11. Every other object is the build's own (BUILD/...). Run them in OUT (a link with
-save-temps leaves its files in the folder it runs in). Exits 1
with a one-line error where either command is missing from ninja's list."""
import re
import shlex
import sys

if len(sys.argv) != 5:
    sys.exit("usage: relink.py SRC VARIANT OUT BUILD < ninja-commands")
src, var, out, build = (a.rstrip("/") for a in sys.argv[1:])
gemm = "/solutions/11-matching-the-vendor/gemm.cpp"
lines = sys.stdin.read().splitlines()
comp = [l for l in lines if re.search(r"\s-c\s+" + re.escape(src + gemm) + r"(\s|$)", l)]
link = [l for l in lines if re.search(r"\s-o\s+lessons/11-matching-the-vendor/lesson11(\s|$)", l)]
if len(comp) != 1 or len(link) != 1:
    sys.exit(f"relink.py: error: found {len(comp)} compile(s) of {src + gemm} and {len(link)} link(s) of lesson11 (want one each)")

c = shlex.split(comp[0])
obj = c[c.index("-o") + 1]
res, skip = [], 0
for a in c:
    if skip:
        skip -= 1
        continue
    if a in ("-MT", "-MF"):  # dependency file options: not wanted here
        skip = 1
        continue
    if a == "-MD":
        continue
    a = a.replace(src + gemm, var + gemm)
    for d in ("/lessons/11-matching-the-vendor", "/common/include"):
        if a == "-I" + src + d:
            a = "-I" + var + d
    res.append(a)
res[res.index("-o") + 1] = out + "/gemm.o"
print(shlex.join(res))

l = link[0].lstrip(": &").rstrip("& :")
l = l.split(" && :")[0]
args = shlex.split(l)
# Newer CMake adds "-Xlinker --dependency-file=PATH" (relative to the build folder): not wanted here.
for k in [k for k, a in enumerate(args) if a.startswith("--dependency-file=")][::-1]:
    del args[k - 1 if k > 0 and args[k - 1] == "-Xlinker" else k:k + 1]
ln = [out + "/gemm.o" if a == obj else build + "/" + a if a.endswith(".o") and not a.startswith("/") else a
      for a in args]
if out + "/gemm.o" not in ln:
    sys.exit(f"relink.py: error: the link of lesson11 does not take {obj}")
ln[ln.index("-o") + 1] = out + "/lesson11"
print(shlex.join(ln))
