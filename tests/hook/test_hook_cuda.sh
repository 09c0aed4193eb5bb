#!/bin/sh
# libmpbench_hook.so's cuBLAS half on a GPU, under hook_cuprog.c (every
# intercepted routine, a device-pointer-mode call, a TF32 GemmEx the hook
# leaves alone, the batched forms): record leaves the output bitwise the
# same, writes one row per recorded call with its type, scalars and batch
# count, and the operand files the program itself copies back; emulate by
# ozaki2_int8 (the FP64 calls) and ozaki2_int8_sp (the FP32 calls) stays
# within 1e-13 and 1e-5 of native, every other call bitwise native.
# Exits 77 without a device.
# Usage: test_hook_cuda.sh HOOK_CUPROG LIBMPBENCH_HOOK MPBENCH
set -u
PROG=$1
HOOK=$2
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac
case $HOOK in /*) ;; *) HOOK=$PWD/$HOOK ;; esac
MPB=$3
. "$(dirname "$0")/hook_preload.sh"
. "$(dirname "$0")/../test_lib.sh"

"$PROG" > native.out
rc=$?
[ "$rc" = 77 ] && { echo "test_hook_cuda: no CUDA device: skipped"; exit 77; }
[ "$rc" = 0 ] || fail "hook_cuprog alone: exit $rc"
"$PROG" > native2.out && cmp -s native.out native2.out || fail "hook_cuprog is not deterministic run to run"

# Off: the program alone.
MPBENCH_HOOK=off LD_PRELOAD=$PRELOAD "$PROG" > off.out 2> off.err || fail "off: exit $?"
cmp -s native.out off.out || fail "MPBENCH_HOOK=off changed the output"
[ -s off.err ] && fail "off wrote to stderr: $(cat off.err)"

# Record: bitwise the same output, the rows, the operand files.
mkdir expect
"$PROG" expect > /dev/null || fail "hook_cuprog expect failed"
MPBENCH_HOOK=record MPBENCH_HOOK_TRACE=trace LD_PRELOAD=$PRELOAD "$PROG" > rec.out 2> rec.err || fail "record: exit $?"
cmp -s native.out rec.out || fail "record mode changed the program's output"
[ -s rec.err ] && fail "record wrote to stderr: $(cat rec.err)"
alpha8=$(/usr/bin/python3 -c "import sys; print('%.17g,%.17g' % tuple(float.fromhex(x) for x in sys.argv[1:3]))" \
         $(grep '^scal ' native.out | cut -d' ' -f2,3))
tail -n +2 trace/calls.csv | cut -d, -f1-13,16-17,19-22 > rows
cat > rows.want <<ROWS
0,cublasDgemm_v2,C,N,T,7,5,3,1.5,0.5,9,6,8,c000000,native,d,0,0,
1,cublasSgemm_v2,C,T,N,4,6,9,-2,0,9,9,4,c000001,native,s,0,0,
2,cublasZgemm_v2,C,C,N,5,4,6,0.75,2,7,6,5,c000002,native,z,0.25,-1,
3,cublasCgemm_v2,C,N,C,3,3,8,1,1,3,3,3,c000003,native,c,0,0,
4,cublasGemmEx,C,T,T,6,5,4,1,0,4,5,6,c000004,native,d,0,0,
5,cublasGemmEx,C,N,N,5,6,7,0.5,1,5,7,5,c000005,native,s,0,0,
6,cublasGemmEx,C,N,T,4,4,5,1,0,4,4,4,c000006,native,z,-1,0,
7,cublasGemmEx,C,T,C,6,3,4,-1,0.5,4,3,6,c000007,native,c,0.5,0.5,
8,cublasDgemm_v2,C,N,N,4,3,5,$alpha8,4,5,4,c000008,native,d,0,0,
9,cublasDgemmBatched,C,N,N,4,3,5,1,0.5,4,5,4,,native,d,0,0,3
10,cublasSgemmBatched,C,N,N,4,3,5,1,0.5,4,5,4,,native,s,0,0,3
11,cublasZgemmBatched,C,N,N,4,3,5,1,0.5,4,5,4,,native,z,0,0,3
12,cublasCgemmBatched,C,N,N,4,3,5,1,0.5,4,5,4,,native,c,0,0,3
13,cublasDgemmStridedBatched,C,T,N,4,3,5,1,0.5,5,5,4,,native,d,0,0,3
14,cublasSgemmStridedBatched,C,N,N,4,3,5,1,0.5,4,5,4,,native,s,0,0,3
15,cublasZgemmStridedBatched,C,N,N,4,3,5,1,0.5,4,5,4,,native,z,0,0,3
16,cublasCgemmStridedBatched,C,N,N,4,3,5,1,0.5,4,5,4,,native,c,0,0,3
17,cublasGemmBatchedEx,C,N,N,4,3,5,1,0.5,4,5,4,,native,d,0,0,3
18,cublasGemmStridedBatchedEx,C,N,N,4,3,5,1,0.5,4,5,4,,native,s,0,0,3
ROWS
cmp -s rows rows.want || fail "rows: $(diff rows.want rows)"
for f in expect/*.npy; do
    cmp -s "$f" "trace/${f#expect/}" || fail "trace/${f#expect/} differs from what the program copies back"
done
for f in trace/c00000[0-7]_*.npy; do
    [ -f "expect/${f#trace/}" ] || fail "$f: not expected (beta 0 keeps no C)"
done
# device times: every time_s above 0
tail -n +2 trace/calls.csv | awk -F, '$14 <= 0 { print "FAIL: time_s " $0; bad = 1 } END { exit bad }' ||
    fails=$((fails + 1))

# Emulate: the calls of the scheme's type computed by it (each sampled
# error small), every other call native and bitwise the same.
emulate() { # SCHEME TYPE TOLERANCE ERRMAX
    MPBENCH_HOOK=emulate=$1 MPBENCH_HOOK_TRACE=emu_$1 MPBENCH_HOOK_SAMPLE=1 LD_PRELOAD=$PRELOAD "$PROG" \
        > "emu_$1.out" 2> "emu_$1.err" || fail "emulate=$1: exit $?"
    [ "$(grep -c "computes real" "emu_$1.err")" = 1 ] || fail "emulate=$1: refusal not said once: $(cat "emu_$1.err")"
    tail -n +2 "emu_$1/calls.csv" | awk -F, -v s="$1" -v t="$2" -v e="$4" '
        ($19 == t && $22 == "" && ($17 != s || $18 == "" || $18 > e)) || (($19 != t || $22 != "") && ($17 != "native" || $18 != "")) {
            print "FAIL: emulate=" s " row " $0; bad = 1 }
        END { exit bad }' || fails=$((fails + 1))
    /usr/bin/python3 - native.out "emu_$1.out" "$2" "$3" <<'PY' || fail "emulate=$1: results"
import sys
nat, emu = (dict(l.split(None, 1) for l in open(f)) for f in sys.argv[1:3])
kind, tol = sys.argv[3], float(sys.argv[4])
# the lines of calls of the scheme's type (not batched): shapes 0, 4, 8 (d); 1, 5 (s)
ours = {"d": ["call0", "call4", "call8"], "s": ["call1", "call5"]}[kind]
for key in nat:
    if key not in ours:
        if nat[key] != emu[key]:
            sys.exit("%s (not %s) changed" % (key, kind))
        continue
    a = [float.fromhex(x) for x in nat[key].split()]
    b = [float.fromhex(x) for x in emu[key].split()]
    if a == b:
        sys.exit("%s: bitwise native: not emulated" % key)
    scale = max(abs(x) for x in a)
    if max(abs(x - y) for x, y in zip(a, b)) > tol * scale:
        sys.exit("%s differs beyond %g" % (key, tol))
PY
}
emulate ozaki2_int8 d 1e-13 1e-14
emulate ozaki2_int8_sp s 1e-5 1e-6

echo "test_hook_cuda: $fails failure(s)"
[ "$fails" = 0 ]
