#!/usr/bin/env python3
# patchelf13.py IN OUT: give a CUDA 13 sm_90 cubin CUDA 11.8's ELF header (OS/ABI, ABI version, e_version, e_flags) so that nvdisasm 11.8 reads it
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[7] = 0x33; b[8] = 7; b[0x14:0x18] = (0x76).to_bytes(4, 'little'); b[0x30:0x34] = bytes([0x5a, 0x05, 0x5a, 0x00])
open(sys.argv[2], 'wb').write(b)
