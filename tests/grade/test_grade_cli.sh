#!/bin/sh
# mpbench grade end to end on the host backend: a quick battery exits 0,
# writes the verdict CSV (dgemm graded A, conventional, float), the cases CSV,
# and a .meta.json beside each naming the command and the cases run; an -a
# list grades each of its values; a killed grade keeps the earlier --csv.
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

# The verdict table: every column aligned with its header even for a label
# longer than its column (wrapped), each configuration labelled with the
# parameters not at their default (two adp ones told apart, in the table
# and in the blocks below it), and one sentence per verdict naming the case
# that decides it. --quick's two sizes support no slope: none is shown or
# warned of.
"$mpb" grade -s adp -a max_bits=100 -a fallback=off -a decision=eager -a block=16 -a fixed_bits=40 \
    -s adp -a decision=eager -s ozaki2_int8 --quick --backend host --progress never >"$tmp/t.out" 2>"$tmp/t.err" ||
    { fail "grade of three configurations: exit $?"; cat "$tmp/t.err"; }
/usr/bin/python3 - "$tmp/t.out" <<'PY' || fail "the verdict table is not aligned"
import re, sys
lines = open(sys.argv[1]).read().split('\n\n')[0].splitlines()
head, rows = lines[0], [l for l in lines[1:] if not l.startswith('  ')]
starts = [m.start() for m in re.finditer(r'\S+( [A-Z]/[A-Z]/[A-Z])?', head)]
bad = [r for r in rows for s in starts[1:] if r[s - 1] != ' ' or r[s] == ' ']
sys.exit(1 if len(rows) != 3 or bad else 0)
PY
grep -q '^adp max_bits=100 fallback=off  *F ' "$tmp/t.out" || fail "no table row labelled 'adp max_bits=100 fallback=off'"
grep -q '^  decision=eager block=16 fixed_bits=40$' "$tmp/t.out" || fail "the long label is not wrapped onto its own line"
grep -q '^adp decision=eager  *A ' "$tmp/t.out" || fail "no table row labelled 'adp decision=eager'"
for label in 'adp max_bits=100 fallback=off decision=eager block=16 fixed_bits=40' 'adp decision=eager' 'ozaki2_int8'; do
    grep -q "^$label ([0-9]* cases, " "$tmp/t.out" || fail "no block labelled '$label'"
done
grep -q "^  B: rho_A/k = [0-9.e+]* on test2 b=[0-9]* at 32x32x32 seed 1, past A's bound of 10 (Test 2 finds it fixed-point)$" \
    "$tmp/t.out" || fail "no sentence naming ozaki2_int8's deciding case"
grep -q "^  A: all 28 graded cases are within A's bound (rho_A/k <= 10); the closest is rho_A/k = [0-9.e+-]* on [a-z0-9]" \
    "$tmp/t.out" || fail "no sentence for adp decision=eager's A"
grep -q "^  F: rho_B/k = [0-9.e+-]* on [a-z0-9]* .* seed 1, past B's bound of 10, and Test 1 finds it conventional, so C's Strassen bound does not apply$" \
    "$tmp/t.out" || fail "no sentence for the F"
! grep -q -e 'slope-' -e 'grows like' "$tmp/t.err" "$tmp/t.out" || fail "--quick warns of a slope"
[ "$(grep -c ' -/-/-$' "$tmp/t.out")" = 3 ] || fail "--quick shows a slope"

# --progress always: [i/N] with an ETA, N the battery's cases (15 per shape
# and seed), the b bisection inside; never: none. --dry-run lists the same
# cases and runs nothing.
"$mpb" grade -s dgemm --quick --backend host --progress always >"$tmp/p.out" 2>"$tmp/p.err" ||
    fail "grade --progress always: exit $?"
grep -Eq '^\[1/30\] dgemm uniform lo=0 hi=1 32x32x32 seed 1: ok grade A rho_A/k [0-9.e-]+  ETA [0-9]+m[0-9]{2}s$' \
    "$tmp/p.err" || fail "no first progress line [1/30] with an ETA"
grep -q '^\[30/30\] dgemm special ' "$tmp/p.err" || fail "no last progress line [30/30]"
# ozaki2_int8 fails Test 2 at b_max: the bisection runs
"$mpb" grade -s ozaki2_int8 --size 32 --shapes none --seeds 1 --backend host --progress always >/dev/null \
    2>"$tmp/p.err" || fail "grade ozaki2_int8 --progress always: exit $?"
grep -q '^\[9/15\] ozaki2_int8 test2 b=[0-9]* 32x32x32 seed 1 (b bisection): ok' "$tmp/p.err" ||
    fail "no progress line for the b bisection"
[ "$(grep -c '^\[' "$tmp/p.err")" -gt 15 ] && grep -q '^\[15/15\] ' "$tmp/p.err" ||
    fail "the bisection's cases are counted in N"
"$mpb" grade -s dgemm --quick --backend host --progress never >/dev/null 2>"$tmp/p.err" || fail "--progress never: exit $?"
! grep -q '^\[' "$tmp/p.err" || fail "--progress never prints progress"
"$mpb" grade -s dgemm -s sgemm --quick --backend host --dry-run --csv "$tmp/dry.csv" --cases-csv "$tmp/dryc.csv" \
    >"$tmp/d.out" 2>"$tmp/d.err" || fail "grade --dry-run: exit $?"
[ "$(grep -c '^[0-9a-f]\{16\}  -s [ds]gemm -g ' "$tmp/d.out")" = 60 ] || fail "--dry-run does not list 60 cases"
grep -q '^60 cases; ' "$tmp/d.out" || fail "--dry-run does not count its cases"
grep -q '^[0-9a-f]\{16\}  -s dgemm -g test2 --m 32 --n 32 --k 32 --seed 1 --backend host$' "$tmp/d.out" ||
    grep -q '^[0-9a-f]\{16\}  -s dgemm -g test2 -a b=[0-9]* --m 32 --n 32 --k 32 --seed 1 --backend host$' "$tmp/d.out" ||
    fail "--dry-run does not list test2 at 32"
[ ! -e "$tmp/dry.csv" ] && [ ! -e "$tmp/dryc.csv" ] || fail "--dry-run wrote a CSV"
cut -d' ' -f3- "$tmp/d.out" | grep '^-s dgemm' | sort >"$tmp/d.cases"
"$mpb" grade -s dgemm --quick --backend host --cases-csv "$tmp/dc.csv" >/dev/null 2>&1
/usr/bin/python3 - "$tmp/dc.csv" "$tmp/d.cases" <<'PY' || fail "--dry-run's cases are not those a run runs (besides the bisection)"
import csv, sys
ran = {r['case'] for r in csv.DictReader(open(sys.argv[1]))}
listed = set(open(sys.argv[2]).read().splitlines())
sys.exit(0 if listed and listed <= ran and len(ran - listed) < 20 else 1)
PY

# One spelling of the size option: grade and run take --size (documented)
# and --sizes, and refuse the two together as one option given twice.
"$mpb" grade -s dgemm --size 16 --shapes none --seeds 1 --backend host --dry-run >"$tmp/s.out" 2>&1 ||
    fail "grade --size: exit $?"
grep -q -- '--m 16 --n 16 --k 16' "$tmp/s.out" || fail "grade --size 16 did not grade 16"
"$mpb" run -s dgemm -g randn --sizes 8 --backend host --dry-run >"$tmp/s.out" 2>&1 || fail "run --sizes: exit $?"
grep -q -- '--m 8 --n 8 --k 8' "$tmp/s.out" || fail "run --sizes 8 did not run 8"
"$mpb" grade -s dgemm --size 16 --sizes 17 --backend host --dry-run >/dev/null 2>"$tmp/s.err" &&
    fail "grade --size with --sizes was not refused"
grep -q -- "--sizes is given twice (--size before it is the same option)" "$tmp/s.err" ||
    fail "grade --size --sizes: $(cat "$tmp/s.err")"
"$mpb" run -s dgemm -g randn --sizes=8 --size 9 --backend host --dry-run >/dev/null 2>"$tmp/s.err" &&
    fail "run --sizes with --size was not refused"
grep -q -- "--size is given twice (--sizes before it is the same option)" "$tmp/s.err" ||
    fail "run --sizes --size: $(cat "$tmp/s.err")"
"$mpb" grade --help | grep -q -- '--size VALUES' || fail "grade --help does not document --size"

# A grade killed mid-battery leaves the earlier verdict file whole: the
# verdicts are written to a temporary file renamed over --csv at the end.
printf 'earlier verdicts\n' >"$tmp/keep.csv"
"$mpb" grade -s dgemm -s sgemm --backend host --progress never --csv "$tmp/keep.csv" \
    --cases-csv "$tmp/keep-cases.csv" >/dev/null 2>&1 &
pid=$!
i=0
while [ "$(cat "$tmp/keep-cases.csv" 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
[ "$(cat "$tmp/keep.csv")" = "earlier verdicts" ] || fail "a killed grade lost the earlier --csv file: $(head -c 200 "$tmp/keep.csv")"
# A verdict path that is not a regular file is refused before anything runs.
mkfifo "$tmp/fifo.csv"
"$mpb" grade -s dgemm --backend host --quick --csv "$tmp/fifo.csv" >/dev/null 2>"$tmp/f.err" &&
    fail "grade --csv FIFO was not refused"
grep -q -- "--csv .*fifo.csv" "$tmp/f.err" || fail "grade --csv FIFO: $(cat "$tmp/f.err")"

[ "$fails" = 0 ] || exit 1
echo "test_grade_cli: all checks passed"
