#!/usr/bin/env bash
# prepare.sh (here, as root, no GPU): builds, from a fresh checkout, everything the next H200 session
# carries (LLVM 21 at LLVM 19's speed; lesson 11 past the vendor), and checks
# that each call's carry fits the device machine's 64 MiB. The bundles go to gpu-carry/ (git-ignored
# scratch, .git/info/exclude), which a new checkout does not have: that is why this script exists.
#   tools/gpu-next/prepare.sh [19] [21]     (default: both)
#   19: LLVM 19 here (scripts/install-deps.sh --nvptx, build-nvptx): the runtime pack rt19, the Share
#       variants (tools/llvm21-sass/variants, b19), nb_balanced (nbb) and sgemm_streamk (sgk) of
#       tools/lesson11-explore
#   21: LLVM 21 in the kept Debian 13 root (tools/llvm21-sass/root.sh finds it; ROOT=DIR picks one):
#       the root's copy of the tree refreshed, lesson 6 and 11 built there as the course builds them
#       (bundle21e, /root/course/build21d) and with the inliner flag for lesson 6's reduction clause (bundle21f, build21f),
#       the runtime pack rt21 (with the root's C runtime), the Share variants (b21), cubin_regs (regs)
# Then tools/gpu-next/run.sh 19|21 on the H200 (README.md, "On the H200").
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
die() { echo "prepare.sh: error: $*" >&2; exit 2; }
say() { echo "prepare.sh: $*"; }
sides=("$@"); [ ${#sides[@]} -gt 0 ] || sides=(19 21)
for v in "${sides[@]}"; do case "$v" in 19|21) ;; *) die "usage: prepare.sh [19] [21], got '$v'" ;; esac; done
[ "$(id -u)" = 0 ] || [ "${sides[*]}" = 19 ] || die "the LLVM 21 side builds in a chroot: run as root"
mkdir -p gpu-carry "$(git rev-parse --git-path info)"
ex=$(git rev-parse --git-path info/exclude)
grep -qx 'gpu-carry/' "$ex" 2>/dev/null || echo 'gpu-carry/' >> "$ex"
logs=$repo/gpu-carry/prepare-logs; mkdir -p "$logs"
# step NAME CMD...: runs CMD with its output in gpu-carry/prepare-logs/NAME.log; on failure, its tail.
step() {
  local name=$1; shift
  say "$name"
  "$@" > "$logs/$name.log" 2>&1 || { tail -20 "$logs/$name.log" >&2; die "$name failed (log: $logs/$name.log)"; }
}

side19() {
  step deps19 scripts/install-deps.sh --nvptx
  [ -f build-nvptx/build.ninja ] || step configure19 cmake --preset nvptx
  step build19 cmake --build build-nvptx -j2 --target lesson06 lesson11 course_common course_ceilings
  step rt19 scripts/pack-llvm-runtime.sh gpu-carry/rt19.tar.xz
  step variants19 tools/llvm21-sass/variants/build.sh 19
  step nbb env BUILD=build-nvptx tools/lesson11-explore/build_nb_balanced.sh
  step sgk env BUILD=build-nvptx tools/lesson11-explore/build_sgemm_streamk.sh
  grep -E "^(base|a_pairs|a_pairs_store_b_first)|estimate" "$logs/variants19.log" | head -8 || true
}

side21() {
  # shellcheck source=../llvm21-sass/root.sh source-path=SCRIPTDIR
  . tools/llvm21-sass/root.sh
  find_root
  say "Debian 13 root: $R"
  # The tracked files (uncommitted edits included) over the root's copy; its build folders stay.
  step refresh21 scripts/clean-room.sh --root "$R" --dist trixie -- true
  trap unmount_root EXIT
  mount_root
  # shellcheck disable=SC2154  # cuda: set by mount_root
  local targets="lesson06 lesson11 course_ceilings" flag="-Xoffload-linker -mllvm=-inline-threshold=400"
  # The root's copy has no .git: report-gpu.sh pack takes the commit from COURSE_COMMIT.
  local commit; commit=$(git rev-parse --short HEAD)
  [ -z "$(git status --porcelain --untracked-files=no)" ] || commit="$commit (with uncommitted changes)"
  local cfg="cmake --preset nvptx -DCOURSE_CUDA_PATH=$cuda -DCOURSE_NVPTX_ARCH=sm_90"
  step build21e in_root "cd /root/course && { [ -f build21d/build.ninja ] || $cfg -B build21d; } &&
    cmake --build build21d -j2 --target $targets && COURSE_COMMIT=\"$commit\" scripts/report-gpu.sh pack build21d /root/bundle21e"
  step build21f in_root "cd /root/course && { [ -f build21f/build.ninja ] || $cfg -B build21f '-DCMAKE_EXE_LINKER_FLAGS=$flag'; } &&
    cmake --build build21f -j2 --target $targets && COURSE_COMMIT=\"$commit\" scripts/report-gpu.sh pack build21f /root/bundle21f"
  step rt21 in_root "cd /root/course && scripts/pack-llvm-runtime.sh --with-libc /root/rt21.tar.xz"
  cp "$R/root/bundle21e.tar.xz" "$R/root/bundle21f.tar.xz" "$R/root/rt21.tar.xz" gpu-carry/
  unmount_root; trap - EXIT
  step variants21 tools/llvm21-sass/variants/build.sh 21
  step regs tools/llvm21-sass/regs/pack.sh
}

for v in "${sides[@]}"; do "side$v"; done

# What each call carries (tools/gpu-next/README.md), and whether it fits.
carry() {
  case "$1" in
    19) echo gpu-carry/rt19.tar.xz gpu-carry/l21var/b19.tar.xz gpu-carry/nbb.tar.xz gpu-carry/sgk.tar.xz ;;
    21) echo gpu-carry/rt21.tar.xz gpu-carry/l21var/b21.tar.xz gpu-carry/regs.tar.xz gpu-carry/bundle21e.tar.xz \
             gpu-carry/bundle21f.tar.xz ;;
  esac
}
for v in "${sides[@]}"; do
  total=0
  for f in $(carry "$v"); do [ -f "$f" ] || die "$f missing"; total=$((total + $(stat -c %s "$f"))); done
  [ "$total" -le $((64 * 1024 * 1024)) ] || die "LLVM $v's carry is $total bytes, over 64 MiB"
  say "LLVM $v call: $((total / 1024 / 1024)) MiB; carry [$(carry "$v" | sed 's/\([^ ]*\)/"\1"/g; s/ /, /g')]"
done
