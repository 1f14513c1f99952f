#!/usr/bin/env bash
# The report's demonstration on a GPU: tune several shapes with every kernel family into a fresh
# database, run `occtune check` three times (the check history), then write the HTML report.
# Works from a packed build (scripts/pack-device-build.sh): needs only the occtune binary, no
# sqlite3 CLI and no compiler.
# Usage: scripts/report-demo.sh BUILD_DIR OUT_DIR [SHAPE...]
#   writes OUT_DIR/demo.db, OUT_DIR/tune.txt, OUT_DIR/tune.csv, OUT_DIR/check-{1,2,3}.{txt,md},
#   OUT_DIR/report.html and OUT_DIR/log.txt (stderr of every step)
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/report-demo.sh BUILD_DIR OUT_DIR [SHAPE...]" >&2
  exit 2
fi
build=$1
out=$2
shift 2
occtune="$build/autotuner/occtune"
[ -x "$occtune" ] || { echo "report-demo.sh: no occtune binary at $occtune; build or unpack first" >&2; exit 2; }
mkdir -p "$out"
db="$out/demo.db"
rm -f "$db" "$db-wal" "$db-shm"
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(1024x1024x1024 2048x2048x2048 4096x4096x4096 3001x1000x4097)
shape_args=()
for s in "${shapes[@]}"; do shape_args+=(--shape "$s"); done
kernels=(tiled_dynamic tiled_static naive coarsened regblocked pipelined splitk)
kernel_args=()
for k in "${kernels[@]}"; do kernel_args+=(--kernel "$k"); done

log="$out/log.txt"
: >"$log"
step() { echo "== $*" | tee -a "$log" >&2; }

step "tune ${shapes[*]} with ${kernels[*]}"
start=$(date +%s)
"$occtune" tune --db "$db" "${kernel_args[@]}" "${shape_args[@]}" --quiet \
  --output "$out/tune.txt" 2>>"$log"
echo "tune took $(( $(date +%s) - start )) s" | tee -a "$log" >&2
# The same results as CSV, from the store (no second measurement: reused under the same protocol).
"$occtune" tune --db "$db" "${kernel_args[@]}" "${shape_args[@]}" --quiet --format csv \
  --output "$out/tune.csv" 2>>"$log"

for i in 1 2 3; do
  step "check $i"
  rc=0
  "$occtune" check --db "$db" "${kernel_args[@]}" "${shape_args[@]}" --quiet \
    --markdown "$out/check-$i.md" >"$out/check-$i.txt" 2>>"$log" || rc=$?
  echo "check $i exit code $rc" | tee -a "$log" >&2
done

step "report"
"$occtune" report --db "$db" --out "$out/report.html" | tee -a "$log"
tail -n 20 "$out/tune.txt"
