#!/bin/sh
# The reduction example end to end: offline planning and a bad problem (exit 2) anywhere; with a
# GPU, tune into a fresh store and launch the winner from the application, which checks the sum
# (its partial sums in the workspace occtune allocates, one float per block).
# Exit 77 (skipped) after the CPU part when no GPU is visible. Usage: check.sh TUNER APP DB
set -u
tuner=$1 app=$2 db=$3
fail() { echo "reduction check: $*" >&2; exit 1; }
"$tuner" plan --profile h100 --kernel reduction --problem n=4194304 >"$db.plan" \
  || fail "offline plan failed"
grep -q "ept=16,threads=" "$db.plan" || { cat "$db.plan"; fail "no ept=16 candidate"; }
"$tuner" plan --profile h100 --problem n=4M >/dev/null 2>"$db.err"
[ $? = 2 ] && grep -q "n = '4M' is not an integer" "$db.err" || { cat "$db.err"; fail "n=4M"; }
"$tuner" devices >/dev/null 2>&1 || { echo "reduction check: no GPU; tuning skipped"; exit 77; }
rm -f "$db" "$db-wal" "$db-shm"
"$tuner" tune --kernel reduction --problem n=4194304 --db "$db" --wide || fail "tune failed"
OCCTUNE_DB=$db "$app" 4194304 >"$db.app" || { cat "$db.app"; fail "the application failed"; }
cat "$db.app"
grep -q "exact (measured on" "$db.app" || fail "the application did not launch the measured winner"
# The partial sums live in the configuration's workspace: one float per block of its grid.
blocks=$(sed -n 's/.* \([0-9]*\) blocks, .*/\1/p' "$db.app")
workspace=$(sed -n 's/.* \([0-9]*\) B workspace.*/\1/p' "$db.app")
[ -n "$blocks" ] && [ "$workspace" = "$((blocks * 4))" ] \
  || fail "the workspace is '$workspace' bytes for '$blocks' blocks, not 4 per block"
