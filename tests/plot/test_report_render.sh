#!/bin/sh
# scripts/report's page from tests/plot/report/ rendered by headless Chromium: the
# screenshot is a PNG of the window's size that is not blank (a share of its
# pixels differ from the page's white, the figures' included). Exits 77 without
# chromium or matplotlib (./scripts/setup --test installs both).
# Usage: test_report_render.sh REPORT
set -u
py=/usr/bin/python3
report=$1
fix="$(dirname "$0")/report"
"$py" -c 'import matplotlib' 2>/dev/null || { echo "skip: no matplotlib for $py"; exit 77; }
chromium=$(command -v chromium || command -v chromium-browser) || { echo "skip: no chromium"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$report" "$fix/h200.csv" "$fix/h100.csv" --html "$tmp/r.html" >/dev/null || { echo "FAIL: report"; exit 1; }
# Its own profile and no sandbox (CI runs as root); the page has nothing to load,
# so the screenshot is taken once the file is parsed and its images decoded.
HOME=$tmp timeout 150 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
  --hide-scrollbars --user-data-dir="$tmp/profile" --window-size=1200,1600 \
  --screenshot="$tmp/shot.png" "file://$tmp/r.html" >"$tmp/log" 2>&1
st=$?
[ $st -eq 0 ] && [ -s "$tmp/shot.png" ] || { echo "FAIL: chromium exit status $st, no screenshot"; cat "$tmp/log"; exit 1; }

"$py" - "$tmp/shot.png" <<'PY'
import sys
import matplotlib.image
img = matplotlib.image.imread(sys.argv[1])[:, :, :3]
height, width = img.shape[:2]
inked = (img.min(axis=2) < 0.9).mean()        # share of pixels darker than near-white
colours = (img.max(axis=2) - img.min(axis=2) > 0.2).mean()  # share of saturated pixels
print(f'screenshot {width}x{height}: {inked:.1%} inked, {colours:.2%} in colour')
ok = (width, height) == (1200, 1600) and inked > 0.01 and colours > 0.0001
sys.exit(0 if ok else 1)
PY
[ $? -eq 0 ] || { echo "FAIL: blank or wrong-sized screenshot"; exit 1; }
echo ok
