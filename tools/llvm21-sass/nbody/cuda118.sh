#!/usr/bin/env bash
# cuda118.sh [DEST] (here, as root): CUDA 11.8's ptxas, nvdisasm and cuobjdump without a GPU or an
# install: downloads Debian 12's non-free nvidia-cuda-toolkit .deb (the course's apt sources need not
# list non-free) and unpacks it into DEST (default /opt/cuda118x), then links /opt/cuda118 to
# DEST/usr, where the tools of tools/llvm21-sass look. ptxas 11.8 is the one LLVM 19's builds use;
# its nvdisasm reads its own cubins (not CUDA 13's).
set -euo pipefail
dest=${1:-/opt/cuda118x}
die() { echo "cuda118.sh: error: $*" >&2; exit 2; }
for t in curl xz dpkg-deb; do command -v $t >/dev/null || die "$t not found (apt-get install curl xz-utils dpkg)"; done
mirror=http://deb.debian.org/debian
if [ ! -x "$dest/usr/bin/nvdisasm" ]; then
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
  curl -fsS -o "$t/Packages.xz" "$mirror/dists/bookworm/non-free/binary-amd64/Packages.xz" ||
    die "could not read bookworm non-free's package list from $mirror"
  file=$(xz -dc "$t/Packages.xz" | awk '/^Package: nvidia-cuda-toolkit$/ { p = 1 } p && /^Filename:/ && !f { f = $2 } END { print f }')
  [ -n "$file" ] || die "no nvidia-cuda-toolkit in bookworm non-free"
  curl -fsS -o "$t/tk.deb" "$mirror/$file" || die "could not download $mirror/$file"
  mkdir -p "$dest" && dpkg-deb -x "$t/tk.deb" "$dest"
fi
ln -sfn "$dest/usr" /opt/cuda118
/opt/cuda118/bin/nvdisasm --version | tail -1
