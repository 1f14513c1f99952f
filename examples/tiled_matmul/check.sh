#!/bin/sh
# The tiled_matmul example end to end: offline planning (the textbook walk 32x32, 16x16, ...)
# and a bad problem (exit 2) anywhere; with a GPU, tune into a fresh store and launch the winner
# from the application, which checks the product. Exit 77 (skipped) after the CPU part when no
# GPU is visible. Usage: check.sh TUNER APP DB
set -u
tuner=$1 app=$2 db=$3
fail() { echo "tiled_matmul check: $*" >&2; exit 1; }
"$tuner" plan --profile h100 --kernel tiled_matmul --problem m=1024,n=1024,k=1024 >"$db.plan" \
  || fail "offline plan failed"
grep -q "tile=16" "$db.plan" || { cat "$db.plan"; fail "no 16x16 candidate"; }
"$tuner" plan --profile h100 --problem m=1024,n=1024 >/dev/null 2>"$db.err"
[ $? = 2 ] && grep -q "dimension 'k' is missing" "$db.err" || { cat "$db.err"; fail "no k"; }
"$tuner" devices >/dev/null 2>&1 || { echo "tiled_matmul check: no GPU; tuning skipped"; exit 77; }
rm -f "$db" "$db-wal" "$db-shm"
"$tuner" tune --kernel tiled_matmul --problem m=1024,n=1024,k=1024 --db "$db" --wide \
  || fail "tune failed"
OCCTUNE_DB=$db "$app" 1024 1024 1024 >"$db.app" || { cat "$db.app"; fail "the application failed"; }
cat "$db.app"
grep -q "exact (measured on" "$db.app" || fail "the application did not launch the measured winner"
