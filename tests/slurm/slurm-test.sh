#!/usr/bin/env bash
# The Slurm jobs of scripts/slurm, proven on a real Slurm: starts a
# single-node cluster on this machine (munged, slurmctld, slurmd from
# Debian's slurm-wlm and munge, all on localhost, state in a temporary
# folder), makes a class of fake student checkouts, submits the class job
# array with submit.sh, waits for the gather job and checks that the class
# table says what each checkout deserves:
#
#   starter        the untouched course               every graded lesson fails
#   lesson1-done   lesson 1's solution copied in      lesson 1 passes, later lessons fail
#   solutions      every solution copied in           every lesson passes
#   typo-path      a path that does not exist         one-line "not a course checkout" error
#   old-checkout   a checkout without lesson 1        "no lesson 1 in this checkout"; the rest graded
#   cheater        the starter, with lesson 1's tests made to pass anything, EXPLICIT_SIMD
#                  taken out of its CMakeLists.txt and a given line added: graded with the
#                  course's files, so lesson 1 fails, and each edit is named
#   (lesson1-done also carries an `#error` line outside matmul.cpp's TODO blocks: it
#   passes only because the grader puts the student's blocks into the course's lines)
#
#   slurm-test.sh SOURCE_DIR WORK_DIR [CXX]
#
# It also submits a student's own job the way a student would (sbatch
# scripts/slurm/job-grade.sh from their checkout) and checks its results.
# COURSE_SLURM_TEST_LESSONS picks the lessons graded (default 1; "1,2" adds
# a column and about a minute per checkout); COURSE_SLURM_TEST_REPORT=1 also
# runs the course report as a job (--tiny, lesson 1). The daemons are stopped on
# every exit (trap), and run in the foreground as this script's children so
# that a CTest timeout, which kills the process tree, takes them too.
# Exit status: 0 pass, 1 fail, 77 skipped (Slurm or munge not installed, or not root).
set -uo pipefail

src=${1:?usage: slurm-test.sh SOURCE_DIR WORK_DIR [CXX]}
work=${2:?usage: slurm-test.sh SOURCE_DIR WORK_DIR [CXX]}
cxx=${3:-}
lessons=${COURSE_SLURM_TEST_LESSONS:-1}
deadline=$((SECONDS + ${COURSE_SLURM_TEST_TIMEOUT:-1800}))
t0=$SECONDS

say() { echo "[slurm-test $((SECONDS - t0))s] $*"; }
skip() { echo "SKIPPED: $* (the Slurm test needs Debian's slurm-wlm and munge, run as root;" \
              "install: apt-get install --no-install-recommends slurmctld slurmd slurm-client munge)"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

missing=()
for c in munged munge slurmctld slurmd sbatch squeue sinfo scontrol scancel python3; do
  command -v "$c" >/dev/null 2>&1 || missing+=("$c")
done
[ ${#missing[@]} -eq 0 ] || skip "not installed: ${missing[*]}"
[ "$(id -u)" = 0 ] || skip "not root (slurmd must run as root to start jobs)"
[[ "$lessons" =~ ^[0-9]+(,[0-9]+)*$ ]] || fail "COURSE_SLURM_TEST_LESSONS must be lesson numbers such as 1 or 1,2, got '$lessons'"

src=$(cd "$src" && pwd)
mkdir -p "$work" && work=$(cd "$work" && pwd)
rm -rf "$work/class" "$work/checkouts"
# Daemon state in a short path: a Unix socket path holds at most 107 bytes.
state=$(mktemp -d /tmp/course-slurm.XXXXXX)
pids=()
cleanup() {
  status=$?
  trap - EXIT INT TERM
  if [ -f "$state/slurm.conf" ]; then
    export SLURM_CONF="$state/slurm.conf"
    scancel --quiet --full --user=root 2>/dev/null || true
    for _ in $(seq 40); do squeue -h 2>/dev/null | grep -q . || break; sleep 0.5; done
  fi
  # slurmd, then slurmctld, then munged (the others need it to say goodbye).
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2>/dev/null || continue
    for _ in $(seq 20); do kill -0 "${pids[i]}" 2>/dev/null || break; sleep 0.5; done
    kill -9 "${pids[i]}" 2>/dev/null || true
  done
  if [ "$status" != 0 ] && [ "$status" != 77 ]; then
    for log in slurmctld.out slurmctld.log slurmd.out slurmd.log munged.out munged.log; do
      [ -f "$state/$log" ] && { echo "--- last lines of $log"; tail -15 "$state/$log"; }
    done
    cp "$state"/*.log "$state"/*.out "$work/" 2>/dev/null || true
  fi
  rm -rf "$state"
  say "daemons stopped, exit $status"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --- the cluster: munge, controller and node daemon on localhost --------------
read -r ctld_port slurmd_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in ss))')
node=$(hostname -s 2>/dev/null || hostname)
cpus=$(nproc)
mkdir -p "$state/spool" "$state/save"
chmod 711 "$state"  # munged wants its socket's folder searchable by all
head -c 1024 /dev/urandom >"$state/munge.key"
chmod 400 "$state/munge.key"
# --force: munged would refuse a key and socket in a folder it does not own as user munge.
munged --foreground --force --key-file="$state/munge.key" --socket="$state/munge.sock" \
  --pid-file="$state/munged.pid" --log-file="$state/munged.log" --seed-file="$state/munged.seed" \
  >"$state/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$state/munge.sock" ] && break; sleep 0.2; done
munge --socket="$state/munge.sock" -n | unmunge --socket="$state/munge.sock" >/dev/null \
  || fail "munged does not answer on $state/munge.sock"

cat >"$state/slurm.conf" <<EOF
# A single-node Slurm for the course's test (tests/slurm/slurm-test.sh).
ClusterName=coursetest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$state/munge.sock
CredType=cred/munge
StateSaveLocation=$state/save
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=course Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$state/slurm.conf"
# Their own log files hold everything; stderr only matters before those open.
slurmctld -D -i -f "$SLURM_CONF" >"$state/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >"$state/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 120); do
  st=$(sinfo -h -n "$node" -o '%T' 2>/dev/null | head -1)
  [ "$st" = idle ] && break
  sleep 0.5
done
[ "${st:-}" = idle ] || fail "the node did not come up idle within 60 s (state '${st:-none}')"
say "Slurm up: node $node, $cpus CPUs, controller port $ctld_port ($(sinfo --version))"

# --- the class: fake student checkouts ---------------------------------------
co=$work/checkouts
mkdir -p "$co/starter"
# The course's files as on disk: those git tracks or would track (not the
# ignored builds), or, outside git (a clean-room copy), the tree without builds.
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$co/starter"
else
  tar -C "$src" --exclude='./build*' --exclude=./.deps --exclude=./.git --exclude=./slides/node_modules -cf - . \
    | tar -xf - -C "$co/starter"
fi
[ -f "$co/starter/CMakeLists.txt" ] || fail "could not copy the course from $src"
cp -a "$co/starter" "$co/lesson1-done"
cp "$src"/solutions/01-cpu-baseline/* "$co/lesson1-done/lessons/01-cpu-baseline/"
cp -a "$co/starter" "$co/solutions"
for d in "$src"/solutions/[0-9][0-9]-*/; do
  cp "$d"* "$co/solutions/lessons/$(basename "$d")/"
done
cp -a "$co/starter" "$co/old-checkout"
rm -rf "$co/old-checkout/lessons/01-cpu-baseline"
# Edits a grader must not grade: a line outside the blocks that would not even
# compile; in the cheater, tests that pass anything and a lesson build without
# its -fno-vectorize.
echo '#error "a given line the student added: the grader must not compile it"' \
  >>"$co/lesson1-done/lessons/01-cpu-baseline/matmul.cpp"
cp -a "$co/starter" "$co/cheater"
python3 - "$co/cheater/tests/lesson01_cpu_baseline.cpp" <<'PY' || fail "could not write the cheater's tests"
import re, sys
src = open(sys.argv[1]).read()
cases = re.findall(r'TEST_CASE\(\s*("[^"]*")\s*,\s*("[^"]*")', src)
open(sys.argv[1], "w").write('#include "course_test.hpp"\n' + "".join(
    f"TEST_CASE({n}, {t}) {{ SUCCEED(); }}\n" for n, t in cases))
PY
sed -i 's/ EXPLICIT_SIMD\([ )]\)/\1/' "$co/cheater/lessons/01-cpu-baseline/CMakeLists.txt"
# The cheat must have happened, or the grader's silence about it proves nothing.
grep "course_add_lesson" "$co/cheater/lessons/01-cpu-baseline/CMakeLists.txt" | grep -q "EXPLICIT_SIMD" \
  && fail "the cheater's edit of lessons/01-cpu-baseline/CMakeLists.txt did not apply (its course_add_lesson line changed?)"
echo 'static_assert(true, "a given line the cheater added");' >>"$co/cheater/lessons/01-cpu-baseline/matmul.cpp"
cat >"$work/class-list.txt" <<EOF
# The Slurm test's class: a name, a tab, the checkout (relative to this file).
starter	checkouts/starter
lesson1-done	checkouts/lesson1-done
solutions	checkouts/solutions
typo-path	checkouts/no-such-checkout
old-checkout	checkouts/old-checkout
cheater	checkouts/cheater
EOF
say "class of 6 made in $co"

# --- bad input is refused before anything is submitted -------------------------
submit="$src/scripts/slurm/submit.sh"
msg=$("$submit" class --list "$work/class-list.txt" --lessons 42 --out "$work/class-bad" --dry-run 2>&1)
rc=$?
[ "$rc" = 2 ] && [ "$(echo "$msg" | wc -l)" = 1 ] && [[ "$msg" == *"lesson 42 does not exist"* ]] \
  || fail "submit.sh with --lessons 42 should give one line and exit 2; gave $rc: $msg"
rm -rf "$work/class-bad"

export COURSE_CXX=${cxx:-${COURSE_CXX:-}}
[ -n "$COURSE_CXX" ] || unset COURSE_CXX
unset COURSE_SLURM_PARTITION COURSE_SLURM_ACCOUNT COURSE_SLURM_ARGS COURSE_SITE_ENV OMP_NUM_THREADS COURSE_SLURM_DIR

# --- a student's own job, submitted as a student would: plain sbatch, from
# their checkout (the job finds its scripts through Slurm). This checkout has
# no lesson 1, so nothing is built and the job says why.
student=$(cd "$co/old-checkout" && sbatch --parsable --cpus-per-task=1 --time=5 --output=job-%j.out \
          scripts/slurm/job-grade.sh --lessons 1 --device host) || fail "sbatch of a student's job failed"
say "student job $student submitted from $co/old-checkout"

# --- the course report as a job (optional: it builds the solutions) ----------
if [ "${COURSE_SLURM_TEST_REPORT:-0}" = 1 ]; then
  export COURSE_REPORT_BUILD=$work/report-build
  rm -rf "$COURSE_REPORT_BUILD"
  "$submit" report --gpus 0 --cpus "$cpus" --time 00:30:00 --device host -- --tiny --lessons 1 --no-plots \
    | tee "$work/report-submit.txt" || fail "submit.sh report failed"
  report=$(sed -n 's/^submit.sh: job \([0-9]*\) runs.*/\1/p' "$work/report-submit.txt")
fi

# --- submit the class and wait for the gather job -----------------------------
# One task at a time (each asks for every CPU): speedups measured on an idle node.
"$submit" class --list "$work/class-list.txt" --lessons "$lessons" --out "$work/class" \
  --gpus 0 --cpus "$cpus" --time 00:20:00 --device host --title "Slurm test class (lessons $lessons)" \
  || fail "submit.sh class failed"
gather=$(sed -n 's/^gather_job=//p' "$work/class/class.conf")
array=$(sed -n 's/^array_job=//p' "$work/class/class.conf")
last=""
while squeue -h -j "$gather" 2>/dev/null | grep -q .; do
  [ $SECONDS -lt $deadline ] || { squeue; fail "the class was not graded within the deadline"; }
  now=$(squeue -h -o '%i %T' | sort | tr '\n' ' ')
  [ "$now" = "$last" ] || say "queue: ${now:-empty}"
  last=$now
  sleep 3
done
scontrol show job "$gather" 2>/dev/null | grep -o 'JobState=[A-Z]*' | head -1 | sed "s/^/[slurm-test] gather job $gather: /"
say "array job $array and gather job $gather have ended"

# --- the student's job: exit status 1, the reason in its results -------------
state_of() { scontrol show job "$1" 2>/dev/null | grep -o -E '(JobState|ExitCode)=[^ ]*' | tr '\n' ' '; }
st=$(state_of "$student")
res=$co/old-checkout/build-slurm/results
[[ "$st" == *"JobState=FAILED"*"ExitCode=1:0"* ]] || fail "student job $student: $st (expected FAILED, exit 1)"
grep -q "no lesson 1 in this checkout" "$res/lesson1.error" 2>/dev/null && [ -s "$res/class.md" ] \
  || { cat "$co/old-checkout/job-$student.out"; fail "student job $student left no lesson1.error or class.md in $res"; }
say "student job $student: $st; $(cat "$res/lesson1.error")"

if [ -n "${report:-}" ]; then
  while squeue -h -j "$report" 2>/dev/null | grep -q .; do
    [ $SECONDS -lt $deadline ] || fail "the report job did not finish within the deadline"
    sleep 3
  done
  st=$(state_of "$report")
  [[ "$st" == *"JobState=COMPLETED"* ]] && [ -s "$COURSE_REPORT_BUILD/report/report.md" ] \
    || { tail -30 "$src/build-slurm/report-$report.out"; fail "report job $report: $st, or no report.md"; }
  say "report job $report: $st; $COURSE_REPORT_BUILD/report/report.md"
fi

# --- the class table says exactly what each checkout deserves ----------------
for f in class.md class.csv class.html; do
  [ -s "$work/class/$f" ] || { cat "$work/class/logs/"gather-*.out 2>/dev/null; fail "no $f in $work/class"; }
done
cat "$work/class/class.md"
python3 - "$work/class/class.csv" "$lessons" <<'PY' || { tail -n 30 "$work"/class/logs/*.out; fail "the class table is not what the class deserves"; }
import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1]))}
lessons = [int(x) for x in sys.argv[2].split(",")]
problems = []
def expect(student, lesson, allowed, note=None):
    r = rows.get(student)
    if r is None:
        problems.append(f"{student}: no row")
        return
    got = r[f"lesson{lesson}_status"]
    if got not in allowed:
        problems.append(f"{student}, lesson {lesson}: {got} ({r[f'lesson{lesson}_note']}), expected {'/'.join(allowed)}")
    if note and note not in r[f"lesson{lesson}_note"]:
        problems.append(f"{student}, lesson {lesson}: note '{r[f'lesson{lesson}_note']}' lacks '{note}'")
failed = ("FAIL", "SLOW")
for n in lessons:
    expect("starter", n, failed)
    expect("lesson1-done", n, ("PASS",) if n == 1 else failed)
    expect("solutions", n, ("PASS",))
    expect("typo-path", n, ("ERROR",))
    expect("old-checkout", n, ("ERROR",) if n == 1 else failed, "no lesson 1" if n == 1 else None)
    expect("cheater", n, failed)
if "not a course checkout" not in rows.get("typo-path", {}).get("error", ""):
    problems.append("typo-path: the row's error does not say 'not a course checkout'")
for who in ("starter", "lesson1-done", "solutions"):
    if not rows.get(who, {}).get("lesson1_matmul_speedup") and 1 in lessons:
        problems.append(f"{who}: no lesson 1 matmul speedup measured")
if len(rows) != 6:
    problems.append(f"{len(rows)} rows, expected 6")
for p in problems:
    print("class table:", p)
sys.exit(1 if problems else 0)
PY
for who in starter lesson1-done solutions; do
  ls "$work"/class/students/*-"$who"/lesson1.xml >/dev/null 2>&1 || [[ ",$lessons," != *,1,* ]] \
    || fail "$who: no JUnit XML for lesson 1"
done
# Every edit of a given thing is named, in the student's results and in the table.
edits_of() { cat "$work"/class/students/*-"$1"/edits.txt 2>/dev/null; }
for want in "cheater|edited given file: tests/lesson01_cpu_baseline.cpp" \
            "cheater|edited given file: lessons/01-cpu-baseline/CMakeLists.txt" \
            "cheater|edited given line: lessons/01-cpu-baseline/matmul.cpp:" \
            "lesson1-done|edited given line: lessons/01-cpu-baseline/matmul.cpp:"; do
  who=${want%%|*} line=${want#*|}
  edits_of "$who" | grep -qF "$line" || { edits_of "$who"; fail "$who: the grader did not name '$line'"; }
  path=${line#*: }
  grep -qF "${path%%:*}" "$work/class/class.csv" || fail "$who: the class table (class.csv) does not name '${path%%:*}'"
done
[ -z "$(edits_of solutions)" ] || fail "solutions: edits named where there are none: $(edits_of solutions)"
grep -q 'class="cell PASS"' "$work/class/class.html" && grep -q 'class="cell ERROR"' "$work/class/class.html" \
  || fail "class.html lacks coloured PASS/ERROR cells"
say "PASS: the class table says starter fails, lesson1-done passes lesson 1 (its edited given line not graded), solutions pass, the cheater's own tests and build are not used and each edit is named, bad input gets its one-line error"
