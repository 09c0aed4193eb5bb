#!/bin/sh
# run --vs-native: a schema_version 6 CSV whose max_abs_vs_native is 0 for
# the native scheme itself, positive and finite for an emulation, and empty
# without the option; and the native GEMM of each target and field present
# (dgemm, sgemm, zgemm) added to the run where no -s names it, after the named
# schemes, its rows tagged added=vs-native, so the summary shows × native.
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

# The natives added: one each of dgemm, sgemm and zgemm, after the named schemes, tagged
# after the --tag ones; the named rows untagged; × native on every named row.
"$mpb" run -s ozaki2_int8,egemm -s zgemm3m -g phi --size 17 --backend host --vs-native --tag who=t \
    --progress never --csv "$dir/add.csv" >"$dir/add.txt" || fail "run --vs-native (natives added) exited $?"
python3 - "$dir/add.csv" "$dir/add.txt" <<'PY' || fail "the natives --vs-native adds: $(cat "$dir/add.txt")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
got = [(r["scheme"], r["field"], r["tags"]) for r in rows]
want = [("ozaki2_int8", "real", "who=t"), ("egemm", "real", "who=t"), ("zgemm3m", "complex", "who=t"),
        ("dgemm", "real", "who=t;added=vs-native"), ("sgemm", "real", "who=t;added=vs-native"),
        ("zgemm", "complex", "who=t;added=vs-native")]
if got != want:
    sys.exit(f"rows {got}, expected {want}")
lines = [l for l in open(sys.argv[2], encoding="utf-8") if not l.startswith("# ")]
col = lines[0].index("× native") + len("× native")  # right-aligned
for s in ("ozaki2_int8", "egemm", "zgemm3m"):
    cell = next(l for l in lines if l.startswith(s + " "))[:col].split()[-1]
    if cell == "-":
        sys.exit(f"{s}: no × native")
PY
# A native named by -s is not added again; without --vs-native nothing is added.
"$mpb" run -s dgemm,ozaki2_int8 -g phi --size 9 --backend host --vs-native --progress never --csv "$dir/named.csv" \
    >/dev/null || fail "run -s dgemm --vs-native exited $?"
[ "$(column "$dir/named.csv" scheme dgemm | wc -l)" = 1 ] || fail "dgemm named and added"
[ -z "$(column "$dir/named.csv" tags dgemm)" ] || fail "a named dgemm is tagged as added"
[ -z "$(column "$dir/off.csv" scheme sgemm)" ] || fail "sgemm added without --vs-native"

[ "$fails" = 0 ] || exit 1
echo "test_vs_native: ok"
