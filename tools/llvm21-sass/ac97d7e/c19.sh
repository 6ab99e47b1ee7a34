#!/bin/bash
# c19.sh NAME SRCROOT FILE(rel) [flags]: LLVM 19 as the course's nvptx build, -save-temps; cubin -> NAME/NAME.{sass,cuo}
WORK=${WORK:-/tmp/h21}  # scratch folder (for l11_link21.sh: inside the Debian 13 root, run by chroot)
set -e; name=$1; S=$2; f=$3; shift 3
mkdir -p $WORK/$name; cd $WORK/$name
clang++-19 -I$S/lessons/11-matching-the-vendor -I$S/reference -I/work/main/build-nvptx/generated -I$S/common/include -O3 -DNDEBUG -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path=/work/main/.deps/cuda --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc -Wno-pass-failed -include /work/main/build-nvptx/generated/course/config.hpp -std=c++20 "$@" -save-temps -c $S/$f -o k.o 2>&1 | grep error || true
d=$(ls *-openmp-nvptx64-nvidia-cuda-sm_90.o | head -1)
/opt/cuda118/bin/nvdisasm -c $d > $name.sass; /opt/cuda118/bin/cuobjdump -sass $d > $name.cuo
/opt/cuda118/bin/cuobjdump -res-usage $d 2>&1 | grep REG
