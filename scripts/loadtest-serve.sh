#!/usr/bin/env bash
# Load test of `occtune serve` (issue #7): seeds a temporary database with synthetic runs
# (tests/tools/seed_store.cpp), starts the service on 127.0.0.1 and runs wrk against /v1/best.
# Writes the wrk output, a metrics snapshot and the machine facts to OUT_DIR, and checks the
# targets (>= 20,000 requests/s, p99 < 5 ms).
#   scripts/loadtest-serve.sh [BUILD_DIR] [OUT_DIR] [DURATION]
set -euo pipefail
build=${1:-build}
out=${2:-docs/results/$(date -u +%F)-serve-load}
duration=${3:-20s}
occtune=$build/autotuner/occtune
seed=$build/tests/occtune_seed
# shellcheck source=tests/support/serve_port.sh
. "$(dirname "$0")/../tests/support/serve_port.sh"
for f in "$occtune" "$seed"; do
  [ -x "$f" ] || { echo "loadtest: $f is missing; build with: cmake --build $build --target occtune occtune_seed" >&2; exit 2; }
done
command -v wrk >/dev/null || { echo "loadtest: wrk is missing; apt-get install wrk" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

uuid=$("$seed" "$tmp/load.db" 8 16)   # 8 devices x 16 shapes
"$occtune" serve --db "$tmp/load.db" --port 0 2>"$tmp/serve.log" &
pid=$!
port=$(serve_port "$tmp/serve.log") || { cat "$tmp/serve.log" >&2; exit 4; }

url="http://127.0.0.1:$port/v1/best?device=$uuid&kernel=tiled_dynamic&m=1024&n=1026&k=1024"
curl -sS -f "$url" >"$out/response.json"
# The seeded entry must answer at the exact step; otherwise occtune_seed was built from other
# kernel sources than occtune (another kernel build id) and this would time the fallback chain.
python3 - "$out/response.json" <<'PY' || { echo "loadtest: rebuild both: cmake --build $build --target occtune occtune_seed" >&2; exit 2; }
import json, sys
doc = json.load(open(sys.argv[1]))
sys.exit(0 if doc["answered_by"] == "exact" else f"answered by {doc['answered_by']}, not exact")
PY
command=(wrk -t2 -c64 -d"$duration" --latency -H "Host: 127.0.0.1:$port" "$url")
{
  echo "date: $(date -u +%FT%TZ)"
  echo "command: $(printf "%q " "${command[@]}")"
  echo "cpus: $(nproc) ($(lscpu | sed -n 's/^Model name: *//p'))"
  echo "kernel: $(uname -sr)"
  echo "occtune: $("$occtune" --version) ($(git rev-parse --short HEAD 2>/dev/null || echo no-git))"
  echo "wrk: $(wrk --version 2>&1 | head -1)"
  echo "server: occtune serve --db <seeded: 8 devices x 16 shapes> --port $port (defaults: 64 workers)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min; other jobs share the machine)"
} >"$out/machine.txt"
"${command[@]}" | tee "$out/wrk.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
ps -o rss=,nlwp= -p "$pid" | awk '{print "server after the run: " $1 " KiB resident, " $2 " threads"}' \
  >>"$out/machine.txt"
curl -sS "http://127.0.0.1:$port/metrics" >"$out/metrics.txt"

rps=$(awk '/Requests\/sec/ {print $2}' "$out/wrk.txt")
p99=$(awk '$1 == "99%" {print $2}' "$out/wrk.txt")
p99_ms=$(python3 -c "import sys,re; v=sys.argv[1]; n=float(re.match(r'[0-9.]+', v).group()); u=v[len(re.match(r'[0-9.]+', v).group()):]; print(n*{'us':1e-3,'ms':1,'s':1e3}[u])" "$p99")
verdict=$(python3 -c "import sys; r=float(sys.argv[1]); p=float(sys.argv[2]); print('PASS' if r >= 20000 and p < 5 else 'FAIL')" "$rps" "$p99_ms")
echo "requests/s $rps, p99 $p99 -> $verdict (targets: >= 20000 requests/s, p99 < 5 ms)" | tee "$out/verdict.txt"
[ "$verdict" = PASS ]
