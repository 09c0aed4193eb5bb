#!/bin/sh
# mpbench grade with complex schemes on the host backend: zgemm (4M) earns A
# and zgemm3m and cgemm3m (3M) B, decided by smallim's imaginary part; a real
# and a complex scheme graded together give one verdict row each, the real
# one with empty per-part columns; the table shows rhoRe/2k and rhoIm/2k
# only when a configuration is complex; the complex battery has smallim
# (16 cases per shape and seed), the real one not (15); adp_z eager earns A
# in each part and ozaki1_int8_z B by Test 2, as their real schemes.
# Usage: test_grade_complex_cli.sh path/to/mpbench
set -u
mpb=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$mpb" grade -s zgemm -s zgemm3m -s dgemm -s cgemm3m --backend host --quick --progress never --csv "$tmp/v.csv" \
    >"$tmp/out" 2>"$tmp/err" || { fail "grade of zgemm, zgemm3m, dgemm: exit $?"; cat "$tmp/err"; }
! grep -q 'no grade battery' "$tmp/err" || fail "a complex scheme is still refused"
/usr/bin/python3 - "$tmp/v.csv" <<'PY' || fail "complex verdict rows"
import csv, sys
rows = {r['scheme']: r for r in csv.DictReader(open(sys.argv[1]))}
z, z3, d = rows['zgemm'], rows['zgemm3m'], rows['dgemm']
bad = []
if rows['cgemm3m']['grade'] != 'B' or ' -g smallim ' not in rows['cgemm3m']['rho_im_case']:
    bad.append('cgemm3m: %s at %s' % (rows['cgemm3m']['grade'], rows['cgemm3m']['rho_im_case']))
if z['grade'] != 'A' or not float(z['rho_re_over_2k']) <= 1 or not float(z['rho_im_over_2k']) <= 1:
    bad.append('zgemm: %s re %s im %s' % (z['grade'], z['rho_re_over_2k'], z['rho_im_over_2k']))
if z3['grade'] != 'B' or not float(z3['rho_a_over_k']) <= 10 or not float(z3['rho_im_over_2k']) > 10:
    bad.append('zgemm3m: %s rho_a %s im %s' % (z3['grade'], z3['rho_a_over_k'], z3['rho_im_over_2k']))
if ' -g smallim ' not in z3['rho_im_case']:
    bad.append('zgemm3m: rho_im_case ' + z3['rho_im_case'])
if d['grade'] != 'A' or d['rho_re_over_2k'] or d['rho_im_case']:
    bad.append('dgemm: %s re %r' % (d['grade'], d['rho_re_over_2k']))
if int(z['cases']) != 32 or int(d['cases']) != 30:
    bad.append('cases: zgemm %s dgemm %s' % (z['cases'], d['cases']))
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
grep -q '^configuration .* rhoC/k^c  *rhoRe/2k  *rhoIm/2k  *test1 ' "$tmp/out" ||
    fail "no per-part columns in the table"
grep -q "^  B: rho_Im/2k = [0-9.e+]* on smallim span=40 at 3[23]x3[23]x3[23] seed 1, past A's per-part bound of 10 " \
    "$tmp/out" || fail "no sentence naming zgemm3m's deciding case"
grep -q "^  A: all 30 graded cases are within A's bound (rho_A/k <= 10, and rho_Re/2k, rho_Im/2k <= 10 in each part)" \
    "$tmp/out" || fail "no sentence for zgemm's A"
grep -q '^  worst rho_Im: mpbench run -s zgemm3m -g smallim ' "$tmp/out" || fail "no worst rho_Im line"

# The complex schemes made of real ones keep their real scheme's class:
# adp_z eager A in each part (the exact emulation of ADP's guarantee),
# ozaki1_int8_z fixed-point, B decided by Test 2.
"$mpb" grade -s adp_z -a decision=eager -s ozaki1_int8_z --backend host --quick --progress never \
    --csv "$tmp/e.csv" >"$tmp/e.out" 2>&1 || fail "grade adp_z, ozaki1_int8_z: exit $?"
/usr/bin/python3 - "$tmp/e.csv" <<'PY' || fail "embedded schemes' verdicts"
import csv, sys
rows = {r['scheme']: r for r in csv.DictReader(open(sys.argv[1]))}
a, o = rows['adp_z'], rows['ozaki1_int8_z']
bad = []
if a['grade'] != 'A' or not float(a['rho_re_over_2k']) <= 10 or not float(a['rho_im_over_2k']) <= 10:
    bad.append('adp_z: %s re %s im %s' % (a['grade'], a['rho_re_over_2k'], a['rho_im_over_2k']))
if o['grade'] != 'B' or ' -g test2' not in o['rho_a_case']:
    bad.append('ozaki1_int8_z: %s at %s' % (o['grade'], o['rho_a_case']))
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY

# A real table keeps its columns.
"$mpb" grade -s dgemm --backend host --quick --progress never >"$tmp/r.out" 2>&1 || fail "grade dgemm: exit $?"
! grep -q 'rhoRe' "$tmp/r.out" || fail "a real-only table shows the per-part columns"

# The battery: smallim for the complex configuration only.
"$mpb" grade -s zgemm -s dgemm --quick --backend host --dry-run >"$tmp/d.out" 2>&1 || fail "--dry-run: exit $?"
grep -q '^62 cases; ' "$tmp/d.out" || fail "--dry-run does not count 2 x 16 + 2 x 15 cases: $(tail -n 1 "$tmp/d.out")"
[ "$(grep -c ' -s zgemm -g smallim ' "$tmp/d.out")" = 2 ] || fail "zgemm's battery lacks smallim"
! grep -q ' -s dgemm -g smallim ' "$tmp/d.out" || fail "dgemm's battery has smallim"

[ "$fails" = 0 ] || exit 1
echo "test_grade_complex_cli: all checks passed"
