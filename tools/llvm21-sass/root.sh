# root.sh -- sourced (not run) by the tools that build with LLVM 21 in a kept Debian 13 root
# (gpu/, reduction/, ../llvm21-reduction/): finds the root, mounts into it, runs commands in it.
#   . tools/llvm21-sass/root.sh
#   find_root            R = $ROOT, else the one trixie-* root that `scripts/clean-room.sh --dist
#                        trixie --keep` left in ${COURSE_CLEAN_ROOT_CACHE:-/var/cache/course-clean-room}/work
#   mount_root           proc, /dev and this machine's CUDA 13 ($CUDA13, default /usr/local/cuda;
#                        read-only, at the same path) into $R; sets cuda. Undo with unmount_root
#                        (put it in the caller's EXIT trap); a mount already there is someone
#                        else's and is left alone.
#   in_root CMD          runs CMD with bash in the root, a clean environment, LLVM 21 first on PATH
# shellcheck shell=bash
root_die() { echo "$(basename "$0"): error: $*" >&2; exit 2; }
find_root() {
  local w=${COURSE_CLEAN_ROOT_CACHE:-/var/cache/course-clean-room}/work roots=()
  if [ -n "${ROOT:-}" ]; then R=$ROOT
  else
    shopt -s nullglob; roots=("$w"/trixie-*); shopt -u nullglob
    [ ${#roots[@]} = 1 ] || root_die "${#roots[@]} Debian 13 roots in $w (${roots[*]}): set ROOT=DIR (make one: scripts/clean-room.sh --dist trixie --keep)"
    R=${roots[0]}
  fi
  [ -x "$R/usr/bin/clang++-21" ] || root_die "ROOT $R has no /usr/bin/clang++-21 (make one: scripts/clean-room.sh --dist trixie --keep)"
}
root_mounted=()
cuda=""  # set by mount_root
root_mnt() {
  mountpoint -q "$2" && { echo "$(basename "$0"): $2 already mounted (someone else's?), left as is"; return; }
  mkdir -p "$2"; mount "${@:3}" "$1" "$2"; root_mounted+=("$2")
}
mount_root() {
  cuda=$(readlink -f "${CUDA13:-/usr/local/cuda}")
  [ -x "$cuda/bin/ptxas" ] || root_die "no CUDA at $cuda (set CUDA13=DIR, CUDA 13)"
  root_mnt proc "$R/proc" -t proc
  root_mnt /dev "$R/dev" --bind
  root_mnt "$cuda" "$R$cuda" --bind -o ro
}
unmount_root() {
  local i
  for ((i = ${#root_mounted[@]} - 1; i >= 0; i--)); do umount "${root_mounted[$i]}" || umount -l "${root_mounted[$i]}"; done
  root_mounted=()
}
in_root() {
  chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/lib/llvm-21/bin:/usr/local/bin:/usr/bin:/sbin:/bin \
    /bin/bash -c "$1"
}
