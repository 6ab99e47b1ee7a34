#!/bin/bash
# l11_link21.sh NAME SRCROOT CUDA (in the Debian 13 root): lesson 11's LLVM 21 link, build21d's objects ($WORK/l11objs.txt:
# the lesson11 target's inputs in build21d/build.ninja less the two gravity ones) with gravity.cpp and
# lesson11_plain_gravity.cpp compiled from SRCROOT; -save-temps at the link, temps in $WORK/NAME
WORK=${WORK:-/tmp/h21}
set -e; name=$1; S=$2; cuda=$3
export PATH=/usr/lib/llvm-21/bin:$cuda/bin:$PATH
F="-O3 -DNDEBUG -std=c++20 -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path=$cuda -foffload-lto -Wno-pass-failed -include $WORK/gen/course/config.hpp"
mkdir -p $WORK/$name; cd $WORK/$name
clang++ $F -I$S/lessons/11-matching-the-vendor -I$WORK/gen -I$S/common/include -c $S/solutions/11-matching-the-vendor/gravity.cpp -o gravity.o
clang++ $F -I$S/reference -I$WORK/gen -I$S/common/include -c $S/reference/lesson11_plain_gravity.cpp -o plain_gravity.o
cd $WORK/$name
clang++ -O3 -DNDEBUG -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path=$cuda -foffload-lto -save-temps=obj \
  $(sed "s,^,/root/course/build21d/," $WORK/l11objs.txt) $WORK/$name/gravity.o $WORK/$name/plain_gravity.o -o $WORK/$name/lesson11 -ldl
ls $WORK/$name | grep -E 'cubin|\.s$'
