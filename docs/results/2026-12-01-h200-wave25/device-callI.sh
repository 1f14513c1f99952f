#!/usr/bin/env bash
# Device call I (one H200): call G's build (carry/commit). compute-sanitizer's racecheck over
# skinny, which call H's 230 s cut off during its fifth shape (its four before it complete, no
# hazard in its log): 64x16x517 (A's windows) and 130x16x1028 (the new splits of the 64-row
# ring for N <= 16), to a summary.
set -u
. scripts/device-call-setup.sh callI
sanitize() {  # TOOL LIMIT SHAPE...
  local tool=$1 limit=$2 t0=$SECONDS; shift 2
  local args=(); for x in "$@"; do args+=(--shape "$x"); done
  timeout "$limit" compute-sanitizer --tool "$tool" --kernel-name kns=occtune --print-limit 50 \
    --error-exitcode 86 --log-file "$W/$tool.log" \
    "$O" tune --no-isolation --quiet --format json --db "$W/$tool.db" --kernel skinny \
      "${args[@]}" --min-tile 1 --strategy exhaustive --samples 1 --max-samples 1 \
      --warmup 0 --min-seconds 0 --settle-ms 0 --settle-timeout-ms 0 > "$W/$tool.json" \
      2> "$W/$tool.stderr"
  step "$tool skinny" $? $((SECONDS - t0))
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$W/$tool.log" | tail -1 >> "$T"
  python3 - "$W/$tool.json" >> "$T" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
c = collections.Counter(x["outcome"] for s in doc["shapes"] for k in s["kernels"]
                        for x in k["candidates"])
print(f"{sum(c.values())} candidates over {len(doc['shapes'])} shapes: {dict(c)}")
PY
}
sanitize racecheck 280 64x16x517 130x16x1028
tar -czf "$R/callI.tgz" -C /tmp callI
grep -E "rc=|SUMMARY|candidates" "$T" | cut -c1-150
