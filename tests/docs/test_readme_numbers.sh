#!/bin/sh
# README's headline table against the committed CSVs (scripts/check_readme_numbers.py),
# then the checker itself on altered copies of README, each of which must fail: a
# quoted number that the CSV does not give, a number in the table that no line
# checks, a selector that matches no row, a CSV that is not there.
# Usage: test_readme_numbers.sh SOURCE_ROOT
set -u
root=$1
check="/usr/bin/python3 $root/scripts/check_readme_numbers.py"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

$check "$root/README.md" "$root" || fail "README.md's headline numbers do not reproduce"

# must_fail NAME SED_SCRIPT: the checker on README altered by SED_SCRIPT exits 1
must_fail() {
    sed "$2" "$root/README.md" >"$tmp/$1.md"
    cmp -s "$root/README.md" "$tmp/$1.md" && { fail "$1: the alteration changed nothing"; return; }
    $check "$tmp/$1.md" "$root" >"$tmp/$1.out" 2>&1
    st=$?
    [ $st -eq 1 ] || { fail "$1: exit $st, not 1"; cat "$tmp/$1.out"; }
}
# the table and its check line both say 1.53 where the CSV gives 1.52
must_fail wrong-value 's/\*\*1\.52× \/ 1\.58×\*\*/**1.53× \/ 1.58×**/; s/^row 1: 1\.52 speedup/row 1: 1.53 speedup/'
# a number in a result cell that no line checks
must_fail unchecked 's/| 1\.27× \/ 1\.28× |/| 1.27× \/ 1.28× (9 runs) |/'
# a selector that matches no row
must_fail no-row 's/^row 2: 1\.27 speedup results\/h200\/gate\/baseline\.csv {scheme=ozaki2_int8/row 2: 1.27 speedup results\/h200\/gate\/baseline.csv {scheme=ozaki3_int8/'
# a CSV that is not there
must_fail no-file 's/^row 8: 126 rows results\/h200\/gate\/baseline\.csv/row 8: 126 rows results\/h200\/gate\/nothing.csv/'
# a ratio of another column than the CSV gives (energy: gflops_per_w)
must_fail wrong-ratio 's/| 1\.69×; 2\.99× |/| 1.70×; 2.99× |/; s/^row 10: 1\.69 ratio/row 10: 1.70 ratio/'
# a grade the CSV does not give
must_fail wrong-text 's/^row 3: A text grade/row 3: B text grade/'

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
