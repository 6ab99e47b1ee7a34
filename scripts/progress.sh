#!/usr/bin/env bash
# Where am I: every lesson's steps done and left, speedups against their
# thresholds, and the same as a page (build/progress.html). --help for more.
exec "${COURSE_PYTHON:-python3}" "$(dirname "$0")/progress/progress.py" "$@"
