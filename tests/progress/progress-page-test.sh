#!/usr/bin/env bash
# The student's progress page (scripts/progress.sh) in headless Chromium: it
# writes the page from this build's last results (--no-run: nothing is graded
# again), has Chromium parse it (--dump-dom) and photograph it, and checks
# that the page Chromium shows holds every row the command printed: each
# lesson's status and test count, each step's state, each speed verdict, the
# summary line. Passes when all are there and the screenshot is not blank.
#
#   progress-page-test.sh SOURCE_DIR BUILD_DIR OUT_DIR [CHROMIUM]
# Exit status: 0 pass, 1 fail, 77 skipped (no Chromium: scripts/install-deps.sh --slides).
set -uo pipefail
src=${1:?usage: progress-page-test.sh SOURCE_DIR BUILD_DIR OUT_DIR [CHROMIUM]}
build=${2:?usage}; out=${3:?usage}; chrome=${4:-}
for c in chromium chromium-browser google-chrome; do
  [ -n "$chrome" ] && [ -x "$chrome" ] && break
  chrome=$(command -v "$c" || true)
done
[ -n "$chrome" ] || { echo "SKIPPED: no Chromium here (scripts/install-deps.sh --slides installs it)"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

mkdir -p "$out"
rm -f "$out"/progress.{html,json,txt,png} "$out/dom.html"
python3 "$src/scripts/progress/progress.py" --build "$build" --no-run --color never \
  --html "$out/progress.html" --json "$out/progress.json" >"$out/progress.txt" 2>&1 \
  || { cat "$out/progress.txt"; fail "scripts/progress.sh --no-run failed"; }
head -1 "$out/progress.txt"

profile=$(mktemp -d); trap 'rm -rf "$profile"' EXIT
# Flags as scripts/screenshot-deck.sh's: no sandbox (root in CI), no network.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars)
"$chrome" "${flags[@]}" --dump-dom "file://$out/progress.html" >"$out/dom.html" 2>/dev/null
"$chrome" "${flags[@]}" --window-size=1200,1800 --screenshot="$out/progress.png" "file://$out/progress.html" \
  >/dev/null 2>&1 || true
[ -s "$out/dom.html" ] || fail "Chromium gave no DOM for $out/progress.html"
[ -s "$out/progress.png" ] || fail "Chromium wrote no screenshot of $out/progress.html"

python3 - "$out" <<'PY'
import html, json, pathlib, re, sys
out = pathlib.Path(sys.argv[1])
data = json.loads((out / "progress.json").read_text())
dom = (out / "dom.html").read_text()
text = (out / "progress.txt").read_text()
problems = []
def need(what, pattern):
    if not re.search(pattern, dom, re.S):
        problems.append(what)
if text.splitlines()[0].strip() != data["summary"]:
    problems.append("the printed summary is not the page's")
need("the summary line", r'id="summary">' + re.escape(html.escape(data["summary"], quote=False)) + "<")
for v in data["lessons"]:
    n = v["lesson"]
    sec = re.search(rf'<section id="lesson{n}" data-status="([^"]*)">(.*?)</section>', dom, re.S)
    if not sec:
        problems.append(f"lesson {n}: no section")
        continue
    if sec.group(1) != v["status"]:
        problems.append(f"lesson {n}: status {sec.group(1)} on the page, {v['status']} printed")
    body = sec.group(2)
    if v["total"] and f"{v['passed']}/{v['total']} tests pass" not in body:
        problems.append(f"lesson {n}: no '{v['passed']}/{v['total']} tests pass'")
    for s in v["steps"]:
        row = re.search(rf'data-step="{re.escape(s["id"])}">.*?<td class="state">([^<]*)</td>', body, re.S)
        if not row or not row.group(1).startswith(s["state"]):
            problems.append(f"lesson {n}: step {s['id']} is not '{s['state']}' on the page")
    for sp in v["speedups"]:
        if html.escape(sp["label"], quote=False) + ":" not in body:
            problems.append(f"lesson {n}: no speed row '{sp['label']}'")
    if v["note"] and html.escape(v["note"], quote=False) not in body:
        problems.append(f"lesson {n}: its note is missing")
# A blank page compresses to almost nothing; a rendered one does not.
png = (out / "progress.png").read_bytes()
if png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 8000:
    problems.append(f"the screenshot looks blank ({len(png)} bytes)")
steps = sum(len(v["steps"]) for v in data["lessons"])
if problems:
    print("FAILED: the page in Chromium differs from what progress printed:\n  " + "\n  ".join(problems))
    sys.exit(1)
print(f"progress page: {len(data['lessons'])} lessons, {steps} steps as printed; screenshot {out / 'progress.png'}")
PY
