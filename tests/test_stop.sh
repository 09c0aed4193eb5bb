#!/bin/sh
# A sweep stopped by SIGTERM (as `timeout` and batch schedulers stop a job;
# SIGINT, Ctrl-C, takes the same path but a shell's background job ignores
# it): the case in progress finishes, every row written stays, the sidecar
# says interrupted with its finish time, the exit status is 128 + 15, and
# --resume runs the rest; a second SIGTERM within a second (`timeout`
# signals the process and its group) is the same request.
# Usage: test_stop.sh MPBENCH
set -u
MPB=${1:?usage: test_stop.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"

set -- -s dgemm,ozaki2_int8 -g phi -a phi=0.5,1,2 --size 128,192 --backend host --progress never
# rows FILE: data rows in FILE (0 when it does not exist yet).
rows() { if [ -f "$1" ]; then echo $(($(grep -vc '^#' "$1") - 1)); else echo 0; fi; }
# wait_rows FILE N: until FILE holds N rows, 60 s at most.
wait_rows() {
    i=0
    while [ "$(rows "$1")" -lt "$2" ] && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
}

"$MPB" run "$@" --csv full.csv >/dev/null 2>&1 || fail "the uninterrupted sweep failed"
total=$(rows full.csv)

"$MPB" run "$@" --csv stop.csv >stop.out 2>stop.err &
pid=$!
wait_rows stop.csv 2
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ] || fail "stopped by SIGTERM: exit $rc, expected 143 ($(cat stop.err))"
grep -q 'stopping after the case in progress' stop.err || fail "no line on the first signal: $(cat stop.err)"
grep -q 'stopped by SIGTERM; [0-9]* cases were not run' stop.err || fail "no stop message: $(cat stop.err)"
kept=$(rows stop.csv)
[ "$kept" -ge 2 ] && [ "$kept" -lt "$total" ] || fail "$kept rows after the stop (of $total)"
grep -q '"interrupted": true' stop.csv.meta.json || fail "the sidecar does not say interrupted"
grep -q '"finished_utc": "20' stop.csv.meta.json || fail "the sidecar has no finish time"
"$MPB" run "$@" --csv stop.csv --resume >/dev/null 2>resume.err || fail "--resume after the stop: $(cat resume.err)"
[ "$(rows stop.csv)" -eq "$total" ] || fail "--resume left $(rows stop.csv) of $total rows"
cut -d, -f3 full.csv | sort >ids-full
cut -d, -f3 stop.csv | sort >ids-stop
cmp -s ids-full ids-stop || fail "the stopped and resumed sweep has other case_ids than the uninterrupted one"

# `timeout` signals the process and then its process group: a second
# SIGTERM within a second of the first is the same request, the sweep
# still stops after the case in progress (with the handler reset after the
# first, the second killed it, losing the case and the sidecar's finish).
# The case after the first row takes seconds (600³ on the host), so both
# signals arrive while it runs.
"$MPB" run -s ozaki2_int8 -g phi -a phi=0.5 --size 32,600,64 --backend host --ref none --progress never \
    --csv twice.csv >twice.out 2>twice.err &
pid=$!
wait_rows twice.csv 1
kill -TERM $pid
sleep 0.3
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
[ $rc -eq 143 ] || fail "two SIGTERMs 0.3 s apart: exit $rc, expected 143 ($(cat twice.err))"
grep -q 'stopped by SIGTERM; [0-9]* cases were not run' twice.err || fail "two SIGTERMs: no stop message: $(cat twice.err)"
grep -q '"interrupted": true' twice.csv.meta.json || fail "two SIGTERMs: the sidecar does not say interrupted"
[ "$(rows twice.csv)" -eq 2 ] || fail "two SIGTERMs: $(rows twice.csv) rows, expected 2 (the case in progress finished)"

[ "$fails" = 0 ] && echo "ok: test_stop"
exit $((fails != 0))
