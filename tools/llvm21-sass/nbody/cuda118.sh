#!/usr/bin/env bash
# cuda118.sh [DEST] (here, as root): CUDA 11.8's ptxas, nvdisasm and cuobjdump without a GPU or an
# install: downloads Debian 12's non-free nvidia-cuda-toolkit .deb (the course's apt sources need not
# list non-free), checks it against Debian's signed release file (gpgv with Debian's archive keyring,
# then the SHA256 sums of the package list and of the .deb) and unpacks it into DEST (default
# /opt/cuda118x); then links /opt/cuda118 to DEST/usr, where the tools of tools/llvm21-sass look.
# ptxas 11.8 is the one LLVM 19's builds use; its nvdisasm reads its own cubins (not CUDA 13's).
set -euo pipefail
dest=${1:-/opt/cuda118x}
die() { echo "cuda118.sh: error: $*" >&2; exit 2; }
for t in curl xz gpgv sha256sum dpkg-deb; do command -v $t >/dev/null || die "$t not found"; done
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f $keyring ] || die "no $keyring (apt-get install debian-archive-keyring)"
mirror=https://deb.debian.org/debian list=non-free/binary-amd64/Packages.xz
if [ ! -x "$dest/usr/bin/nvdisasm" ]; then
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
  curl -fsS -o "$t/InRelease" "$mirror/dists/bookworm/InRelease" || die "could not read $mirror's release file"
  gpgv --keyring $keyring --output "$t/Release" "$t/InRelease" 2>/dev/null || die "bookworm's release file: bad signature"
  curl -fsS -o "$t/Packages.xz" "$mirror/dists/bookworm/$list" || die "could not read bookworm's $list"
  want=$(awk -v f=$list '/^SHA256:/ { s = 1; next } /^[A-Z]/ { s = 0 } s && $3 == f { print $1 }' "$t/Release")
  [ "$(sha256sum < "$t/Packages.xz" | cut -d' ' -f1)" = "$want" ] || die "bookworm's $list does not match its signed sum"
  read -r file sum < <(xz -dc "$t/Packages.xz" | awk '/^Package: / { p = ($2 == "nvidia-cuda-toolkit") }
    p && /^Filename:/ { f = $2 } p && /^SHA256:/ { s = $2 } END { print f, s }')
  if [ -z "$file" ] || [ -z "$sum" ]; then die "no nvidia-cuda-toolkit in bookworm non-free"; fi
  curl -fsS -o "$t/tk.deb" "$mirror/$file" || die "could not download $mirror/$file"
  [ "$(sha256sum < "$t/tk.deb" | cut -d' ' -f1)" = "$sum" ] || die "$file does not match its signed sum"
  mkdir -p "$dest" && dpkg-deb -x "$t/tk.deb" "$dest"
  echo "cuda118.sh: unpacked $(basename "$file") (SHA256 checked) into $dest"
fi
ln -sfn "$dest/usr" /opt/cuda118
/opt/cuda118/bin/nvdisasm --version | tail -1
