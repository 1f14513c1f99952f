#!/usr/bin/env bash
# End to end on a GPU: `occtune bench` on two small shapes and two families, in JSON and as a
# table: every shape has a best configuration, cuBLAS timed before and after the races (the
# faster is the race reference), the headline ratio from the interleaved re-measurement (30 or
# more A/B pairs, its median and interval), the winner re-verified, SM clock ranges, and the
# table ends with the geometric mean; a --suite file gives categories and their means; the JSON
# lists every race candidate of each family with its median.
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
assert doc["schema_version"] == 3 and doc["kind"] == "bench", doc.keys()
assert len(doc["shapes"]) == 2
for s in doc["shapes"]:
    assert s["cublas_ms"] > 0 and s["cublas_before_ms"] > 0 and s["cublas_after_ms"] > 0, s
    assert s["cublas_ms"] == min(s["cublas_before_ms"], s["cublas_after_ms"]), s
    best = s["best_ms"]
    race = s["race_ratio_to_cublas"]
    assert abs(race - s["cublas_ms"] / best) <= 1e-9 * race, s
    assert s["best_kernel"] in ("pipelined", "splitk"), s
    i = s["interleaved"]
    assert i["outcome"] == "ok" and 30 <= i["pairs"] <= 200, i
    assert i["cublas_median_ms"] > 0 and i["best_median_ms"] > 0, i
    assert s["ratio_to_cublas"] > 0 and i["ratio_ci"][0] <= s["ratio_to_cublas"] <= i["ratio_ci"][1], s
    assert s["reverified"]["outcome"] == "ok", s["reverified"]
    for clocks in (i["cublas_clock_mhz"], i["best_clock_mhz"], s["clocks_mhz"]["cublas_before"],
                   s["clocks_mhz"]["best"]):
        assert clocks is None or 0 < clocks[0] <= clocks[1], clocks  # None without NVML
    assert s["tflops"] > 0 and s["operand_tbps"] is None and s["read_tbps"] is None, s
    assert set(s["families"]) == {"pipelined", "splitk"}, s
    # Every race candidate, not only the winners (as tune's JSON lists them): a family's
    # winner (none where every candidate was abandoned or pruned) is among them with its median.
    assert set(s["race_candidates"]) == {"pipelined", "splitk"}, s
    for fam, cands in s["race_candidates"].items():
        assert cands and all(c["outcome"] and "params" in c for c in cands), cands
        timed = [c["timing"]["median_ms"] for c in cands
                 if c["outcome"] == "ok" and c["timing"]["count"] > 0]
        winner = s["families"][fam]
        assert winner is None or winner["median_ms"] in timed, (fam, winner, timed)
    assert s["families"][s["best_kernel"]]["median_ms"] == best, s
assert doc["geomean_ratio"] > 0 and doc["geomean_race_ratio"] > 0
PY
printf '# two shapes\n256x256x4096 long\n8x2048x1024 m8  # bandwidth column\n' >"$tmp/suite.txt"
"$occtune" bench --suite "$tmp/suite.txt" --kernel splitk --quiet >"$tmp/bench.txt"
cat "$tmp/bench.txt"
grep -q "geometric mean of tuned/cuBLAS over 2 shapes" "$tmp/bench.txt"
grep -Eq "^  long +[0-9.]+ over 1 shapes" "$tmp/bench.txt"
grep -Eq "^8x2048x1024 +m8 .* [0-9.]+ / [0-9.]+ " "$tmp/bench.txt"  # operand TB/s
grep -q "SM clock range of each sample set" "$tmp/bench.txt"
echo "bench ok"
