#!/bin/sh
# scripts/demo_figure.py (the demo's figure and takeaway) on the H200 fixture's fp64
# rows: a PNG and three lines whose errors are the normwise err_fro_rel the run's
# summary table prints (not err_max_rel); on host rows the speed line says speed was
# not measured; a malformed CSV exits 3 with FILE:LINE. Exits 77 without matplotlib.
# Usage: test_demo_figure.sh DEMO_FIGURE_PY
set -u
py=/usr/bin/python3
demo=$1
fix="$(dirname "$0")/report/h200.csv"
"$py" -c 'import matplotlib' 2>/dev/null || { echo "skip: no matplotlib for $py"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$py" "$demo" "$fix" "$tmp/demo.png" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] || fail "exit status $st"
[ -s "$tmp/err" ] && { fail "wrote to stderr"; cat "$tmp/err"; }
[ "$(head -c 8 "$tmp/demo.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "no PNG written"
[ "$(wc -l <"$tmp/out")" -eq 3 ] || { fail "want three lines"; cat "$tmp/out"; }
# ozaki2_int8 at phi = 2: err_fro_rel 3.34e-16 against dgemm's; err_max_rel would say otherwise.
want=$("$py" - "$fix" <<'PY'
import csv, sys
rows = {r['scheme']: r for r in csv.DictReader(open(sys.argv[1], newline=''))
        if r['gen_params'] == 'phi=2' and r['target'] == 'fp64'}
o, d = rows['ozaki2_int8'], rows['dgemm']
x = float(d['time_ms_median']) / float(o['time_ms_median'])
eo, ed = float(o['err_fro_rel']), float(d['err_fro_rel'])
print(f'speed: ozaki2_int8 runs {x:.2f}× as fast as dgemm (n = 8192, φ = 2) '
      f'with {ed / eo:.1f}× smaller error ({eo:.1e} against {ed:.1e})')
PY
)
[ "$(sed -n 1p "$tmp/out")" = "$want" ] || fail "line 1: $(sed -n 1p "$tmp/out"), want $want"
sed -n 2p "$tmp/out" | grep -q '^error ‖Ĉ−C‖_F/‖C‖_F from φ = 0.5 to 2 (wider exponent range): ozaki1_int8 ×' ||
  fail "line 2: $(sed -n 2p "$tmp/out")"
sed -n 3p "$tmp/out" | grep -q '^worst grade over the cases: A: adp, dgemm, ozaki1_int8, ozaki2_int8 ' ||
  fail "line 3: $(sed -n 3p "$tmp/out")"

# Host rows: no speed claimed.
sed 's/,cuda,8192,/,host,8192,/' "$fix" >"$tmp/host.csv"
"$py" "$demo" "$tmp/host.csv" "$tmp/host.png" >"$tmp/out" 2>&1 || fail "host rows: exit status $?"
sed -n 1p "$tmp/out" | grep -q '^speed: not measured (host models)' || fail "host line 1: $(sed -n 1p "$tmp/out")"

# Malformed: FILE:LINE, exit 3; no arguments: 2.
sed '2s/,8192,8192,8192,/,8192,x,8192,/' "$fix" >"$tmp/bad.csv"
"$py" "$demo" "$tmp/bad.csv" "$tmp/bad.png" 2>"$tmp/err"
st=$?
[ $st -eq 3 ] || fail "malformed CSV: exit status $st, want 3"
grep -qF "$tmp/bad.csv:2: column n" "$tmp/err" || { fail "malformed CSV: no FILE:LINE"; cat "$tmp/err"; }
[ -e "$tmp/bad.png" ] && fail "malformed CSV: a figure was written"
"$py" "$demo" >/dev/null 2>&1
st=$?
[ $st -eq 2 ] || fail "no arguments: exit status $st, want 2"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo ok
