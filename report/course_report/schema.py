"""What every part of the report shares: the row columns (course::ResultRow,
common/include/course/results.hpp), the columns the report adds, the sizes'
names, the ceilings' names, and where the course's source tree is."""
from __future__ import annotations

import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))   # report/course_report/ -> the course

# course::result_columns(), in order; rows of older programs have only the first ten.
COLUMNS = ["lesson", "experiment", "variant", "size", "time_ms", "rate", "unit", "ceiling", "status", "note",
           "role", "bytes", "flops", "in_cache", "seed", "article", "article_ms", "plot", "param", "goal_pct"]
NUMERIC = {"time_ms", "rate", "bytes", "flops", "article_ms", "goal_pct"}
# What the report adds to each row in report.csv.
EXTRA_COLUMNS = ["program", "run", "is_main", "gbs", "gflops", "ceiling_used", "ceiling_value", "ceiling_size",
                 "pct_of_ceiling", "pct_of_peak", "over_ceiling", "speedup_vs_baseline", "baseline"]

MODES = ("tiny", "teaching", "full")
# How the host waits for the GPU: COURSE_CUDA_WAIT's values (common/src/cuda_wait.cpp), the first the default.
CUDA_WAITS = ("spin", "block")
# A vendor program's per-call twin of a ceiling row ends its variant so (report/vendor.hpp kPerCall):
# the same call on the host's clock, its synchronisation included, where the ceiling row is CUDA events.
PER_CALL = " per call"
# Older names of the ceilings, still accepted from older programs' rows.
CEILING_ALIASES = {"copy-bandwidth": "copy", "fp32-peak": "fp32"}
# Where a ceiling was not measured, the next best one (and the row says so).
CEILING_FALLBACK = {"sgemm": "fp32", "host-sgemm": "host-fp32", "cub-sum-int": "copy", "cub-sum-float": "copy",
                    "cub-sum-double": "copy", "cub-histogram": "copy", "cuda-nbody": "fp32"}
# Ceilings that are a peer's or the vendor's code, not a bound: a course kernel may beat them
# (lesson 11's histogram reads 112 % of CUB's on an H200), so a row over one is not flagged. Where
# a vendor's row is missing, CEILING_FALLBACK puts the row against a bound, which is flagged.
PEER_CEILINGS = {"cuda-nbody", "sgemm", "cub-sum-int", "cub-sum-float", "cub-sum-double", "cub-histogram"}
MEMORY_CEILINGS = {"copy", "host-copy", "omp-copy", "memory-peak"}
CEILING_WHAT = {
    "copy": "the device's best memory copy",
    "omp-copy": "the best OpenMP copy kernel the course writes",
    "memory-peak": "the physical memory bandwidth (device properties)",
    "fp32": "FP32 peak",
    "sgemm": "the vendor's SGEMM (cuBLAS) on the device",
    "cub-sum-int": "CUB's DeviceReduce::Sum of ints (bytes read once)",
    "cub-sum-float": "CUB's DeviceReduce::Sum of floats (bytes read once)",
    "cub-sum-double": "CUB's DeviceReduce::Sum of doubles (bytes read once)",
    "cub-histogram": "CUB's DeviceHistogram::HistogramEven, 256 bins of floats (bytes read once)",
    "cuda-nbody": "the classic tiled CUDA N-body kernel (a peer, not a bound)",
    "host-copy": "a STREAM-like copy on every host core",
    "host-fp32": "the host CPU's FP32 peak",
    "host-sgemm": "OpenBLAS SGEMM on the host's cores: what a user would otherwise call",
}


def source_lessons():
    """{n: folder} of the lessons in the source tree (lessons/NN-topic)."""
    found = {}
    for d in glob.glob(os.path.join(SOURCE_DIR, "lessons", "[0-9][0-9]-*")):
        if os.path.isdir(d):
            found[int(os.path.basename(d)[:2])] = os.path.basename(d)
    return found
