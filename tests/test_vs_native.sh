#!/bin/sh
# run --vs-native: a schema_version 5 CSV whose max_abs_vs_native is 0 for
# the native scheme itself, positive and finite for an emulation, and empty
# without the option.
# Usage: test_vs_native.sh MPBENCH
set -u
mpb=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
column() { # CSV COLUMN SCHEME: the column's values of the scheme's rows
    /usr/bin/env python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    if r["scheme"] == sys.argv[3]:
        print(r[sys.argv[2]])
PY
}
"$mpb" run -s sgemm,egemm -s dgemm,ozaki2_int8 -g phi --size 33 --backend host --vs-native \
    --progress never --csv "$dir/on.csv" >/dev/null || fail "run --vs-native exited $?"
[ "$(column "$dir/on.csv" schema_version sgemm)" = 6 ] || fail "schema_version is not 6"
[ "$(column "$dir/on.csv" max_abs_vs_native sgemm)" = 0 ] || fail "sgemm against itself is not 0"
[ "$(column "$dir/on.csv" max_abs_vs_native dgemm)" = 0 ] || fail "dgemm against itself is not 0"
for s in egemm ozaki2_int8; do
    v=$(column "$dir/on.csv" max_abs_vs_native $s)
    python3 -c "import math, sys; x = float(sys.argv[1]); sys.exit(0 if 0 < x < 1e-3 and math.isfinite(x) else 1)" "$v" ||
        fail "$s: max_abs_vs_native '$v' is not a small positive number"
done
"$mpb" run -s egemm -g phi --size 33 --backend host --progress never --csv "$dir/off.csv" >/dev/null ||
    fail "run without --vs-native exited $?"
[ -z "$(column "$dir/off.csv" max_abs_vs_native egemm)" ] || fail "the column is filled without --vs-native"
[ "$fails" = 0 ] || exit 1
echo "test_vs_native: ok"
