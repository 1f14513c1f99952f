#!/usr/bin/env bash
# Worker isolation on a GPU, as a user runs it (exit 77 = skipped without a GPU):
# 1. The parent `occtune tune` never creates a CUDA context: while it tunes a job with planted
#    faults, only its worker process opens the driver's device files (/dev/nvidia*; a context
#    needs them), the parent never does, and nvidia-smi, where it can see processes, lists the
#    worker and never the parent. (libcuda itself may appear in the parent's maps for a moment:
#    libcublasLt's load-time initialiser dlopens and closes it without opening the driver.)
# 2. Ctrl-C during tune: exit 130, the measurements so far are in the database with the run
#    marked interrupted, the worker is gone and the GPU has no occtune process left.
set -uo pipefail
occtune=$1
tmp=$(mktemp -d)
bg=""
# A failing check must not leave a tune (or its worker) running on the GPU for later tests.
cleanup() {
  local p c
  for p in $bg; do
    for c in $(children "$p"); do kill -9 "$c" 2>/dev/null; done
    kill -9 "$p" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
if ! "$occtune" devices >/dev/null 2>"$tmp/devices.err"; then
  echo "skipped: $(cat "$tmp/devices.err")"
  exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
smi() { command -v nvidia-smi >/dev/null && nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null; }
# Children of a pid from /proc (no procps needed).
children() {
  local s pid ppid
  for s in /proc/[0-9]*/stat; do
    read -r pid _ _ ppid _ <"$s" 2>/dev/null && [ "$ppid" = "$1" ] && echo "$pid"
  done
}
# Whether a process holds one of the NVIDIA driver's device files open.
opens_driver() {
  local f
  for f in /proc/"$1"/fd/*; do
    case "$(readlink "$f" 2>/dev/null)" in /dev/nvidia*) return 0 ;; esac
  done
  return 1
}
export OCCTUNE_TEST_KERNELS=1

# --- 1: no context in the parent --------------------------------------------------------------
"$occtune" tune --kernel planted_faults --kernel tiled_dynamic --shape 1024x1024x1024 \
  --candidate-timeout 3 --samples 5 --quiet --format json --db "$tmp/a.db" \
  >"$tmp/a.json" 2>"$tmp/a.err" &
parent=$!
bg=$parent
workers=""
while kill -0 "$parent" 2>/dev/null; do
  opens_driver "$parent" && fail "parent $parent opened a GPU device file: $(ls -l /proc/$parent/fd 2>/dev/null | grep /dev/nvidia)"
  for w in $(children "$parent"); do
    if opens_driver "$w"; then
      case " $workers " in *" $w "*) ;; *) workers="$workers $w" ;; esac
    fi
  done
  smi >>"$tmp/smi.txt"
  sleep 0.1
done
rc=0
wait "$parent" || rc=$?
echo "parent pid $parent; worker pids with a CUDA context:$workers"
echo "nvidia-smi compute-app pids seen: $(sort -u "$tmp/smi.txt" 2>/dev/null | tr '\n' ' ')"
[ "$rc" = 0 ] || { cat "$tmp/a.err"; fail "tune with planted faults exited $rc"; }
[ -n "$workers" ] || fail "no worker process with a CUDA context was seen"
set -- $workers
[ "$#" -ge 2 ] || fail "expected a replacement worker after the faults, saw only:$workers"
if [ -s "$tmp/smi.txt" ]; then
  grep -qx "$parent" "$tmp/smi.txt" && fail "nvidia-smi listed the parent $parent as a compute app"
fi
grep -q '"backend": "isolated' "$tmp/a.json" || fail "the run was not isolated"
echo "ok: the parent never created a CUDA context"

# --- 2: Ctrl-C -------------------------------------------------------------------------------
"$occtune" tune --kernel tiled_dynamic --kernel naive --kernel tiled_static \
  --shape 2048x2048x2048 --shape 3001x1000x4097 --shape 4096x4096x4096 --strategy exhaustive \
  --samples 50 --quiet --db "$tmp/b.db" >"$tmp/b.out" 2>"$tmp/b.err" &
parent=$!
bg=$parent
count() {
  python3 - "$tmp/b.db" <<'PY' 2>/dev/null || echo 0
import sqlite3, sys
print(sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute(
    "select count(*) from measurements").fetchone()[0])
PY
}
for _ in $(seq 1 600); do
  [ "$(count)" -ge 3 ] && break
  kill -0 "$parent" 2>/dev/null || break
  sleep 0.1
done
worker=$(children "$parent" | head -1)
before=$(count)
kill -INT "$parent"
rc=0
wait "$parent" || rc=$?
echo "Ctrl-C: parent $parent, worker ${worker:-none}, exit $rc, $before measurements before it"
[ "$rc" = 130 ] || { cat "$tmp/b.err"; fail "exit code $rc after Ctrl-C, expected 130"; }
grep -q "interrupted" "$tmp/b.err" || fail "no 'interrupted' message: $(cat "$tmp/b.err")"
[ -n "$worker" ] && kill -0 "$worker" 2>/dev/null && fail "worker $worker still runs"
python3 - "$tmp/b.db" "$before" <<'PY' || fail "database check"
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
n = db.execute("select count(*) from measurements").fetchone()[0]
statuses = [r[0] for r in db.execute("select status from runs")]
print(f"stored {n} measurements; run statuses {statuses}")
assert n >= int(sys.argv[2]) and n > 0, "measurements lost"
assert "interrupted" in statuses, statuses
PY
sleep 1
if left=$(smi) && [ -n "$left" ]; then
  for p in $left; do
    [ "$p" = "$parent" ] || [ "$p" = "$worker" ] && fail "pid $p still holds the GPU"
  done
fi
echo "ok: Ctrl-C committed, stopped the worker and exited 130"
