#!/usr/bin/env bash
# The HTML report as a reader gets it: `occtune report` of a seeded store (every family, failed
# candidates, two tune sessions, three checks) loaded in headless Chromium, which must log no
# console message and show every chart, point and mark (tests/e2e/report_check.py). Two
# negative controls prove the checker can fail. Exit 77 = skipped: no chromium on a developer
# machine; with OCCTUNE_REQUIRE_CHROMIUM=1 (CI) a missing chromium is a failure.
set -euo pipefail
occtune=$1
source_dir=$2
build=$(cd "$(dirname "$occtune")/.." && pwd)
seed="$build/tests/occtune_seed"
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  if [ "${OCCTUNE_REQUIRE_CHROMIUM:-}" = 1 ]; then
    echo "chromium is missing but OCCTUNE_REQUIRE_CHROMIUM=1; run scripts/setup.sh" >&2
    exit 1
  fi
  echo "skipped: chromium is not installed (apt-get install chromium, or run scripts/setup.sh)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check="$source_dir/tests/e2e/report_check.py"

"$seed" --report "$tmp/seed.db" "$tmp/expect.json" >/dev/null
path=$("$occtune" report --db "$tmp/seed.db" --out "$tmp/report.html")
[ "$path" = "$tmp/report.html" ] || { echo "report printed '$path', expected $tmp/report.html" >&2; exit 1; }
python3 "$check" "$chromium" "$tmp/report.html" "$tmp/expect.json" \
  ${OCCTUNE_REPORT_SCREENSHOT:+--screenshot "$OCCTUNE_REPORT_SCREENSHOT"}

# Negative controls: a console error, and a point fewer than expected, must both fail.
sed 's|</body>|<script>console.error("planted error")</script></body>|' "$tmp/report.html" \
  >"$tmp/broken.html"
if python3 "$check" "$chromium" "$tmp/broken.html" "$tmp/expect.json" 2>"$tmp/err"; then
  echo "the checker missed a console error" >&2; exit 1
fi
grep -q "planted error" "$tmp/err" || { echo "console error not reported:"; cat "$tmp/err"; exit 1; }
python3 - "$tmp/expect.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
shape = next(iter(e["points"]))
e["points"][shape]["regblocked"] += 1
json.dump(e, open(sys.argv[1], "w"))
PY
if python3 "$check" "$chromium" "$tmp/report.html" "$tmp/expect.json" 2>"$tmp/err"; then
  echo "the checker missed a missing point" >&2; exit 1
fi
grep -q "points per family" "$tmp/err" || { echo "missing point not reported:"; cat "$tmp/err"; exit 1; }
echo "report_chromium: ok"
