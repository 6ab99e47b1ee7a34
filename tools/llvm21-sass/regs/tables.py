#!/usr/bin/env python3
"""tables.py IMAGE.cubin [REGEX]: what a CUDA GPU image (extract.py's output) tells the driver, read
without CUDA tools (CUDA 11.8's cuobjdump cannot read CUDA 13's cubins).
  - the ELF header: type (EXEC: linked, nothing left for the driver to link), e_flags, ABI version;
  - the tools that made it (.note.nv.tkinfo);
  - which EIATTR kinds the .nv.info sections hold, with counts (to set two images side by side);
  - for each function matching REGEX (default: all): registers (EIATTR_REGCOUNT), frame, stack,
    named barriers, the register cap (MAXREG_COUNT), launch bounds, and its calls (.nv.callgraph).
Why: ncu read 255 registers for every LLVM 21 lesson 11 kernel; this shows what the image itself says,
and whether lesson 11's image holds anything lesson 6's does not (indirect calls, externs, a
relocatable object, a register cap)."""
import collections
import re
import struct
import sys

# EIATTR codes (the .nv.info attribute kinds) this tool names; others print as hex.
EIATTR = {0x05: "MAX_THREADS", 0x0A: "PARAM_CBANK", 0x0F: "EXTERNS", 0x10: "REQNTID", 0x11: "FRAME_SIZE",
          0x12: "MIN_STACK_SIZE", 0x17: "KPARAM_INFO", 0x19: "CBANK_PARAM_SIZE", 0x1B: "MAXREG_COUNT",
          0x1C: "EXIT_INSTR_OFFSETS", 0x1E: "CRS_STACK_SIZE", 0x23: "MAX_STACK_SIZE",
          0x28: "COOP_GROUP_INSTR_OFFSETS", 0x29: "COOP_GROUP_MASK_REGIDS", 0x2F: "REGCOUNT",
          0x31: "INT_WARP_WIDE_INSTR_OFFSETS", 0x34: "INDIRECT_BRANCH_TARGETS", 0x36: "SW_WAR",
          0x37: "CUDA_API_VERSION", 0x38: "NUM_MBARRIERS", 0x4C: "NUM_BARRIERS", 0x50: "SPARSE_MMA_MASK",
          0x54: "REG_RECONFIG", 0x5F: "MERCURY_ISA_VERSION"}
# Attributes of the global .nv.info that are (symbol index, value) pairs.
PER_FUNCTION = {0x11, 0x12, 0x23, 0x2F}


def name_of(code):
    return EIATTR.get(code, f"0x{code:02x}")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: tables.py IMAGE.cubin [REGEX]")
    img = open(sys.argv[1], "rb").read()
    pattern = re.compile(sys.argv[2] if len(sys.argv) == 3 else ".")
    if img[:4] != b"\x7fELF" or struct.unpack_from("<H", img, 18)[0] != 190:
        sys.exit(f"tables.py: error: {sys.argv[1]} is not a CUDA ELF image")
    e_type, = struct.unpack_from("<H", img, 16)
    e_flags, = struct.unpack_from("<I", img, 0x30)
    shoff, = struct.unpack_from("<Q", img, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", img, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", img, shoff + i * shentsize) for i in range(shnum)]

    def cstr(off):
        return img[off:img.index(b"\0", off)].decode(errors="replace")

    secname = [cstr(secs[shstrndx][4] + s[0]) for s in secs]
    syms = []
    for s in secs:
        if s[1] == 2:  # SHT_SYMTAB
            for k in range(s[5] // s[9]):
                st_name, = struct.unpack_from("<I", img, s[4] + k * s[9])
                syms.append(cstr(secs[s[6]][4] + st_name))
    print(f"{sys.argv[1]}: ELF type {dict([(1, 'REL'), (2, 'EXEC')]).get(e_type, e_type)}, "
          f"e_flags {e_flags:#x}, OS/ABI {img[7]:#x}, ABI version {img[8]}, {shnum} sections, {len(syms)} symbols")
    for i, s in enumerate(secs):
        if secname[i] == ".note.nv.tkinfo":
            words = [w.decode(errors="replace") for w in img[s[4]:s[4] + s[5]].split(b"\0")]
            print("  tools:", " | ".join(w for w in words if len(w) > 3 and w.isprintable()))
    kinds, per_fn = collections.Counter(), collections.defaultdict(dict)
    for i, s in enumerate(secs):
        if not secname[i].startswith(".nv.info"):
            continue
        fn = secname[i][len(".nv.info."):] if secname[i] != ".nv.info" else None
        data, p = img[s[4]:s[4] + s[5]], 0
        while p + 4 <= len(data):
            fmt, code = data[p], data[p + 1]
            if fmt == 4:  # EIFMT_SVAL: u16 size, then the value
                size, = struct.unpack_from("<H", data, p + 2)
                value, p = data[p + 4:p + 4 + size], p + 4 + size
            else:  # NVAL, BVAL, HVAL: the value in the next two bytes
                value, p = data[p + 2:p + 4], p + 4
            kinds[name_of(code)] += 1
            if fn is None and code in PER_FUNCTION and len(value) == 8:
                idx, v = struct.unpack("<II", value)
                per_fn[syms[idx]][name_of(code)] = v
            elif fn is not None and code in (0x1B, 0x4C, 0x1E, 0x19):
                per_fn[fn][name_of(code)] = struct.unpack("<H", value[:2])[0] if fmt != 4 else \
                    struct.unpack("<I", value[:4])[0]
            elif fn is not None and code in (0x05, 0x10) and len(value) == 12:
                per_fn[fn][name_of(code)] = "x".join(map(str, struct.unpack("<III", value)))
            elif fn is not None and code in (0x0F, 0x34, 0x54):
                per_fn[fn][name_of(code)] = len(value) // 4
    print("  EIATTR kinds (count):", ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    calls = collections.defaultdict(list)
    for i, s in enumerate(secs):
        if secname[i] == ".nv.callgraph":
            words = struct.unpack(f"<{s[5] // 4}i", img[s[4]:s[4] + s[5]])
            part = None
            for a, b in zip(words[0::2], words[1::2]):
                if a == 0 and b < 0:  # section markers: -1 calls, -4 functions whose address is taken
                    part = b
                elif part in (-1, -4) and 0 <= b < len(syms):
                    calls[syms[a]].append(("" if part == -1 else "&") + syms[b])
    relocs = {secname[i][len(".rela.text."):]: s[5] // 24 for i, s in enumerate(secs)
              if secname[i].startswith(".rela.text.")}
    short = lambda n: re.sub(r"^__omp_offloading_[0-9a-f]+_[0-9a-f]+_", "", n)
    for fn in sorted(per_fn):
        if not pattern.search(fn):
            continue
        a = per_fn[fn]
        fields = " ".join(f"{k}={v}" for k, v in sorted(a.items()))
        extra = (f" calls={','.join(short(c)[:40] for c in calls[fn])}" if calls[fn] else "") + \
                (f" text_relocs={relocs[fn]}" if fn in relocs else "")
        print(f"  {short(fn)[:100]}\n      {fields}{extra}")


main()
