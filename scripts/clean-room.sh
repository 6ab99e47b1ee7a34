#!/usr/bin/env bash
# Runs a command of the README in a freshly made Debian root, as a new user's
# machine would: nothing installed but a minimal base system. A development
# machine keeps whatever was installed by hand; this does not.
#
#   scripts/clean-room.sh [options] [-- COMMAND]
#     --dist bookworm|trixie   Debian 12 (default) or Debian 13
#     --arch amd64|arm64       the root's architecture (default: this machine's). A
#                              foreign one runs under qemu-user emulation: needs
#                              qemu-user-static and binfmt-support (see below); the
#                              root's programs see COURSE_EMULATED=1
#     --mirror URL             the Debian mirror debootstrap fetches from (default:
#                              debootstrap's own); the root's apt uses it afterwards
#     --bind PATH              also bind PATH of this machine read-only into the
#                              root at the same place (e.g. /usr/local/cuda for
#                              compile-only GPU builds); may repeat
#     --keep                   leave the root in place afterwards (its path is printed)
#     --root DIR               run in a root kept by an earlier --keep run instead of
#                              a fresh one (for builds that continue there; not clean)
#     --compiler-cache         keep compiled objects between runs: ccache in the
#                              root (installed before COMMAND), its cache on this
#                              machine in CACHE/ccache/<dist>[-<arch>]. For CI, which
#                              makes fresh roots on every run; ccache reuses an
#                              object only for the same compiler, flags and
#                              preprocessed source, so what is built is the same
#     --reuse-installed        start from a cached root in which an earlier run of
#                              this same scripts/install-deps.sh already installed
#                              the packages (the cache is keyed by that script's
#                              content, distribution and architecture, and is made
#                              again after 7 days); COMMAND still runs
#                              install-deps.sh, which then finds everything in
#                              place. For the emulated root, where installing
#                              costs minutes; a fresh root proves install-deps.sh
#     --cache DIR              where bare roots are cached (default
#                              $COURSE_CLEAN_ROOT_CACHE or /var/cache/course-clean-room)
#     COMMAND                  run in the repository's copy inside the root, by bash
#                              (default: the README's test command
#                               scripts/install-deps.sh && cmake --workflow --preset solutions)
#
# What it does: makes a minimal root with debootstrap once per distribution
# and caches it as a tarball; unpacks a fresh copy for each run; copies the
# working tree in with `git archive` (tracked files, uncommitted edits
# included, nothing untracked or ignored); mounts /proc, /sys and /dev; runs
# COMMAND under chroot as root, logging to a file; unmounts everything and
# removes the copy even when interrupted. Exit status: COMMAND's; 2 for bad
# options; 3 when the root cannot be made. Needs root, debootstrap and
# network access to a Debian mirror. A foreign --arch also needs the
# kernel to run its binaries: apt-get install qemu-user-static binfmt-support
# (this script mounts binfmt_misc and enables the handler when it can).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dist=bookworm
dist_given=0
keep=0
reuse=""
reuse_installed=0
compiler_cache=0
binds=()
cache=${COURSE_CLEAN_ROOT_CACHE:-/var/cache/course-clean-room}
cmd='scripts/install-deps.sh && cmake --workflow --preset solutions'
mirror=${COURSE_DEBIAN_MIRROR:-}   # empty: debootstrap's default
host_arch=$(dpkg --print-architecture 2>/dev/null || echo unknown)
arch=$host_arch

usage() { sed -n '2,49p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "clean-room: error: $*" >&2; exit "${2:-2}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --dist) [ $# -ge 2 ] || die "--dist needs bookworm or trixie"; dist=$2; dist_given=1; shift ;;
    --dist=*) dist=${1#*=}; dist_given=1 ;;
    --arch) [ $# -ge 2 ] || die "--arch needs amd64 or arm64"; arch=$2; shift ;;
    --arch=*) arch=${1#*=} ;;
    --mirror) [ $# -ge 2 ] || die "--mirror needs a URL"; mirror=$2; shift ;;
    --mirror=*) mirror=${1#*=} ;;
    --bind) [ $# -ge 2 ] || die "--bind needs a path"; binds+=("$2"); shift ;;
    --keep) keep=1 ;;
    --reuse-installed) reuse_installed=1 ;;
    --compiler-cache) compiler_cache=1 ;;
    --root) [ $# -ge 2 ] || die "--root needs a folder"; reuse=$2; shift ;;
    --cache) [ $# -ge 2 ] || die "--cache needs a folder"; cache=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; [ $# -gt 0 ] && cmd="$*"; break ;;
    *) die "unknown option '$1' (try --help)" ;;
  esac
  shift
done
case "$dist" in bookworm|trixie) ;; *) die "--dist must be bookworm (Debian 12) or trixie (Debian 13), got '$dist'" ;; esac
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mount and chroot)" 3
command -v debootstrap >/dev/null || die "debootstrap is not installed: apt-get install debootstrap" 3
case "$arch" in amd64|arm64) ;; *) die "--arch must be amd64 or arm64, got '$arch'" ;; esac
for b in "${binds[@]}"; do [ -e "$b" ] || die "--bind $b: no such path"; done
emulated=""
if [ "$arch" != "$host_arch" ]; then
  # A foreign root runs through qemu-user: the kernel hands its binaries to
  # qemu-<cpu> (binfmt_misc, registered with the F flag so it works in a chroot).
  qcpu=$(case "$arch" in arm64) echo aarch64 ;; amd64) echo x86_64 ;; esac)
  [ -e "/usr/libexec/qemu-binfmt/$qcpu-binfmt-P" ] || [ -x "/usr/bin/qemu-$qcpu-static" ] \
    || die "--arch $arch on a $host_arch machine needs emulation: apt-get install qemu-user-static binfmt-support" 3
  [ -e /proc/sys/fs/binfmt_misc/status ] || mount binfmt_misc -t binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null \
    || die "cannot mount binfmt_misc (mount binfmt_misc -t binfmt_misc /proc/sys/fs/binfmt_misc)" 3
  [ -e "/proc/sys/fs/binfmt_misc/qemu-$qcpu" ] || update-binfmts --enable "qemu-$qcpu" 2>/dev/null || true
  grep -qx enabled "/proc/sys/fs/binfmt_misc/qemu-$qcpu" 2>/dev/null \
    || die "the qemu-$qcpu binfmt handler is not enabled (update-binfmts --enable qemu-$qcpu)" 3
  emulated=1
fi

mkdir -p "$cache/work"
name=$dist; [ "$arch" = "$host_arch" ] || name=$dist-$arch
base="$cache/$name-minbase.tar"
log_dir="$cache/logs"
mkdir -p "$log_dir"
stamp=$(date +%Y%m%d-%H%M%S)
log="$log_dir/$name-$stamp.log"

# 1. The bare root, made once and cached: a root that was never touched.
if [ ! -s "$base" ]; then
  echo "clean-room: making a bare $dist $arch root with debootstrap (once; cached in $base)"
  tmp=$(mktemp -d "$cache/work/debootstrap-XXXXXX")
  if ! debootstrap --variant=minbase --arch "$arch" "$dist" "$tmp" ${mirror:+"$mirror"} >"$log_dir/debootstrap-$name.log" 2>&1; then
    tail -5 "$log_dir/debootstrap-$name.log" >&2
    rm -rf "$tmp"
    die "debootstrap $dist ($arch) failed (log: $log_dir/debootstrap-$name.log)" 3
  fi
  tar -C "$tmp" -cf "$base.part" . && mv "$base.part" "$base"
  rm -rf "$tmp"
fi

# 1b. With --reuse-installed: the root after an earlier install-deps.sh
# of the same content, if there is one younger than 7 days.
installed=""
if [ "$reuse_installed" = 1 ] && [ -z "$reuse" ]; then
  # (With --compiler-cache, ccache is installed after the cached packages are
  # unpacked: a root cached before it came is still the same install.)
  key=$(cat "$repo/scripts/install-deps.sh" | sha256sum | cut -c1-12)
  installed="$cache/$name-installed-$key.tar"
  find "$cache" -maxdepth 1 -name "$name-installed-*.tar" -mtime +7 -delete 2>/dev/null || true
fi

# 2. A fresh copy for this run, and cleanup that runs however we leave.
if [ -n "$reuse" ]; then
  [ -x "$reuse/bin/bash" ] || die "--root $reuse is not a root made by this script"
  root=$(cd "$reuse" && pwd)
  keep=1
  # Its architecture is the one dpkg was installed for there.
  arch=$(head -1 "$root/var/lib/dpkg/arch" 2>/dev/null || true)
  [ -n "$arch" ] || arch=$(chroot "$root" dpkg --print-architecture 2>/dev/null || echo "$host_arch")
  [ "$arch" = "$host_arch" ] || emulated=1
  # Its distribution is the one its os-release names: the compiler cache and
  # the log are that distribution's (a --dist given with --root must agree).
  rdist=$(. "$root/etc/os-release" 2>/dev/null && echo "${VERSION_CODENAME:-}")
  if [ -n "$rdist" ] && [ "$rdist" != "$dist" ]; then
    [ "$dist_given" = 0 ] || die "--dist $dist, but the root $root is $rdist"
    dist=$rdist
  fi
  name=$dist; [ "$arch" = "$host_arch" ] || name=$dist-$arch
  log="$log_dir/$name-$stamp.log"
else
  root=$(mktemp -d "$cache/work/$name-XXXXXX")
fi
mounted=()
cleanup() {
  local rc=$?
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  if [ "$keep" = 1 ]; then
    echo "clean-room: root kept at $root"
  else
    # Only delete once nothing is mounted below the root any more.
    if ! grep -q " $root/" /proc/mounts; then rm -rf "$root"; else echo "clean-room: warning: mounts left under $root" >&2; fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ -z "$reuse" ]; then
  if [ -n "$installed" ] && [ -s "$installed" ]; then
    echo "clean-room: starting from the packages an earlier install-deps.sh (same script) installed on $(date -r "$installed" +%F): $installed"
    tar -C "$root" -xf "$installed"
  else
    tar -C "$root" -xf "$base"
  fi
fi

# 3. The working tree as git would ship it (uncommitted edits of tracked files included).
# A reused root (--root) keeps its build folders: the tracked files are
# written over the old ones, so a build there continues where it stopped.
tree=$(git -C "$repo" stash create 2>/dev/null || true)
[ -n "$tree" ] || tree=HEAD
[ -n "$reuse" ] || rm -rf "$root/root/course"
mkdir -p "$root/root/course"
git -C "$repo" archive --format=tar "$tree" | tar -C "$root/root/course" -xf -
commit=$(git -C "$repo" rev-parse --short HEAD)

# 4. What a booted system would have.
mnt() { mkdir -p "$2"; mount "${@:3}" "$1" "$2"; mounted+=("$2"); }
mnt proc "$root/proc" -t proc
mnt sysfs "$root/sys" -t sysfs
mnt /dev "$root/dev" --bind
mnt devpts "$root/dev/pts" -t devpts
for b in "${binds[@]}"; do
  real=$(readlink -f "$b")
  mnt "$real" "$root$real" --bind -o ro
  mount -o remount,bind,ro "$root$real" 2>/dev/null || true
  [ "$real" = "$b" ] || { mkdir -p "$(dirname "$root$b")"; ln -sfn "$real" "$root$b"; }
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
run_cmd=$cmd
if [ "$compiler_cache" = 1 ]; then
  mkdir -p "$cache/ccache/$name"
  mnt "$cache/ccache/$name" "$root/var/cache/course-ccache" --bind
  # CMake reads the launcher from the environment when it configures a build
  # folder (the sanitizer and step builds the tests configure included).
  run_cmd="{ command -v ccache >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends ccache >/dev/null; }; } && export CCACHE_DIR=/var/cache/course-ccache CCACHE_MAXSIZE=8G CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache && ccache -z >/dev/null && { $cmd; }; rc=\$?; echo '--- compiler cache (ccache) of this run:'; ccache -s 2>&1 | grep -E -i 'hits|misses|cacheable' | head -6; exit \$rc"
fi

echo "clean-room: $dist $arch${emulated:+ (emulated)} root $root, tree $commit$([ "$tree" = HEAD ] || echo ' + uncommitted edits'), log $log"
echo "clean-room: running: $cmd"
t0=$SECONDS
set +e
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin CI="${CI:-}" ${emulated:+COURSE_EMULATED=1} \
  COURSE_COMMIT="$commit$([ "$tree" = HEAD ] || echo '+edits')" \
  /bin/bash -c "cd /root/course && { $run_cmd; }" >"$log" 2>&1
rc=$?
set -e
if [ "$rc" -eq 0 ] && [ -n "$installed" ] && [ ! -s "$installed" ]; then
  # Only a root whose command passed is kept: its packages, not the course copy.
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  mounted=()
  tar -C "$root" --exclude=./root/course --exclude=./proc --exclude=./sys --exclude=./dev -cf "$installed.part" . \
    && mv "$installed.part" "$installed" && echo "clean-room: cached the installed packages for --reuse-installed: $installed"
fi
if [ "$rc" -eq 0 ]; then
  echo "clean-room: PASS on $dist $arch in $((SECONDS - t0)) s (log: $log)"
else
  tail -40 "$log"
  echo "clean-room: FAIL (exit $rc) on $dist $arch after $((SECONDS - t0)) s; the whole log: $log" >&2
fi
exit "$rc"
