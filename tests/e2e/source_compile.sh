#!/usr/bin/env bash
# occtune compile as a user runs it, without a GPU: part of the example's space compiled for the
# H100 profile's sm_90 (registers, occupancy), again from the cache with zero NVRTC runs, for
# another architecture (all misses), and a bad job file refused with exit 2 naming the key; the
# same job file read by query, plan and tune as a job of source-kernel families, planned
# offline (plan --profile) with the registers of its code compiled for the profile.
set -euo pipefail
occtune=$1
source_dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
job="$source_dir/examples/source_kernel/stencil.toml"
where="BX == 32 && BY == 8"

"$occtune" compile --job "$job" --profile h100 --where "$where" --cache-dir "$tmp/cache" \
  --jobs 2 --format json --output "$tmp/cold.json"
"$occtune" compile --job "$job" --profile h100 --where "$where" --cache-dir "$tmp/cache" \
  --jobs 2 --format json --output "$tmp/warm.json"
"$occtune" compile --job "$job" --arch sm_80 --where "$where && UNROLL == 1" \
  --cache-dir "$tmp/cache" --format json --output "$tmp/sm80.json"
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
cold, warm, sm80 = (json.load(open(f"{d}/{n}.json")) for n in ("cold", "warm", "sm80"))
def fail(msg):
    sys.exit(f"source_compile: {msg}")
for doc in (cold, warm, sm80):
    if doc["kind"] != "compile" or "schema_version" not in doc:
        fail(f"not a compile document: {doc.get('kind')}")
configs = cold["kernels"][0]["configurations"]
# BX = 32, BY = 8: UNROLL 1, 2, 4, 8 (BY * UNROLL <= 64) x PAD 0, 1.
if len(configs) != 8:
    fail(f"{len(configs)} configurations, expected 8")
if cold["arch"] != "sm_90" or cold["device"]["name"] == "":
    fail(f"arch {cold['arch']}")
for c in configs:
    if c["status"] != "ok" or c["registers"] <= 0 or c["cache"] != "miss":
        fail(f"cold {c['config']}: {c}")
    if not (0 < c["occupancy"] <= 1) or c["active_blocks_per_sm"] < 1 or not c["limiter"]:
        fail(f"cold {c['config']} has no occupancy: {c}")
    if c["dynamic_smem"] != (32 + 2 + c["params"]["PAD"]) * (8 * c["params"]["UNROLL"] + 2) * 4:
        fail(f"cold {c['config']}: smem {c['dynamic_smem']}")
if cold["nvrtc_compilations"] != 9:  # 8 configurations and the reference
    fail(f"cold run compiled {cold['nvrtc_compilations']} programs, expected 9")
if warm["nvrtc_compilations"] != 0:
    fail(f"warm run compiled {warm['nvrtc_compilations']} programs, expected 0")
for a, b in zip(configs, warm["kernels"][0]["configurations"]):
    if b["cache"] != "hit" or b["registers"] != a["registers"] or b["cache_key"] != a["cache_key"]:
        fail(f"warm {b['config']}: {b}")
if sm80["nvrtc_compilations"] != 3 or any(c["cache"] != "miss" for c in sm80["kernels"][0]["configurations"]):
    fail(f"sm_80 run: {sm80['nvrtc_compilations']} compilations")
PY

# OCCTUNE_KERNEL_CACHE names the cache as --cache-dir does; set but empty is an error.
OCCTUNE_KERNEL_CACHE="$tmp/cache" "$occtune" compile --job "$job" --arch sm_90 --where "$where" \
  --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d["nvrtc_compilations"] == 0 and d["cache_dir"] == sys.argv[1] else f"env cache: {d}")
' "$tmp/cache"
set +e
OCCTUNE_KERNEL_CACHE= "$occtune" compile --job "$job" --arch sm_90 2>"$tmp/err"
code=$?
set -e
[ $code = 2 ] && grep -q "OCCTUNE_KERNEL_CACHE is set but empty" "$tmp/err" \
  || { echo "empty OCCTUNE_KERNEL_CACHE: exit $code"; cat "$tmp/err"; exit 1; }

# The table names every configuration and the summary counts the hits.
"$occtune" compile --job "$job" --arch 9.0 --where "$where" --cache-dir "$tmp/cache" >"$tmp/table"
grep -q "BX=32,BY=8,UNROLL=8,PAD=1" "$tmp/table" || { cat "$tmp/table"; exit 1; }
grep -q "8 configurations: 0 compiled, 8 from the cache, 0 compile_failed" "$tmp/table" \
  || { cat "$tmp/table"; exit 1; }

# A syntax error under one configuration's values: that row is compile_failed with NVRTC's log
# on stderr, the others compile, exit 0. Broken for every configuration: exit 2.
mkdir "$tmp/broken"
cp "$source_dir"/examples/source_kernel/stencil* "$tmp/broken/"
printf '\n#if UNROLL == 2 && PAD == 1\nthis is not C++;\n#endif\n' >>"$tmp/broken/stencil.cu"
"$occtune" compile --job "$tmp/broken/stencil.toml" --arch sm_90 --where "$where" \
  --cache-dir "$tmp/cache" >"$tmp/broken.out" 2>"$tmp/broken.err"
grep -q "BX=32,BY=8,UNROLL=2,PAD=1 *compile_failed" "$tmp/broken.out" \
  && grep -q "7 compiled, 0 from the cache, 1 compile_failed" "$tmp/broken.out" \
  && grep -q "UNROLL=2,PAD=1: compile_failed: .*error" "$tmp/broken.err" \
  || { cat "$tmp/broken.out" "$tmp/broken.err"; exit 1; }
printf '\nthis is not C++ either;\n' >>"$tmp/broken/stencil.cu"
set +e
"$occtune" compile --job "$tmp/broken/stencil.toml" --arch sm_90 --where "$where && UNROLL == 1" \
  --cache-dir "$tmp/cache" >/dev/null 2>"$tmp/broken.err"
code=$?
set -e
[ $code = 2 ] && grep -q "does not compile" "$tmp/broken.err" \
  || { echo "every configuration broken: exit $code"; cat "$tmp/broken.err"; exit 1; }

# A bad expression is exit 2 naming the key, before anything compiles.
sed 's/ceil_div(nx, block_x)/ceil_div(nx, block_w)/' "$job" >"$tmp/bad.toml"
cp "$source_dir"/examples/source_kernel/stencil*.c* "$tmp/"
set +e
"$occtune" compile --job "$tmp/bad.toml" --arch sm_90 --cache-dir "$tmp/cache2" 2>"$tmp/err"
code=$?
set -e
[ $code = 2 ] || { echo "bad job: exit $code, expected 2"; cat "$tmp/err"; exit 1; }
grep -q "kernel\[0\].launch.grid\[0\]" "$tmp/err" && grep -q "unknown name 'block_w'" "$tmp/err" \
  || { cat "$tmp/err"; exit 1; }
[ ! -e "$tmp/cache2" ] || { echo "a rejected job created the cache"; exit 1; }

# Every kernel of a job is validated before the first compiles: a second kernel whose grid
# divides by zero for UNROLL = 1 stops the job before NVRTC runs for the first.
cp "$job" "$tmp/two.toml"
sed -n '/^\[\[kernel\]\]/,$p' "$job" \
  | sed 's/^name = "stencil2d"/name = "second"/; s|ceil_div(ny, block_y \* UNROLL)|ny / (UNROLL - 1)|' \
  >>"$tmp/two.toml"
set +e
"$occtune" compile --job "$tmp/two.toml" --arch sm_90 --cache-dir "$tmp/cache3" 2>"$tmp/err"
code=$?
set -e
[ $code = 2 ] && grep -q "kernel 'second': .*division by zero" "$tmp/err" \
  || { echo "two kernels: exit $code"; cat "$tmp/err"; exit 1; }
[ ! -e "$tmp/cache3" ] || { echo "the first kernel compiled before the second was validated"; exit 1; }

# plan --profile plans a job's source kernels offline: compiled for the profile's architecture
# through the kernel cache (no GPU here), one candidate per configuration with the registers
# and blocks per SM of `compile --profile`; a second plan compiles nothing; the a100 profile
# compiles for sm_80. Four configurations of the example (BX = 32, BY = 8, UNROLL 1 and 2).
mkdir "$tmp/plan"
cp "$source_dir"/examples/source_kernel/stencil* "$tmp/plan/"
sed -i 's/^BX = .*/BX = [32]/; s/^BY = .*/BY = [8]/; s/^UNROLL = .*/UNROLL = [1, 2]/' \
  "$tmp/plan/stencil.toml"
pjob="$tmp/plan/stencil.toml"
for run in cold warm; do
  OCCTUNE_KERNEL_CACHE="$tmp/pc" "$occtune" plan --profile h100 --config "$pjob" \
    --format json --output "$tmp/plan-$run.json" 2>"$tmp/plan-$run.err"
done
"$occtune" compile --job "$pjob" --profile h100 --cache-dir "$tmp/pc" --format json \
  --output "$tmp/compile-h100.json"
OCCTUNE_KERNEL_CACHE="$tmp/pc" "$occtune" plan --profile a100 --config "$pjob" \
  --kernel stencil2d --problem nx=1000,ny=777 --format json --output "$tmp/plan-a100.json" \
  2>"$tmp/plan-a100.err"
"$occtune" compile --job "$pjob" --profile a100 --cache-dir "$tmp/pc" --format json \
  --output "$tmp/compile-a100.json"
OCCTUNE_KERNEL_CACHE="$tmp/pc" "$occtune" plan --profile h100 --config "$pjob" --format csv \
  >"$tmp/plan.csv" 2>/dev/null
OCCTUNE_KERNEL_CACHE="$tmp/pc" "$occtune" plan --profile h100 --config "$pjob" >"$tmp/plan.txt" \
  2>/dev/null
grep -q "compiled stencil2d: 4 configurations for sm_90 .*(5 programs compiled by NVRTC, 0 from" \
  "$tmp/plan-cold.err" || { cat "$tmp/plan-cold.err"; exit 1; }
grep -q "(0 programs compiled by NVRTC, 5 from the kernel cache, 0 compile_failed)" \
  "$tmp/plan-warm.err" || { cat "$tmp/plan-warm.err"; exit 1; }
grep -q "4 configurations for sm_80 .*(5 programs compiled by NVRTC, 0 from" "$tmp/plan-a100.err" \
  || { cat "$tmp/plan-a100.err"; exit 1; }
grep -q "this family: the registers of its compiled code" "$tmp/plan.txt" \
  && grep -q "BX=32,BY=8,UNROLL=2,PAD=1 .* ok$" "$tmp/plan.txt" \
  && grep -q "note: stencil2d: 4 configurations for sm_90" "$tmp/plan.txt" \
  || { cat "$tmp/plan.txt"; exit 1; }
python3 - "$tmp" <<'PY'
import csv, json, sys
d = sys.argv[1]
def fail(msg):
    sys.exit(f"source_compile (plan --profile): {msg}")
for profile, arch, shape in (("h100", "sm_90", "4096x4096x1"), ("a100", "sm_80", "1000x777x1")):
    compiled = json.load(open(f"{d}/compile-{profile}.json"))
    if compiled["arch"] != arch or compiled["nvrtc_compilations"] != 0:
        fail(f"compile --profile {profile}: arch {compiled['arch']}, "
             f"{compiled['nvrtc_compilations']} compilations (the plan's cache entries: 0)")
    by_label = {c["config"]: c for c in compiled["kernels"][0]["configurations"]}
    for run in ("cold", "warm") if profile == "h100" else ("a100",):
        plan = json.load(open(f"{d}/plan-{run}.json"))["plans"][0]
        if plan["kernel"] != "stencil2d" or plan["shape"] != shape:
            fail(f"{run}: plan of {plan['kernel']} at {plan['shape']}")
        if not plan["compile_s"] > 0:  # every process compiles the space (warm: from the cache)
            fail(f"{run}: compile_s {plan['compile_s']}")
        cands = plan["candidates"]
        if sorted(c["label"] for c in cands) != sorted(by_label):
            fail(f"{run}: candidates {[c['label'] for c in cands]}, configurations {list(by_label)}")
        for c in cands:
            ref = by_label[c["label"]]
            if c["rejection"] or c["registers"] <= 0 or c["registers"] != ref["registers"]:
                fail(f"{run} {c['label']}: registers {c['registers']}, compile says {ref['registers']}")
            if c["active_blocks_per_sm"] != ref["active_blocks_per_sm"] or c["limiter"] != ref["limiter"]:
                fail(f"{run} {c['label']}: {c['active_blocks_per_sm']} blocks/SM ({c['limiter']}), "
                     f"compile says {ref['active_blocks_per_sm']} ({ref['limiter']})")
            if c["threads"] != 256 or c["dynamic_smem"] != ref["dynamic_smem"]:
                fail(f"{run} {c['label']}: {c['threads']} threads, {c['dynamic_smem']} B")
rows = list(csv.DictReader(open(f"{d}/plan.csv")))
if len(rows) != 4 or any(r["status"] != "ok" or int(r["registers"]) <= 0 for r in rows):
    fail(f"csv: {rows}")
PY

# A syntax error under one configuration's values: plan --profile shows it compile_failed with
# NVRTC's log (table, CSV) and plans the other three.
mkdir "$tmp/plan-broken"
cp "$tmp/plan/"stencil* "$tmp/plan-broken/"
printf '\n#if UNROLL == 2 && PAD == 1\nthis is not C++;\n#endif\n' >>"$tmp/plan-broken/stencil.cu"
OCCTUNE_KERNEL_CACHE="$tmp/pc" "$occtune" plan --profile h100 \
  --config "$tmp/plan-broken/stencil.toml" >"$tmp/broken-plan.txt" 2>"$tmp/broken-plan.err"
grep -q "BX=32,BY=8,UNROLL=2,PAD=1 .* compile_failed$" "$tmp/broken-plan.txt" \
  && grep -q "^BX=32,BY=8,UNROLL=2,PAD=1: compile_failed: .*error" "$tmp/broken-plan.txt" \
  && [ "$(grep -c " ok$" "$tmp/broken-plan.txt")" = 3 ] \
  && grep -q "1 compile_failed)" "$tmp/broken-plan.err" \
  || { cat "$tmp/broken-plan.txt" "$tmp/broken-plan.err"; exit 1; }
OCCTUNE_KERNEL_CACHE="$tmp/pc" "$occtune" plan --profile h100 \
  --config "$tmp/plan-broken/stencil.toml" --format csv 2>/dev/null \
  | grep -q ',compile_failed,"compile_failed: .*error' \
  || { echo "plan csv of the broken job has no compile_failed record"; exit 1; }

# The commands that read a job file take its [[kernel]] tables as families: query (no store:
# exit 3, not a schema error) and a job whose kernel has an unknown key (exit 2 naming it).
set +e
OCCTUNE_KERNEL_CACHE="$tmp/kc" "$occtune" query --config "$job" --db "$tmp/none.db" 2>"$tmp/err"
code=$?
[ $code = 3 ] || { echo "query --config: exit $code, not 3"; cat "$tmp/err"; exit 1; }
sed 's/^options = /optionz = /' "$job" >"$tmp/typo.toml"
OCCTUNE_KERNEL_CACHE="$tmp/kc" "$occtune" tune --config "$tmp/typo.toml" 2>"$tmp/err"
code=$?
[ $code = 2 ] && grep -q "optionz" "$tmp/err" \
  || { echo "tune --config with a typo: exit $code"; cat "$tmp/err"; exit 1; }
set -e
echo "source_compile: ok"
