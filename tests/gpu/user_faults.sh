#!/bin/sh
# User kernels on a GPU (issue #13): a harness whose family has a correct configuration, a wrong
# one, one that faults and one that hangs (tests/support/user_faults.cu). The tune must record
# wrong_result, crashed and timeout, keep going, and store the correct one as the winner; after
# the family's version changes, the entry is a miss (exit 3) that names the other build; checked
# by a device reference instead, the outcomes are the same. First, without a GPU too: a
# registration without a reference, or with both kinds, is exit 2 from the harness.
# Usage: user_faults.sh HARNESS WORKDIR. Exit 77 (skipped) without a GPU.
set -u
harness=$1 work=$2
fail() { echo "user_faults: $*" >&2; exit 1; }
# A bad registration is bad input for the harness's CLI: exit 2 naming the family and the fix.
UFAULTS_NO_REFERENCE=1 "$harness" plan --profile h100 --problem n=1024 2>"$work.err"
code=$?
[ $code = 2 ] && grep -q "kernel family 'ufaults': no reference; set KernelFamily::reference" \
  "$work.err" || { cat "$work.err"; fail "a registration without a reference exited $code"; }
# Both references at once is bad input too: a family is checked against exactly one.
UFAULTS_REFERENCE=both "$harness" plan --profile h100 --problem n=1024 2>"$work.err"
code=$?
[ $code = 2 ] && grep -q "kernel family 'ufaults': both KernelFamily::reference and \
KernelFamily::device_reference are set; keep one" "$work.err" \
  || { cat "$work.err"; fail "a registration with both references exited $code"; }
"$harness" devices >/dev/null 2>&1 || { echo "user_faults: no GPU; skipped"; exit 77; }
mkdir -p "$work" && db=$work/ufaults.db && rm -f "$db" "$db-wal" "$db-shm"
"$harness" tune --kernel ufaults --problem n=1048576 --db "$db" --candidate-timeout 2 \
  --strategy exhaustive >"$work/tune.out" 2>"$work/tune.err"
code=$?
cat "$work/tune.out" "$work/tune.err"
[ $code = 0 ] || fail "tune exited $code"
grep -q "mode=1,threads=256: wrong_result" "$work/tune.out" || fail "mode 1 was not wrong_result"
grep -q "mode=2,threads=256: crashed" "$work/tune.out" || fail "mode 2 was not crashed"
grep -q "mode=3,threads=256: timeout" "$work/tune.out" || fail "mode 3 was not timeout"
grep "mode=0,threads=256" "$work/tune.out" | grep -q "<- best ufaults" \
  || fail "mode 0 is not the winner"
"$harness" query --kernel ufaults --problem n=1048576 --db "$db" --device 0 >"$work/query.out" \
  || fail "query of the tuned entry failed"
grep -q "mode=0" "$work/query.out" || { cat "$work/query.out"; fail "query did not answer mode 0"; }
UFAULTS_VERSION=2 "$harness" query --kernel ufaults --problem n=1048576 --db "$db" --device 0 \
  >/dev/null 2>"$work/miss.err"
code=$?
cat "$work/miss.err"
[ $code = 3 ] || fail "the query after a version change exited $code, not 3"
grep -q "user:1" "$work/miss.err" || fail "the miss does not name the entry of version 1"
# The same family checked by a device reference (a copy kernel): the same outcomes, in a worker
# (the default, as above) and in-process (--no-isolation, modes 0 and 1 only: a fault or a hang
# would take the tuning process with it).
ddb=$work/ufaults_device.db && rm -f "$ddb" "$ddb-wal" "$ddb-shm"
UFAULTS_REFERENCE=device "$harness" tune --kernel ufaults --problem n=1048576 --db "$ddb" \
  --candidate-timeout 2 --strategy exhaustive >"$work/device.out" 2>"$work/device.err"
code=$?
cat "$work/device.out" "$work/device.err"
[ $code = 0 ] || fail "tune with the device reference exited $code"
grep -q "mode=1,threads=256: wrong_result" "$work/device.out" \
  || fail "mode 1 was not wrong_result against the device reference"
grep -q "mode=2,threads=256: crashed" "$work/device.out" || fail "mode 2 was not crashed"
grep "mode=0,threads=256" "$work/device.out" | grep -q "<- best ufaults" \
  || fail "mode 0 is not the winner against the device reference"
UFAULTS_REFERENCE=device UFAULTS_MODES=01 "$harness" tune --kernel ufaults --problem n=65536 \
  --db "$ddb" --no-isolation --strategy exhaustive >"$work/inproc.out" 2>"$work/inproc.err"
code=$?
cat "$work/inproc.out" "$work/inproc.err"
[ $code = 0 ] || fail "the in-process tune with the device reference exited $code"
grep -q "mode=1,threads=256: wrong_result" "$work/inproc.out" \
  || fail "mode 1 was not wrong_result in-process against the device reference"
grep "mode=0,threads=256" "$work/inproc.out" | grep -q "<- best ufaults" \
  || fail "mode 0 is not the in-process winner against the device reference"
# A device reference that writes nothing is refused before any measurement, naming the output.
UFAULTS_REFERENCE=unwritten UFAULTS_MODES=0 "$harness" tune --kernel ufaults --problem n=4096 \
  --db "$ddb" --no-isolation >"$work/unwritten.out" 2>"$work/unwritten.err"
code=$?
cat "$work/unwritten.err"
[ $code = 2 ] && grep -q "the device reference left 4096 of the 4096 elements of output 'out' NaN" \
  "$work/unwritten.err" || fail "a device reference that writes nothing exited $code"
echo "user_faults: ok"
