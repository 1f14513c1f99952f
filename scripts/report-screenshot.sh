#!/usr/bin/env bash
# A PNG of an occtune HTML report as headless Chromium renders it at 1280 px wide (how the
# report is checked for legibility). Usage: scripts/report-screenshot.sh REPORT.html OUT.png [HEIGHT]
# HEIGHT (default 3000) is the window height in pixels: the part of the page that is captured.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/report-screenshot.sh REPORT.html OUT.png [HEIGHT]" >&2
  exit 2
fi
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "report-screenshot.sh: chromium is not installed (apt-get install chromium)" >&2; exit 4; }
[ -f "$1" ] || { echo "report-screenshot.sh: no report at '$1'" >&2; exit 2; }
report=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --user-data-dir="$profile" --window-size="1280,${3:-3000}" --screenshot="$out" \
  "file://$report" 2>/dev/null
echo "$out"
