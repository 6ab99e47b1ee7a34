#!/usr/bin/env python3
"""Every step the progress view shows (scripts/progress.sh) has a short title
of its own, from its lesson README's Steps lines, not a TODO comment cut
mid-sentence.

  1. the parser (scripts/progress/grades.py, readme_titles) reads both forms
     a lesson uses: "**1.1 — loop order.**" (a list item or a table's step
     cell; several ids, "(optional)", a line break inside the bold) and a
     table "| step | where | what |" (the "what" cell); a bare "**1.1**"
     (a hint) and a table without a "what" column give no title;
  2. every TODO id of every lesson (the starters' blocks in lessons/, read
     as scripts/given.py reads them) has a title in its README, of at most
     grades.TITLE_MAX characters;
  3. the view shows that title.

Exit 0 pass, 1 fail.   titles-test.py SOURCE_DIR
"""
import pathlib
import sys

sys.dont_write_bytecode = True
src = pathlib.Path(sys.argv[1]).resolve()
sys.path.insert(0, str(src / "scripts" / "progress"))
import grades  # noqa: E402

problems = []

# 1. Both forms, and what is not a title.
SAMPLE = """## Steps

1. **1.1 — loop order.** Reorder the loops.
2. **7.1, 7.2 — `to_soa()` and
   `to_aos()`:** copy every field.
3. **7.6 (optional) — `step_tiled()` through team-local memory** (what runs).

| step | function | starter |
|---|---|---|
| **2.1 — add-exp on the device** | `add_exp` | a loop |
| 2.9 | `nothing` | no title column, no bold: no title |

| step | where | what |
|---|---|---|
| 13.1 | the rules | make them callable through a pointer on the device |

## Hints
- **3.1** Which loop? **3.2 —** (an empty title is none)
"""
want = {"1.1": "loop order", "7.1": "to_soa() and to_aos()", "7.2": "to_soa() and to_aos()",
        "7.6": "step_tiled() through team-local memory", "2.1": "add-exp on the device",
        "13.1": "make them callable through a pointer on the device"}
got = grades.readme_titles(SAMPLE)
if got != want:
    problems.append(f"the parser read {got}, wanted {want}")

# 2. Every TODO id of every lesson has a short title in its README.
lessons = grades.starters_record(src)
count = 0
for n, lesson in sorted(lessons.items(), key=lambda kv: int(kv[0])):
    titles = grades.lesson_titles(lesson["folder"], src)
    for step in lesson["steps"]:
        count += 1
        t = titles.get(step["id"])
        if not t:
            problems.append(f"lessons/{lesson['folder']}/README.md: step {step['id']} has no title: give it a "
                            f"Steps line '**{step['id']} — title.**' or a row '| {step['id']} | where | what |' "
                            "under a '| step | where | what |' header")
        elif len(t) > grades.TITLE_MAX:
            problems.append(f"lessons/{lesson['folder']}/README.md: step {step['id']}'s title is {len(t)} characters "
                            f"(at most {grades.TITLE_MAX}): {t!r}")

# 3. The view shows the README's title, not the TODO line.
lesson = lessons.get("1")
if lesson:
    v = grades.lesson_progress(1, lesson, {s["id"]: "not started" for s in lesson["steps"]}, None)
    title = grades.lesson_titles(lesson["folder"], src).get("1.1")
    if title and v["steps"][0]["label"] != title:
        problems.append(f"the view labels step 1.1 {v['steps'][0]['label']!r}, not its title {title!r}")

if problems:
    print("FAILED: step titles:\n  " + "\n  ".join(problems))
    sys.exit(1)
print(f"progress: all {count} steps of {len(lessons)} lessons have a title of at most {grades.TITLE_MAX} "
      "characters in their README; both forms parsed")
