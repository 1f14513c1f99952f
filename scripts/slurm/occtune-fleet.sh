#!/usr/bin/env bash
# The Slurm fleet recipe (docs/fleet.md): a job array whose tasks tune into node-local SQLite and
# export to a shared directory, and a dependent merge step that imports every export into one
# store and checks it. One file, three roles, because sbatch copies the script it runs:
#
#   occtune-fleet.sh submit   on a login node: submits the array(s) and the merge, prints the ids
#   occtune-fleet.sh task     an array task (run by Slurm): tune (or the stand-in), doctor, export
#   occtune-fleet.sh merge    the dependent step (or by hand): import all, doctor, export merged
#
# Settings are environment variables; sbatch passes the submitting environment to every step.
set -euo pipefail

usage() {
  cat >&2 <<'EOF'
usage: occtune-fleet.sh submit|task|merge

environment (OCCTUNE_FLEET_SHARED is always required):
  OCCTUNE_FLEET_SHARED     directory every node and the merge step can reach (exports/, logs/)
  OCCTUNE_FLEET_CONFIG     tuning job (TOML) given to `occtune tune --config` (required to tune)
  OCCTUNE_FLEET_TUNE_ARGS  more `occtune tune` arguments, e.g. "--kernel regblocked"
  OCCTUNE_FLEET_SPREAD     shapes (default: a node's GPUs of one model split the shapes) or
                           none (each of its GPUs tunes every shape)
  OCCTUNE_FLEET_TASKS      array tasks per GPU type, one per node (default 1)
  OCCTUNE_FLEET_GPUS       GPUs per task, --gres=gpu:N (default 1; 0: no gres)
  OCCTUNE_FLEET_GPU_TYPES  gres GPU types, one array each, e.g. "a100 h100" (default: any)
  OCCTUNE_FLEET_PARTITION  partition of the tasks; OCCTUNE_FLEET_MERGE_PARTITION of the merge
  OCCTUNE_FLEET_TIME       time limit of a task (default 02:00:00)
  OCCTUNE_FLEET_MERGE_TIME time limit of the merge (default 00:30:00)
  OCCTUNE_FLEET_SBATCH_ARGS  more sbatch arguments for every job, e.g. "--account=gpu --qos=low"
  OCCTUNE_FLEET_LOCAL      node-local directory of a task's store (default $TMPDIR, else /tmp)
  OCCTUNE_FLEET_STORE      the merged store, on a local disk (occtune refuses network
                           filesystems): default $OCCTUNE_FLEET_SHARED/occtune.db
  OCCTUNE_FLEET_MERGE_NODE run the merge on this node (--nodelist), e.g. the host that serves
  OCCTUNE_FLEET_MERGED_EXPORT  the merged store as one export (default
                           $OCCTUNE_FLEET_SHARED/merged.json; "none": not written)
  OCCTUNE_FLEET_DEPENDENCY afterok (default: merge only if every task succeeded) or afterany
  OCCTUNE_FLEET_STANDIN    tests only: import DIR/<task index>/*.json instead of tuning
  OCCTUNE                  the occtune binary, on a path every node sees (default: from PATH)
EOF
  exit 2
}

die() {
  echo "occtune-fleet: $1" >&2
  exit "${2:-2}"
}

# need VAR WHAT: the variable must be set and not empty.
need() {
  [ -n "${!1:-}" ] || die "$1 is not set: set it to $2 (see \`occtune-fleet.sh\` without arguments)"
}

occtune_binary() {
  local bin=${OCCTUNE:-occtune}
  command -v "$bin" >/dev/null 2>&1 \
    || die "occtune binary '$bin' not found on $(hostname -s); set OCCTUNE to its path on a file \
system every node sees" 4
  command -v "$bin"
}

submit() {
  need OCCTUNE_FLEET_SHARED "a directory every node and the merge step can reach"
  [ -n "${OCCTUNE_FLEET_STANDIN:-}" ] \
    || need OCCTUNE_FLEET_CONFIG "the tuning job file (TOML) every task runs, e.g. configs/default.toml"
  [ -z "${OCCTUNE_FLEET_CONFIG:-}" ] || [ -f "$OCCTUNE_FLEET_CONFIG" ] \
    || die "OCCTUNE_FLEET_CONFIG '$OCCTUNE_FLEET_CONFIG' is not a file; name a tuning job (TOML)"
  local tasks=${OCCTUNE_FLEET_TASKS:-1} gpus=${OCCTUNE_FLEET_GPUS:-1}
  [[ $tasks =~ ^[1-9][0-9]*$ ]] || die "OCCTUNE_FLEET_TASKS '$tasks' is not a positive integer"
  [[ $gpus =~ ^[0-9]+$ ]] || die "OCCTUNE_FLEET_GPUS '$gpus' is not a non-negative integer"
  [[ ${OCCTUNE_FLEET_SPREAD:-shapes} =~ ^(shapes|none)$ ]] \
    || die "OCCTUNE_FLEET_SPREAD '$OCCTUNE_FLEET_SPREAD' is neither shapes nor none"
  local dependency=${OCCTUNE_FLEET_DEPENDENCY:-afterok}
  [[ $dependency =~ ^(afterok|afterany)$ ]] \
    || die "OCCTUNE_FLEET_DEPENDENCY '$dependency' is neither afterok nor afterany"
  command -v sbatch >/dev/null 2>&1 || die "sbatch not found: run this on a Slurm login node" 4
  occtune_binary >/dev/null
  local shared script
  shared=$(mkdir -p "$OCCTUNE_FLEET_SHARED" && cd "$OCCTUNE_FLEET_SHARED" && pwd)
  export OCCTUNE_FLEET_SHARED=$shared
  if [ -n "${OCCTUNE_FLEET_CONFIG:-}" ]; then
    OCCTUNE_FLEET_CONFIG=$(realpath "$OCCTUNE_FLEET_CONFIG")
    export OCCTUNE_FLEET_CONFIG
  fi
  script=$(realpath "${BASH_SOURCE[0]}")
  mkdir -p "$shared/exports" "$shared/logs"

  local -a common=(--parsable --chdir="$shared")
  # shellcheck disable=SC2206  # word splitting of the user's extra arguments is intended
  [ -z "${OCCTUNE_FLEET_SBATCH_ARGS:-}" ] || common+=($OCCTUNE_FLEET_SBATCH_ARGS)
  local -a task_args=("${common[@]}" --job-name=occtune-tune --array="0-$((tasks - 1))"
                      --nodes=1 --ntasks=1 --time="${OCCTUNE_FLEET_TIME:-02:00:00}"
                      --output="$shared/logs/%x-%A_%a.out")
  [ -z "${OCCTUNE_FLEET_PARTITION:-}" ] || task_args+=(--partition="$OCCTUNE_FLEET_PARTITION")

  # One array per GPU type (--gres=gpu:TYPE:N), or one array on any GPU when no type is named.
  local -a types arrays=()
  read -r -a types <<<"${OCCTUNE_FLEET_GPU_TYPES:-}"
  [ ${#types[@]} -gt 0 ] || types=("")
  local type id
  for type in "${types[@]}"; do
    local -a gres=()
    [ "$gpus" -eq 0 ] || gres=(--gres="gpu:${type:+$type:}$gpus")
    id=$(sbatch "${task_args[@]}" "${gres[@]}" "$script" task) \
      || die "sbatch of the array${type:+ for GPU type $type} failed (its message is above)" 4
    arrays+=("${id%%;*}")
  done

  local -a merge_args=("${common[@]}" --job-name=occtune-merge --nodes=1 --ntasks=1
                       --time="${OCCTUNE_FLEET_MERGE_TIME:-00:30:00}" --output="$shared/logs/%x-%j.out"
                       --dependency="$dependency:$(IFS=:; echo "${arrays[*]}")"
                       --kill-on-invalid-dep=yes)
  local merge_partition=${OCCTUNE_FLEET_MERGE_PARTITION:-${OCCTUNE_FLEET_PARTITION:-}}
  [ -z "$merge_partition" ] || merge_args+=(--partition="$merge_partition")
  [ -z "${OCCTUNE_FLEET_MERGE_NODE:-}" ] || merge_args+=(--nodelist="$OCCTUNE_FLEET_MERGE_NODE")
  id=$(sbatch "${merge_args[@]}" "$script" merge) || die "sbatch of the merge step failed" 4
  echo "array ${arrays[*]}"
  echo "merge ${id%%;*}"
  echo "occtune-fleet: logs in $shared/logs, exports in $shared/exports," \
    "store ${OCCTUNE_FLEET_STORE:-$shared/occtune.db}" >&2
}

task() {
  need OCCTUNE_FLEET_SHARED "a directory every node and the merge step can reach"
  [ -n "${SLURM_ARRAY_TASK_ID:-}" ] \
    || die "SLURM_ARRAY_TASK_ID is not set: \`task\` runs inside the job array that \`submit\` submits"
  local occtune host tag local_dir db tune_code=0
  occtune=$(occtune_binary)
  host=$(hostname -s)
  tag="${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}-$host"
  local_dir="${OCCTUNE_FLEET_LOCAL:-${TMPDIR:-/tmp}}/occtune-fleet-$tag"
  db="$local_dir/occtune.db"
  mkdir -p "$local_dir"
  # shellcheck disable=SC2064  # expanded now: the trap runs after this function's locals are gone
  trap "rm -rf $(printf %q "$local_dir")" EXIT
  echo "occtune-fleet: task $tag, node-local store $db" >&2

  if [ -n "${OCCTUNE_FLEET_STANDIN:-}" ]; then
    # No GPU here: exports recorded elsewhere take the place of the measurements.
    local dir="$OCCTUNE_FLEET_STANDIN/$SLURM_ARRAY_TASK_ID" f
    compgen -G "$dir/*.json" >/dev/null || die "stand-in directory '$dir' holds no *.json exports"
    for f in "$dir"/*.json; do "$occtune" import "$f" --db "$db"; done
  else
    need OCCTUNE_FLEET_CONFIG "the tuning job file (TOML) every task runs"
    # Every GPU Slurm gave this task (CUDA_VISIBLE_DEVICES) at once: one worker each, this
    # process the one writer of the node-local store.
    # shellcheck disable=SC2086  # OCCTUNE_FLEET_TUNE_ARGS holds several arguments
    "$occtune" tune --config "$OCCTUNE_FLEET_CONFIG" --device all \
      --spread "${OCCTUNE_FLEET_SPREAD:-shapes}" --db "$db" --quiet ${OCCTUNE_FLEET_TUNE_ARGS:-} \
      || tune_code=$?
  fi
  # What was measured is exported even after a failed tune, so that a merge can take it.
  if [ -f "$db" ]; then
    "$occtune" db doctor --db "$db"
    "$occtune" export --db "$db" --out "$OCCTUNE_FLEET_SHARED/exports/$tag.json"
  fi
  [ "$tune_code" -eq 0 ] \
    || die "a tune failed on $host (exit $tune_code, its message is above)" "$tune_code"
}

merge() {
  need OCCTUNE_FLEET_SHARED "the directory the array tasks exported to"
  local occtune store merged f count=0
  occtune=$(occtune_binary)
  store=${OCCTUNE_FLEET_STORE:-$OCCTUNE_FLEET_SHARED/occtune.db}
  merged=${OCCTUNE_FLEET_MERGED_EXPORT:-$OCCTUNE_FLEET_SHARED/merged.json}
  compgen -G "$OCCTUNE_FLEET_SHARED/exports/*.json" >/dev/null \
    || die "no exports in $OCCTUNE_FLEET_SHARED/exports: did the array tasks run? (their logs \
are in $OCCTUNE_FLEET_SHARED/logs)" 3
  # Imports skip runs the store has, so a merge run again (or after more tasks) adds only news.
  for f in "$OCCTUNE_FLEET_SHARED"/exports/*.json; do
    "$occtune" import "$f" --db "$store" \
      || die "import of $f into $store failed (occtune's message is above; a store on a network \
filesystem is refused: set OCCTUNE_FLEET_STORE to a local disk, see docs/fleet.md)" 4
    count=$((count + 1))
  done
  echo "occtune-fleet: merged $count exports into $store" >&2
  "$occtune" db doctor --db "$store"
  [ "$merged" = none ] || "$occtune" export --db "$store" --out "$merged"
}

case "${1:-}" in
  submit) submit ;;
  task) task ;;
  merge) merge ;;
  *) usage ;;
esac
