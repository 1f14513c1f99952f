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
# `step LABEL RC SECONDS`, which logs one line per step (README, "pack-device-build.sh"), and
# the helpers below (summary, arch, sanitize, sanitize_control, suite, suite_with, base_beside,
# ctest_gpu, bench_search, lab_twice, ncu_profile).
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
# `summary`: the log's key lines (each step's rc, the suites' geometric means and lowest ratios,
# the GPU tests' and the sanitizer's totals, bench-search's verdicts), for the device tool's
# output tail; a call's script runs it on exit (`trap summary EXIT`; until wave 34 each script
# wrote the grep itself).
summary() {
  grep -E "rc=|geometric|lowest|base lib|tests passed|tests failed|SUMMARY|candidates|within|target" \
    "$T" | cut -c1-200
}
# `arch`: the call's scratch (W) archived into $R/NAME.tgz without the bench databases, called
# between steps so that a call its limit cuts still brings back what ran (each call's script
# defined it before wave 32's call C).
arch() { tar -czf "$R/$name.tgz" --exclude='*.db' -C /tmp "$name"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$T" 2>&1

# `sanitize TOOL LIMIT SHAPE...`: compute-sanitizer's TOOL over the skinny family's candidates at
# each shape (exhaustive, one sample each), logged with the tool's summary line and the
# candidates' outcomes.
sanitize() {
  local tool=$1 limit=$2 t0=$SECONDS; shift 2
  local args=(); for x in "$@"; do args+=(--shape "$x"); done
  timeout "$limit" compute-sanitizer --tool "$tool" --kernel-name kns=occtune --print-limit 50 \
    --error-exitcode 86 --log-file "$W/$tool.log" \
    "$O" tune --no-isolation --quiet --format json --db "$W/$tool.db" --kernel skinny \
      "${args[@]}" --min-tile 1 --strategy exhaustive --samples 1 --max-samples 1 \
      --warmup 0 --min-seconds 0 --settle-ms 0 --settle-timeout-ms 0 > "$W/$tool.json" \
      2> "$W/$tool.stderr"
  step "$tool skinny" $? $((SECONDS - t0))
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$W/$tool.log" | tail -1 >> "$T"
  python3 - "$W/$tool.json" >> "$T" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
c = collections.Counter(x["outcome"] for s in doc["shapes"] for k in s["kernels"]
                        for x in k["candidates"])
print(f"{sum(c.values())} candidates over {len(doc['shapes'])} shapes: {dict(c)}")
PY
}

# `sanitize_control`: the planted-fault control (memcheck must see the planted kernels' faults).
sanitize_control() {
  local t0=$SECONDS
  OCCTUNE_TEST_KERNELS=1 timeout 60 compute-sanitizer --tool memcheck --kernel-name kns=occtune \
    --print-limit 5 --log-file "$W/control.log" "$O" tune --no-isolation --quiet \
    --db "$W/control.db" --kernel planted_faults --shape 256x256x256 --samples 1 \
    --max-samples 1 --warmup 0 --min-seconds 0 > /dev/null 2>&1
  echo "control rc=$? in $((SECONDS - t0)) s: $(grep -c 'Invalid __global__' "$W/control.log")" \
    "invalid accesses, $(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$W/control.log" | tail -1)" \
    >> "$T"
}

# `suite NAME [FILE]`: `occtune bench` over a suite file (the default suite without one) into
# $W/NAME, its summary appended to the log.
suite() {
  local t0=$SECONDS file=()
  [ -n "${2:-}" ] && file=(-s "$2")
  BENCH_TIMEOUT=100 timeout 120 bash scripts/bench-suite.sh -b "$O" "${file[@]}" -o "$W/$1" \
    > "$W/$1.out" 2>&1
  step "bench $1" $? $((SECONDS - t0))
  echo "== $1" >> "$T"; cut -c1-150 "$W"/$1/*/summary.txt >> "$T"
}

# `suite_with BIN NAME [FILE]`: suite() with the occtune executable BIN.
suite_with() { local keep=$O; O=$1; shift; suite "$@"; O=$keep; }

# `base_beside LIBTAR`: /tmp/base/autotuner/occtune, the carried build's occtune beside a lib
# folder whose libocctune.so.0.1.0 is LIBTAR's (an .tar.xz holding that file alone), so that one
# call compares two builds' kernels (occtune's RPATH starts with $ORIGIN/../lib; a worker it
# starts runs the same file); both libraries' checksums and what /tmp/base loads are logged.
base_beside() {
  rm -rf /tmp/base && mkdir -p /tmp/base/autotuner /tmp/base/lib
  cp -a build-h100/autotuner/occtune /tmp/base/autotuner/
  (cd build-h100/lib && cp -a $(ls | grep -v '\.a$') /tmp/base/lib/)
  tar -xJf "$1" -C /tmp/base/lib
  echo "base lib: $(md5sum < /tmp/base/lib/libocctune.so.0.1.0 | cut -c1-12)," \
    "build's lib: $(md5sum < build-h100/lib/libocctune.so.0.1.0 | cut -c1-12);" \
    "base occtune loads $(ldd /tmp/base/autotuner/occtune | grep -o '/[^ ]*libocctune[^ ]*')" \
    >> "$T"
}

# `ctest_gpu LIMIT [REGEX]`: the GPU tests (those whose names match REGEX), one at a time, the
# log in $W/ctest-gpu.log and its summary appended to the call's log.
ctest_gpu() {
  local t0=$SECONDS only=()
  [ -n "${2:-}" ] && only=(-R "$2")
  timeout "$1" ctest --test-dir build-h100 -L gpu "${only[@]}" --output-on-failure -j1 \
    > "$W/ctest-gpu.log" 2>&1
  step "ctest-gpu ${2:-}" $? $((SECONDS - t0))
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
}

# `bench_search NAME LIMIT SHAPE...`: scripts/bench-search.sh over every family bench races
# (autotuner/cli/cmd_bench.cpp: kDefaultKernels, and skinny and repacked where they apply; keep
# the lists alike), the default strategy against exhaustive, no repeats, into $W/NAME; its
# summary appended to the log (issue #18: within 2 s of tuning a shape, within 1% of exhaustive).
bench_search() {
  local name=$1 limit=$2 t0=$SECONDS; shift 2
  timeout "$limit" bash scripts/bench-search.sh -b "$O" \
    -k coarsened,regblocked,pipelined,splitk,skinny,streamk,tma,repacked -m 4 -r 0 \
    -o "$W/$name" "$@" > "$W/$name.out" 2>&1
  step "bench-search $name" $? $((SECONDS - t0))
  cat "$W/$name/summary.txt" >> "$T" 2>/dev/null
}

# `lab_twice NAME LIMIT LAB [ARG...]`: the lab executable LAB run twice with ARGs (its options
# and shapes) into $W/NAME-1.txt and -2.txt; appended to the log: every WRONG line (a
# configuration that missed cuBLAS's answer), and per run and shape its six fastest rings.
lab_twice() {
  local name=$1 limit=$2 lab=$3 run t0; shift 3
  for run in 1 2; do
    t0=$SECONDS
    timeout "$limit" "$lab" "$@" > "$W/$name-$run.txt" 2>&1
    step "$name run $run" $? $((SECONDS - t0))
  done
  grep -h WRONG "$W/$name"-[12].txt | sort | uniq -c >> "$T"
  for run in 1 2; do
    awk -v b="$name-$run" '/^[0-9]+x/{s=$1; print b, $0; n=0}
      /^  (m?ring|mwin|rowdot|ring-dot|ws)/{ if (n<6) {n++; print b, s, $0} }' "$W/$name-$run.txt"
  done | sed -E 's/ +/ /g' >> "$T"
}

# `ncu_profile NAME LIMIT REGEX LAB [ARG...]`: Nsight Compute on the first launch of the kernel
# whose mangled name matches REGEX in the lab LAB run with ARGs (one repetition: --reps 1 in the
# ARGs), with the warp stall reasons and each SM's active cycles (min, mean, max); the report in
# $W/NAME.ncu-rep, its raw page in $W/NAME-raw.csv, and its duration, cycles, instructions, DRAM
# throughput, grid and every stall reason of 0.02 or more a warp appended to the log.
ncu_profile() {
  local name=$1 limit=$2 regex=$3 t0=$SECONDS; shift 3
  timeout "$limit" ncu --clock-control none --kernel-name-base mangled -k "regex:$regex" \
    --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section Occupancy --section LaunchStats --section InstructionStats \
    --section MemoryWorkloadAnalysis \
    --metrics sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max \
    -o "$W/$name" "$@" > "$W/$name.out" 2>&1
  step "ncu $name" $? $((SECONDS - t0))
  ncu -i "$W/$name.ncu-rep" --page raw --csv > "$W/$name-raw.csv" 2>&1
  python3 - "$W/$name-raw.csv" "$name" >> "$T" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
if len(rows) < 3:
    print("ncu", sys.argv[2], "no data:", " ".join(" ".join(r) for r in rows)[:300]); sys.exit()
# DRAM throughput under both names Nsight Compute has used: wave 30's logs (CUDA 13's ncu) had
# no dram__throughput line; whether its pages carry gpu__dram_throughput is still to be seen.
keep = ("gpu__time_duration.sum", "sm__cycles_active", "smsp__inst_executed.sum",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "launch__grid_size",
        "launch__registers_per_thread", "Kernel Name")
for n, v in zip(rows[0], rows[2]):
    try:
        x = float(v.replace(",", ""))
    except ValueError:
        x = 0.0
    if n.startswith(keep) or ("issue_stalled" in n and x >= 0.02):
        print("ncu", sys.argv[2], n, v[:120])
PY
}
