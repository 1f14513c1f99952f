#!/usr/bin/env bash
# Device call E (H100), wave 5: call D's build again (128-split variants): the 53-shape suite
# once, whose per-family winners become the cost model test's data
# (tests/unit/data/h100_suite_family_winners.txt).
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
echo "commit $(cat carry/commit)" > "$R/steps.txt"
start=$(date +%s)
BENCH_TIMEOUT=200 bash scripts/bench-suite.sh -o "$R/suite" > "$R/suite.out" 2>&1
echo "suite rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
tar -czf "$R/suite.tgz" -C "$R" suite && rm -rf "$R/suite"
cat "$R/steps.txt"; grep -E "geometric|self-check" "$R/suite.out"
grep -vE "^occtune" "$R/suite.out" | awk '$3+0 > 0 && $3+0 < 0.9 {print $1, $3, $9}'
