#!/usr/bin/env bash
# Device call 3 (H100): the GPU suite and the install test (examples/sgemm_app run against the
# packed install tree, tuning on miss) on the final tree, and issue #17's one-GPU check: the
# multi-device path (--device all) against --device 0 on the same shapes.
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }
R=$OUT; O=build/autotuner/occtune
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv; echo "commit $(cat carry/commit)"; } > "$R/env.txt"
ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1; echo "ctest-gpu rc=$?" >> "$R/steps.txt"
ctest --test-dir build -L install --output-on-failure -V > "$R/ctest-install.log" 2>&1; echo "ctest-install rc=$?" >> "$R/steps.txt"
# Issue #17 on one GPU: the multi-device path (--device all) against --device 0, same shapes.
for sel in 0 all; do
  "$O" tune --device $sel --kernel regblocked --kernel splitk --shape 1024x1024x1024 \
    --shape 3001x1000x4097 --db /tmp/dev-$sel.db --format json --quiet > /tmp/dev-$sel.json 2>> "$R/device-path.err"
  echo "tune --device $sel rc=$?" >> "$R/steps.txt"
done
python3 - /tmp/dev-0.json /tmp/dev-all.json > "$R/device-path.txt" 2>&1 <<'PY'
import json, sys
def winners(path):
    doc = json.load(open(path))
    out = {}
    for s in doc["shapes"]:
        for k in s["kernels"]:
            w = k["candidates"][k["winner"]] if k.get("winner") is not None and k["winner"] >= 0 else None
            ties = {json.dumps(k["candidates"][i]["params"], sort_keys=True) for i in k.get("ties", [])}
            out[(s["shape"], k["kernel"])] = (json.dumps(w["params"], sort_keys=True) if w else None,
                                             w["timing"]["median_ms"] if w else None, ties)
    return out
a, b = winners(sys.argv[1]), winners(sys.argv[2])
ok = True
for key in sorted(a):
    wa, ma, ta = a[key]; wb, mb, tb = b.get(key, (None, None, set()))
    same = wa == wb or wa in tb or wb in ta
    ok &= same
    print("%-16s %-10s --device 0: %s %.4f ms | --device all: %s %.4f ms | %s" % (
        key[0], key[1], wa, ma, wb, mb, "same or tied" if same else "DIFFERENT"))
print("agree" if ok else "DISAGREE")
PY
cat "$R/steps.txt"; cat "$R/device-path.txt"; grep -E "tests passed|tests failed|\*\*\*" "$R/ctest-gpu.log" | tail -6; grep -E "sgemm_app|row-major|col-major" "$R/ctest-install.log" | head -12
