#!/usr/bin/env bash
# End to end on a GPU, the regression gate of issue #6: tune a small job, `check` it twice (both
# pass: SAME, AMBIGUOUS or FAST, exit 0), then `check` with a kernel 25% slower standing in for
# the cached winner (test-only kernels, OCCTUNE_TEST_KERNELS=1) and expect exit 1 with SLOW in
# JSON, JUnit and markdown; finally export, validate against the schema, import twice and
# compare. Exit 77 = skipped (no GPU).
set -euo pipefail
occtune=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$occtune" devices >/dev/null 2>"$tmp/devices.err"; then
  echo "skipped: $(cat "$tmp/devices.err")"
  exit 77
fi
db="$tmp/gate.db"
cat >"$tmp/job.toml" <<'EOF'
version = 1
[job]
kernels = ["tiled_dynamic"]
shapes = ["1024x1024x1024", "1000x1000x1000"]
min_tile = 8
[measure]
samples = 20
[check]
threshold = 5
EOF

# Runs a command and insists on its exit code.
expect() {
  local want=$1
  shift
  set +e
  "$@"
  local rc=$?
  set -e
  if [ "$rc" -ne "$want" ]; then
    echo "expected exit $want, got $rc: $*" >&2
    exit 1
  fi
}

"$occtune" tune --config "$tmp/job.toml" --db "$db" --quiet >"$tmp/tune.txt"

for round in 1 2; do
  expect 0 "$occtune" check --config "$tmp/job.toml" --db "$db" --quiet --format json \
    >"$tmp/check$round.json"
  python3 - "$tmp/check$round.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema_version"] == 3 and doc["kind"] == "check" and doc["exit_code"] == 0, doc
assert len(doc["keys"]) == 2
for k in doc["keys"]:
    assert k["verdict"] in ("SAME", "AMBIGUOUS", "FAST", "DRIFT"), (k["verdict"], k["reason"])
    assert k["current"]["outcome"] == "ok" and len(k["current"]["samples_ms"]) >= 5
    print(f'{k["shape"]}: {k["verdict"]} {k["comparison"]["ratio"]:.4f} ({k["reason"]})')
PY
done

expect 1 env OCCTUNE_TEST_KERNELS=1 "$occtune" check --config "$tmp/job.toml" --db "$db" \
  --quiet --kernel-override tiled_dynamic=tiled_dynamic_slow25 --junit "$tmp/slow.xml" \
  --markdown "$tmp/slow.md" --format json >"$tmp/slow.json"
python3 - "$tmp/slow.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["exit_code"] == 1
for k in doc["keys"]:
    assert k["verdict"] == "SLOW", (k["verdict"], k["reason"])
    assert k["launched_kernel"] == "tiled_dynamic_slow25"
    assert k["comparison"]["ratio"] > 1.1, k["comparison"]
    # A suspected SLOW is measured again before it counts.
    assert k["first_comparison"] and k["first_comparison"]["verdict"] == "SLOW"
    assert k["current"]["rel_error"] < 1e-5  # slower, still correct
    print(f'{k["shape"]}: SLOW {k["comparison"]["ratio"]:.3f}x')
PY
grep -q '<failure type="SLOW"' "$tmp/slow.xml"
grep -q '| \*\*SLOW\*\* |' "$tmp/slow.md"

# Artifacts for a CPU-only job: export, schema, import (idempotent), compare.
"$occtune" export --db "$db" --out "$tmp/export.json"
set +e
python3 "$src/scripts/validate-json-schema.py" "$src/docs/schema/export.schema.json" \
  "$tmp/export.json"
rc=$?
set -e
[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || { echo "export does not match its schema" >&2; exit 1; }
"$occtune" import "$tmp/export.json" --db "$tmp/copy.db" | grep -q "imported 2 runs"
"$occtune" import "$tmp/export.json" --db "$tmp/copy.db" | grep -q "imported 0 runs"
expect 0 "$occtune" compare "$tmp/export.json" "$tmp/export.json" >/dev/null
echo "e2e gpu check gate: ok"
