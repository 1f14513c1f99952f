#!/usr/bin/env bash
# The common start of a device call's script (docs/results/*/device-call*.sh), sourced on the
# GPU machine from the repository root:
#
#   . scripts/device-call-setup.sh NAME
#
# Unpacks the carried build (carry/build.tar.xz, made here by
# `scripts/pack-device-build.sh --gpu-only build-h100 carry/build.tar.xz`) at build-h100, the
# path it was built at; puts CUDA's tools and libraries on PATH and LD_LIBRARY_PATH; and starts
# the call's log with the date, the build's commit (carry/commit), the GPU and its clocks. It
# sets R ($OUT, what comes back), W (/tmp/NAME, the call's scratch, archived by the script),
# T ($R/results.txt, the log) and O (the occtune executable), and defines
# `step LABEL RC SECONDS`, which logs one line per step (README, "pack-device-build.sh").
name=${1:?usage: . scripts/device-call-setup.sh NAME}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=${OUT:?device-call-setup.sh: OUT is not set (the device tool sets it)}
W=/tmp/$name
T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
# A machine may be lent again with an earlier call's /tmp (wave 21 call D found one from the day
# before in its suite folder): the scratch starts empty.
rm -rf "$W" && mkdir -p "$W"
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$T" 2>&1
