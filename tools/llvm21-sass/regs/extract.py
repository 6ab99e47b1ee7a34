#!/usr/bin/env python3
"""extract.py PROGRAM OUTDIR [REGEX]: writes every NVIDIA GPU image (a CUDA ELF, e_machine 190) found
inside PROGRAM (a course program: LLVM embeds its device image whole) to OUTDIR/image-N.cubin, and
prints one line per image: its path, then the names of its functions that match REGEX (default
'team_step|gemm_exact'), from the image's own symbol table. Exits 1 where PROGRAM holds no image."""
import os
import re
import struct
import sys


def functions(img):
    """Names of the FUNC symbols in a 64-bit little-endian ELF image."""
    shoff, = struct.unpack_from("<Q", img, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", img, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", img, shoff + i * shentsize) for i in range(shnum)]
    names = []
    for s in secs:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[s[6]]
        for k in range(s[5] // s[9]):
            st_name, st_info = struct.unpack_from("<IB", img, s[4] + k * s[9])
            if st_info & 0xF == 2:  # STT_FUNC
                end = img.index(b"\0", strtab[4] + st_name)
                names.append(img[strtab[4] + st_name:end].decode())
    return names


if len(sys.argv) not in (3, 4):
    sys.exit("usage: extract.py PROGRAM OUTDIR [REGEX]")
data = open(sys.argv[1], "rb").read()
pattern = re.compile(sys.argv[3] if len(sys.argv) == 4 else "team_step|gemm_exact")
os.makedirs(sys.argv[2], exist_ok=True)
found, at = 0, 1
while (at := data.find(b"\x7fELF", at)) > 0:
    if data[at + 4] == 2 and struct.unpack_from("<H", data, at + 18)[0] == 190:
        shoff, = struct.unpack_from("<Q", data, at + 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, at + 0x3A)
        img = data[at:at + shoff + shentsize * shnum]
        path = os.path.join(sys.argv[2], f"image-{found}.cubin")
        open(path, "wb").write(img)
        print(path, *sorted(n for n in functions(img) if pattern.search(n)))
        found += 1
    at += 4
if not found:
    sys.exit(f"extract.py: error: no NVIDIA GPU image in {sys.argv[1]}")
