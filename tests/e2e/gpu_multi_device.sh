#!/usr/bin/env bash
# Issue #17 on a machine with several GPUs, as a user runs it (exit 77 = skipped with fewer than
# two GPUs): `tune --device all` runs one worker per GPU and one writer.
# 1. Faults per GPU: every GPU tunes the planted-fault kernels (--spread none); each GPU's
#    crashes and hang are recorded as that GPU's, its worker is replaced, and every GPU still
#    reaches a winner; the command exits 0 and no body reports an error.
# 2. Each GPU answers for itself: `query --device <uuid>` answers every GPU's own entry from the
#    store with no GPU (CUDA_VISIBLE_DEVICES empty); with --spread shapes every shape is measured
#    on exactly one GPU and a sibling's shape answers through the same-model step.
# 3. Ctrl-C stops every worker: exit 130, what each GPU measured is stored (its run marked
#    interrupted or complete), no worker is left.
set -uo pipefail
occtune=$1
tmp=$(mktemp -d)
bg=""
cleanup() {
  local p c
  for p in $bg; do
    for c in $(children "$p"); do kill -9 "$c" 2>/dev/null; done
    kill -9 "$p" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
children() {
  local s pid ppid
  for s in /proc/[0-9]*/stat; do
    read -r pid _ _ ppid _ <"$s" 2>/dev/null && [ "$ppid" = "$1" ] && echo "$pid"
  done
}
if ! "$occtune" devices --format json >"$tmp/devices.json" 2>"$tmp/devices.err"; then
  echo "skipped: $(cat "$tmp/devices.err")"
  exit 77
fi
gpus=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['devices']))" \
  "$tmp/devices.json")
if [ "$gpus" -lt 2 ]; then
  echo "skipped: $gpus GPU visible; this test needs two or more"
  exit 77
fi
echo "$gpus GPUs visible"
export OCCTUNE_TEST_KERNELS=1

# --- 1: faults on every GPU --------------------------------------------------------------------
"$occtune" tune --kernel planted_faults --kernel tiled_dynamic --shape 1024x1024x1024 \
  --device all --spread none --candidate-timeout 3 --samples 5 --abandon-factor 0 --quiet \
  --format json --db "$tmp/a.db" >"$tmp/a.json" 2>"$tmp/a.err" &
parent=$!
bg=$parent
workers=""
while kill -0 "$parent" 2>/dev/null; do
  for w in $(children "$parent"); do
    case " $workers " in *" $w "*) ;; *) workers="$workers $w" ;; esac
  done
  sleep 0.05
done
rc=0
wait "$parent" || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/a.err"; fail "tune --device all with planted faults exited $rc"; }
set -- $workers
echo "worker processes seen: $# for $gpus GPUs"
[ "$#" -gt "$gpus" ] || fail "expected replacement workers after the faults, saw only:$workers"
python3 - "$tmp/a.json" "$tmp/a.db" "$tmp/devices.json" <<'PY' || fail "part 1"
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
visible = {d["uuid"] for d in json.load(open(sys.argv[3]))["devices"]}
assert doc["kind"] == "tune_devices", doc["kind"]
bodies = doc["devices"]
assert {b["device"]["uuid"] for b in bodies} == visible, "not every GPU tuned"
for b in bodies:
    assert b["error"] is None, (b["device"]["uuid"], b["error"])
db = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
for uuid in sorted(visible):
    rows = db.execute(
        "select r.kernel, m.outcome, count(*) from measurements m join runs r on m.run_id = r.id "
        "join devices d on r.device_id = d.id where d.uuid = ? group by r.kernel, m.outcome",
        (uuid,)).fetchall()
    got = {(k, o): n for k, o, n in rows}
    print(f"{uuid}: " + ", ".join(f"{k}/{o} {n}" for (k, o), n in sorted(got.items())))
    assert got.get(("planted_faults", "crashed"), 0) >= 2, "the two sticky faults were not recorded"
    assert got.get(("planted_faults", "timeout"), 0) >= 1, "the hang was not recorded"
    assert got.get(("planted_faults", "wrong_result"), 0) >= 1
    assert got.get(("planted_faults", "ok"), 0) >= 1, "the control variant did not run"
    assert got.get(("tiled_dynamic", "ok"), 0) >= 1, "no ok tiled_dynamic after the faults"
    statuses = {s for (s,) in db.execute(
        "select r.status from runs r join devices d on r.device_id = d.id where d.uuid = ?", (uuid,))}
    assert statuses == {"complete"}, statuses
PY
echo "ok: each GPU recorded its own faults, replaced its worker and reached a winner"

# --- 2: each GPU answers for itself; spread shapes uses the same-model step ---------------------
python3 - "$tmp/devices.json" >"$tmp/uuids" <<'PY'
import json, sys
for d in json.load(open(sys.argv[1]))["devices"]:
    print(d["uuid"], d["name"].replace(" ", "_"))
PY
while read -r uuid _; do
  CUDA_VISIBLE_DEVICES= "$occtune" query --db "$tmp/a.db" --device "$uuid" --kernel tiled_dynamic \
    --shape 1024x1024x1024 --format json >"$tmp/q.json" 2>"$tmp/q.err" \
    || { cat "$tmp/q.err"; fail "query for $uuid"; }
  python3 - "$tmp/q.json" "$uuid" <<'PY' || fail "query answer for $uuid"
import json, sys
q = json.load(open(sys.argv[1]))
assert q["run"]["device"]["uuid"] == sys.argv[2], (q["run"]["device"]["uuid"], sys.argv[2])
PY
done <"$tmp/uuids"
echo "ok: every GPU's own entry answers its UUID with no GPU"

shapes=()
for i in $(seq 1 "$gpus"); do shapes+=(--shape "$((256 * i))x512x512"); done
"$occtune" tune --kernel tiled_dynamic "${shapes[@]}" --device all --quiet --format json \
  --db "$tmp/s.db" >"$tmp/s.json" 2>"$tmp/s.err" || { cat "$tmp/s.err"; fail "spread shapes"; }
python3 - "$tmp/s.db" "$tmp/uuids" "$gpus" >"$tmp/pick" <<'PY' || fail "spread shapes split"
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rows = db.execute("select r.m, d.uuid, d.name from runs r join devices d on r.device_id = d.id "
                  "where r.status = 'complete'").fetchall()
per_shape = {}
for m, uuid, name in rows:
    per_shape.setdefault(m, []).append((uuid, name))
assert len(per_shape) == int(sys.argv[3]), per_shape
assert all(len(v) == 1 for v in per_shape.values()), f"a shape measured twice: {per_shape}"
# A shape measured by another GPU of the same model: query it from this GPU's UUID.
for m, [(uuid, name)] in sorted(per_shape.items()):
    for other in (l.split() for l in open(sys.argv[2])):
        if other[0] != uuid and other[1] == name.replace(" ", "_"):
            print(other[0], f"{m}x512x512", uuid)
            sys.exit(0)
print("none")
PY
read -r asker shape measurer <"$tmp/pick"
if [ "$asker" != none ]; then
  CUDA_VISIBLE_DEVICES= "$occtune" query --db "$tmp/s.db" --device "$asker" --kernel tiled_dynamic \
    --shape "$shape" --fallback --format json >"$tmp/f.json" 2>"$tmp/f.err" \
    || { cat "$tmp/f.err"; fail "same-model query"; }
  python3 - "$tmp/f.json" "$measurer" <<'PY' || fail "same-model answer"
import json, sys
q = json.load(open(sys.argv[1]))
assert q["answered_by"] == "same_model", q["answered_by"]
assert q["run"]["device"]["uuid"] == sys.argv[2]
PY
  echo "ok: $shape, measured on $measurer, answers $asker through the same-model step"
else
  echo "note: no two GPUs of one model; the same-model step was not exercised"
fi

# --- 3: Ctrl-C -----------------------------------------------------------------------------------
"$occtune" tune --kernel tiled_dynamic --kernel naive --kernel tiled_static \
  --shape 2048x2048x2048 --shape 3001x1000x4097 --shape 4096x4096x4096 --strategy exhaustive \
  --device all --spread none --samples 50 --quiet --db "$tmp/b.db" >"$tmp/b.out" 2>"$tmp/b.err" &
parent=$!
bg=$parent
measured_devices() {
  python3 - "$tmp/b.db" <<'PY' 2>/dev/null || echo 0
import sqlite3, sys
print(sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute(
    "select count(distinct r.device_id) from measurements m join runs r on m.run_id = r.id"
).fetchone()[0])
PY
}
for _ in $(seq 1 900); do
  [ "$(measured_devices)" -ge 2 ] && break
  kill -0 "$parent" 2>/dev/null || break
  sleep 0.1
done
workers=$(children "$parent")
kill -INT "$parent"
rc=0
wait "$parent" || rc=$?
echo "Ctrl-C: parent $parent, workers $(echo $workers), exit $rc"
[ "$rc" = 130 ] || { cat "$tmp/b.err"; fail "exit code $rc after Ctrl-C, expected 130"; }
sleep 1  # orphaned zombies are reaped by init
for w in $workers; do
  kill -0 "$w" 2>/dev/null && fail "worker $w still runs"
done
python3 - "$tmp/b.db" <<'PY' || fail "database after Ctrl-C"
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rows = db.execute("select d.uuid, r.status, count(m.id) from runs r join devices d on "
                  "r.device_id = d.id left join measurements m on m.run_id = r.id "
                  "group by r.id").fetchall()
for uuid, status, n in rows:
    print(f"  {uuid} run {status}: {n} measurements")
assert all(s in ("interrupted", "complete") for _, s, _ in rows), rows
assert "interrupted" in {s for _, s, _ in rows}, rows
assert len({u for u, _, n in rows if n > 0}) >= 2, "fewer than two GPUs' measurements kept"
PY
echo "ok: Ctrl-C stopped every worker, kept every GPU's measurements and exited 130"
