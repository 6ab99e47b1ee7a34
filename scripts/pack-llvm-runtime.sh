#!/usr/bin/env bash
# Packs the LLVM OpenMP offload runtime into one archive, so that programs
# built here run on a GPU node that has the NVIDIA driver but no LLVM:
# libomptarget (and its plugins, where this LLVM keeps them apart), libomp,
# libLLVM, and the libraries they need that a stock CUDA image lacks.
#
#   scripts/pack-llvm-runtime.sh [--llvm-libdir DIR] [--with-libc] OUT.tar.xz
#     --llvm-libdir DIR   the LLVM lib folder (default: that of the clang
#                         recorded by scripts/install-deps.sh, else the newest clang++-NN)
#     --with-libc         also pack this system's C runtime (ld-linux, libc,
#                         libm, libstdc++, libgcc_s): for builds made on a newer
#                         system than the node (Debian 13's glibc 2.41 on an
#                         Ubuntu 24.04 node with 2.39). scripts/gpu-node.sh
#                         then starts programs through the packed ld-linux.
#
# On the GPU node:  scripts/gpu-node.sh OUT.tar.xz PROGRAM [ARGS...]
#
# libomp.so is packed as a link to libomp.so.5, not a copy: LLVM's runtime
# dlopens "libomp.so" to connect OMPT tools, and two copies of libomp in one
# process abort ("OMP: Error #15").
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "pack-llvm-runtime: error: $*" >&2; exit 2; }
libdir=""
with_libc=0
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --llvm-libdir) [ $# -ge 2 ] || die "--llvm-libdir needs a folder"; libdir=$2; shift ;;
    --with-libc) with_libc=1 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) [ -z "$out" ] || die "one output file only"; out=$1 ;;
  esac
  shift
done
[ -n "$out" ] || die "usage: pack-llvm-runtime.sh [--llvm-libdir DIR] [--with-libc] OUT.tar.xz"
case "$out" in *.tar.xz) ;; *) die "the output must end in .tar.xz, got '$out'" ;; esac
if [ -z "$libdir" ]; then
  # The LLVM scripts/install-deps.sh recorded, else the newest clang++-NN here.
  v=""
  [ -f "$repo/.deps/llvm-version" ] && v=$(cat "$repo/.deps/llvm-version")
  for c in $v 22 21 20 19; do command -v "clang++-$c" >/dev/null && { v=$c; break; }; done
  command -v "clang++-$v" >/dev/null || die "no clang++-NN found; pass --llvm-libdir"
  libdir=$(dirname "$(readlink -f "$("clang++-$v" -print-file-name=libomptarget.so)")")
fi
[ -e "$libdir/libomptarget.so" ] || die "no libomptarget.so in '$libdir'"
command -v xz >/dev/null || die "xz is not installed: apt-get install xz-utils"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
rt="$stage/llvm-rt"
mkdir "$rt"
main=$(readlink -f "$libdir/libomptarget.so")
libs=("$main" "$(readlink -f "$libdir/libomp.so.5")")
# LLVM >= 20 may keep the device plugins in their own libraries.
for p in "$libdir"/libomptarget.rtl.*.so*; do [ -e "$p" ] && libs+=("$(readlink -f "$p")"); done
skip='^(libc|libm|libgcc_s|libstdc\+\+|ld-linux[^.]*|libz|libzstd|liblzma|libtinfo|libomp|libdl|libpthread|librt)\.so'
[ "$with_libc" = 1 ] && skip='^(libomp)\.so'
for lib in "${libs[@]}"; do
  cp -L "$lib" "$rt/"
  for dep in $(ldd "$lib" | awk '/=> \//{print $3}'); do
    base=$(basename "$dep")
    [[ "$base" =~ $skip ]] && continue
    [ -e "$rt/$base" ] || cp -L "$dep" "$rt/"
  done
done
# Names the programs and the runtime ask for.
for f in "$rt"/*; do
  b=$(basename "$f")
  case "$b" in
    libomptarget.so.*) ln -sf "$b" "$rt/libomptarget.so" ;;
  esac
done
mv "$rt/$(basename "$(readlink -f "$libdir/libomp.so.5")")" "$rt/libomp.so.5" 2>/dev/null || true
ln -sf libomp.so.5 "$rt/libomp.so"
if [ "$with_libc" = 1 ]; then
  # The dynamic loader: ld-linux-x86-64.so.2 or ld-linux-aarch64.so.1, whichever this host's libraries name.
  loader=$(ldd "$main" | awk '$1 ~ /^\/.*ld-linux/ {print $1; exit}')
  [ -n "$loader" ] || die "cannot find the dynamic loader in 'ldd $main'"
  for lib in "$loader" $(ldd "$main" | awk '/=> \//{print $3}'); do
    base=$(basename "$lib")
    [ -e "$rt/$base" ] || cp -L "$lib" "$rt/$base"
  done
  ldd --version | head -1 > "$rt/GLIBC"
  basename "$loader" > "$rt/LOADER"
fi
echo "$libdir" > "$rt/FROM"
tar -C "$stage" -cf - llvm-rt | xz -T0 -6 > "$out"
echo "pack-llvm-runtime: packed $(ls "$rt" | wc -l) files from $libdir$([ "$with_libc" = 1 ] && echo ' with the C runtime') into $out ($(du -h "$out" | cut -f1))"
