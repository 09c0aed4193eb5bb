#!/bin/sh
# --ref dd end to end on the host backend (README "Accuracy"): the ref, ref_entries
# and ref_check cells, the same grade as --ref mpfr, every entry above the
# sampling size, fp32, NaN/Inf inputs; --resume on a schema-3 file and its
# refusal of a schema-1 file. Usage: test_ref_dd_cli.sh path/to/mpbench SOURCE_ROOT
set -u
MPB=$1
ROOT=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# expect CODE NEEDLE -- ARGS...: exit code CODE and NEEDLE in stdout+stderr.
expect() {
    code=$1; needle=$2; shift 3
    "$MPB" "$@" >"$TMP/out" 2>&1
    got=$?
    if [ "$got" != "$code" ]; then
        fail "mpbench $*: exit $got, expected $code"; sed 's/^/    /' "$TMP/out"
    elif ! grep -qF -- "$needle" "$TMP/out"; then
        fail "mpbench $*: output lacks '$needle'"; sed 's/^/    /' "$TMP/out"
    fi
}

# cell FILE ROW COLUMN: the cell of data row ROW (1 = first) under COLUMN,
# RFC 4180 quotes undone (mpbench writes no newline inside a cell).
cell() {
    awk -v row="$2" -v name="$3" '
    function split_csv(line, out,    n, i, c, q, f) {
        n = 0; f = ""; q = 0
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (q) {
                if (c == "\"" && substr(line, i + 1, 1) == "\"") { f = f c; i++ }
                else if (c == "\"") q = 0
                else f = f c
            } else if (c == "\"") q = 1
            else if (c == ",") { out[++n] = f; f = "" }
            else f = f c
        }
        out[++n] = f
        return n
    }
    NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) if (h[i] == name) col = i }
    NR == row + 1 { split_csv($0, v); print v[col]; exit }' "$1"
}

run_case() { # CSV REF ARGS...: one host run, exit 0 expected
    csv=$1; ref=$2; shift 2
    expect 0 "" -- run "$@" --backend host --ref "$ref" --csv "$csv" --progress never
}

# A small case: every entry checked by both references; same grade.
run_case "$TMP/dd.csv" dd -s dgemm -g phi --size 33
run_case "$TMP/mpfr.csv" mpfr -s dgemm -g phi --size 33
head -n 1 "$TMP/dd.csv" | grep -q ',tags,ref_check,cr_mismatch,max_abs_vs_native,gpu_uuid,power_w,joules_per_call,gflops_per_w,field,rho_a_re_max,rho_a_im_max$' ||
    fail "header does not end with tags,ref_check,cr_mismatch,max_abs_vs_native,gpu_uuid,power_w,joules_per_call,gflops_per_w,field,rho_a_re_max,rho_a_im_max"
[ "$(cell "$TMP/dd.csv" 1 schema_version)" = 6 ] || fail "schema_version is not 6"
[ "$(cell "$TMP/dd.csv" 1 ref)" = dd ] || fail "ref cell: $(cell "$TMP/dd.csv" 1 ref)"
[ "$(cell "$TMP/dd.csv" 1 ref_entries)" = 1089 ] || fail "ref_entries: $(cell "$TMP/dd.csv" 1 ref_entries), want 33*33"
check=$(cell "$TMP/dd.csv" 1 ref_check)
awk -v x="$check" 'BEGIN { exit !(x != "" && x + 0 >= 0 && x + 0 < 1e-12) }' ||
    fail "ref_check '$check' is not a number in [0, 1e-12) (bound 3k·2^-53 = 1.1e-14 at k = 33)"
[ -z "$(cell "$TMP/mpfr.csv" 1 ref_check)" ] || fail "--ref mpfr fills ref_check"
[ "$(cell "$TMP/dd.csv" 1 grade)" = "$(cell "$TMP/mpfr.csv" 1 grade)" ] || fail "grades differ"
awk -v a="$(cell "$TMP/dd.csv" 1 rho_a_max)" -v b="$(cell "$TMP/mpfr.csv" 1 rho_a_max)" \
    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-9 * b) }' ||
    fail "rho_a_max dd $(cell "$TMP/dd.csv" 1 rho_a_max) vs mpfr $(cell "$TMP/mpfr.csv" 1 rho_a_max)"
[ "$(cell "$TMP/dd.csv" 1 out_hash)" = "$(cell "$TMP/mpfr.csv" 1 out_hash)" ] || fail "the scheme's output changed"

# Above 2^24 products: dd covers all m·n entries, MPFR only the samples.
run_case "$TMP/big.csv" dd -s dgemm -g randn --m 300 --n 200 --k 300 --ref-samples 64
[ "$(cell "$TMP/big.csv" 1 ref_entries)" = 60000 ] || fail "ref_entries $(cell "$TMP/big.csv" 1 ref_entries), want 60000"
[ -n "$(cell "$TMP/big.csv" 1 ref_check)" ] || fail "no ref_check above the sampling size"
[ "$(cell "$TMP/big.csv" 1 grade)" = A ] || fail "dgemm graded $(cell "$TMP/big.csv" 1 grade)"

# fp32, Test 2 at b_max (2^±b spread), NaN/Inf inputs (recomputed exactly, same note as mpfr).
run_case "$TMP/t.csv" dd -s sgemm,dgemm -g test2,special --size 40
run_case "$TMP/tm.csv" mpfr -s sgemm,dgemm -g test2,special --size 40
for r in 1 2 3 4; do
    [ "$(cell "$TMP/t.csv" $r status)" = ok ] || fail "row $r: status $(cell "$TMP/t.csv" $r status): $(cell "$TMP/t.csv" $r note)"
    [ -n "$(cell "$TMP/t.csv" $r ref_check)" ] || fail "row $r: no ref_check"
    for c in grade note nonfinite; do
        [ "$(cell "$TMP/t.csv" $r $c)" = "$(cell "$TMP/tm.csv" $r $c)" ] ||
            fail "row $r ($(cell "$TMP/t.csv" $r scheme) $(cell "$TMP/t.csv" $r gen)): $c '$(cell "$TMP/t.csv" $r $c)' with dd, '$(cell "$TMP/tm.csv" $r $c)' with mpfr"
    done
done

# --resume: a schema-3 file resumes (nothing left to run); a schema-1 file is refused by name.
expect 0 "1 cases already in $TMP/dd.csv were skipped" -- \
    run -s dgemm -g phi --size 33 --backend host --ref dd --csv "$TMP/dd.csv" --resume
[ "$(wc -l <"$TMP/dd.csv")" = 2 ] || fail "--resume added rows"
cp "$ROOT/tests/gate/schema1.csv" "$TMP/v1.csv"
expect 2 "$TMP/v1.csv has CSV schema_version 1, this mpbench writes schema_version 6" -- \
    run -s dgemm -g phi --size 33 --backend host --ref dd --csv "$TMP/v1.csv" --resume
cmp -s "$ROOT/tests/gate/schema1.csv" "$TMP/v1.csv" || fail "the refused schema-1 file was changed"

expect 2 "--ref 'exact': expected mpfr|none|dd" -- run -s dgemm -g phi --size 8 --ref exact

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "test_ref_dd_cli: all checks passed"
