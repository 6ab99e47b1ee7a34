#!/usr/bin/env python3
"""extract.py PROGRAM OUTDIR [REGEX]: writes every NVIDIA GPU image (a CUDA ELF, e_machine 190) found
inside PROGRAM (a course program: LLVM embeds its device image whole) to OUTDIR/image-N.cubin, and
prints one line per image: its path, then the names of its functions that match REGEX (default
'team_step|gemm_exact'), from the image's own symbol table. Exits 1 where PROGRAM holds no image.

The images come from the program's .llvm.offloading section (LLVM's offload binaries, each giving
its image's exact size). Where a program has none, the file is scanned for CUDA ELF headers and each
image is cut at the end of whatever it holds last. CUDA 13's cubins put the program header table
after the section header table: a cut at the section headers drops it, and the driver (which gets a
pointer, not a size) would then read past the copy."""
import os
import re
import struct
import sys

MACHINE_CUDA = 190
OFFLOAD_MAGIC = b"\x10\xff\x10\xad"


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


def is_cuda_elf(data, at):
    return (data[at:at + 4] == b"\x7fELF" and data[at + 4] == 2
            and struct.unpack_from("<H", data, at + 18)[0] == MACHINE_CUDA)


def elf_end(data, at):
    """Offset (from at) just past the last thing the ELF at `at` holds: section contents, section
    header table, program header table."""
    phoff, shoff = struct.unpack_from("<QQ", data, at + 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, at + 0x36)
    end = max(shoff + shentsize * shnum, phoff + phentsize * phnum)
    for i in range(shnum):
        _, sh_type, _, _, off, size = struct.unpack_from("<IIQQQQ", data, at + shoff + i * shentsize)
        if sh_type != 8:  # SHT_NOBITS occupies no bytes in the file
            end = max(end, off + size)
    return end


def offloading_section(data):
    """The bytes of the host ELF's .llvm.offloading section, or None."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff == 0 or shnum == 0:
        return None
    secs = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = secs[shstrndx][4]
    for s in secs:
        if data[names + s[0]:data.index(b"\0", names + s[0])] == b".llvm.offloading":
            return data[s[4]:s[4] + s[5]]
    return None


def offload_images(sec):
    """The CUDA ELF images of the offload binaries in an .llvm.offloading section (llvm/Object/
    OffloadBinary.h: header magic, version, size, entry offset, entry size; the entry: image kind,
    offload kind, flags, string table offset and count, image offset and size)."""
    images, pos = [], 0
    while pos + 32 <= len(sec):
        if sec[pos:pos + 4] != OFFLOAD_MAGIC:
            pos += 8  # the binaries are 8-byte aligned
            continue
        _, size, entry, _ = struct.unpack_from("<IQQQ", sec, pos + 4)
        _, _, _, _, _, ioff, isize = struct.unpack_from("<HHIQQQQ", sec, pos + entry)
        img = sec[pos + ioff:pos + ioff + isize]
        if is_cuda_elf(img, 0):
            images.append(img)
        pos += max(8, (size + 7) // 8 * 8)
    return images


def scanned_images(data):
    images, at = [], 0
    while (at := data.find(b"\x7fELF", at)) >= 0:
        if is_cuda_elf(data, at):
            images.append(data[at:at + elf_end(data, at)])
        at += 4
    return images


if len(sys.argv) not in (3, 4):
    sys.exit("usage: extract.py PROGRAM OUTDIR [REGEX]")
data = open(sys.argv[1], "rb").read()
pattern = re.compile(sys.argv[3] if len(sys.argv) == 4 else "team_step|gemm_exact")
sec = offloading_section(data)
images = offload_images(sec) if sec is not None else []
if not images:
    images = scanned_images(data)
if not images:
    sys.exit(f"extract.py: error: no NVIDIA GPU image in {sys.argv[1]}")
os.makedirs(sys.argv[2], exist_ok=True)
for n, img in enumerate(images):
    path = os.path.join(sys.argv[2], f"image-{n}.cubin")
    open(path, "wb").write(img)
    print(path, *sorted(f for f in functions(img) if pattern.search(f)))
