#!/usr/bin/env bash
# Renders one deck to HTML (its quoted code regenerated from the sources) and photographs its
# first slide in headless Chromium; passes when the PNG exists and is not blank.
#   usage: screenshot-deck.sh MARP CHROMIUM DECK.md OUT_DIR
set -euo pipefail
marp=${1:?usage: screenshot-deck.sh MARP CHROMIUM DECK.md OUT_DIR}; chrome=$2; deck=$3; out=$4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
python3 "$here/build-slides.py" --render "$out" --marp "$marp" "$deck" >/dev/null
html="$out/$(basename "${deck%.md}").html"
png="$out/$(basename "${deck%.md}").png"
rm -f "$png"
profile=$(mktemp -d); trap 'rm -rf "$profile"' EXIT
# Flags: no sandbox (root in CI), no network chatter (the CI machine is offline).
"$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars --window-size=1280,720 \
  --screenshot="$png" "file://$html" >/dev/null 2>&1 || true
[ -s "$png" ] || { echo "screenshot-deck: Chromium wrote no screenshot of $html"; exit 1; }
python3 - "$png" <<'PY'
import sys, struct, zlib
# A blank page compresses to almost nothing; a rendered title slide does not.
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
print(f"screenshot-deck: {sys.argv[1]} {w}x{h}, {len(data)} bytes")
sys.exit(0 if len(data) > 8000 else 1)
PY
