#!/bin/sh
# scripts/plot.py on tests/plot/fixture.csv: every figure is written as a real PNG
# and a PDF without Type 3 fonts; missing phase columns skip figure 6 only; a
# non-mpbench CSV exits 3; no arguments exit 2; the complex rows of complex.csv get
# figures of their own, their speedup over zgemm/cgemm. Exits 77 without matplotlib.
# Usage: test_plot.sh PLOT_PY
set -u
py=/usr/bin/python3
plot=$1
fixture="$(dirname "$0")/fixture.csv"
"$py" -c 'import matplotlib' 2>/dev/null || { echo "skip: no matplotlib for $py"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A written file is non-trivial and of the right kind; PDFs embed no Type 3 fonts.
check_file() {
  [ -f "$1" ] || { fail "$1 missing"; return; }
  [ "$(wc -c <"$1")" -gt 5000 ] || fail "$1 too small"
  case $1 in
    *.png) [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
             || fail "$1 lacks the PNG signature" ;;
    *.pdf) [ "$(head -c 4 "$1")" = %PDF ] || fail "$1 does not start with %PDF"
           ! grep -aq /Type3 "$1" || fail "$1 has Type 3 fonts" ;;
  esac
}

"$py" "$plot" "$fixture" --out "$tmp/all" >"$tmp/list" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] || fail "fixture run exit status $st"
[ -s "$tmp/err" ] && { fail "fixture run wrote to stderr"; cat "$tmp/err"; }
# At least one file of each of the six figures, under its documented name.
for stem in tflops_vs_size_fp64_phi-0.5 tflops_vs_size_fp32_phi-0.5 \
            speedup_vs_size_fp64_phi-0.5 speedup_vs_size_fp32_phi-2 \
            err_max_rel_vs_phi_fp64_n1024 err_max_rel_vs_phi_fp32_n4096 \
            test2_error_vs_b_fp64_test2r_n1024 rho_a_vs_k_fp64_phi-0.5 \
            rho_a_vs_k_fp32_phi-2 phases_fp64_phi-0.5 phases_fp32_phi-0.5; do
  for ext in png pdf; do
    grep -qx "$tmp/all/$stem.$ext" "$tmp/list" || fail "$stem.$ext not listed"
  done
done
n=0
while read -r f; do check_file "$f"; n=$((n + 1)); done <"$tmp/list"
[ "$n" -ge 22 ] || fail "only $n files listed"

# --error and --formats: one format, the rho/k variant of figure 3.
"$py" "$plot" "$fixture" --out "$tmp/rho" --error rho_a_max_over_k --formats pdf >"$tmp/list2" \
  || fail "--error rho_a_max_over_k run failed"
check_file "$tmp/rho/rho_a_max_over_k_vs_phi_fp64_n1024.pdf"
! grep -q '\.png$' "$tmp/list2" || fail "--formats pdf wrote PNGs"

# Without the phase columns figure 6 is skipped with its message, the rest drawn.
"$py" -c '
import csv, sys
r = csv.DictReader(open(sys.argv[1], newline=""))
keep = [c for c in r.fieldnames if c not in ("split_ms", "gemm_ms", "accum_ms")]
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), keep, extrasaction="ignore")
w.writeheader(); w.writerows(r)' "$fixture" "$tmp/nophase.csv"
"$py" "$plot" "$tmp/nophase.csv" --out "$tmp/np" --formats png >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 0 ] || fail "no-phase CSV exit status $st"
grep -q '^skip: figure 6 (phase breakdown): ' "$tmp/err" || fail "no skip line for figure 6"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || { fail "expected one stderr line"; cat "$tmp/err"; }
[ -f "$tmp/np/tflops_vs_size_fp64_phi-0.5.png" ] || fail "no-phase CSV lost figure 1"

# A CSV that is not mpbench's, and a missing file: exit 3 naming the file.
printf 'a,b\n1,2\n' >"$tmp/other.csv"
"$py" "$plot" "$tmp/other.csv" --out "$tmp/x" 2>"$tmp/err"
st=$?
[ $st -eq 3 ] || fail "non-mpbench CSV exit status $st, want 3"
grep -q other.csv "$tmp/err" || fail "non-mpbench message does not name the file"
"$py" "$plot" "$tmp/absent.csv" --out "$tmp/x" 2>"$tmp/err"
st=$?
[ $st -eq 3 ] || fail "missing CSV exit status $st, want 3"
grep -q Traceback "$tmp/err" && fail "traceback on a missing CSV"

# Bad arguments: argparse's 2.
"$py" "$plot" >/dev/null 2>&1
st=$?
[ $st -eq 2 ] || fail "no arguments exit status $st, want 2"
"$py" "$plot" "$fixture" --out "$tmp/x" --formats svg >/dev/null 2>&1
st=$?
[ $st -eq 2 ] || fail "--formats svg exit status $st, want 2"

"$py" "$plot" "$fixture" --out "$tmp/x" --figures tflops,bogus >/dev/null 2>&1
st=$?
[ $st -eq 2 ] || fail "--figures bogus exit status $st, want 2"

# --figures draws those figures and no others.
"$py" "$plot" "$fixture" --out "$tmp/sel" --figures test2,phases --formats png >/dev/null 2>&1 ||
    fail "--figures test2,phases exit status $?"
ls "$tmp/sel" | grep -q '^test2_error_vs_b_' || fail "--figures test2 drew no Test 2 figure"
ls "$tmp/sel" | grep -q '^phases_' || fail "--figures phases drew no phase figure"
ls "$tmp/sel" | grep -v -e '^test2_error_vs_b_' -e '^phases_' | grep -q . &&
    fail "--figures test2,phases drew other figures: $(ls "$tmp/sel" | tr '\n' ' ')"

# A configuration's style does not depend on what else the input holds.
"$py" - "$plot" <<'PY' || fail "styles differ between calls with different inputs"
import importlib.util, sys
spec = importlib.util.spec_from_file_location('plot', sys.argv[1])
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)
def rows(*cfgs):
    return [{'scheme': s, 'params': p, 'target': 'fp64'} for s, p in cfgs]
a = plot.make_styles(rows(('adp', 'decision=auto'), ('ozaki2_int8', 'moduli=14')))
b = plot.make_styles(rows(('cublas_fp64emu', 'mantissa=fixed'), ('ozaki2_int8', 'moduli=14'), ('ozaki1_int8', 'slices=7')))
key = ('ozaki2_int8', 'moduli=14')
sys.exit(0 if a[key] == b[key] and a[('dgemm', '')] == plot.NATIVE_STYLE else 1)
PY

# Complex rows (complex.csv: host rows of dgemm, ozaki2_int8, zgemm, zgemm3m and sgemm,
# cgemm, cgemm3m on phi and smallim) are drawn apart from the real rows of their precision.
complex="$(dirname "$0")/complex.csv"
"$py" "$plot" "$complex" --out "$tmp/cx" --formats png --figures error,rho >"$tmp/list" 2>"$tmp/err" ||
    fail "complex fixture: exit status $?"
[ -s "$tmp/err" ] && { fail "complex fixture wrote to stderr"; cat "$tmp/err"; }
for stem in err_max_rel_vs_phi_fp64_n32 err_max_rel_vs_phi_fp64-complex_n32 err_max_rel_vs_phi_fp32_n16 \
            err_max_rel_vs_phi_fp32-complex_n16 rho_a_vs_k_fp64_phi-2 rho_a_vs_k_fp64-complex_smallim_span-24; do
  grep -qx "$tmp/cx/$stem.png" "$tmp/list" || fail "complex fixture: $stem.png not written"
done
# Every figure's series are of one field, and the speedup of a complex scheme is over
# zgemm/cgemm on its case (the fixture's rows relabelled impl=cuda for figures 1 and 2).
"$py" - "$plot" "$complex" "$tmp/cxcuda.csv" <<'PY' || fail "complex rows are mixed with real ones"
import csv, importlib.util, statistics, sys
spec = importlib.util.spec_from_file_location('plot', sys.argv[1])
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)
_, rows = plot.mpb_rows.read_run_csv(sys.argv[2])
ok = [r for r in rows if r['status'] == 'ok']
native = plot.native_times(ok)
bad = []
for r in ok:
    want = {'zgemm3m': 'zgemm', 'cgemm3m': 'cgemm', 'zgemm': 'zgemm', 'ozaki2_int8': 'dgemm'}.get(r['scheme'])
    if want:
        same = [float(n['time_ms_median']) for n in ok if n['scheme'] == want and plot.case_key(n) == plot.case_key(r)]
        if native.get(plot.case_key(r)) != statistics.median(same):
            bad.append(f"{r['scheme']} {r['case']}: native {native.get(plot.case_key(r))}, want {want}'s {same}")
for key, rs in plot.group(ok, lambda r: (plot.mpb_rows.target_of(r), r['gen'])).items():
    if len({r['field'] for r in rs}) != 1:
        bad.append(f'{key}: real and complex rows in one group')
with open(sys.argv[3], 'w', newline='') as f:
    w = csv.DictWriter(f, [c for c in rows[0] if not c.startswith('_')], extrasaction='ignore')
    w.writeheader()
    for r in rows:
        t = float(r['time_ms_median'] or 'nan')
        w.writerow(dict(r, impl='cuda', tflops=2 * int(r['m']) ** 3 / (t * 1e-3) / 1e12 if t == t else ''))
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
"$py" "$plot" "$tmp/cxcuda.csv" --out "$tmp/cxc" --formats png --figures tflops,speedup >"$tmp/list" 2>"$tmp/err" ||
    fail "complex fixture as cuda rows: exit status $?"
for stem in tflops_vs_size_fp64_phi-0.5 tflops_vs_size_fp64-complex_phi-0.5 speedup_vs_size_fp64_phi-2 \
            speedup_vs_size_fp64-complex_phi-2 speedup_vs_size_fp32-complex_smallim_span-24; do
  grep -qx "$tmp/cxc/$stem.png" "$tmp/list" || fail "complex fixture as cuda rows: $stem.png not written"
done

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: $n files checked"
