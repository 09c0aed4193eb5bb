#!/bin/sh
# Complex GEMM through the host backend (README "Complex GEMM"): the complex
# schemes listed; a sweep of zgemm, zgemm3m, cgemm, cgemm3m writes field
# complex and the per-part rho columns; the science: on smallim, 3M's
# imaginary part fails the per-part componentwise bound (rho_a_im_max far
# above 10k) while 4M meets it, and both meet the modulus bound (grade A);
# a real scheme with smallim is not_supported; --resume keeps the rows, a
# sharded sweep merges into the unsharded one, gate passes the run against
# itself; --ref dd gives --ref mpfr's errors, grades and per-part rho; the
# complex schemes made of real ones run and grade like the others.
# Usage: test_complex.sh MPBENCH
MPB=${1:?usage: test_complex.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"

# col FILE SCHEME GEN COLUMN: the cell of the first row of SCHEME on GEN.
col() {
    awk -F, -v s="$2" -v g="$3" -v name="$4" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["scheme"] == s && $c["gen"] == g { print $c[name]; exit }' "$1"
}

"$MPB" list schemes >list.out 2>&1 || fail "list schemes exited $?"
for s in zgemm cgemm zgemm3m cgemm3m; do
    grep -q "^ *$s " list.out || grep -q "^$s" list.out || fail "list schemes lacks $s"
done

sweep="-s zgemm,zgemm3m,cgemm,cgemm3m -g randn,smallim,test2 --size 33,7 --backend host"
# shellcheck disable=SC2086 # $sweep is split on blanks, as meant
"$MPB" run $sweep --progress never --csv full.csv >/dev/null || fail "complex sweep exited $?"
grep -q '"' full.csv && fail "a quoted cell: col() cannot split full.csv"
[ "$(awk -F, 'NR > 1' full.csv | grep -c ',complex,')" = 24 ] || fail "not 24 rows with field complex"
for s in zgemm zgemm3m cgemm cgemm3m; do
    for g in randn smallim test2; do
        [ "$(col full.csv $s $g status)" = ok ] || fail "$s on $g: status $(col full.csv $s $g status)"
        [ "$(col full.csv $s $g grade)" = A ] || fail "$s on $g: grade $(col full.csv $s $g grade)"
    done
done
# k = 33: the grade-A line is 10k = 330; 4M's per-part rho is at most ~2k.
for s in zgemm cgemm; do
    awk -v x="$(col full.csv $s smallim rho_a_im_max)" 'BEGIN { exit !(x <= 330) }' ||
        fail "$s: rho_a_im_max $(col full.csv $s smallim rho_a_im_max) on smallim, want <= 330"
done
for s in zgemm3m cgemm3m; do
    awk -v x="$(col full.csv $s smallim rho_a_im_max)" 'BEGIN { exit !(x > 330000) }' ||
        fail "$s: rho_a_im_max $(col full.csv $s smallim rho_a_im_max) on smallim, want > 1000*330 (3M breaks it)"
    awk -v x="$(col full.csv $s smallim rho_a_re_max)" 'BEGIN { exit !(x <= 330) }' ||
        fail "$s: rho_a_re_max $(col full.csv $s smallim rho_a_re_max) on smallim, want <= 330"
done

# A real scheme on the complex-only generator: not_supported, named.
"$MPB" run -s dgemm -g smallim --size 8 --backend host --csv real.csv >/dev/null 2>&1
[ "$(col real.csv dgemm smallim status)" = not_supported ] || fail "dgemm on smallim: $(col real.csv dgemm smallim status)"
grep -q 'complex operands only' real.csv || fail "dgemm on smallim: the note does not say complex only"

# --resume: nothing left to run, every row kept as it was.
cp full.csv resumed.csv
# shellcheck disable=SC2086
"$MPB" run $sweep --progress never --csv resumed.csv --resume >/dev/null || fail "--resume exited $?"
cmp -s full.csv resumed.csv || fail "--resume changed a complete complex run"

# Shards merge into the unsharded run's rows.
for i in 0 1; do
    # shellcheck disable=SC2086
    "$MPB" run $sweep --progress never --shard $i/2 --csv part$i.csv >/dev/null || fail "shard $i exited $?"
done
"$MPB" merge out.csv part1.csv part0.csv >/dev/null 2>&1 || fail "merge exited $?"
awk -F, 'NR > 1 { print $3, $37 }' full.csv >full.res
awk -F, 'NR > 1 { print $3, $37 }' out.csv >out.res
cmp -s full.res out.res || fail "merged case_ids and out_hash differ from the unsharded run's"

# gate: the run against itself passes.
"$MPB" gate --baseline full.csv --candidate full.csv >gate.out 2>&1 || { fail "gate exited $?"; cat gate.out; }

# --ref dd on complex products (each part two real dd products over 2k,
# reference/ref_dd_complex.h): the same errors, grades and per-part rho as
# --ref mpfr to within the dd's error, and its check against MPFR passes.
for r in dd mpfr; do
    "$MPB" run -s zgemm -s cgemm -s zgemm3m -g phi -a phi=0.5,2 --size 33 --backend host --ref $r \
        --progress never --csv ref-$r.csv >/dev/null 2>&1 || fail "--ref $r on complex schemes exited $?"
done
/usr/bin/python3 - ref-dd.csv ref-mpfr.csv <<'PY' || fail "--ref dd and --ref mpfr disagree on complex cases"
import csv, sys
dd, mp = (list(csv.DictReader(open(f))) for f in sys.argv[1:])
assert len(dd) == len(mp) == 6, (len(dd), len(mp))
for x, y in zip(dd, mp):
    assert x["status"] == y["status"] == "ok" and x["ref"] == "dd" and x["grade"] == y["grade"], (x["case"], x["note"])
    assert float(x["ref_check"]) < 1e-10, (x["case"], x["ref_check"])
    for col in ("err_fro_rel", "err_max_rel", "rho_a_max", "rho_a_re_max", "rho_a_im_max"):
        a, b = float(x[col]), float(y[col])
        assert abs(a - b) <= 1e-12 * abs(b), (x["case"], col, a, b)
PY

# The complex schemes made of real ones (kernels/common/complex_embed.h) and
# cuBLAS's complex emulation through run: every row complex with its
# per-part columns, the embedded ones ok and graded; cublas_zfp64emu
# not_supported on the host, named.
"$MPB" run -s ozaki1_int8_z,adp_z,tf32x3_c,ape_bf16x3_c,cublas_zfp64emu -g randn,smallim --size 33 \
    --backend host --progress never --csv embed.csv >/dev/null 2>&1
/usr/bin/python3 - embed.csv <<'PY' || fail "the complex schemes made of real ones through run"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 10, len(rows)
for r in rows:
    assert r["field"] == "complex", (r["scheme"], r["field"])
    if r["scheme"] == "cublas_zfp64emu":
        assert r["status"] == "not_supported" and "no host model" in r["note"], (r["status"], r["note"])
        continue
    assert r["status"] == "ok" and r["grade"] in ("A", "B") and r["rho_a_im_max"], (r["case"], r["status"], r["grade"])
PY

[ "$fails" = 0 ] && echo "test_complex: all checks passed"
[ "$fails" = 0 ]
