#!/usr/bin/env python3
# norel.py IN OUT: drop the relocation sections (sh_type REL/RELA -> NULL) of a CUDA 13 sm_90 cubin,
# after patchelf13.py, so that CUDA 11.8's nvdisasm reads it: 11.8 does not know CUDA 13's relocation
# kinds (function addresses for the runtime's indirect-call compares). Those operands then read 0.
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28); shentsize, shnum = struct.unpack_from('<HH', b, 0x3a)
for i in range(shnum):
    o = shoff + i * shentsize
    if struct.unpack_from('<I', b, o + 4)[0] in (4, 9): struct.pack_into('<I', b, o + 4, 0)
open(sys.argv[2], 'wb').write(b)
