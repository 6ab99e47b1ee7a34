#!/usr/bin/env bash
# Installs the course toolchain: LLVM clang with its OpenMP offload runtime,
# CMake, Ninja, Catch2, Doxygen, OpenBLAS and what the report plots with; then
# proves that clang compiles AND runs a target region on the host-offload
# device. Idempotent: run it as often as you like.
#
#   scripts/install-deps.sh              LLVM 19 (Debian 12 and 13: from the main archive)
#   scripts/install-deps.sh --llvm 21    LLVM 21 (Debian 13: from trixie-backports)
#   scripts/install-deps.sh --llvm 22    LLVM 22, host device only (Debian 12: bookworm-security;
#                                        Debian 13: trixie). Debian's LLVM 22 ships no GPU
#                                        device runtime (no libompdevice.a), so no --nvptx
#   scripts/install-deps.sh --replace    allow apt to remove another LLVM's libomp-N-dev: Debian
#                                        installs one libomp-N-dev at a time, and installing
#                                        this LLVM's takes the other's place (without --replace
#                                        the script stops and says which would go)
#   scripts/install-deps.sh --nvptx      also a ptxas for NVIDIA GPUs that this LLVM can load
#   scripts/install-deps.sh --slides     also marp-cli (npm) and Chromium for the slides
#
# Proven in clean Debian 12 and Debian 13 roots (scripts/clean-room.sh, run by
# CI). Ubuntu 24.04 (LLVM 19) and 26.04 (LLVM 21) have the same package names
# and are tried, but no run has proven them.
#
# The LLVM version chosen is written to .deps/llvm-version; CMake's presets
# use that clang unless CXX or -DCMAKE_CXX_COMPILER says otherwise.
#
# Why --nvptx exists: CUDA 13's ptxas writes cubins that LLVM's offload
# runtime reads only from LLVM 21.1.2 on (LLVM PR #159354). With LLVM 19 we
# unpack one distribution package with an older ptxas (CUDA 11.8 on Debian
# 12, 12.4 on Debian 13) into .deps/cuda; nothing is installed system-wide.
# With LLVM 21 a CUDA 13 in /usr/local/cuda is used as it is.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
want_nvptx=0
want_slides=0
want_replace=0
llvm=19
while [ $# -gt 0 ]; do
  case "$1" in
    --nvptx) want_nvptx=1 ;;
    --slides) want_slides=1 ;;
    --replace) want_replace=1 ;;
    --llvm) [ $# -ge 2 ] || { echo "install-deps.sh: --llvm needs a version (19, 21 or 22)" >&2; exit 2; }
            llvm=$2; shift ;;
    --llvm=*) llvm=${1#*=} ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$llvm" in 19|21|22) ;; *) echo "install-deps.sh: --llvm must be 19, 21 or 22, got '$llvm'" >&2; exit 2 ;; esac
[ "$llvm" = 22 ] && [ "$want_nvptx" = 1 ] && { echo "install-deps.sh: --nvptx needs LLVM 19 or 21: Debian's LLVM 22 has no NVIDIA device runtime (host device only)" >&2; exit 2; }

say() { echo "install-deps: $*"; }
die() { echo "install-deps: error: $*" >&2; exit 1; }

[ -r /etc/os-release ] || die "cannot read /etc/os-release; supported: Debian 12, Debian 13"
. /etc/os-release
system="${ID}:${VERSION_ID:-}"
backports=""
security=""
case "$system" in
  debian:12)
    case "$llvm" in
      21) die "LLVM 21 is not packaged for Debian 12. Use Debian 13 for LLVM 21, or run without --llvm (LLVM 19)." ;;
      22) security=bookworm-security ;;
    esac ;;
  debian:13)
    [ "$llvm" = 21 ] && backports=trixie-backports ;;
  ubuntu:24.04)
    say "warning: Ubuntu 24.04 has the same packages but no clean-room run has proven it"
    [ "$llvm" = 19 ] || die "LLVM $llvm is not packaged for Ubuntu 24.04; use LLVM 19 (no --llvm)" ;;
  ubuntu:26.04)
    say "warning: Ubuntu 26.04 has the same packages but no clean-room run has proven it" ;;
  *)
    say "warning: ${PRETTY_NAME:-this system} is not Debian 12 or 13; trying the Debian package names anyway" ;;
esac

# The Debian (or Ubuntu) mirror this system already uses, read from its apt
# sources (one-line .list files and deb822 .sources files alike): a student
# behind a university mirror or proxy stays on it. Prints the first archive
# URI that serves the system's own release; nothing when none is found.
system_mirror() {
  local codename=${VERSION_CODENAME:-}
  {
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
      | sed -n 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\([^[:space:]]\+\)[[:space:]]\+\([^[:space:]]\+\).*/\2 \3/p'
    # deb822: URIs and Suites of one stanza; stanzas are separated by blank lines.
    awk 'BEGIN{RS=""} /(^|\n)Types:[^\n]*deb([ \t]|$|\n)/ {
           u=""; st="";
           n=split($0, l, "\n");
           for (i=1;i<=n;i++) { if (l[i] ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", l[i]); split(l[i], a, /[ \t]+/); u=a[1] }
                               if (l[i] ~ /^Suites:/) { sub(/^Suites:[ \t]*/, "", l[i]); st=l[i] } }
           m=split(st, s, /[ \t]+/); for (j=1;j<=m;j++) if (u != "") print u, s[j] }' \
      /etc/apt/sources.list.d/*.sources 2>/dev/null
  } | awk -v c="$codename" '$2 == c { sub(/\/+$/, "", $1); print $1; exit }'
}
# Debian's security archive beside the system's mirror (deb.debian.org serves
# both); other mirrors rarely carry it, so then security.debian.org's own.
security_line() {  # security_line SUITE
  local m; m=$(system_mirror)
  case "$m" in
    */debian) [ "${m#*://}" != "${m#*://deb.debian.org}" ] && { echo "deb ${m%/debian}/debian-security $1 main"; return; } ;;
  esac
  echo "deb http://security.debian.org/debian-security $1 main"
}
# Adds one apt source line built on the system's mirror; dies with the line to add by hand.
mirror_line() {  # mirror_line SUITE COMPONENT
  local m; m=$(system_mirror)
  [ -n "$m" ] || die "cannot find the mirror of '${VERSION_CODENAME:-this release}' in /etc/apt/sources.list{,.d}: add 'deb <your mirror> $1 $2' to /etc/apt/sources.list.d/ yourself and run this again"
  echo "deb $m $1 $2"
}

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "not root and no sudo: run as root or install sudo"
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
apt_install() { $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }

# clang-tools-N holds clang-offload-packager, clang-linker-wrapper and
# nvptx-arch: without it every offload compile fails. liboffload-N-dev holds
# LLVM 21's offload runtime and device libraries (lib/<triple>/libompdevice.a).
# libclang-rt-N-dev: the sanitizer runtimes (ctest -L sanitize: ASan, TSan + Archer).
llvm_packages=("clang-$llvm" "clang-tools-$llvm" "libomp-$llvm-dev" "libclang-rt-$llvm-dev")
# lld-N: AMD GPU code is linked with ld.lld (compile-only here: no AMD GPU).
[ "$llvm" -ge 20 ] && llvm_packages+=("liboffload-$llvm-dev" "lld-$llvm")
packages=(cmake ninja-build catch2 doxygen python3 python3-matplotlib libopenblas-dev)
if [ "$want_slides" = 1 ]; then
  packages+=(chromium poppler-utils)
  # Keep a Node.js that is already there (e.g. from NodeSource): Debian's npm would conflict with it.
  command -v npm >/dev/null || packages+=(nodejs npm)
fi
[ "$want_nvptx" = 1 ] && packages+=(ca-certificates)

missing() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t need < <(missing "${packages[@]}")
mapfile -t need_llvm < <(missing "${llvm_packages[@]}")
if [ "${#need[@]}" -gt 0 ] || [ "${#need_llvm[@]}" -gt 0 ]; then
  if [ -n "$security" ] && ! grep -rqs "$security" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    # A Debian 12 installed from the usual images has this source already; a
    # minimal root (debootstrap) does not.
    list=/etc/apt/sources.list.d/course-$security.list
    line=$(security_line "$security")
    say "enabling $security (for ${llvm_packages[*]}) in $list: $line"
    echo "$line" | $sudo tee "$list" >/dev/null
  fi
  if [ -n "$backports" ]; then
    # Only the LLVM packages come from backports (apt-get -t); the suite's
    # low default priority keeps every other package on Debian 13's own.
    list=/etc/apt/sources.list.d/course-trixie-backports.list
    if ! grep -rqs "trixie-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
      line=$(mirror_line trixie-backports main)
      say "enabling trixie-backports (for ${llvm_packages[*]}) in $list: $line"
      echo "$line" | $sudo tee "$list" >/dev/null
    fi
  fi
  say "installing: ${need[*]} ${need_llvm[*]}"
  $sudo apt-get update -qq || die "apt-get update failed"
  [ "${#need[@]}" -eq 0 ] || apt_install "${need[@]}" || die "apt-get install ${need[*]} failed"
  if [ "${#need_llvm[@]}" -gt 0 ]; then
    # Debian keeps one libomp-N-dev at a time (each Conflicts with the others):
    # installing this LLVM's removes another's, and the course (or whatever
    # else used that LLVM) stops finding omp.h. Say so before apt does it.
    gone=$(apt-get -s install ${backports:+-t "$backports"} "${need_llvm[@]}" 2>/dev/null \
             | sed -n 's/^Remv \([^ ]*\).*/\1/p' | tr '\n' ' ')
    if [ -n "$gone" ] && [ "$want_replace" = 0 ]; then
      other=$(printf '%s\n' $gone | sed -n 's/^libomp-\([0-9]*\)-dev$/\1/p' | head -1)
      die "installing LLVM $llvm's packages would remove ${gone% } (Debian installs one libomp-N-dev at a time): run again with --replace to switch to LLVM $llvm${other:+, or keep LLVM $other with scripts/install-deps.sh --llvm $other}"
    fi
    [ -n "$gone" ] && say "--replace: apt removes ${gone% } to install LLVM $llvm's runtime"
    apt_install ${backports:+-t "$backports"} "${need_llvm[@]}" \
      || die "apt-get install ${need_llvm[*]}${backports:+ from $backports} failed"
  fi
else
  say "packages already installed: ${packages[*]} ${llvm_packages[*]}"
fi

cxx="clang++-$llvm"
command -v "$cxx" >/dev/null || die "$cxx is not on PATH after installing clang-$llvm"
libdir=$("$cxx" -print-file-name=libomptarget.so)
[ -e "$libdir" ] || die "libomptarget.so is missing after installing libomp-$llvm-dev"
libdir=$(dirname "$libdir")
mkdir -p "$repo/.deps"
echo "$llvm" > "$repo/.deps/llvm-version"
say "clang: $("$cxx" --version | head -1) (recorded in .deps/llvm-version for CMake)"

# The proof: a target region compiled for the host-offload device, run with
# offloading mandatory, must run on a device that is not the host.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
cat > "$probe/probe.cpp" <<'EOF'
#include <omp.h>
#include <cstdio>
int main() {
  int on_host = 1, devices = omp_get_num_devices();
#pragma omp target map(from : on_host)
  on_host = omp_is_initial_device();
  std::printf("%d offload device(s); the target region ran on %s\n", devices, on_host ? "the host" : "an offload device");
  return devices > 0 && !on_host ? 0 : 1;
}
EOF
# The host-offload device is this CPU: its triple follows the compiler's own
# (x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu), as cmake/Course.cmake does.
cpu=$("$cxx" -dumpmachine); cpu=${cpu%%-*}
case "$cpu" in x86_64|aarch64) ;; *) die "$cxx targets $cpu: the course's host-offload device is built for x86_64 and aarch64 Linux only" ;; esac
triple="$cpu-unknown-linux-gnu"
if ! "$cxx" -fopenmp -fopenmp-targets="$triple" "$probe/probe.cpp" -o "$probe/probe" \
     -Wl,-rpath,"$libdir" >"$probe/log" 2>&1; then
  sed 's/^/  /' "$probe/log" >&2
  hint="is clang-tools-$llvm installed? it holds clang-offload-packager"
  grep -q "clang-offload-packager\|clang-linker-wrapper" "$probe/log" || hint="the compiler's messages are above"
  die "$cxx cannot compile an OpenMP target region for $triple ($hint)"
fi
out=$(OMP_TARGET_OFFLOAD=MANDATORY "$probe/probe" 2>&1) || { echo "  $out" >&2; die "a target region compiled by $cxx does not run on the host-offload device ($triple)"; }
say "offload check ($triple): $out"

if [ "$want_nvptx" = 1 ]; then
  prefix="$repo/.deps/cuda"
  version=$("$cxx" -dumpversion)
  if [ "$llvm" -ge 21 ] && [ -x /usr/local/cuda/bin/ptxas ] \
     && [ "$(printf '%s\n' 21.1.2 "$version" | sort -V | head -1)" = 21.1.2 ]; then
    say "nvptx: LLVM $version loads any ptxas's cubins; /usr/local/cuda ($(/usr/local/cuda/bin/ptxas --version | grep -o 'release [0-9.]*')) will be used"
  elif [ -x "$prefix/bin/ptxas" ] && [ -f "$prefix/include/cuda.h" ] \
     && [ -f "$prefix/nvvm/libdevice/libdevice.10.bc" ]; then
    say "nvptx: $prefix already holds $("$prefix/bin/ptxas" --version | grep -o 'release [0-9.]*')"
  else
    case "$ID" in
      debian) line=$(mirror_line "${VERSION_CODENAME:-bookworm}" non-free) ;;
      ubuntu) line=$(mirror_line "${VERSION_CODENAME:-noble}" multiverse) ;;
      *) die "--nvptx knows Debian's and Ubuntu's nvidia-cuda-toolkit only; give configure -DCOURSE_CUDA_PATH=<CUDA <= 12.6> instead" ;;
    esac
    work=$(mktemp -d)
    trap 'rm -rf "$probe" "$work"' EXIT
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
    pkgversion=$(dpkg-deb -f "$work"/nvidia-cuda-toolkit_*.deb Version)
    rm -rf "$prefix" && mkdir -p "$prefix/bin" "$prefix/nvvm/libdevice" "$prefix/include"
    for tool in ptxas nvlink fatbinary; do
      [ -x "$work/x/usr/bin/$tool" ] || die "the package has no usr/bin/$tool"
      cp "$work/x/usr/bin/$tool" "$prefix/bin/"
    done
    cp "$(find "$work/x" -name libdevice.10.bc | head -1)" "$prefix/nvvm/libdevice/"
    # clang reads the CUDA version from include/cuda.h; without it clang
    # assumes a newer CUDA and emits PTX this ptxas refuses.
    major=${pkgversion%%.*}; major=${major##*:}
    minor=${pkgversion#*.}; minor=${minor%%.*}
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
