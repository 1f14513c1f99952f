#!/usr/bin/env bash
# GPU memory safety: runs compute-sanitizer's memcheck, racecheck, initcheck and synccheck over
# every kernel variant occtune can launch (all registered families, the repacked family's copy
# kernel included, tiled_dynamic down to tile 1; never the test-only planted_faults) at odd and
# at aligned shapes, in process, one log per tool; fails on any error. Needs a GPU; minutes.
# Usage: scripts/sanitize.sh [--occtune PATH] [--out DIR] [--tools "memcheck racecheck ..."]
#        scripts/sanitize.sh --fetch   (on a machine with PyPI: download compute-sanitizer)
# compute-sanitizer is taken from $COMPUTE_SANITIZER, PATH, /usr/local/cuda/bin, or the
# nvidia-cuda-sanitizer-api wheel that --fetch puts in .sanitizer/ (14 MB; carry that folder to
# a GPU machine whose CUDA install has no sanitizer).
set -euo pipefail
cd "$(dirname "$0")/.."
occtune=build/autotuner/occtune
out=build/sanitize
tools="memcheck racecheck initcheck synccheck"
while (($#)); do
  case "$1" in
    --occtune) occtune="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --tools) tools="$2"; shift 2 ;;
    --fetch)
      mkdir -p .sanitizer
      python3 -m pip download --no-deps -d .sanitizer "nvidia-cuda-sanitizer-api==13.0.*"
      exit 0 ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    *) echo "sanitize.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sanitizer=${COMPUTE_SANITIZER:-}
[ -n "$sanitizer" ] || sanitizer=$(command -v compute-sanitizer || true)
[ -n "$sanitizer" ] || { [ -x /usr/local/cuda/bin/compute-sanitizer ] && sanitizer=/usr/local/cuda/bin/compute-sanitizer; } || true
if [ -z "$sanitizer" ]; then
  wheel=$(ls .sanitizer/nvidia_cuda_sanitizer_api-*.whl 2>/dev/null | head -1 || true)
  if [ -z "$wheel" ]; then
    echo "sanitize.sh: no compute-sanitizer found; set COMPUTE_SANITIZER, or run" \
         "scripts/sanitize.sh --fetch where PyPI is reachable and bring .sanitizer/ along" >&2
    exit 4
  fi
  python3 -m zipfile -e "$wheel" "$work/sanitizer"
  sanitizer=$(find "$work/sanitizer" -path '*/bin/compute-sanitizer' | head -1)
  chmod +x "$sanitizer"
fi
"$occtune" devices >/dev/null || { echo "sanitize.sh: no GPU visible to $occtune" >&2; exit 4; }

# Every registered family: the "known kernels" list of an unknown-kernel error, with the
# test-only faults switched off.
families=$( (env -u OCCTUNE_TEST_KERNELS "$occtune" plan --profile h100 --kernel '?' 2>&1 || true) |
           sed -n 's/.*known kernels: //p' | tr -d ',')
[ -n "$families" ] || { echo "sanitize.sh: could not list the kernel families" >&2; exit 4; }
kernel_args=()
for f in $families; do kernel_args+=(--kernel "$f"); done

mkdir -p "$out"
status=0
summary="$out/summary.txt"
{
  echo "# compute-sanitizer over occtune's kernels, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# $("$sanitizer" --version | tail -1); $("$occtune" --version); families: $families"
} >"$summary"
for tool in $tools; do
  # Misaligned shapes that leave partial tiles in every dimension (1x1x1: nothing but edges),
  # which take the element loads and 4-byte copies, and aligned ones (every dimension a
  # multiple of 4: 64x64x64 in whole tiles, 132x260x72 with partial tiles and a K residue) that
  # take the float4 loads and 16-byte cp.async; racecheck instruments every shared-memory
  # access and gets the small ones only. 1x257x515 and 1x133x70: one row whose large operand's
  # rows are misaligned (skinny's S = 1 tiles on element loads, over partial tiles). 12x260x516
  # and 12x68x72: aligned rows for skinny's S = 8 and 16 (its rings' 16-byte copies of A);
  # 260x12x516: its ring for N <= 16 with a large A; 260x6x1540: the ring for N <= 8, over
  # whole and partial slabs (racecheck leaves it to the host emulator's race check: its K of
  # at least two 512-row slabs took racecheck past 200 s over every family, wave 15 call C).
  # 257x4x2052, 129x1x2052 and 65x3x2052: the row-dot kernel's aligned rows of A over whole
  # batches, B dense (N = 3 too) or in 16-byte rows; 36x4x264 (racecheck): its warps' sums
  # meeting in shared memory. 100x16x1028 and 70x8x520: the rings for N <= 16 in row groups
  # (32 or 64 rows of C a block) over whole and partial slabs and a partial row block;
  # 40x16x136 (racecheck): their groups' sums meeting in shared memory. 90x7x1030: the rings
  # for N <= 16 with K split over a cluster on misaligned rows of A and B (element copies).
  # 2180x2080x132: 162 tiles of 128x256, more than an H100's or H200's 132 SMs, so tma's sk 3
  # runs its whole-wave launch, then its streamed tail as that launch's programmatic
  # dependent, then the fix-up of the tail's split tiles (racecheck: the tail alone, at the
  # small shapes).
  shapes=(1x1x1 17x17x17 33x65x17 257x129x515 64x64x64 132x260x72 1x257x515 12x260x516
          260x12x516 260x6x1540 257x4x2052 129x1x2052 65x3x2052 100x16x1028 70x8x520
          90x7x1030 2180x2080x132)
  [ "$tool" = racecheck ] &&
    shapes=(1x1x1 17x17x17 33x65x17 64x64x64 68x36x40 1x133x70 12x68x72 36x4x264 40x16x136)
  shape_args=()
  for s in "${shapes[@]}"; do shape_args+=(--shape "$s"); done
  # occtune's own kernels (namespace occtune: the variants, input fill, error check); initcheck
  # watches everything, so what cuBLAS writes counts as initialised.
  filter=(--kernel-name kns=occtune)
  [ "$tool" = initcheck ] && filter=()
  start=$(date +%s)
  rc=0
  env -u OCCTUNE_TEST_KERNELS "$sanitizer" --tool "$tool" "${filter[@]}" --print-limit 50 \
    --error-exitcode 86 --log-file "$out/$tool.log" \
    "$occtune" tune --no-isolation --quiet --format json --db "$work/$tool.db" \
      "${kernel_args[@]}" "${shape_args[@]}" --min-tile 1 --strategy exhaustive --samples 1 \
      --max-samples 1 --warmup 0 --min-seconds 0 --settle-ms 0 --settle-timeout-ms 0 \
      >"$out/$tool.json" 2>"$out/$tool.stderr" || rc=$?
  seconds=$(($(date +%s) - start))
  # racecheck ends with "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
  errors=$(grep -oE 'ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazards' "$out/$tool.log" |
           tail -1 || true)
  launched=$(python3 - "$out/$tool.json" <<'PY' 2>/dev/null || echo "no JSON"
import collections, json, sys
doc = json.load(open(sys.argv[1]))
status = collections.Counter(c["outcome"] for s in doc["shapes"] for k in s["kernels"]
                             for c in k["candidates"])
print(f"{sum(status.values())} candidates over {len(doc['shapes'])} shapes: {dict(status)}")
PY
)
  line="$tool: exit $rc, ${errors:-no ERROR SUMMARY line}, $launched, ${seconds} s"
  echo "$line" | tee -a "$summary"
  case "$errors" in "ERROR SUMMARY: 0 error" | "RACECHECK SUMMARY: 0 hazards") ;; *) status=1 ;; esac
  [ "$rc" = 0 ] || status=1
done

# Positive control: the same memcheck invocation and kernel filter over the test-only planted
# faults must report the illegal address, or the clean results above prove nothing.
rc=0
OCCTUNE_TEST_KERNELS=1 "$sanitizer" --tool memcheck --kernel-name kns=occtune --print-limit 5 \
  --log-file "$out/control-memcheck.log" \
  "$occtune" tune --no-isolation --quiet --db "$work/control.db" --kernel planted_faults \
    --shape 256x256x256 --samples 1 --max-samples 1 --warmup 0 --min-seconds 0 >/dev/null \
    2>"$out/control-memcheck.stderr" || rc=$?
found=$(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$out/control-memcheck.log" | tail -1 || true)
if grep -q 'Invalid __global__ write\|Invalid __global__ read' "$out/control-memcheck.log" &&
   [ "$found" != "ERROR SUMMARY: 0 error" ]; then
  echo "control (planted illegal address under memcheck): detected, ${found}, occtune exit $rc" |
    tee -a "$summary"
else
  echo "control (planted illegal address under memcheck): NOT detected (${found:-no summary})" |
    tee -a "$summary"
  status=1
fi
exit $status
