#!/bin/sh
# scripts/plot_tune.py on a constructed tune CSV: one PNG and one PDF per
# (chain, size) with ok rows, a skip line for one without, the latest run kept
# where two runs give one point; a bad argument exits 2, an unreadable or
# non-tune CSV 3. Exits 77 without matplotlib.
# Usage: test_plot_tune.sh PLOT_TUNE_PY
set -u
py=/usr/bin/python3
plot=$1
"$py" -c 'import matplotlib' 2>/dev/null || { echo "skip: no matplotlib for $py"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# micro3 at 64: E1, E5 and a value threshold, a miss on the validation seed, an
# empty measured_speedup (the predicted one is drawn), and E1 motuner from two runs;
# mlp3 at 64 has only an error row.
h=tune_schema_version,run_id,chain,size,threshold,metric,threshold_value,strategy,status
h=$h,met,err,predicted_speedup,measured_speedup,valid_met
cat >"$tmp/tune.csv" <<EOF
$h
2,20260101T000000Z-a,micro3,64,E1,fro_rel,0.05,motuner,ok,yes,0.004,5.0,4.8,yes
2,20260102T000000Z-b,micro3,64,E1,fro_rel,0.05,motuner,ok,yes,0.004,5.0,4.9,yes
2,20260101T000000Z-a,micro3,64,E1,fro_rel,0.05,greedy,ok,yes,0.004,5.0,,yes
2,20260101T000000Z-a,micro3,64,E5,abs,100,motuner,ok,yes,0.002,5.0,4.7,yes
2,20260101T000000Z-a,micro3,64,E5,abs,100,priork,ok,yes,0.03,6.0,5.9,no
2,20260101T000000Z-a,micro3,64,1e-6:fro_rel,fro_rel,1e-6,motuner,ok,yes,9e-7,1.0,1.0,yes
2,20260101T000000Z-a,micro3,128,E3,fro_rel,0.0005,motuner,ok,no,0.0006,2.0,2.1,no
2,20260101T000000Z-a,mlp3,64,E1,fro_rel,0.05,priork,error,,,,,
EOF

"$py" "$plot" "$tmp/tune.csv" --out "$tmp/out" >"$tmp/list" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] || fail "exit status $st, want 0"
for stem in tune_micro3_64 tune_micro3_128; do
  for ext in png pdf; do
    f=$tmp/out/$stem.$ext
    grep -qx "$f" "$tmp/list" || fail "$stem.$ext not listed"
    [ -f "$f" ] && [ "$(wc -c <"$f")" -gt 5000 ] || fail "$stem.$ext missing or too small"
  done
done
[ "$(head -c 8 "$tmp/out/tune_micro3_64.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "tune_micro3_64.png lacks the PNG signature"
! grep -aq /Type3 "$tmp/out/tune_micro3_64.pdf" || fail "PDF has Type 3 fonts"
[ "$(wc -l <"$tmp/list")" -eq 4 ] || fail "$(wc -l <"$tmp/list") files listed, want 4"
[ ! -e "$tmp/out/tune_mlp3_64.png" ] || fail "drew mlp3, which has no ok row"
grep -qx 'skip: tune_mlp3_64: no rows with status ok' "$tmp/err" || fail "no skip line for mlp3"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || { fail "expected one stderr line"; cat "$tmp/err"; }

# The later run of micro3 64 E1 motuner is the one drawn.
"$py" - "$plot" "$tmp/tune.csv" <<'PY' || fail "the earlier run of a duplicated point was kept"
import importlib.util, sys
spec = importlib.util.spec_from_file_location('plot_tune', sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
rows, _ = mod.read_csvs([sys.argv[2]])
mine = [r for r in rows if (r['size'], r['threshold'], r['strategy']) == ('64', 'E1', 'motuner')]
sys.exit(0 if [r['measured_speedup'] for r in mine] == ['4.9'] else 1)
PY

# Bad arguments: argparse's 2.
"$py" "$plot" >/dev/null 2>&1
st=$?
[ $st -eq 2 ] || fail "no arguments exit status $st, want 2"
"$py" "$plot" "$tmp/tune.csv" --out "$tmp/x" --formats svg >/dev/null 2>&1
st=$?
[ $st -eq 2 ] || fail "--formats svg exit status $st, want 2"

# A missing file and a CSV that is not a tune CSV: 3, naming the file, no traceback.
"$py" "$plot" "$tmp/absent.csv" --out "$tmp/x" 2>"$tmp/err"
st=$?
[ $st -eq 3 ] || fail "missing CSV exit status $st, want 3"
grep -q absent.csv "$tmp/err" || fail "missing-CSV message does not name the file"
grep -q Traceback "$tmp/err" && fail "traceback on a missing CSV"
printf 'schema_version,case_id\n1,a\n' >"$tmp/run.csv"
"$py" "$plot" "$tmp/run.csv" --out "$tmp/x" 2>"$tmp/err"
st=$?
[ $st -eq 3 ] || fail "run CSV exit status $st, want 3"
grep -q run.csv "$tmp/err" || fail "non-tune message does not name the file"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: 4 files checked"
