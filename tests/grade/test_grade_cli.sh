#!/bin/sh
# mpbench grade end to end on the host backend: a quick battery exits 0,
# writes the verdict CSV (dgemm graded A, conventional, float), the cases CSV,
# and a .meta.json beside each naming the command and the cases run; an -a
# list grades each of its values.
# Usage: test_grade_cli.sh path/to/mpbench
set -u
mpb=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$mpb" grade -s dgemm --backend host --quick --csv "$tmp/v.csv" --cases-csv "$tmp/c.csv" \
    >"$tmp/out" 2>"$tmp/err" || { fail "grade --quick exit $?"; cat "$tmp/err"; }
head -n 1 "$tmp/v.csv" | grep -q '^scheme,params,target,impl,grade,' || fail "verdict CSV header"
grep -q '^dgemm,,fp64,host,A,' "$tmp/v.csv" || fail "dgemm is not graded A in the verdict CSV"
/usr/bin/python3 - "$tmp/v.csv" <<'PY' || fail "dgemm verdict classes"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if len(r) == 1 and r[0]['test1'] == 'conventional' and r[0]['test2'] == 'float' else 1)
PY
rows=$(($(wc -l <"$tmp/c.csv") - 1))
[ "$rows" -gt 10 ] || fail "cases CSV holds $rows rows"
for f in v.csv c.csv; do
    m="$tmp/$f.meta.json"
    [ -f "$m" ] || { fail "no $f.meta.json"; continue; }
    /usr/bin/python3 -m json.tool "$m" >/dev/null || fail "$f.meta.json is not JSON"
    grep -q '"argv": \["grade", ' "$m" || fail "$f.meta.json lacks the command line"
    grep -q "\"run\": $rows," "$m" || fail "$f.meta.json does not count the $rows cases"
done
# An -a list grades each value: two configurations, two verdict rows.
"$mpb" grade -s sgemm -s adp -a block=16,64 --backend host --quick --shapes none --sizes 16 \
    --csv "$tmp/l.csv" >"$tmp/out" 2>"$tmp/err" || { fail "grade with an -a list: exit $?"; cat "$tmp/err"; }
for want in '^sgemm,' '^adp,.*block=16 ' '^adp,.*block=64 '; do
    grep -q "$want" "$tmp/l.csv" || fail "-a block=16,64: no verdict row matching $want"
done
[ "$(grep -c '^adp,' "$tmp/l.csv")" = 2 ] || fail "-a block=16,64 did not give two adp rows"
[ "$fails" = 0 ] || exit 1
echo "test_grade_cli: all checks passed"
