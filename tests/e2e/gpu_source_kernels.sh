#!/bin/bash
# Source kernels on the GPU (issue #14), through the CLI: a job of four configurations of the
# example's stencil, one of which has a syntax error, is tuned: that one is recorded as
# compile_failed (with NVRTC's words) while the other three are measured and one wins; the
# winner is in the store (query); a changed source byte afterwards makes the entry a miss
# (exit 3, another build); a warm second tune compiles nothing. Exit 77 without a GPU.
# Usage: gpu_source_kernels.sh OCCTUNE SOURCE_DIR
set -u
occtune=$1 root=$2
fail() { echo "gpu_source_kernels: $*" >&2; exit 1; }
"$occtune" devices >/dev/null 2>&1 || { echo "gpu_source_kernels: no GPU; skipped"; exit 77; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
export OCCTUNE_KERNEL_CACHE=$work/kernels
cp "$root"/examples/source_kernel/stencil.cu "$root"/examples/source_kernel/stencil_coefficients.cuh \
  "$work"/ || fail "cannot copy the example"
# Four configurations: BX 32, BY 8, UNROLL 1 or 2, PAD 0 or 1.
sed -e 's/^BX = .*/BX = [32]/' -e 's/^BY = .*/BY = [8]/' -e 's/^UNROLL = .*/UNROLL = [1, 2]/' \
  "$root"/examples/source_kernel/stencil.toml >"$work/job.toml"
grep -q '^BX = \[32\]' "$work/job.toml" || fail "the job was not narrowed"
cat >>"$work/stencil.cu" <<'CU'
#if !defined(OCCTUNE_REFERENCE) && UNROLL == 2 && PAD == 1
this configuration does not compile;
#endif
CU
db=$work/s.db
problem=nx=1000,ny=777  # not a multiple of any block: the edges run

"$occtune" tune --config "$work/job.toml" --problem $problem --db "$db" --format json \
  >"$work/tune.json" 2>"$work/tune.err" || { cat "$work/tune.err"; fail "tune failed"; }
python3 - "$work/tune.json" <<'PY' || fail "the tune's results are not as expected"
import json, sys
doc = json.load(open(sys.argv[1]))
k = doc["shapes"][0]["kernels"][0]
by_status = {}
for c in k["candidates"]:
    by_status.setdefault(c["outcome"], []).append(c)
failed = by_status.get("compile_failed", [])
assert len(failed) == 1, f"compile_failed: {len(failed)}, not 1: {by_status.keys()}"
p = failed[0]["params"]
assert (p["UNROLL"], p["PAD"]) == (2, 1), f"the wrong configuration failed: {p}"
assert "error" in failed[0]["error"], f"no compiler log kept: {failed[0]['error']!r}"
assert len(by_status.get("ok", [])) == 3, f"ok: {len(by_status.get('ok', []))}, not 3"
w = k["winner"]
assert w >= 0 and k["candidates"][w]["outcome"] == "ok", "no ok winner"
assert k["compile_s"] > 0, "no compile time reported"
print("gpu_source_kernels: compile_failed recorded, 3 measured, winner",
      k["candidates"][w]["variant"], "compile", k["compile_s"], "s, measure", k["wall_s"], "s")
PY
grep -q "compiled stencil2d: 4 configurations" "$work/tune.err" \
  || { cat "$work/tune.err"; fail "tune did not log the compile summary"; }

"$occtune" query --config "$work/job.toml" --problem $problem --db "$db" --device 0 >"$work/query" \
  || fail "query found no entry after tuning"

# Warm: the kernel cache holds every program that compiled; only the broken one runs NVRTC.
"$occtune" tune --config "$work/job.toml" --problem $problem --db "$work/warm.db" --quiet \
  >/dev/null 2>"$work/warm.err" || { cat "$work/warm.err"; fail "the warm tune failed"; }
grep -q "(1 programs compiled by NVRTC, 4 from the kernel cache, 1 compile_failed)" \
  "$work/warm.err" || { cat "$work/warm.err"; fail "the warm tune compiled more than the broken one"; }

# One more byte of source: another build id, so the tuned entry no longer answers.
echo "// changed after tuning" >>"$work/stencil.cu"
"$occtune" query --config "$work/job.toml" --problem $problem --db "$db" --device 0 \
  >/dev/null 2>"$work/miss.err"
code=$?
[ $code = 3 ] || { cat "$work/miss.err"; fail "query after a source change exited $code, not 3"; }
grep -q "build" "$work/miss.err" || { cat "$work/miss.err"; fail "the miss does not name the build"; }
echo "gpu_source_kernels: ok"
