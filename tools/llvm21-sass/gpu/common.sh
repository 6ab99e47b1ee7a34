# common.sh -- sourced by build21.sh and pack.sh (not run on its own): the repository root,
# the git-ignored folder the bundles go to, and the kept Debian 13 root (LLVM 21) to build in.
#   . "$(dirname "$0")/common.sh"    sets repo, l21cmp; find_root sets R (and dies if none)
# shellcheck shell=bash
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck disable=SC2034  # used by the scripts that source this
l21cmp=$repo/gpu-carry/l21cmp   # git-ignored scratch (.git/info/exclude): bundles, build outputs
die() { echo "l21cmp: error: $*" >&2; exit 2; }
# R: $ROOT, else the one trixie-* root that `scripts/clean-room.sh --dist trixie --keep` left in
# ${COURSE_CLEAN_ROOT_CACHE:-/var/cache/course-clean-room}/work (README.md: how to make it).
find_root() {
  local w=${COURSE_CLEAN_ROOT_CACHE:-/var/cache/course-clean-room}/work roots=()
  if [ -n "${ROOT:-}" ]; then R=$ROOT
  else
    shopt -s nullglob; roots=("$w"/trixie-*); shopt -u nullglob
    [ ${#roots[@]} = 1 ] || die "${#roots[@]} Debian 13 roots in $w (${roots[*]}): set ROOT=DIR (make one with: scripts/clean-room.sh --dist trixie --keep, see tools/llvm21-sass/gpu/README.md)"
    R=${roots[0]}
  fi
  [ -x "$R/usr/bin/clang++-21" ] || die "ROOT $R has no /usr/bin/clang++-21 (make one with: scripts/clean-room.sh --dist trixie --keep, see tools/llvm21-sass/gpu/README.md)"
  [ -f "$R/root/course/build21d/build.ninja" ] || die "ROOT $R has no configured /root/course/build21d (see tools/llvm21-sass/gpu/README.md)"
}
