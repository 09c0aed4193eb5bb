#!/bin/sh
# Issue 28, item 8: `run --resume` keeps only rows that this mpbench wrote
# for this command's cases (of its shard): a row of another sweep, a row
# whose cells are not in the grammar mpbench writes, or a case_id in two
# rows refuses the file (exit 2, FILE:LINE named), and the file and its
# sidecar are left byte for byte as they were. A file of this sweep resumes
# as before, and so does one written before a scheme gained a parameter
# that the sweep has at its default. Usage: test_resume_strict.sh MPBENCH
set -u
MPB=${1:?usage: test_resume_strict.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"

sweep="-s dgemm -g randn --size 4,5,6 --backend host --progress never"
# shellcheck disable=SC2086 # $sweep is split on blanks, as meant
"$MPB" run $sweep --csv good.csv >/dev/null 2>&1 || { fail "the sweep exited $?"; exit 1; }

# A copy of good.csv as $1 with line $2 rewritten by awk program $3 (fields by comma: no cell here is quoted).
variant() {
    awk -F, -v OFS=, -v line="$2" "NR == line { $3 } { print }" good.csv >"$1"
    cp good.csv.meta.json "$1.meta.json"
}
# refused FILE NEEDLE [RUN ARGS...]: --resume into FILE exits 2 naming NEEDLE; FILE and its sidecar unchanged.
refused() {
    f=$1; needle=$2; shift 2
    cp "$f" before.csv
    cp "$f.meta.json" before.json
    # shellcheck disable=SC2086
    "$MPB" run ${*:-$sweep} --csv "$f" --resume >out 2>err
    rc=$?
    [ "$rc" = 2 ] || fail "--resume into $f: exit $rc, expected 2 ($(head -c 300 err))"
    grep -qF -- "$needle" err || fail "--resume into $f: stderr lacks '$needle': $(head -c 400 err)"
    cmp -s "$f" before.csv || fail "--resume into $f changed it"
    cmp -s "$f.meta.json" before.json || fail "--resume into $f changed its meta.json"
}

# Rows of another sweep: another scheme; a shard of this one (rows of the other shards).
refused good.csv "good.csv:2: case_id" -s sgemm -g randn --size 4,5,6 --backend host
refused good.csv "is not a case of this command" -s dgemm -g randn --size 4,5 --backend host
# shellcheck disable=SC2086
refused good.csv "is not a case of this command (shard 1/3)" $sweep --shard 1/3

# A case_id twice (the file edited or joined by hand): both lines named.
cp good.csv twice.csv
cp good.csv.meta.json twice.csv.meta.json
sed -n 3p good.csv >>twice.csv
refused twice.csv "twice.csv:3 and twice.csv:5 both hold case_id"

# Malformed cells, each in the grammar case_row.c writes (column numbers: README "CSV columns").
variant cells1.csv 2 '$29 = "abc"'
refused cells1.csv "cells1.csv:2: column err_fro_rel: 'abc' is not a number as mpbench writes one"
variant cells2.csv 3 '$29 = "1e-3"'
refused cells2.csv "cells2.csv:3: column err_fro_rel: '1e-3'"
variant cells3.csv 4 '$38 = "passed"'
refused cells3.csv "cells3.csv:4: column status: 'passed'"
variant cells4.csv 2 '$37 = "XYZ"'
refused cells4.csv "column out_hash: 'XYZ'"
variant cells5.csv 2 '$9 = "-5"'
refused cells5.csv "column m: '-5'"
variant cells6.csv 2 '$16 = "+1"'
refused cells6.csv "column reps: '+1'"
variant cells7.csv 2 '$35 = "Z"'
refused cells7.csv "column grade: 'Z'"
# A row that names another case than its case_id's.
variant other1.csv 2 '$4 = "sgemm"'
refused other1.csv "other1.csv:2: column scheme: 'sgemm', where case_id"
variant other2.csv 3 '$14 = "7"'
refused other2.csv "other2.csv:3: column seed: '7'"

# This sweep's own file resumes: nothing to run, the file unchanged; with
# its last row gone, that case runs again.
cp good.csv good.orig
# shellcheck disable=SC2086
"$MPB" run $sweep --csv good.csv --resume >out 2>err || fail "--resume of the finished sweep exited $?: $(cat err)"
grep -q "3 cases already in good.csv were skipped" err || fail "the finished sweep's resume: $(cat err)"
cmp -s good.csv good.orig || fail "the finished sweep's resume changed its rows"
sed '$d' good.orig >short.csv
cp good.csv.meta.json short.csv.meta.json
# shellcheck disable=SC2086
"$MPB" run $sweep --csv short.csv --resume >out 2>err || fail "--resume of a short file exited $?: $(cat err)"
[ "$(wc -l <short.csv)" = 4 ] || fail "--resume of a short file: $(wc -l <short.csv) lines, expected 4"

# A file written before a scheme gained a parameter (ozaki2_int8's tol, at
# its default 0 here): its rows are this sweep's cases as mpbench gate pairs
# them (params plus parameters at their defaults), so they are kept and
# their cases skipped; a row whose params differ otherwise is refused.
osweep="-s ozaki2_int8 -a moduli=auto,15 -s dgemm -g uniform --size 8 --backend host --progress never"
# shellcheck disable=SC2086
"$MPB" run $osweep --csv oz.csv >/dev/null 2>&1 || fail "the ozaki2 sweep exited $?"
# As the older mpbench wrote it: no tol in params and case.
rewrite_params oz.csv old.csv ozaki2_int8 " tol=0" ""
grep -q "tol" old.csv && fail "old.csv still names tol"
cp old.csv old.orig
# shellcheck disable=SC2086
"$MPB" run $osweep --csv old.csv --resume >out 2>err || fail "--resume of a file older than tol exited $?: $(cat err)"
grep -q "3 cases already in old.csv were skipped" err || fail "the older file's resume: $(cat err)"
cmp -s old.csv old.orig || fail "the older file's resume changed its rows"
# with tol=1e-8 besides: its cases run (moduli=15 tol=1e-8 is not_supported), the old rows stay
# shellcheck disable=SC2086
"$MPB" run -s ozaki2_int8 -a moduli=auto,15 -a tol=0,1e-8 -s dgemm -g uniform --size 8 --backend host --progress never \
    --csv old.csv --resume >out 2>err || fail "--resume with tol=0,1e-8 exited $?: $(cat err)"
grep -q "3 cases already in old.csv were skipped" err || fail "the older file's resume with tol=1e-8: $(cat err)"
[ "$(wc -l <old.csv)" = 6 ] || fail "--resume with tol=1e-8 added $(($(wc -l <old.csv) - 4)) rows, expected 2"
# a parameter not at its default is not an added one
rewrite_params oz.csv notdef.csv ozaki2_int8 " tol=0" " tol=1e-9"
# shellcheck disable=SC2086
refused notdef.csv "is not a case of this command" $osweep

[ "$fails" = 0 ] && echo "ok: test_resume_strict"
exit $((fails != 0))
