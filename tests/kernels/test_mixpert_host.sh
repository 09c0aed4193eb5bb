#!/bin/sh
# mixpert's host model against the exact MPFR reference: IV (align=row, kgroup 64) with fallback off and on, and the
# paper's whole scheme (IV, align=tile, kgroup 32, fallback=on), on phi 0.5
# and 2 and U(-1,1) at 64 and 100: status ok, grade A or B (every entry's
# error within 10 k u ||A(i,:)|| ||B(:,j)||: config I, with two segments,
# fails this), and with fallback=on the fallback column 1 and the note
# naming the groups that fell back (every one of these generators has groups
# beyond the safe range; with fallback=off the note counts them).
# Usage: test_mixpert_host.sh path/to/mpbench
set -u
MPB=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$MPB" run -s mixpert -a fallback=off,on -s mixpert -a align=tile -a kgroup=32 -a fallback=on \
    -g phi -a phi=0.5,2 -g uniform -a lo=-1 -a hi=1 --size 64,100 --backend host --ref mpfr \
    --csv "$TMP/m.csv" --progress never >/dev/null 2>&1 || { echo "FAIL: run exited $?"; exit 1; }
awk -F, '
NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
{
    key = $col["gen"] " " $col["gen_params"] " " $col["m"]; par = $col["params"]; n++
    if ($col["status"] != "ok" || ($col["grade"] != "A" && $col["grade"] != "B")) {
        print "FAIL: " par " " key ": status " $col["status"] ", grade " $col["grade"]; bad++
    }
    if ($col["params"] ~ /fallback=on/ && ($col["fallback"] != 1 || $col["note"] !~ /fell back to BF16x3/)) {
        print "FAIL: " par " " key ": fallback " $col["fallback"] ", note " $col["note"]; bad++
    }
    if ($col["params"] ~ /fallback=off/ && ($col["fallback"] != 0 || $col["note"] !~ /beyond the safe range/)) {
        print "FAIL: " par " " key ": fallback " $col["fallback"] ", note " $col["note"]; bad++
    }
}
END {
    if (n != 18) { print "FAIL: " n " mixpert rows, expected 18"; bad++ }
    exit bad > 0
}' "$TMP/m.csv" || exit 1
echo "test_mixpert_host: all checks passed"
