# common.sh -- sourced by build21.sh and pack.sh (not run on its own): the repository root,
# the git-ignored folder the bundles go to, and the kept Debian 13 root (LLVM 21) to build in.
#   . "$(dirname "$0")/common.sh"    sets repo, l21cmp; find_build_root sets R (and dies if none)
# shellcheck shell=bash
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck disable=SC2034  # used by the scripts that source this
l21cmp=$repo/gpu-carry/l21cmp   # git-ignored scratch (.git/info/exclude): bundles, build outputs
die() { echo "l21cmp: error: $*" >&2; exit 2; }
# find_root (root.sh), and the root must hold the configured build21d the bundles come from.
# shellcheck source=../root.sh
. "$repo/tools/llvm21-sass/root.sh"
find_build_root() {
  find_root
  [ -f "$R/root/course/build21d/build.ninja" ] || die "ROOT $R has no configured /root/course/build21d (see tools/llvm21-sass/gpu/README.md)"
}
