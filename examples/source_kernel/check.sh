#!/bin/sh
# The source-kernel example end to end: compiling a few configurations for sm_90 and bad input
# anywhere; with a GPU, tune the job into a fresh store and kernel cache, query it, and launch
# the winner from the application, which checks it against the host reference. Exit 77
# (skipped) after the CPU part when no GPU is visible.
# Usage: check.sh OCCTUNE APP JOB WORKDIR
set -u
occtune=$1 app=$2 job=$3 work=$4
fail() { echo "source_kernel check: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
db=$work/stencil.db
export OCCTUNE_KERNEL_CACHE=$work/kernels

"$occtune" compile --job "$job" --arch sm_90 --where "BX == 32 && BY == 8" >"$work/compile" \
  || { cat "$work/compile"; fail "compiling for sm_90 failed"; }
grep -q "^BX=.* compile_failed" "$work/compile" && { cat "$work/compile"; fail "a configuration failed"; }
grep -q "8 configurations: 8 compiled" "$work/compile" || { cat "$work/compile"; fail "not 8 compiled"; }
"$app" 0 0 "$job" 2>"$work/err"; [ $? = 2 ] || fail "the application took a 0x0 problem"
OCCTUNE_DB=$db "$app" 64 64 "$work/none.toml" 2>"$work/err"; code=$?
[ $code = 2 ] || { cat "$work/err"; fail "a missing job file exited $code, not 2"; }

"$occtune" devices >/dev/null 2>&1 || { echo "source_kernel check: no GPU; tuning skipped"; exit 77; }
"$occtune" tune --config "$job" --problem nx=2048,ny=2048 --db "$db" >"$work/tune" \
  || { cat "$work/tune"; fail "tune failed"; }
cat "$work/tune"
grep -q "s compiling" "$work/tune" || fail "tune did not report its compile time"
"$occtune" query --config "$job" --problem nx=2048,ny=2048 --db "$db" --device 0 \
  || fail "query found no entry"
OCCTUNE_DB=$db "$app" 2048 2048 "$job" >"$work/app" || { cat "$work/app"; fail "the application failed"; }
cat "$work/app"
grep -q "exact (measured on" "$work/app" || fail "the application did not launch the measured winner"
