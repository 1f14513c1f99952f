#!/usr/bin/env bash
# Device call 3 (H100), wave 3: the planted-fault tune's JSON as GpuIsolation reads it (call 2's
# one failure), then issue #18's suite (scripts/bench-suite.sh) with the stream-K family racing.
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }  # reuses a build left by an earlier call (see device-call8.sh)
echo "commit $(cat carry/commit)"
OCCTUNE_TEST_KERNELS=1 timeout 60 build/autotuner/occtune tune --kernel planted_faults \
  --kernel tiled_dynamic --shape 256x256x256 --samples 5 --quiet --candidate-timeout 2 \
  --format json --db /tmp/faults.db > "$OUT/faults.json" 2> "$OUT/faults.err"; echo "faults tune rc=$?"
python3 - "$OUT/faults.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("backend", repr(d.get("backend")))
for k in d["shapes"][0]["kernels"]:
    print(k["kernel"], "winner", repr(k["winner"]))
    for c in k["candidates"]:
        print("  ", repr(c.get("variant")), repr(c.get("outcome")), type(c.get("variant")).__name__)
PY
BENCH_TIMEOUT=520 bash scripts/bench-suite.sh -o "$OUT"; echo "bench-suite rc=$?"
d=$(ls -d "$OUT"/*/ | head -1); tail -75 "$d/summary.txt"
