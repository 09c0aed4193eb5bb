#!/bin/sh
# Kill and resume (README "--resume"): a host sweep is SIGKILLed mid-way,
# then resumed with --resume; the resumed CSV must hold exactly the cases of
# an uninterrupted run of the same command, one row each, with the same
# out_hash, and keep the killed run's rows (two run_ids).
# Usage: test_resume_kill.sh MPBENCH
set -u
mpb=${1:?usage: test_resume_kill.sh MPBENCH}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 36 cases of ~0.05-0.2 s each on the host models (longer under the sanitizers).
# No word of it needs quoting: it is split on blanks where used.
args="run -s dgemm,sgemm -g phi,randn --size 48,64,80 --seed 1:3 --backend host --progress never"
# Data rows of CSV $1 (complete lines after the header; 0 when absent).
rows() {
    if [ -f "$1" ]; then tail -n +2 "$1" | grep -c '$'; else echo 0; fi
}
# The values of column $2 of CSV $1, one per data row (mpbench quotes no cell
# of these cases: checked below, so plain comma splitting is exact).
column() {
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                          c { print $c }' "$1"
}

"$mpb" $args --csv "$dir/full.csv" >/dev/null || fail "uninterrupted run exited $?"
total=$(rows "$dir/full.csv")
[ "$total" -eq 36 ] || fail "uninterrupted run wrote $total rows, expected 36"

# Kill after a few rows are on disk; if the sweep finished first (a very fast
# machine), try again with an earlier kill.
killed=no
for want in 4 2 1; do
    rm -f "$dir/part.csv" "$dir/part.csv.meta.json"
    # A simple command, so that $! is mpbench itself (not a subshell).
    "$mpb" $args --csv "$dir/part.csv" >/dev/null 2>"$dir/part.err" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && [ "$(rows "$dir/part.csv")" -lt "$want" ]; do
        sleep 0.02
    done
    kill -KILL "$pid" 2>/dev/null
    status=0
    { wait "$pid"; } 2>/dev/null || status=$?
    if [ "$status" -eq 137 ]; then
        killed=yes
        break
    fi
    echo "note: the sweep ended (exit $status) before the kill; trying again"
done
[ "$killed" = yes ] || fail "could not kill the sweep mid-way"
before=$(rows "$dir/part.csv")
echo "killed after $before of $total rows"
[ "$before" -lt "$total" ] || fail "the killed run had written every row"
# A kill in the middle of a row's write leaves part of a line: make sure of
# one (the start of the last row of the full run, no newline).
tail -n 1 "$dir/full.csv" | head -c 100 >>"$dir/part.csv"

rc=0
"$mpb" $args --csv "$dir/part.csv" --resume >/dev/null 2>"$dir/resume.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$dir/resume.err"; fail "resume exited $rc"; }
grep -q 'resume-truncated' "$dir/resume.err" || { cat "$dir/resume.err"; fail "resume did not drop the incomplete line"; }

grep -q '"' "$dir/full.csv" "$dir/part.csv" && fail "a quoted cell: column() cannot split these files"
after=$(rows "$dir/part.csv")
[ "$after" -eq "$total" ] || fail "resumed CSV has $after rows, the uninterrupted run $total"
[ "$(column "$dir/part.csv" case_id | sort | uniq -d | wc -l)" -eq 0 ] || fail "a case_id appears twice after resume"
for f in full part; do
    column "$dir/$f.csv" case_id >"$dir/$f.ids"
    column "$dir/$f.csv" out_hash >"$dir/$f.hashes"
    paste -d' ' "$dir/$f.ids" "$dir/$f.hashes" | sort >"$dir/$f.pairs"
done
cmp -s "$dir/full.pairs" "$dir/part.pairs" || {
    diff "$dir/full.pairs" "$dir/part.pairs" | head -20
    fail "case_id/out_hash pairs differ from the uninterrupted run"
}
[ "$(column "$dir/part.csv" status | grep -vc '^ok$')" -eq 0 ] || fail "a row is not status ok"
runs=$(column "$dir/part.csv" run_id | sort -u | wc -l)
[ "$runs" -ge 2 ] || fail "the resumed CSV has $runs run_id; the killed run's rows were not kept"
echo "ok: $after rows, case_id and out_hash as in the uninterrupted run ($runs runs)"
