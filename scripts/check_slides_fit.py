#!/usr/bin/env python3
"""Finds slides whose content does not fit the slide, in the decks Marp built.

A Marp slide is a fixed 1280 x 720 <section> with overflow:hidden, so content
that runs past its bottom or right edge is silently cut off in the HTML and the
PDF alike. This loads each built deck in headless Chromium (the PDF is printed
by the same browser, so the layout is the same), and for every slide compares
the section's scrollHeight/scrollWidth with its clientHeight/clientWidth, and
checks that no element reaches past the section's top (the default theme
centres content vertically, so a tall slide spills over its top as well) and
that no code block or table is cut off inside its own box.

    usage: check_slides_fit.py [--chrome PATH] [HTML_DIR_OR_FILE ...]
           (default: build-solutions/slides/*.html; build them with
            cmake --build --preset solutions --target slides)

Prints one line per overflowing slide: deck, slide number, heading, by how many
pixels (in the slide's own 1280 x 720 CSS pixels). Exit 0 when every slide
fits, 1 when one does not, 2 when it cannot check (no Chromium, no HTML).
Needs only Python 3 and Chromium; about 1-2 s per deck.
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARK = "check-slides-fit-result"
# 1 px of slack: sub-pixel rounding of fonts is not an overflow.
SLACK = 1

# Runs inside the deck once it has loaded: the bespoke template shows one slide
# at a time, so every slide is made visible before it is measured.
PROBE = r"""
<style>
  svg[data-marpit-svg] { display: block !important; visibility: visible !important;
                         content-visibility: visible !important;
                         opacity: 1 !important; width: 1280px !important;
                         height: 720px !important; transform: none !important; }
  .bespoke-marp-parent, .bespoke-marp-slide { position: static !important;
                         display: block !important; transform: none !important; }
</style>
<script>
function measure() {
  const out = [];
  const sections = document.querySelectorAll('svg[data-marpit-svg] > foreignObject > section');
  sections.forEach((s, i) => {
    const box = s.getBoundingClientRect();
    const scale = box.height / s.offsetHeight || 1;
    let top = 0, bottom = 0, right = 0, clipped = [];
    for (const e of s.querySelectorAll('*')) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      // Inside a code block or table: Marp scales a code block down to the
      // slide's width in a shadow root (its lines' own boxes are unscaled),
      // and both clip what is wider; the block's own box is what shows, and
      // what it clips is counted below.
      if (e.parentElement && e.parentElement.closest('pre, table')) continue;
      top = Math.min(top, (r.top - box.top) / scale);
      bottom = Math.max(bottom, (r.bottom - box.top) / scale);
      right = Math.max(right, (r.right - box.left) / scale);
      // A code block or table that scrolls inside itself is cut off too.
      if (/^(PRE|TABLE)$/.test(e.tagName)) {
        const dx = e.scrollWidth - e.clientWidth, dy = e.scrollHeight - e.clientHeight;
        const st = getComputedStyle(e);
        if ((dx > 1 || dy > 1) && st.overflow !== 'visible')
          clipped.push({tag: e.tagName.toLowerCase(), dx: dx, dy: dy});
      }
    }
    const h = s.querySelector('h1, h2, h3, h4, h5, h6');
    // Where the slide's body starts: the first child that is not its heading.
    const first = [...s.children].find(c => !/^(H[1-6]|STYLE|HEADER|FOOTER)$/.test(c.tagName));
    const bodyTop = first ? Math.round((first.getBoundingClientRect().top - box.top) / scale) : 0;
    out.push({n: i + 1, heading: h ? h.textContent.trim() : '',
              down: s.scrollHeight - s.clientHeight, right: s.scrollWidth - s.clientWidth,
              up: Math.round(-top), bottom: Math.round(bottom), rightEdge: Math.round(right),
              height: s.clientHeight, bodyTop: bodyTop, width: s.clientWidth,
              padBottom: parseFloat(getComputedStyle(s).paddingBottom),
              padRight: parseFloat(getComputedStyle(s).paddingRight), clipped: clipped});
  });
  return JSON.stringify(out);
}
// Marp fits code blocks to the slide's width from script, after load and
// after the fonts arrive: measure until two measurements agree.
window.addEventListener('load', async () => {
  await document.fonts.ready;
  let last = '', now = measure();
  for (let i = 0; i < 20 && now !== last; i++) {
    await new Promise(r => setTimeout(r, 200));
    last = now; now = measure();
  }
  const pre = document.createElement('pre');
  pre.id = '""" + MARK + r"""';
  pre.textContent = now;
  document.body.appendChild(pre);
});
</script>
"""


def find_chrome(given):
    for c in ([given] if given else ["chromium", "chromium-browser", "google-chrome"]):
        p = shutil.which(c)
        if p:
            return p
    return None


def measure(chrome, html, tmp):
    """The per-slide measurements of one built deck, from a probed copy of it."""
    text = html.read_text(encoding="utf-8")
    if "</body>" not in text:
        raise RuntimeError(f"{html}: no </body>; not a Marp HTML deck?")
    # The copy sits next to the original so relative images still resolve.
    probed = html.with_name(f".fit-{html.name}")
    probed.write_text(text.replace("</body>", PROBE + "</body>", 1), encoding="utf-8")
    try:
        # Flags as scripts/screenshot-deck.sh: no sandbox, no network chatter.
        r = subprocess.run(
            [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={tmp}", "--hide-scrollbars",
             "--window-size=1280,720", "--virtual-time-budget=5000", "--dump-dom",
             probed.as_uri()],
            capture_output=True, text=True, timeout=120)
    finally:
        probed.unlink()
    m = re.search(r'<pre id="' + MARK + r'">(.*?)</pre>', r.stdout, re.S)
    if not m:
        raise RuntimeError(f"{html}: Chromium gave no measurements (rc {r.returncode}): "
                           f"{r.stderr.strip()[-300:]}")
    import html as htmllib
    return json.loads(htmllib.unescape(m.group(1)))


def main(argv):
    chrome = None
    if "--chrome" in argv:
        i = argv.index("--chrome")
        chrome, argv = argv[i + 1], argv[:i] + argv[i + 2:]
    chrome = find_chrome(chrome)
    if not chrome:
        print("check_slides_fit: no Chromium found (scripts/install-deps.sh --slides)")
        return 2
    paths = [pathlib.Path(a) for a in argv] or [ROOT / "build-solutions" / "slides"]
    decks = []
    for p in paths:
        decks += sorted(p.glob("[0-9]*.html")) if p.is_dir() else [p]
    if not decks:
        print(f"check_slides_fit: no built decks in {' '.join(map(str, paths))} "
              "(cmake --build --preset solutions --target slides)")
        return 2
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for deck in decks:
            for s in measure(chrome, deck.resolve(), tmp):
                # scrollHeight counts the bottom padding (the theme's margin)
                # after the content, so the content's own edge is that less
                # the padding; the boxes of the elements say the same.
                down = max(s["down"] - s["padBottom"], s["bottom"] - s["height"])
                right = max(s["right"] - s["padRight"], s["rightEdge"] - s["width"])
                how = []
                if down > SLACK:
                    how.append(f"{down:.0f} px past the bottom")
                if s["up"] > SLACK:
                    how.append(f"{s['up']} px past the top")
                if right > SLACK:
                    how.append(f"{right:.0f} px past the right")
                for c in s["clipped"]:
                    how.append(f"a {c['tag']} cut off inside itself by "
                               f"{max(c['dx'], 0)} px wide, {max(c['dy'], 0)} px high")
                if how:
                    bad += 1
                    print(f"{deck.stem}: slide {s['n']} \"{s['heading']}\": {'; '.join(how)}")
    if bad:
        print(f"check_slides_fit: {bad} slide(s) of {len(decks)} deck(s) do not fit")
        return 1
    print(f"check_slides_fit: every slide of {len(decks)} deck(s) fits")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
