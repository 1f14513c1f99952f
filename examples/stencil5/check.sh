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
# Problems in a job file: validated as --problem is, before any GPU work.
printf 'version = 1\n[job]\nkernels = ["stencil5"]\nproblem = { nx = 4096 }\n' >"$db.bad.toml"
expect 2 "dimension 'ny' is missing" "$tuner" tune --config "$db.bad.toml"
printf 'version = 1\n[job]\nkernels = ["stencil5"]\nproblem = { nx = "4k", ny = 1 }\n' \
  >"$db.bad.toml"
expect 2 "'job.problem.nx' = \"4k\" must be an integer" "$tuner" tune --config "$db.bad.toml"
printf 'version = 1\n[job]\nkernels = ["stencil5"]\nproblem = { nx = 8192, ny = 8192 }\n' \
  >"$db.toml"

"$tuner" devices >/dev/null 2>&1 || { echo "stencil5 check: no GPU; tuning skipped"; exit 77; }
rm -f "$db" "$db-wal" "$db-shm"
# Before any tuning (no store): the occupancy API's answer on this GPU, at a ragged problem.
OCCTUNE_DB=$db OCCTUNE_TUNE=off "$app" 1000 777 >"$db.app" || { cat "$db.app"; fail "untuned launch"; }
cat "$db.app"
grep -q "heuristic on this device" "$db.app" || fail "the untuned launch was not the heuristic"
"$tuner" tune --kernel stencil5 --problem nx=8192,ny=8192 --db "$db" --wide >"$db.tune" \
  || { cat "$db.tune"; fail "tune failed"; }
cat "$db.tune"
# The bytes work measure: GB/s and the share of the DRAM bandwidth, and where the limit is from.
grep -q "% DRAM" "$db.tune" || fail "the tune table shows no share of the DRAM bandwidth"
grep -q "limits of .*DRAM .* GB/s = 2 x" "$db.tune" || fail "the tune output does not derive the limits"
"$tuner" query --kernel stencil5 --problem nx=8192,ny=8192 --db "$db" --device 0 >"$db.query" \
  || { cat "$db.query"; fail "query found no entry"; }
cat "$db.query"
grep -q "nx=8192,ny=8192" "$db.query" || fail "query did not write the problem by its dimensions"
# The regression gate against what was just tuned: same GPU, same kernel, so no regression.
# The job file names the same problem (and the kernel), as CI would keep it.
"$tuner" check --config "$db.toml" --db "$db" || fail "check failed"
OCCTUNE_DB=$db "$app" 8192 8192 >"$db.app" || { cat "$db.app"; fail "the application failed"; }
cat "$db.app"
grep -q "exact (measured on" "$db.app" || fail "the application did not launch the measured winner"
