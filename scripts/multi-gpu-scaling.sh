#!/usr/bin/env bash
# Issue #17 on a machine with several GPUs: one multi-shape tune on 1, 2, 4... GPUs at once
# (`tune --device 0,1,...`, spread shapes), each into a fresh store; prints the tuning wall time
# of each count and whether every shape's winner agrees with the 1-GPU run's (the same
# configuration, or one inside the other's tie band). With -N, one more run with --spread none on
# the largest count shows the winner each board finds for each shape.
#
#   scripts/multi-gpu-scaling.sh [-b OCCTUNE] [-k KERNEL] [-o OUTDIR] [-c "1 2 4"] [-N] [SHAPE...]
#
# Counts above the number of visible GPUs are skipped. Results: one JSON per run, stderr logs,
# summary.txt in OUTDIR.
set -euo pipefail
occtune=./build/autotuner/occtune
kernel=regblocked
out=$(mktemp -d /tmp/occtune-multi-gpu.XXXXXX)
counts="1 2 4 8"
none=0
while getopts "b:k:o:c:N" opt; do
  case $opt in
    b) occtune=$OPTARG ;;
    k) kernel=$OPTARG ;;
    o) out=$OPTARG ;;
    c) counts=$OPTARG ;;
    N) none=1 ;;
    *) echo "usage: $0 [-b OCCTUNE] [-k KERNEL] [-o OUTDIR] [-c COUNTS] [-N] [SHAPE...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(1024x1024x1024 2048x2048x2048 4096x1024x2048 1000x1000x1000
                                   3001x1000x4097 2048x512x4096 512x2048x2048 1536x1536x1536)
mkdir -p "$out"
"$occtune" devices --format json >"$out/devices.json"
visible=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['devices']))" \
  "$out/devices.json")
echo "occtune multi-gpu: $visible GPU(s) visible, kernel $kernel, ${#shapes[@]} shapes, results in $out" >&2

shape_args=()
for s in "${shapes[@]}"; do shape_args+=(--shape "$s"); done
# run NAME DEVICES SPREAD
run() {
  local name=$1 devices=$2 spread=$3 t0 t1
  rm -f "$out/$name.db" "$out/$name.db-wal" "$out/$name.db-shm"
  t0=$(date +%s.%N)
  "$occtune" tune --kernel "$kernel" "${shape_args[@]}" --device "$devices" --spread "$spread" \
    --force --quiet --db "$out/$name.db" --format json >"$out/$name.json" 2>"$out/$name.err"
  t1=$(date +%s.%N)
  python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$t1" \
    >"$out/$name.process_s"
  echo "  $name (--device $devices --spread $spread): $(cut -c1-6 "$out/$name.process_s") s" >&2
}
ran=()
for n in $counts; do
  [ "$n" -le "$visible" ] || { echo "  $n GPUs: skipped ($visible visible)" >&2; continue; }
  run "gpus$n" "$(seq -s, 0 $((n - 1)))" shapes
  ran+=("gpus$n")
done
[ "${ran[0]:-}" = gpus1 ] || { echo "the 1-GPU run is the reference and did not run" >&2; exit 2; }
last=${ran[${#ran[@]} - 1]}
if [ "$none" -eq 1 ] && [ "$last" != gpus1 ]; then
  run "${last}-none" "$(seq -s, 0 $((${last#gpus} - 1)))" none
  ran+=("${last}-none")
fi

python3 - "$out" "${ran[@]}" <<'PY' | tee "$out/summary.txt"
import json, sys
out, names = sys.argv[1], sys.argv[2:]

def per_device(doc):
    """(device, shape doc) for every shape of a `tune` or `tune_devices` document."""
    bodies = doc["devices"] if doc["kind"] == "tune_devices" else [doc]
    for body in bodies:
        if body.get("error"):
            print(f"  {body['device']['uuid']}: stopped: {body['error']}")
        for shape in body["shapes"]:
            yield body["device"], shape

def winner(shape):
    k = shape["kernels"][0]
    if k["winner"] < 0:
        return None, None, set()
    label = lambda c: ",".join(f"{n}={v}" for n, v in sorted(c["params"].items()))
    c = k["candidates"][k["winner"]]
    return label(c), c["timing"]["median_ms"], {label(k["candidates"][i]) for i in k["ties"]} | {label(c)}

runs = {}
for name in names:
    doc = json.load(open(f"{out}/{name}.json"))
    runs[name] = {"wall": doc["tuning_wall_s"], "process": float(open(f"{out}/{name}.process_s").read()),
                  "shapes": {}}
    for device, shape in per_device(doc):
        runs[name]["shapes"].setdefault(shape["shape"], []).append((device, winner(shape)))

base = runs["gpus1"]
print(f"tuning wall time (occtune's tuning_wall_s; process = the whole command):")
for name, r in runs.items():
    print(f"  {name:<12} {r['wall']:8.3f} s  (process {r['process']:.3f} s)"
          f"  speed-up vs 1 GPU {base['wall'] / r['wall']:.2f}x")
print()
ok = True
for name, r in runs.items():
    if name == "gpus1":
        continue
    for shape, found in r["shapes"].items():
        w1, ms1, ties1 = base["shapes"][shape][0][1]
        for device, (w, ms, ties) in found:
            agree = w is not None and w1 is not None and (w == w1 or w in ties1 or w1 in ties)
            ok &= agree
            show = lambda w, ms: f"{w} {ms:.4f} ms" if w else "no winner"
            print(f"  {name:<12} {shape:<16} GPU {device['index']} ({device['uuid'][:12]}): "
                  f"{show(w, ms)} vs 1 GPU {show(w1, ms1)} -> {'agree' if agree else 'DIFFER'}")
print()
print("every winner agrees with the 1-GPU run (same, or inside a tie band):", "yes" if ok else "NO")
PY
