#!/bin/sh
# mpbench replay on a trace that libmpbench_hook.so recorded of hook_prog:
# the calls that kept operands run as file-generator cases (trace and call
# in gen_params) with exact-reference grades, the application's summary; a
# malformed trace refused (exit 2) naming the file, line and column, with
# nothing written.
# Usage: test_replay.sh MPBENCH HOOK_PROG LIBMPBENCH_HOOK
set -u
MPB=$1
PROG=$2
HOOK=$3
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac
case $HOOK in /*) ;; *) HOOK=$PWD/$HOOK ;; esac
. "$(dirname "$0")/hook_preload.sh"
. "$(dirname "$0")/../test_lib.sh"

MPBENCH_HOOK=record MPBENCH_HOOK_TRACE=tr LD_PRELOAD=$PRELOAD "$PROG" > /dev/null || fail "record: exit $?"

"$MPB" replay tr -s ozaki2_int8 --backend host > out 2> err
rc=$?
[ "$rc" = 0 ] || fail "replay: exit $rc: $(cat err)"
[ -f tr/replay.csv ] && [ -f tr/replay.csv.meta.json ] || fail "replay: no tr/replay.csv with its meta.json"
# five shapes kept operands (calls 0, 1, 2, 3 and the threads' 5); each run by
# ozaki2_int8 and the native GEMM of its routine (dgemm; sgemm for 1 and 3)
/usr/bin/python3 - tr/replay.csv <<'PY' || fail "replay.csv rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
got = sorted((r["scheme"], r["gen_params"].split(" trace=")[1], r["m"], r["n"], r["k"], r["status"]) for r in rows)
want = []
for call, (m, n, k), s in (("0", (7, 5, 3), 0), ("1", (4, 6, 9), 1), ("2", (5, 4, 6), 0), ("3", (3, 3, 8), 1),
                           ("5", (6, 6, 6), 0)):
    for scheme in ("ozaki2_int8", "dgemm", "sgemm"):
        # sgemm cannot take the double calls' values (not exact in float)
        status = "not_supported" if scheme == "sgemm" and not s else "ok"
        want.append((scheme, "tr call=" + call, str(m), str(n), str(k), status))
want.sort()
if got != want:
    sys.exit("rows %s\nwant %s" % (got, want))
for r in rows:
    if r["status"] == "ok" and (r["ref"] != "mpfr" or not r["grade"] or r["gen"] != "file"):
        sys.exit("row not graded against the exact reference: %s" % r)
PY
grep -q "^replay of tr: 85 calls in 5 shapes" out || fail "summary head: $(grep replay out)"
# ozaki2_int8 on the 3 double shapes (80 + 2 + 1 calls... of 83) and on the 2 float ones
grep -Eq "^ozaki2_int8 +5 +85 +0 +0 " out || fail "summary ozaki2_int8 line: $(grep '^ozaki2' out)"
grep -Eq "^dgemm +5 +85 " out || fail "summary dgemm line: $(grep '^dgemm' out)"
grep -Eq "^sgemm +2 +2 " out || fail "summary sgemm line: $(grep '^sgemm' out)"
# sgemm's error on a float call is far above ozaki2_int8's: listed for no
# scheme, since sgemm is the native of those calls
grep -q "loses accuracy" out && fail "summary: a call listed as losing accuracy: $(grep -A3 loses out)"
# ozaki2_int8 with 6 moduli loses accuracy on every shape, worst first
"$MPB" replay tr -s ozaki2_int8 -a moduli=6 --backend host --csv m6.csv > out6 2> err6 || fail "moduli=6: exit $?"
grep -A5 "^ozaki2_int8 loses accuracy on:" out6 | cut -d: -f1-2 | tail -5 > lost
cat > lost.want <<'LOST'
  call 2: cblas_dgemm TN 5x4x6 (1 call of this shape)
  call 5: dgemm_ NN 6x6x6 (80 calls of this shape)
  call 1: sgemm_ TN 4x6x9 (1 call of this shape)
  call 3: cblas_sgemm NT 3x3x8 (1 call of this shape)
  call 0: dgemm_ NT 7x5x3 (2 calls of this shape)
LOST
cmp -s lost lost.want || fail "moduli=6 summary: $(cat out6 err6 | tail -12)"
grep -Eq "^ozaki2_int8 +5 +85 +5 +85 " out6 || fail "moduli=6 table line: $(grep '^ozaki2' out6)"

# Refused before anything runs: exit 2, the file, line and column named, no CSV.
refuse() { # NAME WANT: replay the trace folder NAME, expecting WANT in its message
    "$MPB" replay "$1" -s ozaki2_int8 --backend host > rout 2> rerr
    rc=$?
    [ "$rc" = 2 ] || fail "$1: exit $rc, not 2"
    grep -qF -- "$2" rerr || fail "$1: message '$(cat rerr)', expected '$2'"
    [ -e "$1/replay.csv" ] && fail "$1: replay.csv written"
}
bad() { rm -rf "$1"; cp -r tr "$1"; rm -f "$1/replay.csv" "$1/replay.csv.meta.json"; }
bad hdr; sed -i '1s/,m,/,M,/' hdr/calls.csv; refuse hdr "hdr/calls.csv:1: not a hook trace's header"
bad cols; sed -i '3s/,[^,]*$//' cols/calls.csv; refuse cols "cols/calls.csv:3: expected 22 columns, not 21"
bad garbled; sed -i '2s/^0,dgemm_,C,N,T,7,/0,dgemm_,C,N,T,7x,/' garbled/calls.csv
refuse garbled "garbled/calls.csv:2: column 6 (m): '7x': expected an integer >= 0"
bad routine; sed -i '4s/cblas_dgemm/cblas_zgemm/' routine/calls.csv
refuse routine "routine/calls.csv:4: column 2 (routine): 'cblas_zgemm'"
bad type; sed -i '2s/,d,0,0,$/,z,0,0,/' type/calls.csv
refuse type "type/calls.csv:2: column 19 (type): 'z': dgemm_ records type d"
bad batch; sed -i '2s/,d,0,0,$/,d,0,0,3/' batch/calls.csv
refuse batch "batch/calls.csv:2: column 22 (batch): '3' for dgemm_, which is not batched"
bad twice; sed -i '3s/^1,/0,/' twice/calls.csv; refuse twice "twice/calls.csv:3: column 1 (call): call 0 again (line 2 has it)"
bad missing; rm missing/c000002_B.npy
refuse missing "missing/c000002_B.npy (calls.csv line 4, column operands): cannot read it"
bad shape; cp shape/c000002_A.npy shape/c000000_A.npy
refuse shape "shape/c000000_A.npy: 5 x 6 float64, but calls.csv line 2 says op(A) is 7 x 3 float64"
bad dtype; cp dtype/c000003_A.npy dtype/c000000_A.npy
refuse dtype "dtype/c000000_A.npy: 3 x 8 float32, but calls.csv line 2 says op(A) is 7 x 3 float64"
bad trunc; head -c 100 tr/c000000_B.npy > trunc/c000000_B.npy
refuse trunc "trunc/c000000_B.npy (calls.csv line 2, column operands): byte"
refuse nosuch "nosuch/calls.csv: cannot open it"
mkdir empty && head -1 tr/calls.csv > empty/calls.csv
refuse empty "empty: none of its 0 calls kept operands"
for opt in "-g phi" "--size 8" "--seed 2" "--dry-run"; do
    # shellcheck disable=SC2086
    "$MPB" replay tr -s dgemm $opt > /dev/null 2> oerr
    rc=$?
    [ "$rc" = 2 ] && grep -q "the trace gives the generator and the shapes" oerr || fail "replay $opt: exit $rc: $(cat oerr)"
done
"$MPB" replay tr --csv - > /dev/null 2> oerr
[ $? = 2 ] && grep -q -- "--csv -: the summary reads the rows back" oerr || fail "--csv -: $(cat oerr)"
"$MPB" replay > /dev/null 2> oerr
[ $? = 2 ] && grep -q "missing TRACE" oerr || fail "no TRACE: $(cat oerr)"
"$MPB" replay tr --bakend host > /dev/null 2> oerr
[ $? = 2 ] && grep -q "unknown option '--bakend'" oerr || fail "--bakend: $(cat oerr)"

echo "test_replay: $fails failure(s)"
[ "$fails" = 0 ]
