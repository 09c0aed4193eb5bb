#!/bin/sh
# The Ozaki-II host models against the exact MPFR reference, next to the
# native models on the same cases (the accuracy the defaults promise):
#  - phi 0.5, 1, 2: ozaki2_int8 (default 15 moduli, both modes) within 2× of
#    dgemm's err_fro_rel, and ozaki2_int8_sp within 2× of sgemm's;
#  - test2 at b_max: fixed point, so graded B (not A), never non-finite;
#  - k above 131071 (the INT32 limit of one INT8 GEMM: k split into chunks):
#    ok, both modes, within the row/column-wise bound (grade A or B), the
#    split named in settings.
# Usage: test_ozaki2_host.sh path/to/mpbench
set -u
MPB=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$MPB" run -s dgemm -s ozaki2_int8 -a mode=fast,accurate -s sgemm -s ozaki2_int8_sp \
    -g phi -a phi=0.5,1,2 --size 64,100 --seed 1,2 --backend host --ref mpfr \
    --csv "$TMP/phi.csv" --progress never >/dev/null 2>&1 || { echo "FAIL: phi sweep exited $?"; exit 1; }
"$MPB" run -s ozaki2_int8 -s ozaki2_int8_sp -g test2 --size 64,100 --backend host --ref mpfr \
    --csv "$TMP/t2.csv" --progress never >/dev/null 2>&1 || { echo "FAIL: test2 run exited $?"; exit 1; }
awk -F, '
NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
{
    s = $col["scheme"]; key = $col["gen_params"] " " $col["m"] " " $col["seed"]
    if ($col["status"] != "ok") { print "FAIL: " s " " key ": status " $col["status"]; bad++ }
    if (s == "dgemm" || s == "sgemm") native[s, key] = $col["err_fro_rel"]
    else { n++; sch[n] = s; k[n] = key; err[n] = $col["err_fro_rel"]; par[n] = $col["params"] }
}
END {
    for (i = 1; i <= n; i++) {
        ref = sch[i] == "ozaki2_int8" ? native["dgemm", k[i]] : native["sgemm", k[i]]
        if (ref == "" || err[i] > 2 * ref) { print "FAIL: " sch[i] " " par[i] " " k[i] ": err_fro_rel " err[i] " vs native " ref; bad++ }
    }
    if (n < 36) { print "FAIL: only " n " ozaki2 rows"; bad++ }
    exit bad > 0
}' "$TMP/phi.csv" || exit 1
awk -F, '
NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
{
    n++
    if ($col["status"] != "ok" || $col["grade"] != "B" || $col["nonfinite"] != 0) {
        print "FAIL: " $col["scheme"] " test2 " $col["m"] ": status " $col["status"] ", grade " $col["grade"] ", nonfinite " $col["nonfinite"]; bad++
    }
}
END { if (n != 4) { print "FAIL: " n " test2 rows"; bad++ } exit bad > 0 }' "$TMP/t2.csv" || exit 1
# 2 × 2 × 131073 and 1 × 2 × 262200: 2 and 3 chunks
"$MPB" run -s ozaki2_int8 -a mode=fast,accurate -s ozaki2_int8_sp -g phi --m 1,2 --n 2 --k 131073,262200 \
    --backend host --ref mpfr --csv "$TMP/longk.csv" --progress never >/dev/null 2>&1 ||
    { echo "FAIL: long-k run exited $?"; exit 1; }
awk -F, '
NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
{
    n++
    if ($col["status"] != "ok" || ($col["grade"] != "A" && $col["grade"] != "B") || $col["settings"] !~ /kchunks=[23] /) {
        print "FAIL: " $col["scheme"] " " $col["m"] "x" $col["n"] "x" $col["k"] ": status " $col["status"] ", grade " $col["grade"] ", settings " $col["settings"]; bad++
    }
}
END { if (n != 12) { print "FAIL: " n " long-k rows"; bad++ } exit bad > 0 }' "$TMP/longk.csv" || exit 1
echo "test_ozaki2_host: all checks passed"
