#!/usr/bin/env python3
"""Finds slides whose content does not fit the slide, or whose code is too small to
read, in the decks Marp built.

A Marp slide is a fixed 1280 x 720 <section> with overflow:hidden, so content
that runs past its bottom or right edge is silently cut off in the HTML and the
PDF alike. This loads each built deck in headless Chromium (the PDF is printed
by the same browser, so the layout is the same), and for every slide compares
the section's scrollHeight/scrollWidth with its clientHeight/clientWidth, and
checks that no element reaches past the section's top (the default theme
centres content vertically, so a tall slide spills over its top as well) and
that no code block or table is cut off inside its own box.

It also measures the font size every code block shows at, after Marp's
fitting (Marp scales a block down until its widest line fits the slide, so a
long line shrinks the whole block), in ems of the slide's text, and fails a
slide whose code shows under --min-code-em (default 0.55em, about 16 px).

    usage: check_slides_fit.py [--chrome PATH] [--min-code-em EM] [--code-sizes]
                               [HTML_DIR_OR_FILE ...]
           (default: build-solutions/slides/*.html; build them with
            cmake --build --preset solutions --target slides)

Prints one line per overflowing slide: deck, slide number, heading, by how many
pixels (in the slide's own 1280 x 720 CSS pixels); and one line per slide with
code under the minimum: deck, slide number, heading, the smallest block's
shown size, its widest line and line count. --code-sizes also prints every
code block's shown size. The last line counts both and names the smallest
block. Exit 0 when every slide fits and shows its code large enough, 1 when
one does not, 2 when it cannot check (no Chromium, no HTML).
Needs only Python 3 and Chromium; about 1-2 s per deck.
"""
import argparse
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
# The smallest font size a code block may show at, after Marp's fitting, in
# ems of the slide's text (29 px in the default theme): 0.55em is about 16 px
# on a 1280 x 720 slide. 0.001em (0.03 px) of slack for float rounding.
MIN_CODE_EM = 0.55
CODE_SLACK = 0.001

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
      if (e.parentElement && e.parentElement.closest('pre, marp-pre, table')) continue;
      top = Math.min(top, (r.top - box.top) / scale);
      bottom = Math.max(bottom, (r.bottom - box.top) / scale);
      right = Math.max(right, (r.right - box.left) / scale);
      // A code block or table that scrolls inside itself is cut off too.
      if (/^(PRE|MARP-PRE|TABLE)$/.test(e.tagName)) {
        const dx = e.scrollWidth - e.clientWidth, dy = e.scrollHeight - e.clientHeight;
        const st = getComputedStyle(e);
        if ((dx > 1 || dy > 1) && st.overflow !== 'visible')
          clipped.push({tag: e.tagName.toLowerCase(), dx: dx, dy: dy});
      }
    }
    // The font size each code block shows at, in ems of the slide's text:
    // Marp's browser script turns each <pre is="marp-pre"> into a <marp-pre>
    // element and fits it to the slide's width by drawing it in an SVG
    // (inside the shadow roots of <marp-pre> and its <marp-auto-scaling>)
    // whose viewBox is the block's natural size, so its computed font size
    // is scaled by the SVG's drawn size over that viewBox ('meet': the
    // smaller ratio). A block Marp does not fit shows at its own size.
    const sf = parseFloat(getComputedStyle(s).fontSize);
    const code = [];
    s.querySelectorAll('pre, marp-pre').forEach(p => {
      if (p.parentElement && p.parentElement.closest('pre, marp-pre')) return;
      const c = p.querySelector('code') || p;
      const as = p.shadowRoot && p.shadowRoot.querySelector('marp-auto-scaling');
      const svg = as && as.shadowRoot && as.shadowRoot.querySelector('svg');
      let fit = 1;
      if (svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width > 0) {
        const r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
        fit = Math.min(r.width / vb.width, r.height / vb.height) / scale;
      }
      const lines = c.textContent.replace(/\n$/, '').split('\n');
      code.push({em: Math.round(parseFloat(getComputedStyle(c).fontSize) * fit / sf * 1000) / 1000,
                 lines: lines.length, widest: Math.max(...lines.map(l => l.length))});
    });
    const h = s.querySelector('h1, h2, h3, h4, h5, h6');
    // Where the slide's body starts: the first child that is not its heading.
    const first = [...s.children].find(c => !/^(H[1-6]|STYLE|HEADER|FOOTER)$/.test(c.tagName));
    const bodyTop = first ? Math.round((first.getBoundingClientRect().top - box.top) / scale) : 0;
    out.push({n: i + 1, heading: h ? h.textContent.trim() : '',
              down: s.scrollHeight - s.clientHeight, right: s.scrollWidth - s.clientWidth,
              up: Math.round(-top), bottom: Math.round(bottom), rightEdge: Math.round(right),
              height: s.clientHeight, bodyTop: bodyTop, width: s.clientWidth,
              padBottom: parseFloat(getComputedStyle(s).paddingBottom),
              padRight: parseFloat(getComputedStyle(s).paddingRight), clipped: clipped,
              code: code});
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
    ap = argparse.ArgumentParser(
        prog="check_slides_fit.py", description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", metavar="HTML_DIR_OR_FILE",
                    help="built decks, or folders of them (default: build-solutions/slides)")
    ap.add_argument("--chrome", metavar="PATH", help="the Chromium to measure with")
    ap.add_argument("--min-code-em", type=float, default=MIN_CODE_EM, metavar="EM",
                    help="smallest font size a code block may show at, in ems of the "
                         f"slide's text (default {MIN_CODE_EM}; 0 turns the check off)")
    ap.add_argument("--code-sizes", action="store_true",
                    help="also print every code block's shown font size")
    args = ap.parse_args(argv)
    chrome = find_chrome(args.chrome)
    if not chrome:
        print("check_slides_fit: no Chromium found (scripts/install-deps.sh --slides)")
        return 2
    paths = [pathlib.Path(a) for a in args.paths] or [ROOT / "build-solutions" / "slides"]
    decks = []
    for p in paths:
        decks += sorted(p.glob("[0-9]*.html")) if p.is_dir() else [p]
    if not decks:
        print(f"check_slides_fit: no built decks in {' '.join(map(str, paths))} "
              "(cmake --build --preset solutions --target slides)")
        return 2
    bad = small = blocks = 0
    smallest = None
    with tempfile.TemporaryDirectory() as tmp:
        for deck in decks:
            for s in measure(chrome, deck.resolve(), tmp):
                where = f"{deck.stem}: slide {s['n']} \"{s['heading']}\""
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
                    print(f"{where}: {'; '.join(how)}")
                # Code shown too small to read from the back of a room: one
                # line a slide, naming its smallest block.
                code = s["code"]
                for k, c in enumerate(code, 1):
                    blocks += 1
                    if smallest is None or c["em"] < smallest[0]:
                        smallest = (c["em"], where)
                    if args.code_sizes:
                        print(f"{where}: code block {k} of {len(code)} shown at {c['em']:.3f}em "
                              f"({c['lines']} lines, widest {c['widest']} characters)")
                under = [(c["em"], k, c) for k, c in enumerate(code, 1)
                         if c["em"] < args.min_code_em - CODE_SLACK]
                if under:
                    small += 1
                    em, k, c = min(under)
                    also = f"; {len(under) - 1} more under it" if len(under) > 1 else ""
                    print(f"{where}: code shown at {em:.3f}em, under the {args.min_code_em:g}em "
                          f"minimum (block {k} of {len(code)}: widest line {c['widest']} "
                          f"characters, {c['lines']} lines{also})")
    low = f"{blocks} code block(s)"
    if smallest:
        low += f", smallest {smallest[0]:.3f}em ({smallest[1]})"
    if bad or small:
        print(f"check_slides_fit: {len(decks)} deck(s): {bad} slide(s) do not fit, {small} "
              f"slide(s) show code under {args.min_code_em:g}em; {low}")
        return 1
    shows = (f" and shows its code at {args.min_code_em:g}em or more" if args.min_code_em > 0
             else " (code size not checked)")
    print(f"check_slides_fit: every slide of {len(decks)} deck(s) fits{shows}; {low}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
