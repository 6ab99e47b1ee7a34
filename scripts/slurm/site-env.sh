# shellcheck shell=bash
# site-env.sh -- the ONE place for what a site needs before the course builds.
#
# Every job of scripts/slurm (a student's grading job, each task of the
# class array, the gather step, the report) sources this file on the compute
# node before it runs anything. Put your cluster's `module load` lines and
# variables here; the scripts themselves hard-code nothing of a site.
# Another file instead: export COURSE_SITE_ENV=/path/to/file before submitting.
#
# What the course needs on the node: LLVM clang >= 19 with its OpenMP offload
# runtime (libomptarget) and clang-tools (clang-offload-packager,
# clang-linker-wrapper, nvptx-arch), CMake >= 3.25, Ninja (optional),
# Catch2, python3; for NVIDIA GPUs a ptxas from CUDA <= 12.6 with clang 19
# (README: toolchains).
#
# Variables the jobs read (all optional):
#   COURSE_CXX          the C++ compiler (default clang++-19, else clang++)
#   COURSE_CUDA_PATH    CUDA folder with bin/ptxas and include/cuda.h (nvptx)
#   COURSE_NVPTX_ARCH   e.g. sm_90; empty: nvptx-arch asks the node's GPU
#   COURSE_CMAKE_ARGS   more configure arguments, e.g. "-DCatch2_DIR=/opt/catch2/lib/cmake/Catch2"
#
# Example for a site with environment modules (uncomment and adapt):
#   module purge
#   module load llvm/19 cmake/3.27 ninja python/3.11 cuda/12.4
#   export COURSE_CXX=clang++
#   export COURSE_CUDA_PATH=$CUDA_HOME
#
# This file is sourced by bash with `set -u` off; keep it to environment
# setup (no output on success, no exit).
