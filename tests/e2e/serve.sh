#!/usr/bin/env bash
# End to end without a GPU: the real `occtune serve` on a database seeded by occtune_seed, asked
# over HTTP as a client would; Host and method rules; the carried libcpp-httplib is the one loaded;
# SIGTERM and SIGINT stop it cleanly with exit code 0.
set -euo pipefail
occtune=$1
build=$(cd "$(dirname "$occtune")/.." && pwd)
seed="$build/tests/occtune_seed"
# shellcheck source=tests/support/serve_port.sh
. "$(dirname "$0")/../support/serve_port.sh"
tmp=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

uuid=$("$seed" "$tmp/serve.db" 2 3)

start() {
  "$occtune" serve --db "$tmp/serve.db" --port 0 2>"$tmp/serve.log" &
  pid=$!
  port=$(serve_port "$tmp/serve.log") && return 0
  echo "the server did not start:"; cat "$tmp/serve.log"; exit 1
}

# Waits up to 10 s for the server to exit; its exit code must be 0.
stop_with() {
  kill "-$1" "$pid"
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then echo "still running 10 s after SIG$1"; exit 1; fi
  code=0
  wait "$pid" || code=$?
  pid=""
  [ "$code" -eq 0 ] || { echo "exit code $code after SIG$1"; cat "$tmp/serve.log"; exit 1; }
  grep -q "SIG$1: stopping" "$tmp/serve.log" && grep -q "stopped" "$tmp/serve.log" \
    || { echo "no clean stop logged after SIG$1"; cat "$tmp/serve.log"; exit 1; }
}

# fetch METHOD URL OUT [HOST] [BODY]: writes the body to OUT, prints the status (python3, not
# curl: the GPU machines that run this may have no curl).
fetch() {
  python3 - "$@" <<'PY'
import sys, urllib.request, urllib.error
method, url, out = sys.argv[1:4]
host = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
body = sys.argv[5].encode() if len(sys.argv) > 5 else None
req = urllib.request.Request(url, data=body, method=method)
if host:
    req.add_header("Host", host)
try:
    with urllib.request.urlopen(req, timeout=10) as r:
        status, data = r.status, r.read()
except urllib.error.HTTPError as e:
    status, data = e.code, e.read()
open(out, "wb").write(data)
print(status)
PY
}

start
base="http://127.0.0.1:$port"
[ "$(fetch GET "$base/healthz" "$tmp/health.json")" = 200 ]
grep -q '"status":"ok"' "$tmp/health.json"
[ "$(fetch GET "$base/v1/best?device=$uuid&kernel=tiled_dynamic&m=256&n=256&k=256" "$tmp/best.json")" = 200 ]
python3 - "$tmp/best.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["kind"] == "best" and doc["answered_by"] == "exact" and doc["measured"], doc
assert doc["config"]["tile"] == 16, doc["config"]
print("best ok:", doc["config"]["params"], doc["entry"]["best"]["timing"]["median_ms"], "ms")
PY
[ "$(fetch GET "$base/healthz" "$tmp/r" evil.example)" = 421 ]
[ "$(fetch POST "$base/v1/best" "$tmp/r" "" "")" = 405 ]
[ "$(fetch GET "$base/v1/devices" "$tmp/r" "" "x=1")" = 413 ]
[ "$(fetch GET "$base/v1/best?device=nope" "$tmp/r")" = 400 ]
grep -q '"parameter":"device"' "$tmp/r"
[ "$(fetch GET "$base/metrics" "$tmp/metrics.txt")" = 200 ]
grep -q 'occtune_http_requests_total{route="/v1/best",status="200"} 1' "$tmp/metrics.txt"

# The loaded libcpp-httplib is the copy carried in the build tree, found through the RPATH.
loaded=$(ldd "$occtune" | awk '/libcpp-httplib/ {print $3}')
[ "$(realpath "$loaded")" = "$(realpath "$build/lib/libcpp-httplib.so.0.11")" ] \
  || { echo "libcpp-httplib loaded from $loaded, not $build/lib"; exit 1; }
if command -v readelf >/dev/null; then
  readelf -d "$occtune" | grep -q 'RPATH.*\$ORIGIN/../lib' \
    || { echo "no \$ORIGIN/../lib RPATH"; readelf -d "$occtune" | grep -i path; exit 1; }
fi
stop_with TERM

start
[ "$(fetch GET "http://127.0.0.1:$port/healthz" "$tmp/r")" = 200 ]
stop_with INT
echo "serve e2e ok"
