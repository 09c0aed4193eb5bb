#!/bin/sh
# libmpbench_hook.so under a C program that calls the system BLAS (hook_prog.c):
# off, record and emulate; the program's output bitwise the same wherever the
# hook only records or refuses, the trace's rows and operand files right, the
# hook's own errors logged once and passed through.
# Usage: test_hook.sh HOOK_PROG LIBMPBENCH_HOOK
set -u
PROG=$1
HOOK=$2
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac
case $HOOK in /*) ;; *) HOOK=$PWD/$HOOK ;; esac
MPB=$PROG
. "$(dirname "$0")/hook_preload.sh"
. "$(dirname "$0")/../test_lib.sh"

"$PROG" > native.out || fail "hook_prog alone failed"
[ "$(grep -c '^call\|^thread' native.out)" = 9 ] || fail "hook_prog printed $(wc -l < native.out) lines, not 9"

# Off: unset, empty or "off" is the program alone.
for v in "" off; do
    MPBENCH_HOOK=$v LD_PRELOAD=$PRELOAD "$PROG" > off.out 2> off.err || fail "MPBENCH_HOOK='$v': exit $?"
    cmp -s native.out off.out || fail "MPBENCH_HOOK='$v' changed the output"
    [ -s off.err ] && fail "MPBENCH_HOOK='$v' wrote to stderr: $(cat off.err)"
done

# Record: bitwise the same output, one row per call.
mkdir expect
"$PROG" expect > /dev/null || fail "hook_prog expect failed"
MPBENCH_HOOK=record MPBENCH_HOOK_TRACE=trace LD_PRELOAD=$PRELOAD "$PROG" > rec.out 2> rec.err ||
    fail "record: exit $?"
cmp -s native.out rec.out || fail "record mode changed the program's output"
[ -s rec.err ] && fail "record wrote to stderr: $(cat rec.err)"
[ "$(head -1 trace/calls.csv)" = "call,routine,order,transa,transb,m,n,k,alpha,beta,lda,ldb,ldc,time_s,thread,operands,scheme,err_vs_native,type,alpha_im,beta_im,batch" ] ||
    fail "calls.csv header: $(head -1 trace/calls.csv)"
[ "$(tail -n +2 trace/calls.csv | wc -l)" = 85 ] || fail "calls.csv has $(tail -n +2 trace/calls.csv | wc -l) rows, not 85"
# the call indices 0..84, each once
[ "$(tail -n +2 trace/calls.csv | cut -d, -f1 | sort -n | tr '\n' ' ')" = "$(seq 0 84 | tr '\n' ' ')" ] ||
    fail "call indices are not 0..84 once each"
# the first five rows: routine, order, transposes, shape, scalars, ld, operands, scheme, type
tail -n +2 trace/calls.csv | head -5 | cut -d, -f1-13,16-22 > rows5
cat > rows5.want <<'ROWS'
0,dgemm_,C,N,T,7,5,3,1.5,0.5,9,6,8,c000000,native,,d,0,0,
1,sgemm_,C,T,N,4,6,9,-2,0,9,9,4,c000001,native,,s,0,0,
2,cblas_dgemm,R,T,N,5,4,6,0.75,2,7,4,4,c000002,native,,d,0,0,
3,cblas_sgemm,C,N,T,3,3,8,1,1,3,3,3,c000003,native,,s,0,0,
4,dgemm_,C,N,T,7,5,3,1.5,0.5,9,6,8,,native,,d,0,0,
ROWS
cmp -s rows5 rows5.want || fail "first rows: $(diff rows5.want rows5)"
for f in expect/*.npy; do
    cmp -s "$f" "trace/${f#expect/}" || fail "trace/${f#expect/} differs from what the program passed (op(A), op(B), C)"
done
[ "$(ls trace | grep -c 'npy$')" = "$(( $(ls expect | wc -l) + 3 ))" ] ||
    fail "trace has operand files $(ls trace | tr '\n' ' '), not expect's and the threads' class's A, B and C"
[ -f trace/c000001_C.npy ] && fail "beta 0: C on input saved"
# the threads' 80 calls: one class, its operands saved once, four threads
threads=$(tail -n +7 trace/calls.csv)
[ "$(echo "$threads" | cut -d, -f2,6-8 | sort -u)" = "dgemm_,6,6,6" ] || fail "thread rows: $(echo "$threads" | head -2)"
[ "$(echo "$threads" | cut -d, -f16 | grep -c .)" = 1 ] || fail "the threads' class saved other than once"
[ "$(echo "$threads" | cut -d, -f15 | sort -u | wc -l)" = 4 ] || fail "thread column: not four threads"
grep -q '"program_argv": \[".*hook_prog"\]' trace/calls.csv.meta.json || fail "meta.json argv: $(cat trace/calls.csv.meta.json)"
for key in pid start_time hook_version mode budget_bytes; do
    grep -q "\"$key\"" trace/calls.csv.meta.json || fail "meta.json lacks $key"
done

# A trace is never overwritten: the program runs as without the hook, said once.
MPBENCH_HOOK=record MPBENCH_HOOK_TRACE=trace LD_PRELOAD=$PRELOAD "$PROG" > again.out 2> again.err
cmp -s native.out again.out || fail "record into an existing trace changed the output"
[ "$(grep -c 'mpbench hook: .*calls.csv.*never overwritten' again.err)" = 1 ] || fail "existing trace: $(cat again.err)"
[ "$(tail -n +2 trace/calls.csv | wc -l)" = 85 ] || fail "an existing trace was written to"

# A budget of 0 bytes: rows, no operands, said once.
MPBENCH_HOOK=record MPBENCH_HOOK_TRACE=t0 MPBENCH_HOOK_BUDGET=0 LD_PRELOAD=$PRELOAD "$PROG" > b0.out 2> b0.err
cmp -s native.out b0.out || fail "budget 0 changed the output"
[ "$(tail -n +2 t0/calls.csv | wc -l)" = 85 ] || fail "budget 0: rows missing"
ls t0 | grep -q npy && fail "budget 0: operands saved"
[ "$(grep -c 'budget' b0.err)" = 1 ] || fail "budget 0: not said once: $(cat b0.err)"
# 1K: the first calls' operands fit, the threads' class does not
MPBENCH_HOOK=record MPBENCH_HOOK_TRACE=t1k MPBENCH_HOOK_BUDGET=1K LD_PRELOAD=$PRELOAD "$PROG" > /dev/null 2>&1
[ -f t1k/c000000_A.npy ] || fail "budget 1K: call 0's operands (592 bytes of data) not saved"
bytes=$(cat t1k/*.npy | wc -c)
[ "$bytes" -le 1024 ] || fail "budget 1K: $bytes bytes of operands"

# The hook's own errors: logged once, every call passed through.
for bad in "MPBENCH_HOOK=recrod" "MPBENCH_HOOK=record" "MPBENCH_HOOK=emulate=nosuch" \
           "MPBENCH_HOOK=emulate=ozaki2_int8,moduli=99" "MPBENCH_HOOK_BUDGET=12X MPBENCH_HOOK=record MPBENCH_HOOK_TRACE=tb" \
           "MPBENCH_HOOK=record MPBENCH_HOOK_TRACE=/proc/nope"; do
    env $bad LD_PRELOAD="$PRELOAD" "$PROG" > bad.out 2> bad.err || fail "$bad: exit $?"
    cmp -s native.out bad.out || fail "$bad changed the output"
    [ "$(grep -c '^mpbench hook: .*every call passes through' bad.err)" = 1 ] || fail "$bad: stderr $(cat bad.err)"
done

# Emulate: the double calls by ozaki2_int8's host model (close to native,
# each sampled error small), the float calls refused and passed through bitwise.
MPBENCH_HOOK=emulate=ozaki2_int8 MPBENCH_HOOK_TRACE=emu MPBENCH_HOOK_SAMPLE=1 LD_PRELOAD=$PRELOAD "$PROG" > emu.out 2> emu.err ||
    fail "emulate: exit $?"
for call in call1 call3; do
    [ "$(grep "^$call " emu.out)" = "$(grep "^$call " native.out)" ] || fail "emulate: $call (float) changed"
done
[ "$(grep -c 'sgemm.*ozaki2_int8 computes real fp64 products' emu.err)" = 1 ] || fail "emulate: refusal not said once: $(cat emu.err)"
tail -n +2 emu/calls.csv | awk -F, '
    ($2 ~ /dgemm/ && ($17 != "ozaki2_int8" || $18 == "" || $18 > 1e-14)) || ($2 ~ /sgemm/ && ($17 != "native" || $18 != "")) {
        print "FAIL: emulate row " $0; bad = 1 }
    END { exit bad }' || fails=$((fails + 1))
/usr/bin/python3 - native.out emu.out <<'PY' || fail "emulate: results not within 1e-13 of native"
import sys
nat, emu = (dict(l.split(None, 1) for l in open(f)) for f in sys.argv[1:3])
for key in nat:
    a = [float.fromhex(x) for x in nat[key].split()]
    b = [float.fromhex(x) for x in emu[key].split()]
    scale = max(abs(x) for x in a)
    if max(abs(x - y) for x, y in zip(a, b)) > 1e-13 * scale:
        sys.exit("%s differs" % key)
PY
# every 10th emulated call sampled (the default): calls 0, 10, ... of the emulated ones
MPBENCH_HOOK=emulate=ozaki2_int8 MPBENCH_HOOK_TRACE=emu10 LD_PRELOAD=$PRELOAD "$PROG" > /dev/null 2>&1
[ "$(tail -n +2 emu10/calls.csv | awk -F, '$18 != ""' | wc -l)" = 9 ] ||
    fail "MPBENCH_HOOK_SAMPLE default: $(tail -n +2 emu10/calls.csv | awk -F, '$18 != ""' | wc -l) sampled rows of 83 emulated, not 9"

echo "test_hook: $fails failure(s)"
[ "$fails" = 0 ]
