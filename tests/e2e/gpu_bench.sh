#!/usr/bin/env bash
# End to end on a GPU: `occtune bench` on two small shapes and two families, in JSON and as a
# table: every shape has a best configuration, cuBLAS timed before and after the races (the
# faster is the reference), a positive ratio, and the table ends with the geometric mean.
# Exit 77 = skipped (no GPU).
set -euo pipefail
occtune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$occtune" devices >/dev/null 2>"$tmp/devices.err"; then
  echo "skipped: $(cat "$tmp/devices.err")"
  exit 77
fi
"$occtune" bench --shape 512x512x512 --shape 255x129x1000 --kernel pipelined --kernel splitk \
  --quiet --format json >"$tmp/bench.json"
python3 - "$tmp/bench.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema_version"] == 2 and doc["kind"] == "bench", doc.keys()
assert len(doc["shapes"]) == 2
for s in doc["shapes"]:
    assert s["cublas_ms"] > 0 and s["cublas_before_ms"] > 0 and s["cublas_after_ms"] > 0, s
    assert s["cublas_ms"] == min(s["cublas_before_ms"], s["cublas_after_ms"]), s
    best = s["best_ms"]
    assert abs(s["ratio_to_cublas"] - s["cublas_ms"] / best) <= 1e-9 * s["ratio_to_cublas"], s
    assert s["best_kernel"] in ("pipelined", "splitk"), s
    assert s["ratio_to_cublas"] > 0, s
    assert set(s["families"]) == {"pipelined", "splitk"}, s
assert doc["geomean_ratio"] > 0
PY
"$occtune" bench --shape 256x256x4096 --kernel splitk --quiet >"$tmp/bench.txt"
grep -q "geometric mean of tuned/cuBLAS over 1 shapes" "$tmp/bench.txt"
grep -q "256x256x4096" "$tmp/bench.txt"
echo "bench ok"
