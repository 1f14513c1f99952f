#!/bin/sh
# The stencil5 example end to end: offline planning and bad input (exit 2) anywhere; with a GPU,
# tune into a fresh store, query it, and launch the winner from the application, which checks
# it against the host reference. Exit 77 (skipped) after the CPU part when no GPU is visible.
# Usage: check.sh TUNER APP DB
set -u
tuner=$1 app=$2 db=$3
fail() { echo "stencil5 check: $*" >&2; exit 1; }
expect() {  # expect CODE TEXT COMMAND...: exit code CODE and TEXT in its stderr
  code=$1 text=$2; shift 2
  "$@" >/dev/null 2>"$db.err"; got=$?
  [ "$got" = "$code" ] || { cat "$db.err"; fail "'$*' exited $got, not $code"; }
  grep -q -- "$text" "$db.err" || { cat "$db.err"; fail "'$*' did not say '$text'"; }
}

"$tuner" plan --profile h100 --kernel stencil5 --problem nx=4096,ny=4096 >"$db.plan" \
  || fail "offline plan failed"
grep -q "rows=1,tile=32" "$db.plan" || { cat "$db.plan"; fail "no 32x32 candidate"; }
expect 2 "dimension 'ny' is missing" "$tuner" plan --profile h100 --problem nx=4096
expect 2 "nx = '4k' is not an integer" "$tuner" plan --profile h100 --problem nx=4k,ny=1
expect 2 "--problem" "$tuner" plan --profile h100 --kernel stencil5

"$tuner" devices >/dev/null 2>&1 || { echo "stencil5 check: no GPU; tuning skipped"; exit 77; }
rm -f "$db" "$db-wal" "$db-shm"
# Before any tuning (no store): the occupancy API's answer on this GPU, at a ragged problem.
OCCTUNE_DB=$db OCCTUNE_TUNE=off "$app" 1000 777 >"$db.app" || { cat "$db.app"; fail "untuned launch"; }
cat "$db.app"
grep -q "heuristic on this device" "$db.app" || fail "the untuned launch was not the heuristic"
"$tuner" tune --kernel stencil5 --problem nx=8192,ny=8192 --db "$db" --wide \
  || fail "tune failed"
"$tuner" query --kernel stencil5 --problem nx=8192,ny=8192 --db "$db" --device 0 \
  || fail "query found no entry"
# The regression gate against what was just tuned: same GPU, same kernel, so no regression.
"$tuner" check --kernel stencil5 --problem nx=8192,ny=8192 --db "$db" || fail "check failed"
OCCTUNE_DB=$db "$app" 8192 8192 >"$db.app" || { cat "$db.app"; fail "the application failed"; }
cat "$db.app"
grep -q "exact (measured on" "$db.app" || fail "the application did not launch the measured winner"
