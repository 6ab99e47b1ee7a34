#!/usr/bin/env bash
# Installs the course toolchain: clang 19 with its OpenMP offload runtime,
# CMake, Ninja, Catch2, Doxygen and what the report plots with. Idempotent:
# run it as often as you like. Debian 12 and Ubuntu 24.04.
#
#   scripts/install-deps.sh            toolchain for the host-offload device
#   scripts/install-deps.sh --nvptx    also a ptxas that clang 19's runtime can load
#   scripts/install-deps.sh --slides   also marp-cli (npm) and Chromium for the slides
#
# Why --nvptx exists: CUDA 13's ptxas writes cubins that LLVM's offload
# runtime reads only from LLVM 21.1.2 on (LLVM PR #159354); clang 19 rejects
# them at run time. CUDA <= 12.6 works. We unpack one distribution package
# (CUDA 11.8 on Debian 12, 12.0 on Ubuntu 24.04) into .deps/cuda under the
# repository: no driver packages, nothing installed system-wide.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
want_nvptx=0
want_slides=0
for arg in "$@"; do
  case "$arg" in
    --nvptx) want_nvptx=1 ;;
    --slides) want_slides=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

say() { echo "install-deps: $*"; }
die() { echo "install-deps: error: $*" >&2; exit 1; }

[ -r /etc/os-release ] || die "cannot read /etc/os-release; supported: Debian 12, Ubuntu 24.04"
. /etc/os-release
case "${ID}:${VERSION_ID:-}" in
  debian:12|ubuntu:24.04) ;;
  *) say "warning: ${PRETTY_NAME:-this system} is not Debian 12 or Ubuntu 24.04; trying anyway" ;;
esac

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "not root and no sudo: run as root or install sudo"
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive

packages=(clang-19 libomp-19-dev cmake ninja-build catch2 doxygen python3 python3-matplotlib)
if [ "$want_slides" = 1 ]; then
  packages+=(chromium poppler-utils)
  # Keep a Node.js that is already there (e.g. from NodeSource): Debian's npm would conflict with it.
  command -v npm >/dev/null || packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing: ${missing[*]}"
  $sudo apt-get update -qq || die "apt-get update failed"
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
else
  say "toolchain packages already installed: ${packages[*]}"
fi
command -v clang++-19 >/dev/null || die "clang++-19 is not on PATH after installing clang-19"
[ -e /usr/lib/llvm-19/lib/libomptarget.so ] || die "libomptarget is missing after installing libomp-19-dev"
say "clang: $(clang++-19 --version | head -1)"

if [ "$want_nvptx" = 1 ]; then
  prefix="$repo/.deps/cuda"
  if [ -x "$prefix/bin/ptxas" ] && [ -f "$prefix/include/cuda.h" ] \
     && [ -f "$prefix/nvvm/libdevice/libdevice.10.bc" ]; then
    say "nvptx: $prefix already holds $("$prefix/bin/ptxas" --version | grep -o 'release [0-9.]*')"
  else
    case "$ID" in
      debian) line="deb http://deb.debian.org/debian ${VERSION_CODENAME:-bookworm} non-free" ;;
      ubuntu) line="deb http://archive.ubuntu.com/ubuntu ${VERSION_CODENAME:-noble} multiverse" ;;
      *) die "--nvptx knows Debian's and Ubuntu's nvidia-cuda-toolkit only; give configure -DCOURSE_CUDA_PATH=<CUDA <= 12.6> instead" ;;
    esac
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
    echo "$line" > "$work/sources.list"
    # A private apt configuration: we only download, and leave the system's sources alone.
    apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache")
    say "nvptx: downloading nvidia-cuda-toolkit from '$line' (about 85 MB)"
    apt-get "${apt_opts[@]}" update -qq 2>/dev/null || die "cannot read '$line' (is the mirror reachable?)"
    (cd "$work" && apt-get "${apt_opts[@]}" download nvidia-cuda-toolkit >/dev/null 2>&1) \
      || die "apt-get download nvidia-cuda-toolkit failed"
    dpkg -x "$work"/nvidia-cuda-toolkit_*.deb "$work/x"
    version=$(dpkg-deb -f "$work"/nvidia-cuda-toolkit_*.deb Version)
    rm -rf "$prefix" && mkdir -p "$prefix/bin" "$prefix/nvvm/libdevice" "$prefix/include"
    for tool in ptxas nvlink fatbinary; do
      [ -x "$work/x/usr/bin/$tool" ] || die "the package has no usr/bin/$tool"
      cp "$work/x/usr/bin/$tool" "$prefix/bin/"
    done
    cp "$(find "$work/x" -name libdevice.10.bc | head -1)" "$prefix/nvvm/libdevice/"
    # clang reads the CUDA version from include/cuda.h; without it clang
    # assumes a newer CUDA and emits PTX this ptxas refuses.
    major=${version%%.*}; major=${major##*:}
    minor=${version#*.}; minor=${minor%%.*}
    printf '/* Written by scripts/install-deps.sh: clang reads the CUDA version here. */\n#define CUDA_VERSION %d\n' \
      $((major * 1000 + minor * 10)) > "$prefix/include/cuda.h"
    say "nvptx: CUDA $major.$minor ptxas, nvlink, fatbinary and libdevice unpacked into $prefix"
  fi
fi

if [ "$want_slides" = 1 ]; then
  if command -v npm >/dev/null; then
    (cd "$repo/slides" && npm ci --no-audit --no-fund --silent) || die "npm ci in slides/ failed"
    say "slides: marp-cli installed under slides/node_modules"
  else
    say "slides: npm not found; the slides target will be skipped"
  fi
fi
say "done"
