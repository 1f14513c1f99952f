#!/usr/bin/env bash
# End to end on a GPU: tune into a temporary database, then query it by index and by UUID (the
# UUID query must work from the database alone), in table and JSON form. Exit 77 = skipped.
set -euo pipefail
occtune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$occtune" devices --format json >"$tmp/devices.json" 2>"$tmp/devices.err"; then
  echo "skipped: $(cat "$tmp/devices.err")"
  exit 77
fi
uuid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["uuid"])' "$tmp/devices.json")
db="$tmp/tune.db"

"$occtune" tune --db "$db" --kernel tiled_dynamic --kernel tiled_static --kernel naive \
  --shape 512x512x512 --shape 17x1000x33 --samples 5 --quiet --format json >"$tmp/tune.json"
python3 - "$tmp/tune.json" "$tmp/family512" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema_version"] == 3 and doc["kind"] == "tune", doc.keys()
assert len(doc["shapes"]) == 2
for shape in doc["shapes"]:
    assert shape["cublas"]["timing"]["median_ms"] > 0
    kernels = {k["kernel"]: k for k in shape["kernels"]}
    assert set(kernels) == {"tiled_dynamic", "tiled_static", "naive"}, kernels.keys()
    winners = 0
    for k in kernels.values():
        w = k["winner"]
        if w < 0:
            # Issue #18: halving abandoned every measured candidate of a family far behind the
            # shape's best; they were checked and sampled, and none is a winner.
            measured = [c for c in k["candidates"] if c["outcome"] == "ok"]
            assert measured, f"no winner and nothing measured for {k['kernel']} at {shape['shape']}"
            assert all(c["stop_reason"] == "abandoned" and not c["winner"] for c in measured), k
            assert k["abandoned"] == len(measured), k
            # One sample at least 1.25x the best so far, or three at least 1.05x (the defaults).
            for c in measured:
                floor = 1.25 if len(c["samples_ms"]) == 1 else 1.05
                assert c["behind_best"] >= floor and 0 <= c["rel_error"] < 1e-5, c
            continue
        winners += 1
        best = k["candidates"][w]
        assert best["outcome"] == "ok" and best["winner"]
        # The winner has the lowest median among the candidates measured to the stopping rule
        # (halving may leave eliminated ones with a lucky median from a few screen samples).
        finals = [c for c in k["candidates"] if c["outcome"] == "ok"
                  and c["stop_reason"] in ("converged", "timeout", "max_samples")]
        assert best in finals, best
        assert best["timing"]["median_ms"] == min(c["timing"]["median_ms"] for c in finals)
        assert w in k["ties"] or not k["ties"], k["ties"]
        for c in k["candidates"]:
            assert c["outcome"] in ("ok", "exceeds_limits"), c
            if c["outcome"] == "ok":
                assert 0 <= c["rel_error"] < 1e-5, c
    assert winners >= 1, f"no family won at {shape['shape']}"
    if shape["shape"] == "512x512x512":
        won = next(k["kernel"] for k in shape["kernels"] if k["winner"] >= 0)
        open(sys.argv[2], "w").write(won)
print("tune json ok")
PY
family=$(cat "$tmp/family512")  # a family with a winner at 512^3, for the queries by kernel

"$occtune" query --db "$db" --device 0 --kernel "$family" --shape 512x512x512 | tee "$tmp/q1.txt"
grep -q "$family" "$tmp/q1.txt"
# No kernel named: the fastest family's winner (the lowest winning median of the tuned families).
"$occtune" query --db "$db" --device 0 --shape 512x512x512 --format json >"$tmp/qany.json"
"$occtune" query --db "$db" --device 0 --shape 512x512x512 --kernel "$family" --format json \
  >"$tmp/qtd.json"
python3 - "$tmp/qany.json" "$tmp/qtd.json" <<'PY'
import json, sys
anyf, td = (json.load(open(p)) for p in sys.argv[1:3])
assert anyf["answered_by"] == "exact", anyf["answered_by"]
assert anyf["best"]["timing"]["median_ms"] <= td["best"]["timing"]["median_ms"], (anyf, td)
print("any family:", anyf["run"]["kernel"], anyf["best"]["timing"]["median_ms"], "ms")
PY
# By UUID: reads only the database. CUDA_VISIBLE_DEVICES= hides every GPU, so any CUDA use fails.
CUDA_VISIBLE_DEVICES= "$occtune" query --db "$db" --device "$uuid" --shape 17x1000x33 \
  --format json >"$tmp/q2.json"
python3 - "$tmp/q2.json" "$uuid" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema_version"] == 3 and doc["kind"] == "query"
assert doc["run"]["device"]["uuid"] == sys.argv[2]
assert (doc["run"]["m"], doc["run"]["n"], doc["run"]["k"]) == (17, 1000, 33)
assert doc["best"]["timing"]["median_ms"] > 0 and doc["ratio_to_cublas"] > 0
print("query json ok")
PY
# A shape never tuned: exit 3 with a message naming the shape.
set +e
CUDA_VISIBLE_DEVICES= "$occtune" query --db "$db" --device "$uuid" --shape 9x9x9 2>"$tmp/miss.err"
rc=$?
set -e
[ "$rc" -eq 3 ] || { echo "expected exit 3, got $rc"; exit 1; }
grep -q "9x9x9" "$tmp/miss.err"
echo "e2e gpu tune/query: ok"
