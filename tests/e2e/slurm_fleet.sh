#!/usr/bin/env bash
# End to end on a real one-node Slurm cluster (Debian's slurm-wlm: slurmctld and slurmd started
# here on private ports, auth/none, no cgroups, no GPU gres): scripts/slurm/occtune-fleet.sh
# submits its job array and the dependent merge, and the merged store is checked, then served.
#
# With no GPU the array tasks import exports instead of running `occtune tune` (the stand-in,
# OCCTUNE_FLEET_STANDIN): real H100 runs of three boards (tests/e2e/data/fleet, older kernel
# builds) and occtune_seed runs of this build for an H100, an H200 and an A100 (configs/profiles).
# On a GPU cluster the same tasks run `occtune tune --config $OCCTUNE_FLEET_CONFIG --device all`
# there instead; every other command (import, db doctor, export, the merge) is the same.
# Exit 77 (skipped) when the Slurm daemons are not installed (scripts/setup.sh installs them).
set -euo pipefail
occtune=$(realpath "$1")
src=$(realpath "$2")
build=$(cd "$(dirname "$occtune")/.." && pwd)
seed="$build/tests/occtune_seed"
fleet="$src/scripts/slurm/occtune-fleet.sh"
# shellcheck source=tests/support/serve_port.sh
. "$src/tests/support/serve_port.sh"

for tool in slurmctld slurmd sbatch scontrol squeue scancel; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "SKIPPED: $tool not found; install Debian's slurm-wlm (scripts/setup.sh does)"
    exit 77
  }
done
[ -x "$seed" ] || { echo "$seed is missing: cmake --build --target occtune_seed"; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
  # slurmd starts each job as its submitter through setuid, which needs root.
  echo "SKIPPED: the Slurm daemons need root here (CI runs the tests as root)"
  exit 77
fi

# The submitting environment reaches every job: keep a surrounding Slurm's settings out of it.
while read -r v; do unset "$v"; done < <(compgen -v | grep -E '^(SLURM|SBATCH|SALLOC)_' || true)

tmp=$(mktemp -d /tmp/occtune-slurm-fleet.XXXXXX)
ctld_pid="" slurmd_pid="" serve_pid="" jobs=""
export SLURM_CONF="$tmp/etc/slurm.conf"

# Stops the cluster; fails when a daemon outlives 15 s after `scontrol shutdown`.
stop_cluster() {
  # shellcheck disable=SC2086  # two job ids
  if [ -n "$jobs" ]; then scancel $jobs 2>/dev/null || true; fi
  scontrol shutdown >/dev/null 2>&1 || true
  local pid left=""
  for pid in $ctld_pid $slurmd_pid; do
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      left="$left $pid"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  done
  ctld_pid="" slurmd_pid=""
  [ -z "$left" ] || { echo "Slurm daemon(s)$left still ran 15 s after shutdown (killed)"; return 1; }
}
cleanup() {
  local code=$?
  if [ -n "$serve_pid" ]; then kill -KILL "$serve_pid" 2>/dev/null || true; fi
  if [ -n "$ctld_pid$slurmd_pid" ]; then stop_cluster || true; fi
  if [ "$code" -ne 0 ] && [ -d "$tmp" ]; then
    echo "--- failed; the cluster's logs:"
    tail -n 30 "$tmp"/log/*.log "$tmp"/shared/logs/* 2>/dev/null || true
  fi
  rm -rf "$tmp"
  exit "$code"
}
trap cleanup EXIT

# --- settings missing or wrong: exit 2 and the variable named, before anything is submitted
expect_usage() {  # PATTERN ENV...: the recipe's submit must exit 2 with PATTERN on stderr
  local pattern=$1 code=0
  shift
  env "$@" bash "$fleet" submit >/dev/null 2>"$tmp/usage.txt" || code=$?
  if [ "$code" -ne 2 ] || ! grep -q "$pattern" "$tmp/usage.txt"; then
    echo "submit with $*: exit $code, expected 2 and '$pattern':"; cat "$tmp/usage.txt"; exit 1
  fi
}
expect_usage "OCCTUNE_FLEET_SHARED is not set" OCCTUNE_FLEET_SHARED=
expect_usage "OCCTUNE_FLEET_CONFIG is not set" OCCTUNE_FLEET_SHARED="$tmp/x"
expect_usage "OCCTUNE_FLEET_CONFIG '$tmp/none.toml' is not a file" OCCTUNE_FLEET_SHARED="$tmp/x" \
  OCCTUNE_FLEET_CONFIG="$tmp/none.toml"
expect_usage "OCCTUNE_FLEET_TASKS 'two' is not a positive integer" OCCTUNE_FLEET_SHARED="$tmp/x" \
  OCCTUNE_FLEET_CONFIG="$src/configs/default.toml" OCCTUNE_FLEET_TASKS=two

# --- a one-node cluster: the node's real hardware (slurmd -C), two free ports, all state in $tmp
node=$(hostname -s)
read -r ctld_port slurmd_port < <(python3 - <<'PY'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
PY
)
hardware=$(slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*//")
mkdir -p "$tmp/etc" "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/shared" "$tmp/local"
cat >"$SLURM_CONF" <<EOF
ClusterName=occtunefleet
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
# Debian 12's Slurm 22.05 still ships auth/none and cred/none: no munged needed on one node.
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 $hardware State=UNKNOWN
PartitionName=fleettest Nodes=$node Default=YES MaxTime=10 State=UP
EOF
slurmctld -D -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
ctld_pid=$!
slurmd -D -f "$SLURM_CONF" -N "$node" >"$tmp/log/slurmd.out" 2>&1 &
slurmd_pid=$!
state=""
for _ in $(seq 300); do
  state=$(sinfo -h -n "$node" -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.1
done
[ "$state" = idle ] || {
  echo "the node did not come up (state '$state'):"
  cat "$tmp/log/slurmctld.out" "$tmp/log/slurmd.out"
  exit 1
}
echo "cluster up: node $node, slurmctld :$ctld_port, slurmd :$slurmd_port"

# --- stand-ins for the tune step: one directory of exports per array task
standin="$tmp/standin"
i=0
for f in "$src"/tests/e2e/data/fleet/h100-*.json.gz; do
  mkdir -p "$standin/$i"
  gunzip -c "$f" >"$standin/$i/$(basename "$f" .gz)"
  i=$((i + 1))
done
[ "$i" -eq 3 ] || { echo "expected 3 real H100 exports in tests/e2e/data/fleet, found $i"; exit 1; }
h100=GPU-f1ee0003-0000-4000-8000-000000000003
h200=GPU-f1ee0004-0000-4000-8000-000000000004
a100=GPU-f1ee0005-0000-4000-8000-000000000005
seed_node() {  # TASK UUID PROFILE SHAPE...: runs of this build through the Store, then exported
  local task=$1 uuid=$2 profile=$3
  shift 3
  mkdir -p "$standin/$task"
  "$seed" "$tmp/seed-$task.db" --uuid "$uuid" --profile "$profile" "$@" >/dev/null
  "$occtune" export --db "$tmp/seed-$task.db" --out "$standin/$task/seeded.json" 2>/dev/null
}
seed_node 3 "$h100" h100 1024x1024x1024 2048x2048x2048
seed_node 4 "$h200" h200 4096x4096x4096
seed_node 5 "$a100" a100 512x512x512

# --- the recipe, as a user submits it
export OCCTUNE="$occtune" OCCTUNE_FLEET_SHARED="$tmp/shared" OCCTUNE_FLEET_TASKS=6 \
  OCCTUNE_FLEET_GPUS=0 OCCTUNE_FLEET_PARTITION=fleettest OCCTUNE_FLEET_TIME=00:05:00 \
  OCCTUNE_FLEET_MERGE_TIME=00:05:00 \
  OCCTUNE_FLEET_LOCAL="$tmp/local" OCCTUNE_FLEET_STANDIN="$standin" OCCTUNE_FLEET_MERGE_NODE="$node"
store="$tmp/shared/occtune.db"
t0=$(date +%s)
bash "$fleet" submit >"$tmp/ids"
array=$(sed -n 's/^array //p' "$tmp/ids")
merge=$(sed -n 's/^merge //p' "$tmp/ids")
[[ $array =~ ^[0-9]+$ && $merge =~ ^[0-9]+$ ]] || { echo "submit printed:"; cat "$tmp/ids"; exit 1; }
jobs="$array $merge"
echo "submitted array $array (6 tasks) and merge $merge (afterok:$array)"
# The merge must wait for the array: right after submission it is pending on its dependency.
scontrol -o show job "$merge" | grep -q "Dependency=afterok:${array}_\*" \
  || { echo "merge job has no afterok dependency on the array:"; scontrol -o show job "$merge"; exit 1; }

job_states() { scontrol -o show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort | uniq -c; }
for _ in $(seq 1800); do
  [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
  sleep 0.1
done
[ -z "$(squeue -h -j "$array,$merge")" ] || { echo "jobs still queued after 180 s:"; squeue; exit 1; }
jobs=""
echo "array and merge finished in $(($(date +%s) - t0)) s"
[ "$(job_states "$array" | tr -s ' ')" = " 6 COMPLETED" ] \
  || { echo "array tasks: $(job_states "$array")"; exit 1; }
[ "$(job_states "$merge" | tr -s ' ')" = " 1 COMPLETED" ] \
  || { echo "merge: $(job_states "$merge")"; exit 1; }

# --- what the steps did
exports=("$tmp"/shared/exports/*.json)
[ ${#exports[@]} -eq 6 ] || { echo "expected 6 task exports, found ${#exports[@]}"; exit 1; }
for t in 0 1 2 3 4 5; do
  log="$tmp/shared/logs/occtune-tune-${array}_$t.out"
  grep -q "verdict *healthy" "$log" || { echo "task $t: no healthy doctor verdict:"; cat "$log"; exit 1; }
  [ -f "$tmp/shared/exports/${array}_$t-$node.json" ] || { echo "task $t wrote no export"; exit 1; }
done
[ -z "$(ls -A "$tmp/local")" ] || { echo "a task left its node-local store:"; ls -R "$tmp/local"; exit 1; }
merge_log="$tmp/shared/logs/occtune-merge-$merge.out"
if ! grep -q "merged 6 exports into $store" "$merge_log" \
  || ! grep -q "verdict *healthy" "$merge_log"; then
  echo "merge log:"; cat "$merge_log"; exit 1
fi

# --- the merged store: every run of every node, once
check_store() {  # EXPECTED_RUNS EXPECTED_MEASUREMENTS
  "$occtune" db doctor --db "$store" --format json >"$tmp/doctor.json"
  python3 - "$tmp/doctor.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["contents"]
assert d["state"] == "healthy", d
assert c["devices"] == 6, c
assert c["runs"] == {"complete": int(sys.argv[2])}, c
assert c["measurements"] == int(sys.argv[3]), c
PY
}
# 3 boards x 14 real runs (122 + 136 + 124 measurements) + 4 seeded runs of 2 measurements each.
check_store 46 390
python3 - "$tmp/shared/merged.json" "$h100" "$h200" "$a100" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
uuids = sorted({r["device"]["uuid"] for r in d["runs"]})
want = sorted(["GPU-aeec124c-f0b0-60bc-f431-494d317572c0", "GPU-4f965b1d-0873-ec00-3fbe-d930cc61f90b",
               "GPU-306794c2-1429-dd65-efd8-2308cb59edce"] + sys.argv[2:5])
assert uuids == want, uuids
assert len(d["runs"]) == 46, len(d["runs"])
print("merged export:", len(d["runs"]), "runs of", len(uuids), "devices")
PY
# Merging again (the same exports, by hand) adds nothing: imports are idempotent.
bash "$fleet" merge >"$tmp/merge2.txt" 2>&1 || { cat "$tmp/merge2.txt"; exit 1; }
awk '/^imported / { added += $2; present += $(NF - 2) } END { exit !(added == 0 && present == 46) }' \
  "$tmp/merge2.txt" || { echo "a second merge added runs:"; cat "$tmp/merge2.txt"; exit 1; }
check_store 46 390

# --- the GPU path of a task (`occtune tune`, here with a shape it rejects so that it fails on any
# machine): the task fails, and the merge, waiting on afterok, is cancelled instead of run.
OCCTUNE_FLEET_STANDIN="" OCCTUNE_FLEET_SHARED="$tmp/shared-fail" OCCTUNE_FLEET_TASKS=1 \
  OCCTUNE_FLEET_CONFIG="$src/configs/default.toml" OCCTUNE_FLEET_TUNE_ARGS="--shape 0x0x0" \
  bash "$fleet" submit >"$tmp/ids" 2>/dev/null
array=$(sed -n 's/^array //p' "$tmp/ids")
merge=$(sed -n 's/^merge //p' "$tmp/ids")
jobs="$array $merge"
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
  sleep 0.1
done
jobs=""
[ "$(job_states "$array" | tr -s ' ')" = " 1 FAILED" ] \
  || { echo "failing array: $(job_states "$array")"; exit 1; }
[ "$(job_states "$merge" | tr -s ' ')" = " 1 CANCELLED" ] \
  || { echo "merge after a failed task: $(job_states "$merge")"; exit 1; }
log="$tmp/shared-fail/logs/occtune-tune-${array}_0.out"
if ! grep -q "invalid shape '0x0x0'" "$log" || ! grep -q "a tune failed on $node" "$log"; then
  echo "failed task's log:"; cat "$log"; exit 1
fi
[ ! -e "$tmp/shared-fail/occtune.db" ] || { echo "the cancelled merge wrote a store"; exit 1; }
echo "a failed tune fails its task and cancels the merge"

# --- the cluster is not needed any more: stop it before serving, and prove nothing is left
stop_cluster
echo "cluster stopped"

# --- `occtune query` and `occtune serve` on the merged store answer every node's UUID
aeec=GPU-aeec124c-f0b0-60bc-f431-494d317572c0
code=0
"$occtune" query --db "$store" --device "$aeec" --kernel tiled_dynamic --shape 1024x1024x1024 \
  >/dev/null 2>&1 || code=$?
[ "$code" -eq 3 ] || { echo "query without --fallback: exit $code, expected 3 (stale build)"; exit 1; }
"$occtune" query --db "$store" --device "$aeec" --kernel tiled_dynamic --shape 1024x1024x1024 \
  --fallback --format json >"$tmp/query.json"
python3 - "$tmp/query.json" "$h100" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["answered_by"] == "same_model", d["answered_by"]
assert d["run"]["device"]["uuid"] == sys.argv[2], d["run"]["device"]
PY

"$occtune" serve --db "$store" --port 0 2>"$tmp/serve.log" &
serve_pid=$!
port=$(serve_port "$tmp/serve.log") || { echo "the server did not start:"; cat "$tmp/serve.log"; exit 1; }
# ask UUID SHAPE EXPECTED_STATUS EXPECTED_ANSWERED_BY [ANSWERING_UUID]
ask() {
  python3 - "http://127.0.0.1:$port" "$@" <<'PY'
import json, sys, urllib.error, urllib.request
base, uuid, shape, status, answered_by = sys.argv[1:6]
m, n, k = shape.split("x")
url = f"{base}/v1/best?device={uuid}&kernel=tiled_dynamic&m={m}&n={n}&k={k}"
try:
    with urllib.request.urlopen(url, timeout=10) as r:
        got, doc = r.status, json.load(r)
except urllib.error.HTTPError as e:
    got, doc = e.code, json.load(e)
assert got == int(status), (url, got, doc)
if got == 200:
    assert doc["answered_by"] == answered_by, (url, doc["answered_by"], doc["chain"])
    if len(sys.argv) > 6:
        assert doc["entry"]["run"]["device"]["uuid"] == sys.argv[6], (url, doc["entry"]["run"]["device"])
    else:
        assert not doc["measured"], doc
else:
    assert doc["type"] == "urn:occtune:problem:" + answered_by, doc
steps = " ".join(f'{s["step"]}:{s["result"]}' for s in doc.get("chain", []))
print(f"{uuid[:12]} {shape}: {got} {answered_by} [{steps}]")
PY
}
ask "$h100" 1024x1024x1024 200 exact "$h100"
ask "$aeec" 1024x1024x1024 200 same_model "$h100"  # its own runs are of another kernel build
ask GPU-4f965b1d-0873-ec00-3fbe-d930cc61f90b 2048x2048x2048 200 same_model "$h100"
ask GPU-306794c2-1429-dd65-efd8-2308cb59edce 4096x4096x4096 200 same_architecture "$h200"
ask "$h200" 1024x1024x1024 200 same_architecture "$h100"
ask "$a100" 512x512x512 200 exact "$a100"
# sm_80: no H100 answer crosses the architecture; its own 512^3 is the nearest shape it measured.
ask "$a100" 1024x1024x1024 200 nearest_shape "$a100"
ask "$a100" 100x100x100 200 nearest_shape "$a100"
ask GPU-0badc0de-0000-4000-8000-000000000000 1024x1024x1024 404 unknown-device
kill -TERM "$serve_pid"
wait "$serve_pid"
serve_pid=""
echo "slurm fleet: ok"
