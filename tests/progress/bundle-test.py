#!/usr/bin/env python3
"""The progress view of a GPU node's bundle (scripts/progress.sh --bundle, what
`scripts/report-gpu.sh progress` runs there): a bundle made here in a
temporary folder, with Catch2's own JUnit for lesson 11 (a GPU node has no
CTest) and a report.csv, must show

  - a case Catch2 ran and failed as failed (Catch2 writes status="run" for
    every case it ran, the failure as a child), with its message;
  - the speed verdict line of a passing case, with its threshold;
  - lesson 11's percentages of the vendor's code from report.csv;

and, with the failing case passing, lesson 11 done. Exit 0 pass, 1 fail.

  bundle-test.py SOURCE_DIR
"""
import json
import pathlib
import subprocess
import sys
import tempfile

src = pathlib.Path(sys.argv[1]).resolve()
problems = []

CASE_OK = """<testcase classname="lesson11_test.global" name="sum of floats is faster than the starter" time="0.5" status="run">
<system-out>device: NVIDIA H200 (sm_90, 132 SMs)
lesson 11 sum float: 3.4x faster than baseline (needs >= 1.5x on gpu, 132 SMs) [baseline 1 ms, yours 0.3 ms]
</system-out></testcase>"""
CASE_BAD = """<testcase classname="lesson11_test.global" name="histogram counts every value once" time="0.1" status="run">
<failure message="bin 7: expected 12, got 11" type="FAIL">at lesson11_test.cpp:40</failure>
</testcase>"""
CSV = ("lesson,role,experiment,pct_of_ceiling,ceiling_used\n"
       "11,kernel,sum float: solution,93.4,CUB sum float\n"
       "11,kernel,SGEMM: solution,87.9,cuBLAS SGEMM\n"
       "11,baseline,sum float: starter,,\n")


def view(bundle):
    p = subprocess.run([sys.executable, str(src / "scripts/progress/progress.py"), "--bundle", str(bundle),
                        "--lessons", "11", "--color", "never", "--html", str(bundle / "p.html"),
                        "--json", str(bundle / "p.json")], capture_output=True, text=True)
    if p.returncode != 0:
        problems.append(f"progress.py --bundle exited {p.returncode}: {p.stderr.strip()}")
        return None, p.stdout
    return json.loads((bundle / "p.json").read_text())["lessons"][0], p.stdout


with tempfile.TemporaryDirectory() as d:
    b = pathlib.Path(d) / "bundle"
    (b / "report").mkdir(parents=True)
    (b / "junit").mkdir()
    (b / "lessons/11-matching-the-vendor").mkdir(parents=True)
    (b / "lessons/11-matching-the-vendor/lesson11_test").write_text("")
    (b / "report/build-info.json").write_text(json.dumps({"track": "solutions", "device_class": "gpu"}))
    (b / "course-env.json").write_text(json.dumps({"device": {"class": "gpu", "kind": "nvptx"}}))
    (b / "report/report.csv").write_text(CSV)
    xml = b / "junit/lesson11_test.xml"
    xml.write_text(f'<?xml version="1.0"?>\n<testsuites><testsuite name="lesson11_test">{CASE_OK}{CASE_BAD}'
                   "</testsuite></testsuites>\n")
    v, out = view(b)
    if v:
        if v["status"] == "done" or v.get("passed") != 1 or v.get("total") != 2:
            problems.append(f"a failed Catch2 case counted as passed: {v['status']}, "
                            f"{v.get('passed')}/{v.get('total')} (wanted 1/2)")
        if "bin 7: expected 12, got 11" not in out:
            problems.append("the failed case's message is not shown")
        if not any(s["label"] == "sum float" and abs(s["measured"] - 3.4) < 1e-9 and s["required"] == 1.5
                   for s in v["speedups"]):
            problems.append(f"the speed verdict is missing or wrong: {v['speedups']}")
        vend = v.get("vendor")
        if not isinstance(vend, list) or not any("93.4 % of CUB sum float" in r for r in vend) \
                or not any("87.9 % of cuBLAS" in r for r in vend):
            problems.append(f"lesson 11's % of the vendor is not shown: {vend}")
    xml.write_text(f'<?xml version="1.0"?>\n<testsuites><testsuite name="lesson11_test">{CASE_OK}'
                   f'{CASE_BAD.replace(CASE_BAD[CASE_BAD.index("<failure"):CASE_BAD.index("</testcase>")], "")}'
                   "</testsuite></testsuites>\n")
    v, out = view(b)
    if v and (v["status"] != "done" or v.get("passed") != 2):
        problems.append(f"every case passing does not make lesson 11 done: {v['status']}, {v.get('passed')}/2")
    (b / "junit/lesson11_test.xml").unlink()
    v, out = view(b)
    if v and "no results yet" not in (v.get("note") or ""):
        problems.append(f"a bundle without results does not say so: {v.get('note')!r}")

if problems:
    print("FAILED: progress --bundle:\n  " + "\n  ".join(problems))
    sys.exit(1)
print("progress --bundle: Catch2's failures, the speed verdict and lesson 11's % of the vendor shown; done when all pass")
