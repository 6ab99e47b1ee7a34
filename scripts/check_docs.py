#!/usr/bin/env python3
"""Checks that the READMEs and slide decks quote the code and the tests as they are.

Read: README.md, lessons/*/README.md, docs/*.md (not docs/results/: dated
logs) and slides/*.md (not the code regions build-slides.py generates, which
its own check keeps in step). What a document quotes, and what must hold:

  (a) kernel names, `__omp_offloading_..._<mangled function>_lNN` (and a bare
      `_lNN` after one): line NN of the source that defines the function
      holds its `#pragma omp target ...` construct;
  (b) source positions, `file.cpp:LINE[:COL]` (compiler remarks, sanitizer
      frames): the file exists; LINE is code (not blank, comment or a
      preprocessor line other than #pragma); COL starts a token on it; and
      the line is what the remark is about: a loop remark sits on a loop or
      its pragma, a remark about "the called function" on a call at COL, a
      remark at column 1 on a `#pragma`. A quote whose line moved fails one
      of these (the fix names the nearest line that fits);
  (c) speedup thresholds quoted beside a lesson's speed test ("needs >= 1.2x",
      "≥ 1.2×", "(0.9×)" in a sentence about what the tests ask): one of that
      lesson's `constexpr course::Threshold` values in tests/lessonNN_*.cpp,
      the host or GPU column as the text says (per-thread values times the
      threads quoted); "no slower" in such a sentence quotes 1.0x, a table
      row's cells are sentences of their own;
  (d) OpenMP/LLVM API names (`omp_*`, `llvm_omp_*`, `ompx_*`, `__tgt_*`): in
      the compiler's omp.h or the course's code; and "free with `F`" after an
      allocator names that allocator's own free (`llvm_omp_target_alloc_X`:
      `llvm_omp_target_free_X`, `omp_target_alloc`: `omp_target_free`).
  (e) docs/results, the dated logs, weighs at most RESULTS_LIMIT (raw outputs gzip'd,
      plots quantised).

Which source a quote means: a lesson's README and lesson deck quote the
starter (lessons/NN-topic/), a walk-through deck the solution
(solutions/NN-topic/, then lessons/NN-topic/ for the files it does not
replace; the starter where the line says "starter" before the quote); a path
with a folder is taken from the repository root, a build folder's
steps/NN-topic/ID/FILE is the solution with step ID undone (made here, as
scripts/make_steps.py does); a name the lesson does not define is looked up
in tests/, common/ and tools/.

    usage: check_docs.py [REPO_ROOT] [--omp-h PATH] [--cxx COMPILER]

Exit status 0 when every quote holds, 1 with one line per drift
(document:line: what is wrong, and the right value where it can tell).
"""
import pathlib
import re
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_steps  # noqa: E402

# Quotes that look like code but are not the course's, each with its reason.
ALLOW = {
    ("slides/03-simd.md", "kernel.cpp:4:38"):
        "a remark from a two-file example the deck describes (declare simd on a declaration in another file)",
    ("*", "ompx_spmd_amenable"):
        "an assumption string of clang's OpenMP optimizer, quoted from its OMP121 remark; not a function",
}

CODE_EXT = (".cpp", ".hpp", ".inc", ".h", ".cc", ".c")
IDENT = re.compile(r"[A-Za-z_]\w*")
KERNEL = re.compile(r"(__omp_offloading_[\w.]*?|(?<=kernel )\.\.\.\w+?)_l(\d+)\b")
BARE_LINE = re.compile(r"`_l(\d+)`(?:\s*=\s*line (\d+))?")
POSITION = re.compile(r"(?<![\w/.-])((?:\.\.\./)?(?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.(?:cpp|hpp|inc|h|cc|c))"
                      r":(\d+)(?::(\d+))?\b")
API = re.compile(r"(?<![\w.])((?:llvm_omp|ompx|omp|__tgt)_\w+)")
FACTOR = re.compile(r"(\d+(?:\.\d+)?)\s?(?:x|×)(?![\w×])")
THRESHOLD = re.compile(r'constexpr\s+course::Threshold\s+(\w+)\s*\{\s*"([^"]+)"\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*,'
                       r"\s*course::Scaling::(\w+)\s*(?:,\s*([\d.]+)\s*)?\}")
# A sentence that says what the tests ask for, and clause words that mark a
# factor in it as a measurement instead.
ASKS = re.compile(r"\bneeds?\s*(?:>=|≥)?\s*\d+(?:\.\d+)?\s?[x×]|≥|>=|\bthresholds?\b|\brequires?\b|\bask(?:s|ed)?\b"
                  r"|\bmust be\b", re.I)
MEASURED = re.compile(r"measur|\bsolution\b|\barticle\b|\bpaper\b|\breach|\bbound\b|\bruns at\b|(?<![<>])=", re.I)
HOST_WORD = re.compile(r"\bhost\b", re.I)
GPU_WORD = re.compile(r"\bGPUs?\b|\bH[12]00s?\b|\bNVIDIA\b")


def is_code(text):
    s = text.strip()
    if not s or s.startswith(("//", "/*", "*")):
        return False
    return not s.startswith("#") or s.startswith("#pragma")


def is_target_pragma(text):
    return re.match(r"\s*#pragma\s+omp\s+target(?!\s+(?:enter|exit|data|update)\b)\b", text) is not None


def enclosing_function(lines, n):
    """Name of the function whose definition opens above line n (1-based):
    the nearest line at column 0 that names an identifier followed by '('."""
    for i in range(n - 2, -1, -1):
        t = lines[i]
        if not t or t[0] in " \t#/}{*":
            continue
        if re.match(r"(namespace|struct|class|using|typedef|return|static_assert)\b", t):
            continue
        m = re.search(r"\b([A-Za-z_]\w*)\s*\(", t)
        if m and m.group(1) not in ("if", "for", "while", "switch", "decltype", "sizeof", "alignas"):
            return m.group(1)
    return None


def demangled_name(text):
    """The function's own name in a (possibly shortened) mangled kernel name."""
    if text.startswith("_Z"):
        i = 2
        nested = text[i:i + 1] == "N"
        i += 1 if nested else 0
        while i < len(text) and text[i] in "LK":
            i += 1
        last = None
        while i < len(text) and text[i].isdigit():
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            k = int(text[i:j])
            last, i = text[j:j + k], j + k
            if not nested:
                break
        return last
    m = re.match(r"([A-Za-z_]\w*?)(?:E\w*)?$", text)
    return m.group(1) if m else None


class Course:
    """The repository's sources, tests and the compiler's omp.h, read once."""

    def __init__(self, root, omp_h):
        self.root = root
        self._lines = {}
        self.thresholds = {}  # lesson number -> [(name, key, host, gpu, scaling, cap)]
        for t in sorted(root.glob("tests/lesson[0-9][0-9]_*.cpp")):
            n = int(t.name[6:8])
            self.thresholds[n] = [(m[0], m[1], float(m[2]), float(m[3]), m[4], float(m[5] or 0))
                                  for m in THRESHOLD.findall(t.read_text())]
        self.code = [p for d in ("lessons", "solutions", "tests", "common", "tools")
                     for p in sorted((root / d).rglob("*")) if p.suffix in CODE_EXT and p.is_file()]
        self.names = set()
        for p in self.code:
            self.names.update(IDENT.findall(p.read_text(errors="replace")))
        self.omp_h = omp_h
        self.omp_names = set(IDENT.findall(omp_h.read_text())) if omp_h else set()

    def lines(self, path):
        if path not in self._lines:
            self._lines[path] = path.read_text(errors="replace").split("\n")
        return self._lines[path]

    def mutant(self, folder, step, name):
        """A step mutant as the solutions build writes it (<build>/steps/FOLDER/STEP/NAME):
        made here from the sources, so the quote holds in any checkout, built or not."""
        starter, solution = self.root / "lessons" / folder / name, self.root / "solutions" / folder / name
        if not (starter.is_file() and solution.is_file()):
            return None
        a, _ = make_steps.blocks.parse(starter, "starter")
        b, _ = make_steps.blocks.parse(solution, "solution")
        if step not in [blk.id for blk in make_steps.blocks.blocks(b)]:
            return None
        key = pathlib.Path("steps", folder, step, name)
        self._lines[key] = make_steps.undo(a, b, step)
        return key

    def lesson_dir(self, top, nn):
        found = sorted((self.root / top).glob(f"{nn:02d}-*"))
        return found[0] if found else None

    def view(self, doc):
        """(lesson number or None, the source files the document means, in order)."""
        rel = doc.relative_to(self.root).as_posix()
        m = re.match(r"lessons/(\d\d)-[^/]+/README\.md$", rel) or re.match(r"slides/(\d\d)-", rel)
        if not m or m.group(1) == "00":
            return None, [p for p in self.code if p.parts[len(self.root.parts)] != "solutions"]
        nn = int(m.group(1))
        starter = self.lesson_dir("lessons", nn)
        files = [p for p in sorted(starter.iterdir()) if p.suffix in CODE_EXT] if starter else []
        if rel.endswith("-walkthrough.md"):
            sol = self.lesson_dir("solutions", nn)
            if sol is None:
                return nn, None  # a student's copy without solutions/: nothing to check against
            solved = [p for p in sorted(sol.iterdir()) if p.suffix in CODE_EXT]
            files = solved + [p for p in files if p.name not in {s.name for s in solved}]
        return nn, files

    def starter_files(self, nn):
        d = self.lesson_dir("lessons", nn) if nn is not None else None
        return [p for p in sorted(d.iterdir()) if p.suffix in CODE_EXT] if d else []

    def others(self):
        return [p for p in self.code if p.parts[len(self.root.parts)] in ("tests", "common", "tools")]

    def rel(self, p):
        return p.relative_to(self.root).as_posix()


class Doc:
    """A Markdown file as lines, paragraphs and sentences; generated code regions left out."""

    def __init__(self, path):
        self.path = path
        raw = path.read_text().split("\n")
        self.lines, generated, fence = [], False, False
        for t in raw:
            if t.startswith("<!-- code:"):
                generated = True
            elif t.startswith("<!-- end code"):
                generated = False
                t = ""
            self.lines.append("" if generated else t)
        # Paragraphs: runs of prose lines; inside a fence, each line alone.
        self.paragraphs, cur = [], []
        for i, t in enumerate(self.lines, 1):
            if t.lstrip().startswith("```"):
                fence = not fence
                if cur:
                    self.paragraphs.append(cur)
                cur = []
                continue
            if fence:
                if t.strip():
                    self.paragraphs.append([(i, t)])
                continue
            if not t.strip() or t.startswith(("#", "|", "---")):
                if cur:
                    self.paragraphs.append(cur)
                cur = [(i, t)] if t.startswith("|") else []
                if cur:
                    self.paragraphs.append(cur)
                    cur = []
                continue
            cur.append((i, t))
        if cur:
            self.paragraphs.append(cur)

    @staticmethod
    def joined(par):
        """A paragraph's text with each character's line number."""
        text, where = "", []
        for i, t in par:
            if text:
                text += " "
                where.append(i)
            text += t
            where += [i] * len(t)
        return text, where


def allowed(rel, quote):
    return (rel, quote) in ALLOW or ("*", quote) in ALLOW


# ---- (a) kernel names ------------------------------------------------------------------


def check_kernels(course, doc, rel, files, errors):
    last = None  # (line, NN) of the previous full kernel name
    for i, t in enumerate(doc.lines, 1):
        for m in KERNEL.finditer(t):
            body, nn = m.group(1), int(m.group(2))
            # __omp_offloading_<device>_<file>_<mangled name>, "..." for the ids
            body = re.sub(r"^(?:__omp_offloading_)?(?:[0-9a-f]+_[0-9a-f]+_|\.\.\.)", "", body)
            body = body[1:] if body.startswith("_") and not body.startswith("_Z") else body
            name = demangled_name(body)
            last = (i, nn)
            if not name or allowed(rel, m.group(0)):
                continue
            defining = [(p, n) for p in files + course.others() for n, s in enumerate(course.lines(p), 1)
                        if is_target_pragma(s) and enclosing_function(course.lines(p), n) == name]
            in_view = [d for d in defining if d[0] in files] or defining
            if any(n == nn for _, n in in_view):
                continue
            if not in_view:
                errors.append(f"{rel}:{i}: kernel `{m.group(0)}`: no target construct in a function `{name}` "
                              f"in {course.rel(files[0].parent) if files else 'the course'}, tests/, common/")
            else:
                at = ", ".join(f"{course.rel(p)}:{n} (`_l{n}`)" for p, n in in_view)
                errors.append(f"{rel}:{i}: kernel `{m.group(0)}`: line {nn} holds no target construct of "
                              f"`{name}`; its target construct is at {at}")
        for m in BARE_LINE.finditer(t):
            nn = int(m.group(1))
            if m.group(2) and int(m.group(2)) != nn:
                errors.append(f"{rel}:{i}: `_l{nn}` = line {m.group(2)}: the kernel name's number is the line")
            if last and last[0] != i and i - last[0] <= 15 and last[1] != nn:
                errors.append(f"{rel}:{i}: `_l{nn}` does not match the kernel quoted at line {last[0]} (`_l{last[1]}`)")


# ---- (b) file:LINE[:COL] -------------------------------------------------------------


def remark_kind(message):
    message = re.sub(r"\[-R[^\]]*\]", "", message)  # the flag that asked for it names no kind
    if re.search(r"called function", message):
        return "call"
    if re.search(r"target construct", message):
        return "target"
    if re.search(r"vectoriz|interleav|\bloop\b", message):
        return "loop"
    return "code"


def fits(lines, line, col, kind):
    """Why the source position does not fit the remark (None when it does)."""
    if line < 1 or line > len(lines):
        return f"the file has {len(lines)} lines"
    text = lines[line - 1]
    if not is_code(text):
        return "that line is " + ("blank" if not text.strip() else
                                  "a comment" if text.strip().startswith(("/", "*")) else "a preprocessor line")
    pragma = text.startswith("#pragma")
    if col is not None:
        if col < 1 or col > len(text) or text[col - 1].isspace():
            return f"column {col} holds no code on that line"
        if pragma and col != 1:
            return f"column {col} of a `#pragma` line: the compiler reports a pragma at column 1"
        if col > 1 and re.match(r"\w", text[col - 1]) and re.match(r"\w", text[col - 2]):
            return f"column {col} is inside a word, not at a token"
    if kind == "loop":
        if not pragma and not re.search(r"\b(?:for|while)\s*\(|\bdo\b", text):
            return "a loop remark, but that line holds no loop or pragma"
        if col == 1 and not pragma and not re.match(r"(?:for|while|do)\b", text):
            return "a loop remark at column 1 belongs on a `#pragma` line or a loop that starts there"
    if kind == "target" and not is_target_pragma(text):
        return "the text speaks of a target construct, but that line holds none"
    if kind == "call" and (col is None or not re.match(r"[A-Za-z_][\w:]*\s*\(", text[col - 1:])):
        return "a remark about a called function, but no call starts at that column"
    return None


def check_positions(course, doc, rel, nn, files, errors):
    for i, t in enumerate(doc.lines, 1):
        for m in POSITION.finditer(t):
            path, line, col = m.group(1), int(m.group(2)), int(m.group(3)) if m.group(3) else None
            if allowed(rel, m.group(0)):
                continue
            if path.startswith(".../") or "/" not in path:
                base = path.split("/")[-1]
                view = files or []
                if rel.endswith("-walkthrough.md") and re.search(r"\bstarter\b", t[:m.start()], re.I):
                    view = course.starter_files(nn)  # "Starter: `simd.cpp:27:1 ...`" in a walk-through
                cands = [p for p in view if p.name == base]
                if not cands and nn is None:
                    cands = [p for p in course.code if p.name == base]
                if not cands:
                    cands = [p for p in course.others() if p.name == base]
            elif re.match(r"(?:[\w.-]+/)?steps/\d\d-[^/]+/[^/]+/[^/]+$", path):
                folder, step, name = path.split("/")[-3:]
                cands = [k for k in [course.mutant(folder, step, name)] if k]
            else:
                cands = [course.root / path] if (course.root / path).is_file() else []
            if not cands:
                errors.append(f"{rel}:{i}: `{m.group(0)}`: no file {path} in this lesson or the course")
                continue
            src = cands[0]
            message = t[m.end():]
            if i < len(doc.lines) and doc.lines[i].startswith((" ", "\t")):
                message += " " + doc.lines[i]
            if not re.search(r"\w", message):  # a sanitizer frame: what it says is before the position
                message = t[:m.start()]
            if "target construct" in t[:m.start()] or (i > 1 and "target construct" in doc.lines[i - 2]):
                message += " target construct"
            kind = remark_kind(message)
            lines = course.lines(src)
            why = fits(lines, line, col, kind)
            if why is None:
                continue
            near = [n for d in range(1, 16) for n in (line - d, line + d)
                    if 1 <= n <= len(lines) and fits(lines, n, col, kind) is None]
            hint = f"; the nearest line that fits is {near[0]}" if near else ""
            where = course.rel(src) if src.is_absolute() else f"{src}, the solution with step {src.parts[2]} undone"
            errors.append(f"{rel}:{i}: `{m.group(0)}` ({where}): {why}{hint}")


# ---- (c) thresholds -------------------------------------------------------------------


def allowed_values(rows, column, threads):
    out = set()
    for _, _, host, gpu, scaling, cap in rows:
        for col, v in (("host", host), ("gpu", gpu)):
            if column and col != column:
                continue
            scaled = scaling == "per_core_everywhere" or (scaling == "per_core" and col == "host")
            out.add(v)
            if scaled:
                top = int(cap) if cap > 0 else 256
                ks = [min(threads, top)] if threads else range(1, top + 1)
                out.update(v * k for k in ks)
    return out


def describe(rows):
    return "; ".join(f"{key} host {h:g}, GPU {g:g}{' per thread' if s != 'fixed' else ''}"
                     for _, key, h, g, s, _ in rows)


def check_thresholds(course, doc, rel, nn, errors):
    for par in doc.paragraphs:
        text, where = Doc.joined(par)
        if text.startswith("|"):  # a table row: each cell is a sentence of its own
            text = re.sub(r"(?<!\\)\|", ".", text)
        for sm in re.finditer(r"(?:[^.!?]|[.!?](?!\s|$))+[.!?]?", text):
            sentence, base = sm.group(0), sm.start()
            if not ASKS.search(sentence) and not re.search(r"\btests?\b", sentence):
                continue
            check_no_slower(course, sentence, base, where, par, rel, nn, errors)
            if not ASKS.search(sentence):
                continue
            for fm in FACTOR.finditer(sentence):
                a, b = fm.start(), fm.end()
                lo = max(sentence.rfind(c, 0, a) for c in ",;()—:[") + 1
                ends = [e for e in (sentence.find(c, b) for c in ",;()—:[") if e >= 0]
                hi = min(ends) if ends else len(sentence)
                clause = sentence[lo:hi]
                # ranges, tile shapes, measurements, "1.0x faster", "21.9× (needs ≥ 8×)"
                if re.search(r"\d\s*[–-]\s*$", sentence[:a]) or re.match(r"\s*[–-]\s*\d", sentence[b:]):
                    continue
                if re.search(r"\d×$", sentence[:a]) or re.match(r"\d", sentence[b:b + 1]):
                    continue
                if MEASURED.search(clause) or re.match(r"\s*(?:faster|slower)\b", sentence[b:]):
                    continue
                if re.match(r"\s*\(\s*needs", sentence[b:]):
                    continue
                value = float(fm.group(1))
                lm = list(re.finditer(r"\blesson (\d+)\b", sentence[:a], re.I))
                lesson = int(lm[-1].group(1)) if lm else nn
                column = column_of(sentence[:a], clause[b - lo:])
                tm = re.match(r"[^;)]{0,30}?\b(\d+) threads?\b", sentence[b:])
                threads = int(tm.group(1)) if tm else None
                report_threshold(course, value, fm.group(0), lesson, column, threads,
                                 where[base + a] if base + a < len(where) else par[0][0], rel, errors)


def column_of(before, after):
    """Which column a quoted threshold means: the host or GPU word after it in its
    clause, else the last one before it in the sentence; None when neither."""
    wh, wg = HOST_WORD.search(after), GPU_WORD.search(after)
    if wh or wg:
        return "host" if wh and (not wg or wh.start() < wg.start()) else "gpu"
    ph = [x.end() for x in HOST_WORD.finditer(before)]
    pg = [x.end() for x in GPU_WORD.finditer(before)]
    if ph or pg:
        return "host" if (ph[-1] if ph else -1) > (pg[-1] if pg else -1) else "gpu"
    return None


def report_threshold(course, value, quote, lesson, column, threads, line, rel, errors):
    lessons = [lesson] if lesson is not None else sorted(course.thresholds)
    if any(abs(value - v) < 1e-9 for L in lessons
           for v in allowed_values(course.thresholds.get(L, []), column, threads)):
        return
    which = f"lesson {lesson}" if lesson is not None else "any lesson"
    rows = course.thresholds.get(lesson, []) if lesson is not None else []
    known = describe(rows) if rows else "see tests/lessonNN_*.cpp"
    errors.append(f"{rel}:{line}: threshold {quote}"
                  f"{' (' + column + ')' if column else ''} is none of {which}'s: {known}")


def check_no_slower(course, sentence, base, where, par, rel, nn, errors):
    """"no slower" where a sentence says what a test asks is a threshold of 1.0x:
    the lesson must have one in the column the sentence names (a guard such as
    0.8x is not "no slower": quote its factor instead)."""
    for m in re.finditer(r"\bno slower\b|\bnot (?:be )?slower\b", sentence, re.I):
        a = m.start()
        lo = max(sentence.rfind(c, 0, a) for c in ",;()—:[") + 1
        ends = [e for e in (sentence.find(c, m.end()) for c in ",;()—:[") if e >= 0]
        clause_after = sentence[m.end():min(ends) if ends else len(sentence)]
        lm = list(re.finditer(r"\blesson (\d+)\b", sentence[:a], re.I))
        lesson = int(lm[-1].group(1)) if lm else nn
        column = column_of(sentence[:a], clause_after)
        line = where[base + a] if base + a < len(where) else par[0][0]
        report_threshold(course, 1.0, f'"{m.group(0)}"', lesson, column, None, line, rel, errors)


# ---- (d) API names ---------------------------------------------------------------------


def check_apis(course, doc, rel, errors):
    for i, t in enumerate(doc.lines, 1):
        for m in API.finditer(t):
            name = m.group(1)
            if name in course.omp_names or name in course.names or allowed(rel, name):
                continue
            errors.append(f"{rel}:{i}: `{name}` is neither in {course.omp_h or 'omp.h (not found)'} "
                          f"nor in the course's code")
    for par in doc.paragraphs:
        text, where = Doc.joined(par)
        for fm in re.finditer(r"\bfree[sd]?\b[^`.;]{0,30}?\bwith\s+`(\w+)", text):
            allocs = list(re.finditer(r"\b((?:llvm_)?omp_target_alloc\w*)", text[:fm.start()]))
            if not allocs:
                continue
            alloc = allocs[-1].group(1)
            want = alloc.replace("alloc", "free", 1)
            if fm.group(1) != want:
                errors.append(f"{rel}:{where[fm.start()]}: memory from `{alloc}` is freed with `{want}`, "
                              f"not `{fm.group(1)}`")


# ---- driver ----------------------------------------------------------------------------


def find_omp_h(cxx):
    for c in ([cxx] if cxx else []) + ["clang++-21", "clang++-19", "clang++"]:
        try:
            res = subprocess.run([c, "-print-resource-dir"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        p = pathlib.Path(res.stdout.strip()) / "include" / "omp.h"
        if res.returncode == 0 and p.is_file():
            return p
    found = sorted(pathlib.Path("/usr/lib").glob("llvm-*/lib/clang/*/include/omp.h"))
    return found[-1] if found else None


def documents(root):
    docs = [root / "README.md"] + sorted(root.glob("lessons/*/README.md")) + sorted(root.glob("docs/*.md"))
    return [d for d in docs + sorted(root.glob("slides/*.md")) if d.is_file()]


def check(root, omp_h):
    course = Course(root, omp_h)
    errors = []
    for path in documents(root):
        doc, rel = Doc(path), course.rel(path)
        nn, files = course.view(path)
        if files is not None:
            check_kernels(course, doc, rel, files, errors)
            check_positions(course, doc, rel, nn, files, errors)
        check_thresholds(course, doc, rel, nn, errors)
        check_apis(course, doc, rel, errors)
    return errors


# docs/results is read in a browser and cloned by every student: its raw
# outputs are kept gzip-compressed and its plots quantised (its README says
# how), and this keeps the folder within what a clone should carry. Raised
# from 1,500,000 on 2026-12-05 for the LLVM 21 N-body finding (every raw file
# was already recompressed); the next record trims an old page first. Raised
# again on 2026-12-06 by 20,000 for the lesson 11 README's 15 KB of measurement
# notes, moved here as docs/DEVELOPING.md asks (a clone carries no more).
RESULTS_LIMIT = 1_545_000


def results_weight(root):
    """One error when docs/results holds more than RESULTS_LIMIT bytes."""
    folder = root / "docs" / "results"
    files = [f for f in folder.rglob("*") if f.is_file()] if folder.is_dir() else []
    total = sum(f.stat().st_size for f in files)
    if total <= RESULTS_LIMIT:
        return []
    big = sorted(files, key=lambda f: -f.stat().st_size)[:3]
    return [f"docs/results: {total:,} bytes, over its {RESULTS_LIMIT:,}: gzip -9 -n raw outputs, pngquant plots "
            f"(largest: {', '.join(f'{f.relative_to(root)} {f.stat().st_size:,}' for f in big)})"]


def main(argv):
    args, root, omp_h, cxx = list(argv), None, None, None
    while args:
        a = args.pop(0)
        if a in ("--omp-h", "--cxx") and args:
            v = args.pop(0)
            omp_h, cxx = (pathlib.Path(v), cxx) if a == "--omp-h" else (omp_h, v)
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            root = pathlib.Path(a)
    root = (root or pathlib.Path(__file__).resolve().parent.parent).resolve()
    omp_h = omp_h or find_omp_h(cxx)
    if omp_h is None or not omp_h.is_file():
        print("check_docs: no omp.h found: pass --omp-h PATH or --cxx COMPILER", file=sys.stderr)
        return 2
    errors = check(root, omp_h) + results_weight(root)
    for e in errors:
        print(e)
    n = len(documents(root))
    print(f"check_docs: {len(errors)} drift(s) in {n} documents" if errors
          else f"check_docs: {n} documents quote the code and the tests as they are")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
