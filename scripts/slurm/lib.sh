# shellcheck shell=bash
# lib.sh -- what every job of scripts/slurm does first on the compute node:
# find the course's scripts, source the site hook (site-env.sh), and set the
# node's thread count from the allocation. Sourced by the job-*.sh scripts
# after they set COURSE_SLURM_DIR (see course_locate in each of them).

# The course checkout these scripts belong to (the instructor's).
COURSE_REPO=$(cd "$COURSE_SLURM_DIR/../.." && pwd)
export COURSE_REPO

# The site's module lines: COURSE_SITE_ENV, or site-env.sh next to this file.
course_site_env() {
  local hook=${COURSE_SITE_ENV:-$COURSE_SLURM_DIR/site-env.sh}
  if [ -n "${COURSE_SITE_ENV:-}" ] && [ ! -f "$hook" ]; then
    echo "course: error: COURSE_SITE_ENV=$hook does not exist" >&2
    return 2
  fi
  if [ -f "$hook" ]; then
    set +u
    # shellcheck disable=SC1090
    . "$hook" || { echo "course: error: the site hook $hook failed" >&2; return 2; }
    set -u
  fi
}

# Host OpenMP threads: what Slurm gave this task, unless the user said otherwise.
if [ -z "${OMP_NUM_THREADS:-}" ] && [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then
  export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
fi

course_banner() {
  echo "course: $1 on $(hostname) (job ${SLURM_JOB_ID:-none}${SLURM_ARRAY_TASK_ID:+, array task $SLURM_ARRAY_TASK_ID}," \
       "${SLURM_CPUS_PER_TASK:-?} CPUs, GPUs: ${CUDA_VISIBLE_DEVICES:-${SLURM_JOB_GPUS:-none}}) at $(date -u +%H:%M:%SZ)"
}
