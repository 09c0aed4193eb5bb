#!/bin/sh
# A numpy/scipy workload (numpy_workload.py: a product, a linear solve, a
# least-squares fit, an eigenproblem, on the system BLAS) under
# libmpbench_hook.so: recorded with its results bitwise unchanged, replayed
# with exact-reference grades, and run under emulate=ozaki2_int8 with its
# results checked against the native run's.
# Usage: test_hook_numpy.sh MPBENCH LIBMPBENCH_HOOK WORKLOAD.py
set -u
MPB=$1
HOOK=$2
WORK=$3
case $HOOK in /*) ;; *) HOOK=$PWD/$HOOK ;; esac
case $WORK in /*) ;; *) WORK=$PWD/$WORK ;; esac
PY=/usr/bin/python3
if ! $PY -c "import numpy, scipy" 2>/dev/null; then
    echo "SKIP: numpy or scipy is not installed (apt-get install python3-numpy python3-scipy; scripts/setup --test installs them)"
    exit 77
fi
. "$(dirname "$0")/hook_preload.sh"
. "$(dirname "$0")/../test_lib.sh"
if [ -n "$asan" ]; then # Python's own leaks are not the hook's
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi

$PY "$WORK" native.npz || { echo "FAIL: the workload alone failed"; exit 1; }
MPBENCH_HOOK=record MPBENCH_HOOK_TRACE=tr LD_PRELOAD=$PRELOAD $PY "$WORK" rec.npz 2> rec.err || fail "record: exit $?"
[ -s rec.err ] && fail "record wrote to stderr: $(cat rec.err)"
cmp -s native.npz rec.npz || fail "record mode changed the workload's results"
# numpy's matmul reaches the BLAS through cblas_dgemm, LAPACK through dgemm_
for r in cblas_dgemm dgemm_; do
    [ "$(cut -d, -f2 tr/calls.csv | grep -cx "$r")" -ge 1 ] || fail "no $r call recorded: $(cut -d, -f2 tr/calls.csv | sort | uniq -c)"
done
calls=$(tail -n +2 tr/calls.csv | wc -l)
[ "$calls" -ge 20 ] || fail "only $calls calls recorded"

"$MPB" replay tr -s ozaki2_int8 --backend host --progress never > rep.out 2> rep.err
rc=$?
[ "$rc" = 0 ] || fail "replay: exit $rc: $(tail -5 rep.err)"
$PY - tr/replay.csv <<'PYEOF' || fail "replay rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
schemes = {r["scheme"] for r in rows}
assert schemes == {"ozaki2_int8", "dgemm"}, schemes
for r in rows:
    assert r["status"] == "ok" and r["ref"] == "mpfr" and r["grade"], r
    assert " trace=tr call=" in r["gen_params"], r["gen_params"]
    assert float(r["err_fro_rel"]) < 1e-14, r
PYEOF
grep -q "^replay of tr: $calls calls in" rep.out || fail "replay summary: $(tail -8 rep.out)"
grep -Eq "^ozaki2_int8 +[0-9]+ +$calls +0 +0 " rep.out || fail "replay summary line: $(grep '^ozaki2' rep.out)"

MPBENCH_HOOK=emulate=ozaki2_int8 MPBENCH_HOOK_TRACE=emu LD_PRELOAD=$PRELOAD $PY "$WORK" emu.npz 2> emu.err ||
    fail "emulate: exit $?"
[ -s emu.err ] && fail "emulate wrote to stderr: $(cat emu.err)"
[ "$(tail -n +2 emu/calls.csv | wc -l)" = "$calls" ] || fail "emulate: not the recorded run's $calls calls"
tail -n +2 emu/calls.csv | awk -F, '$17 != "ozaki2_int8" && $6 * $7 * $8 * $9 != 0 { print "FAIL: not emulated: " $0; bad = 1 } END { exit bad }' ||
    fails=$((fails + 1))
$PY - native.npz emu.npz <<'PYEOF' || fail "emulated results differ from native"
import sys
import numpy as np
nat, emu = np.load(sys.argv[1]), np.load(sys.argv[2])
for key in nat.files:
    a, b = nat[key], emu[key]
    err = np.linalg.norm(a - b) / np.linalg.norm(a)
    print("%s: relative difference %.3g" % (key, err))
    assert err < 1e-12, key
PYEOF

echo "test_hook_numpy: $fails failure(s)"
[ "$fails" = 0 ]
