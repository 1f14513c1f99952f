#!/usr/bin/env bash
# Device call I (H100), wave 7: why the suite's 4096³ race picked tma's BK 16 configuration
# (2.78 ms) in call G when tma alone picks the 232-register one (2.68 ms, call H): `bench` at
# 4096³ with every default family, under the default rules and with each new rule turned off.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; O=build/autotuner/occtune
sed 's/^behind_factor = .*/behind_factor = 0/' configs/default.toml > /tmp/nobehind.toml
sed 's/^abandon_factor = .*/abandon_factor = 0/' configs/default.toml > /tmp/noabandon.toml
sed 's/^warmup = .*/warmup = 3/' configs/default.toml > /tmp/warmup3.toml
for run in default nobehind noabandon warmup3 default; do
  cfg=""; [ "$run" != default ] && cfg="--config /tmp/$run.toml"
  timeout 60 $O bench $cfg --shape 4096x4096x4096 --format json --output "$R/bench-$run.json" > "$R/bench-$run.txt" 2>&1
  echo "$run rc=$?: $(grep -E '^4096x4096x4096' "$R/bench-$run.txt" | head -1 | cut -c1-110)"
done | tee "$R/steps.txt"
python3 - "$R" <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + '/bench-*.json')):
    d = json.load(open(f)); s = d['shapes'][0]
    print(f.split('/')[-1], s['best_kernel'], round(s['best_ms'], 4), 'ratio', round(s['ratio_to_cublas'], 3),
          {k: round(v['median_ms'], 4) for k, v in s['families'].items() if isinstance(v, dict) and v.get('median_ms')})
PY
