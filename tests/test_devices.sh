#!/bin/sh
# mpbench run --devices with stand-in GPUs (MPBENCH_DEVICES_STANDIN=N: the
# workers run the host models; src/workers/devices.h): the rows are those of a
# one-process run, in its order, whichever worker finished first; every
# stand-in takes cases and each row names its GPU; a worker that dies
# costs only the case it held (an error row naming the GPU), the others
# finish the sweep, and --resume then runs nothing; --shard and the
# sidecar's device list; bad --devices values are usage errors.
# Usage: test_devices.sh MPBENCH
set -u
MPB=${1:?usage: test_devices.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"
# case_id, out_hash, grade, status in file order (no cell of these sweeps is quoted)
results() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             { print $c["case_id"], $c["out_hash"], $c["grade"], $c["status"] }' "$1"
}
column() {
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"
}

# 24 cases of different sizes, listed out of size order.
set -- -s sgemm,dgemm -g randn,phi --size 64,96,48 --seed 1,2 --progress never
"$MPB" run "$@" --backend host --csv one.csv >/dev/null || { fail "one-process run exited $?"; exit 1; }
results one.csv >one.res

rc=0
# Stand-in 2 opens last, a second after the others: it still gets a case
# (no case goes out before every worker has opened its GPU).
MPBENCH_DEVICES_STANDIN=3 MPBENCH_DEVICES_STANDIN_SLOW=2 "$MPB" run "$@" --devices all --csv three.csv >/dev/null 2>three.err || rc=$?
[ $rc -eq 0 ] || fail "--devices all with 3 stand-ins exited $rc: $(cat three.err)"
results three.csv >three.res
cmp -s one.res three.res || fail "--devices all: rows differ from the one-process run's (or their order)"
for d in 0 1 2; do
    column three.csv gpu_uuid | grep -qx "standin-$d" || fail "stand-in $d ran no case"
done
[ "$(column three.csv gpu_uuid | grep -cv '^standin-[012]$')" -eq 0 ] || fail "a row without its GPU's uuid"
grep -q '"devices": \[{"name": "host stand-in' three.csv.meta.json || fail "the sidecar lists no devices"

# Stand-in 1 dies when handed its first case: that case is an error row
# naming it, every other case is there, in order.
rc=0
MPBENCH_DEVICES_STANDIN=2 MPBENCH_DEVICES_STANDIN_EXIT=1:1 "$MPB" run "$@" --devices 0,1 --csv dead.csv \
    >/dev/null 2>dead.err || rc=$?
[ $rc -eq 3 ] || fail "a dead worker: exit $rc, expected 3"
[ "$(column dead.csv status | grep -c '^error$')" -eq 1 ] || fail "a dead worker: not exactly one error row"
[ "$(column dead.csv status | grep -c '^ok$')" -eq 23 ] || fail "a dead worker: the other 23 cases are not all ok"
grep 'error' dead.csv | grep -q 'worker on GPU 1 (standin-1) exited' || fail "the error row does not name GPU 1"
column dead.csv case_id >dead.ids
column one.csv case_id >one.ids
cmp -s one.ids dead.ids || fail "a dead worker: rows not in expansion order"
rc=0
MPBENCH_DEVICES_STANDIN=2 "$MPB" run "$@" --devices 0,1 --csv dead.csv --resume >/dev/null 2>resume.err || rc=$?
[ $rc -eq 0 ] || fail "--resume after a dead worker exited $rc"
grep -q '24 cases already in dead.csv were skipped' resume.err || fail "--resume ran cases again: $(cat resume.err)"

# --shard 1/2: the odd cases only, in order.
MPBENCH_DEVICES_STANDIN=2 "$MPB" run "$@" --devices all --shard 1/2 --csv shard.csv >/dev/null 2>&1 ||
    fail "--shard 1/2 --devices all exited $?"
awk 'NR % 2 == 0' one.res >odd.res
results shard.csv >shard.res
cmp -s odd.res shard.res || fail "--shard 1/2 --devices all: not the odd cases in order"

# Usage errors (2), and a GPU that is not there (77).
usage() {
    want=$1
    shift
    rc=0
    MPBENCH_DEVICES_STANDIN=2 "$MPB" run -s sgemm -g randn --size 8 "$@" >/dev/null 2>usage.err || rc=$?
    [ $rc -eq "$want" ] || fail "run $*: exit $rc, expected $want"
}
usage 2 --devices 0,0 --csv u.csv
grep -q "named twice" usage.err || fail "--devices 0,0: $(cat usage.err)"
usage 2 --devices 0,x --csv u.csv
grep -q "at 'x'" usage.err || fail "--devices 0,x: $(cat usage.err)"
usage 2 --devices all
grep -q "needs --csv FILE" usage.err || fail "--devices without --csv: $(cat usage.err)"
usage 2 --devices all --backend host --csv u.csv
# FILE is sorted at the end and renamed into place: a symbolic link (or any
# other than a regular file or a new path) would be replaced.
echo target >target.csv
ln -s target.csv link.csv
usage 2 --devices all --csv link.csv
grep -q "cannot write link.csv: it is a symbolic link" usage.err || fail "--devices --csv LINK: $(cat usage.err)"
{ [ -L link.csv ] && [ "$(cat target.csv)" = target ]; } || fail "--devices --csv LINK replaced the link or its target"
usage 77 --devices 5 --csv u.csv
grep -q "no GPU 5" usage.err || fail "--devices 5 of 2: $(cat usage.err)"

[ $fails -eq 0 ] && echo "test_devices: all checks passed"
exit $((fails > 0))
