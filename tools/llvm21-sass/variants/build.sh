#!/usr/bin/env bash
# build.sh [19] [21] (here, no GPU; 21 as root): lesson 11's program once per variant of the given SGEMM
# kernel, with each toolchain, for an H200 sweep (run.sh) that asks which form of the kernel is fast
# under both LLVM 19 and LLVM 21. A variant is the working tree's reference/lesson11_gemm_shared.hpp
# ("base") or that file with one NAME.diff of this folder applied; only the solution's gemm.cpp is
# compiled again, every other object is the build's own:
#   19: relinks build-nvptx's lesson11 ($NVPTX_BUILD; cmake --preset nvptx, build the lesson11 target);
#   21: relinks build21d's lesson11 in the kept Debian 13 root (../gpu/common.sh finds it; its copy of
#       lesson 11, reference/lesson11_*, solutions/11-* and common/ must equal the working tree's).
# Then it prints each kernel's static one-warp estimate of its k loop (proxy.sh) and packs
# gpu-carry/l21var/bNN.tar.xz (git-ignored): bNN/lesson11-VARIANT, gpu-node.sh, course-env.json, BUILD.txt.
# VARIANTS="base NAME ..." picks variants (default: base and every *.diff here).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../gpu/common.sh source-path=SCRIPTDIR
. "$here/../gpu/common.sh"
sides=("$@"); [ ${#sides[@]} -gt 0 ] || sides=(19 21)
for v in "${sides[@]}"; do case "$v" in 19|21) ;; *) die "usage: build.sh [19] [21], got '$v'" ;; esac; done
if [ -n "${VARIANTS:-}" ]; then read -ra variants <<< "$VARIANTS"
else variants=(base); for d in "$here"/*.diff; do [ -e "$d" ] && variants+=("$(basename "$d" .diff)"); done; fi
for n in "${variants[@]}"; do [ "$n" = base ] || [ -f "$here/$n.diff" ] || die "no variant $n (no $here/$n.diff)"; done
work=$repo/gpu-carry/l21var; mkdir -p "$work"
commit=$(git -C "$repo" rev-parse --short HEAD)
lesson_paths=(reference lessons/11-matching-the-vendor solutions/11-matching-the-vendor common/include)

# make_tree DIR NAME: the parts of the working tree lesson 11's gemm.cpp reads, with NAME's diff applied
make_tree() {
  rm -rf "$1"; mkdir -p "$1"
  (cd "$repo" && tar cf - "${lesson_paths[@]}") | tar xf - -C "$1"
  [ "$2" = base ] || patch -s -p1 -d "$1" < "$here/$2.diff" || die "$2.diff does not apply to the working tree"
}

for side in "${sides[@]}"; do
  b=$work/b$side; rm -rf "$b"; mkdir -p "$b"
  cp "$repo/scripts/gpu-node.sh" "$b/"
  if [ "$side" = 19 ]; then
    nvptx=${NVPTX_BUILD:-$repo/build-nvptx}
    [ -f "$nvptx/lessons/11-matching-the-vendor/lesson11" ] || die "no lesson11 in $nvptx (cmake --build ${nvptx#"$repo"/} --target lesson11)"
    cp "$nvptx/course-env.json" "$b/"
    for n in "${variants[@]}"; do
      t=$work/src-$n; o=$work/o19-$n; make_tree "$t" "$n"; rm -rf "$o"; mkdir -p "$o"
      ninja -C "$nvptx" -t commands lessons/11-matching-the-vendor/lesson11 |
        python3 "$here/relink.py" "$repo" "$t" "$o" "$nvptx" > "$o/cmds.sh"
      sed -i '2s/$/ -save-temps/' "$o/cmds.sh"   # the link's device image, for proxy.sh
      (cd "$o" && bash -e cmds.sh)
      cp "$o/lesson11" "$b/lesson11-$n"
      echo "19 $n: $("$here/proxy.sh" "$o/lesson11.nvptx64.sm_90.img")"
    done
    echo "LLVM 19, built at $commit (+ each variant's diff): $(clang++-19 --version | head -1); ptxas $("${CUDA19:-$repo/.deps/cuda}/bin/ptxas" --version | tail -1)" > "$b/BUILD.txt"
  else
    find_build_root
    for p in lessons/11-matching-the-vendor solutions/11-matching-the-vendor common; do
      diff -rq -x README.md "$repo/$p" "$R/root/course/$p" > /dev/null || die "the root's /root/course/$p differs from the working tree's (update the copy: scripts/clean-room.sh --root $R --dist trixie -- true)"
    done
    for f in "$repo"/reference/lesson11_*; do
      cmp -s "$f" "$R/root/course/reference/${f##*/}" || die "the root's reference/${f##*/} differs from the working tree's"
    done
    trap unmount_root EXIT
    mount_root
    rm -rf "$R/tmp/l21var"; mkdir -p "$R/tmp/l21var"; cp "$here/relink.py" "$R/tmp/l21var/"
    cp "$R/root/course/build21d/course-env.json" "$b/"
    for n in "${variants[@]}"; do
      make_tree "$R/tmp/l21var/src-$n" "$n"; mkdir -p "$R/tmp/l21var/o-$n"
      in_root "cd /tmp/l21var/o-$n && ninja -C /root/course/build21d -t commands lessons/11-matching-the-vendor/lesson11 |
        python3 /tmp/l21var/relink.py /root/course /tmp/l21var/src-$n /tmp/l21var/o-$n /root/course/build21d > cmds.sh &&
        sed -i '2s/\$/ -save-temps=obj/' cmds.sh && bash -e cmds.sh"
      cp "$R/tmp/l21var/o-$n/lesson11" "$b/lesson11-$n"
      echo "21 $n: $("$here/proxy.sh" "$R/tmp/l21var/o-$n/lesson11.nvptx64.sm_90.cubin" 13)"
    done
    echo "LLVM 21, built at $commit (+ each variant's diff) in the Debian 13 root's build21d (-foffload-lto): $(chroot "$R" clang++-21 --version | head -1); CUDA 13 ptxas" > "$b/BUILD.txt"
  fi
  echo "variants: ${variants[*]}" >> "$b/BUILD.txt"
  (cd "$repo" && tar cJf "$work/b$side.tar.xz" "gpu-carry/l21var/b$side")
  echo "build.sh: gpu-carry/l21var/b$side.tar.xz $(stat -c %s "$work/b$side.tar.xz") bytes (with gpu-carry/rt$side.tar.xz: under 67108864?)"
done
