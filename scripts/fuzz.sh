#!/usr/bin/env bash
# Fuzzes occtune's inputs (job files, shapes, device selectors, device profiles, export files
# through import, stored device properties through planning, HTTP query parameters) with
# libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer. Builds tests/fuzz with
# Debian's clang in build-fuzz (installing clang and its runtime if missing), then runs each
# harness for --seconds, --jobs at a time, one log per harness under --out, and a summary.
# Usage: scripts/fuzz.sh [--seconds 600] [--jobs 1] [--out build-fuzz/logs] [harness...]
# (FUZZ_BUILD_JOBS limits the parallel build, default nproc)
# Exit 0 when every harness ran its time without a finding; a crash input is kept in --out.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=600
jobs=1
out=build-fuzz/logs
harnesses=()
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n 2,9p "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'; see --help" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
all=(fuzz_job_config fuzz_shape fuzz_device_selector fuzz_device_profile fuzz_import
  fuzz_device_planning fuzz_http_params)
((${#harnesses[@]})) || harnesses=("${all[@]}")

need=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  echo "fuzz.sh: installing ${need[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# The library under test is instrumented too (fuzzer-no-link), or libFuzzer would see no coverage
# inside the parsers. CUDA code (the kernel registry) still goes through nvcc and g++.
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS="$san" -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$(command -v ccache || true)" -DBUILD_TESTING=OFF \
  -DOCCTUNE_FUZZ=ON >/dev/null
cmake --build build-fuzz --target "${harnesses[@]}" -j "${FUZZ_BUILD_JOBS:-$(nproc)}"

# Seeds: the shipped job and profiles, a few spellings of each argument form, and every input
# that once broke a parser (tests/fuzz/regressions, replayed first by each run).
seeds=build-fuzz/seeds
rm -rf "$seeds"
mkdir -p "${all[@]/#/$seeds/}"
# Committed seeds (a real export, stored device properties, query strings) for the others.
for h in "${all[@]}"; do
  if [ -d "tests/fuzz/seeds/$h" ]; then cp tests/fuzz/seeds/"$h"/* "$seeds/$h/"; fi
done
cp configs/default.toml "$seeds/fuzz_job_config/"
printf 'version = 1\n[job]\nkernels = ["naive"]\nshapes = ["8x8x8"]\ndevice = "0"\n' \
  >"$seeds/fuzz_job_config/small.toml"
cp configs/profiles/*.toml "$seeds/fuzz_device_profile/"
i=0
for s in 1024x1024x1024 3001x1000x4097 1X1X1 +7x8x9 2147483647x1x1; do
  printf '%s' "$s" >"$seeds/fuzz_shape/$((i++))"
done
for s in 0 1 9999 GPU-8c1f0a2b-1111-2222-3333-444455556666 8c1f GPU-8c1f9999-aaaa; do
  printf '%s' "$s" >"$seeds/fuzz_device_selector/$((i++))"
done

mkdir -p "$out"
run_one() {
  local h="$1" corpus="build-fuzz/corpus/$1"
  mkdir -p "$corpus"
  local dict=() max_len=4096
  case "$h" in fuzz_job_config|fuzz_device_profile) dict=(-dict=tests/fuzz/toml.dict) ;; esac
  case "$h" in fuzz_import|fuzz_device_planning) dict=(-dict=tests/fuzz/json.dict) ;; esac
  if [ "$h" = fuzz_import ]; then max_len=16384; fi  # a small real export is about 4 KiB
  local rc=0
  ./build-fuzz/tests/fuzz/"$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$out/$h-" "${dict[@]}" \
    "$corpus" "$seeds/$h" $(ls -d tests/fuzz/regressions/"$h" 2>/dev/null) >"$out/$h.log" 2>&1 || rc=$?
  echo "$rc" >"$out/$h.rc"
}
running=0
for h in "${harnesses[@]}"; do
  run_one "$h" &
  running=$((running + 1))
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
done
wait || true

status=0
{
  echo "# occtune fuzz run: $(date -u +%Y-%m-%dT%H:%M:%SZ), $seconds s per harness, $(clang --version | head -1)"
  for h in "${harnesses[@]}"; do
    rc=$(cat "$out/$h.rc")
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$h.log" | grep -o '[0-9]*$' || echo '?')
    time=$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$out/$h.log" || echo 'no Done line')
    cov=$(grep -o 'cov: [0-9]*' "$out/$h.log" | tail -1 || true)
    corpus=$(ls "build-fuzz/corpus/$h" | wc -l)
    echo "$h: exit $rc; $time; executions $runs; $cov; corpus $corpus inputs"
    [ "$rc" = 0 ] || status=1
  done
} | tee "$out/summary.txt"
ls "$out" | grep -E -- '-(crash|leak|timeout|oom)-' && status=1
exit $status
