#!/bin/sh
# mpbench merge (README "Running on a node and on a cluster"): the shards of
# a host sweep merge into the rows of an unsharded run, in its order; parts
# of other sweeps, builds, layouts or shard counts, a shard twice or
# missing, a case twice with different results, a killed part are refused
# (exit 2, the file named, OUT left as it was); --allow-partial merges what
# there is. Usage: test_merge.sh MPBENCH
set -u
MPB=${1:?usage: test_merge.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"

# expect CODE NEEDLE -- ARGS...: exit code CODE and NEEDLE in stdout+stderr.
expect() {
    code=$1; needle=$2; shift 3
    "$MPB" "$@" >out 2>&1
    got=$?
    if [ "$got" != "$code" ]; then
        fail "mpbench $*: exit $got, expected $code"; sed 's/^/    /' out
    elif ! grep -qF -- "$needle" out; then
        fail "mpbench $*: output lacks '$needle'"; sed 's/^/    /' out
    fi
}

# The deterministic columns of CSV $1 (no cell of these sweeps is quoted:
# checked below), in file order.
results() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             { print $c["case_id"], $c["out_hash"], $c["err_fro_rel"], $c["err_max_rel"], $c["grade"],
               $c["status"] }' "$1"
}
# A copy of part $1 (CSV and meta.json) as $2, the meta.json through sed script $3.
variant() {
    cp "$1" "$2"
    sed "$3" "$1.meta.json" >"$2.meta.json"
}

# 16 cases; the sizes and seeds listed out of order, so that expansion
# order is not sorted order.
sweep="-s sgemm,dgemm -g randn,phi --size 16,8 --seed 2,1 --backend host"
# shellcheck disable=SC2086 # $sweep is split on blanks, as meant
"$MPB" run $sweep --progress never --csv full.csv >/dev/null || { fail "unsharded run exited $?"; exit 1; }
for i in 0 1 2; do
    # shellcheck disable=SC2086
    "$MPB" run $sweep --shard $i/3 --csv part$i.csv >/dev/null || { fail "shard $i exited $?"; exit 1; }
done
grep -q '"' full.csv part0.csv part1.csv part2.csv && fail "a quoted cell: results() cannot split these files"
results full.csv >full.res
[ "$(grep -c . full.res)" = 16 ] || fail "the unsharded run wrote $(grep -c . full.res) rows, expected 16"

# A correct merge, the parts in any order: the unsharded run's results in
# its order, each part's rows as written, every run record kept.
expect 0 "out.csv: 16 rows of 16 cases from 3 parts of 3 shards" -- merge out.csv part2.csv part0.csv part1.csv
results out.csv >out.res
cmp -s full.res out.res || { diff full.res out.res | head; fail "merged results differ from the unsharded run's"; }
cat part0.csv part1.csv part2.csv | grep -v '^schema_version' | sort >parts.rows
tail -n +2 out.csv | sort >out.rows
cmp -s parts.rows out.rows || fail "merged rows are not the parts' rows as written"
[ "$(head -n 1 full.csv)" = "$(head -n 1 out.csv)" ] || fail "merged header differs"
[ "$(grep -c '"run_id"' out.csv.meta.json)" = 3 ] || fail "merged meta.json lacks the parts' 3 run records"
shards=$(grep -o '"shard": "[0-9/]*"' out.csv.meta.json | tr -d '\n')
[ "$shards" = '"shard": "0/3""shard": "1/3""shard": "2/3"' ] || fail "meta.json runs not in shard order: $shards"
if command -v python3 >/dev/null; then
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' out.csv.meta.json || fail "merged meta.json is not JSON"
fi

# Commands that differ only in --shard, --csv, --resume, --progress are one sweep.
# shellcheck disable=SC2086
"$MPB" run $sweep --progress=never --csv=alt1.csv --shard=1/3 --resume >/dev/null 2>&1 || fail "alt1 exited $?"
expect 0 "16 rows of 16 cases" -- merge alt.csv part0.csv alt1.csv part2.csv
expect 0 "usage: mpbench merge" -- merge --help

# Every refusal leaves OUT as it was and no OUT.tmp.
echo old >kept.csv
echo old >kept.csv.meta.json
refused() {
    expect 2 "$@"
    { [ "$(cat kept.csv)" = old ] && [ "$(cat kept.csv.meta.json)" = old ] && [ ! -e kept.csv.tmp ]; } ||
        fail "a refused merge ($1) changed kept.csv or left kept.csv.tmp"
}
refused "missing OUT.csv and the PART.csv files" -- merge
refused "no PART.csv to merge" -- merge kept.csv
refused "unknown option '--bogus'" -- merge --bogus kept.csv part0.csv
refused "part0.csv is given twice" -- merge kept.csv part0.csv part1.csv ./part0.csv
expect 2 "OUT.csv 'part0.csv' is also a part" -- merge part0.csv part0.csv part1.csv
refused "shard 2/3 is missing (no part is that shard): 5 cases" -- merge kept.csv part0.csv part1.csv
refused "5 of 16 cases missing; kept.csv not written" -- merge kept.csv part0.csv part1.csv
refused "nopart.csv.meta.json: cannot read" -- merge kept.csv part0.csv nopart.csv

# Another sweep: another scheme list; another backend (a sed of the meta:
# no GPU here); runs of two shards in one part.
# shellcheck disable=SC2086
"$MPB" run -s ${sweep#-s sgemm,} --shard 1/3 --csv other1.csv >/dev/null
refused "other1.csv.meta.json: run" -- merge kept.csv part0.csv other1.csv part2.csv
refused "after '-s' its command has 'dgemm' where that one has 'sgemm,dgemm'" -- \
    merge kept.csv part0.csv other1.csv part2.csv
variant part1.csv cuda1.csv 's/"backend": "host"/"backend": "cuda"/'
refused "ran on the cuda backend" -- merge kept.csv part0.csv cuda1.csv part2.csv
# (--resume keeps only rows of its own shard: shard 2/3's run resumes the
# header alone, appending its record to part 1's meta.json, then part 1's rows)
head -n 1 part1.csv >two1.csv
cp part1.csv.meta.json two1.csv.meta.json
# shellcheck disable=SC2086
"$MPB" run $sweep --shard 2/3 --csv two1.csv --resume >/dev/null
cp part1.csv two1.csv
refused "runs of shard 1/3 and of shard 2/3 wrote two1.csv" -- merge kept.csv part0.csv two1.csv

# Other builds and layouts.
variant part1.csv sha1.csv 's/"git_sha": "[^"]*"/"git_sha": "0123456789ab"/'
refused "git_sha 0123456789ab), part0.csv.meta.json's of mpbench" -- merge kept.csv part0.csv sha1.csv part2.csv
variant part1.csv ver1.csv 's/"mpbench": {"version": "[^"]*"/"mpbench": {"version": "0.0.1"/'
refused "is of mpbench 0.0.1" -- merge kept.csv part0.csv ver1.csv part2.csv
variant part1.csv schema1.csv 's/"csv_schema_version": [0-9]*/"csv_schema_version": 2/'
refused "wrote CSV schema_version 2" -- merge kept.csv part0.csv schema1.csv part2.csv
refused "the parts have CSV schema_version 2, this mpbench writes" -- merge kept.csv schema1.csv
# A CSV of an older layout (the last column cut) under a current meta.json.
cut -d, -f1-50 part1.csv >old1.csv
cp part1.csv.meta.json old1.csv.meta.json
refused "old1.csv: its header is not that of CSV schema_version" -- merge kept.csv part0.csv old1.csv part2.csv
# A row whose git_sha is not its meta.json's.
variant part1.csv rowsha1.csv 's/"git_sha": "[^"]*"/"git_sha": "0123456789ab"/'
sed 's/"git_sha": "[^"]*"/"git_sha": "0123456789ab"/' part0.csv.meta.json >rowsha0.csv.meta.json
cp part0.csv rowsha0.csv
refused "rowsha0.csv:2: a row of mpbench" -- merge kept.csv rowsha0.csv rowsha1.csv

# Shards: one twice, another count.
variant part1.csv again1.csv s/x/x/
refused "part1.csv and again1.csv are both shard 1/3" -- merge kept.csv part0.csv part1.csv again1.csv part2.csv
# shellcheck disable=SC2086
"$MPB" run $sweep --shard 1/4 --csv four1.csv >/dev/null
refused "four1.csv is shard 1/4, part0.csv is shard 0/3" -- merge kept.csv part0.csv four1.csv part2.csv

# A case twice: the same result (times and run_id aside) is kept once;
# a different one is refused, naming both places and the column.
variant part1.csv dup1.csv s/x/x/
tail -n 1 part2.csv | awk -F, -v OFS=, '{ $2 = "another-run"; $17 = "99"; print }' >>dup1.csv
expect 0 "1 row was in two places, the same result: kept once" -- merge dup.csv part0.csv dup1.csv part2.csv
results dup.csv >dup.res
cmp -s full.res dup.res || fail "a case twice: merged results differ from the unsharded run's"
variant part1.csv diff1.csv s/x/x/
tail -n 1 part2.csv | awk -F, -v OFS=, '{ $37 = "0000000000000000"; print }' >>diff1.csv
refused "part2.csv:6 and diff1.csv:7 with different out_hash" -- merge kept.csv part0.csv part2.csv diff1.csv
# A row of another sweep.
"$MPB" run -s dgemm -g phi --size 24 --backend host --csv foreign.csv >/dev/null
variant part1.csv foreign1.csv s/x/x/
tail -n 1 foreign.csv >>foreign1.csv
refused "foreign1.csv:7: case_id" -- merge kept.csv part0.csv foreign1.csv part2.csv
refused "is not a case of the sweep its meta.json records" -- merge kept.csv part0.csv foreign1.csv part2.csv

# A malformed cell: each cell in the grammar mpbench writes, and
# the columns naming the case those of its case_id.
variant part1.csv cell1.csv s/x/x/
awk -F, -v OFS=, 'NR == 3 { $29 = "abc" } { print }' part1.csv >cell1.csv
refused "cell1.csv:3: column err_fro_rel: 'abc' is not a number" -- merge kept.csv part0.csv cell1.csv part2.csv
awk -F, -v OFS=, 'NR == 2 { $17 = "1.50" } { print }' part1.csv >cell1.csv
refused "cell1.csv:2: column time_ms_median: '1.50'" -- merge kept.csv part0.csv cell1.csv part2.csv
awk -F, -v OFS=, 'NR == 2 { $10 = "32" } { print }' part1.csv >cell1.csv
refused "cell1.csv:2: column n: '32', where case_id" -- merge kept.csv part0.csv cell1.csv part2.csv

# Out of memory is exit 3 (README), not a refusal: the sweep a part's
# meta.json records expands to 2 million cases, 2.6 GB, under a 1.5 GB
# limit. (Sanitizer builds reserve more address space than that: skipped.)
if (ulimit -v 1500000 && "$MPB" version) >/dev/null 2>&1; then
    variant part0.csv huge0.csv 's/"--size", "16,8", "--seed", "2,1"/"--size", "1:100000", "--seed", "1:20"/'
    grep -q '"1:100000"' huge0.csv.meta.json || fail "the huge sweep's meta.json was not made"
    (ulimit -v 1500000 && exec "$MPB" merge --allow-partial kept.csv huge0.csv) >out 2>&1
    rc=$?
    { [ "$rc" = 3 ] && grep -q "out of memory" out; } || { fail "merge out of memory: exit $rc, expected 3"; cat out; }
    { [ "$(cat kept.csv)" = old ] && [ ! -e kept.csv.tmp ]; } || fail "merge out of memory changed kept.csv"
else
    echo "test_merge: mpbench does not start under ulimit -v 1500000 here (a sanitizer build): no out-of-memory check"
fi

# A part a run is still writing (a run holds an exclusive flock on its CSV;
# flock(1) plays it) is refused.
variant part1.csv busy1.csv s/x/x/
flock -x busy1.csv sleep 1 &
busy=$!
while flock -n busy1.csv true; do sleep 0.02; done
refused "busy1.csv is being written by an mpbench run" -- merge kept.csv part0.csv busy1.csv part2.csv
wait $busy
expect 0 "16 rows of 16 cases" -- merge busy.csv part0.csv busy1.csv part2.csv

# A killed part: its incomplete last line is dropped, the part's missing
# case refused; --allow-partial merges the rest; --resume completes it.
variant part1.csv killed1.csv s/x/x/
sed '$d' part1.csv >killed1.csv
tail -n 1 part1.csv | head -c 60 >>killed1.csv
refused "killed1.csv (shard 1/3) lacks 1 of its 5 cases" -- merge kept.csv part0.csv killed1.csv part2.csv
grep -qF "killed1.csv:6: dropping an incomplete last record" out || fail "the incomplete record was not named"
expect 0 "15 rows of 16 cases from 3 parts of 3 shards (partial)" -- \
    merge --allow-partial partial.csv part0.csv killed1.csv part2.csv
grep -qF "warning: killed1.csv (shard 1/3) lacks 1 of its 5 cases" out || fail "--allow-partial did not warn"
results partial.csv >partial.res
grep -vxF -f partial.res full.res >lost.res
[ "$(grep -c . lost.res)" = 1 ] || fail "--allow-partial: $(grep -c . lost.res) rows lost, expected 1"
expect 0 "10 rows of 16 cases from 2 parts of 3 shards (partial)" -- \
    merge --allow-partial partial2.csv part0.csv killed1.csv
# shellcheck disable=SC2086
"$MPB" run $sweep --shard 1/3 --csv killed1.csv --resume >/dev/null 2>&1 || fail "resume of the killed part exited $?"
expect 0 "16 rows of 16 cases" -- merge resumed.csv part0.csv killed1.csv part2.csv
results resumed.csv >resumed.res
cmp -s full.res resumed.res || fail "merge after --resume differs from the unsharded run"
[ "$(grep -c '"run_id"' resumed.csv.meta.json)" = 4 ] || fail "the resumed part's two run records were not kept"

# Parts written before a scheme gained a parameter (ozaki2_int8's tol, at
# its default 0 here) merge: their rows are the sweep's cases with that
# parameter at its default, kept as written; a row whose params differ
# otherwise is still refused.
osweep="-s ozaki2_int8 -a moduli=15,16 -s dgemm -g uniform --size 8 --backend host --progress never"
for i in 0 1; do
    # shellcheck disable=SC2086
    "$MPB" run $osweep --shard $i/2 --csv oz$i.csv >/dev/null 2>&1 || fail "ozaki2 shard $i exited $?"
done
rewrite_params oz0.csv old0.csv ozaki2_int8 " tol=0" ""
rewrite_params oz1.csv old1.csv ozaki2_int8 " tol=0" ""
grep -q "tol" old0.csv old1.csv && fail "the older parts still name tol"
expect 0 "old.csv: 3 rows of 3 cases from 2 parts of 2 shards" -- merge old.csv old1.csv old0.csv
tail -n +2 old.csv | sort >old.rows
cat old0.csv old1.csv | grep -v '^schema_version' | sort >oldparts.rows
cmp -s old.rows oldparts.rows || fail "the older parts' rows were not merged as written"
rewrite_params oz0.csv other0.csv ozaki2_int8 "moduli=15" "moduli=14"
expect 2 "other0.csv:" -- merge other.csv other0.csv oz1.csv
[ -e other.csv ] && fail "a refused merge wrote other.csv"

[ "$fails" = 0 ] && echo "ok: test_merge"
exit $((fails != 0))
