#!/bin/sh
# mpbench gate (README "Gating a driver upgrade"): every verdict, every exit
# code, the markdown report and --json. baseline.csv and candidate.csv are
# compact fixtures (a subset of the columns, by name, one case_id per
# verdict); gate_expand writes them with mpbench's real header.
# Usage: test_gate.sh path/to/mpbench path/to/gate_expand FIXTURE_DIR
set -u
MPB=$1
EXPAND=$2
DIR=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# expect CODE NEEDLE -- ARGS...: exit code CODE and NEEDLE in stdout+stderr.
expect() {
    code=$1; needle=$2; shift 3
    "$MPB" "$@" >"$TMP/out" 2>&1
    got=$?
    if [ "$got" != "$code" ]; then
        fail "mpbench $*: exit $got, expected $code"; sed 's/^/    /' "$TMP/out"
    elif ! grep -qF -- "$needle" "$TMP/out"; then
        fail "mpbench $*: output lacks '$needle'"; sed 's/^/    /' "$TMP/out"
    fi
}

"$EXPAND" "$DIR/baseline.csv" "$TMP/b.csv" && "$EXPAND" "$DIR/candidate.csv" "$TMP/c.csv" ||
    { echo "FAIL: cannot expand the fixtures"; exit 1; }
head -n 1 "$TMP/b.csv" | grep -q '^schema_version,run_id,case_id,' || fail "expanded header is not mpbench's"

# pick ID: a baseline/candidate pair holding only that case ($TMP/pb.csv, $TMP/pc.csv).
pick() {
    for side in baseline candidate; do
        { head -n 1 "$DIR/$side.csv"; grep "^$1," "$DIR/$side.csv"; } >"$TMP/pick.csv"
        "$EXPAND" "$TMP/pick.csv" "$TMP/p$(echo $side | cut -c1).csv" || fail "cannot expand $1"
    done
}

# The whole pair: one run, then each case's verdicts in the JSON and the table.
expect 1 "gate: FAIL" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" --json "$TMP/g.json"
cp "$TMP/out" "$TMP/report"
# id accuracy perf exit-code-alone what
while read -r id acc perf code what; do
    line=$(grep -F "\"case_id\": \"$id\"" "$TMP/g.json")
    case $line in
    *"\"accuracy\": \"$acc\", \"perf\": \"$perf\""*) ;;
    *) fail "$id ($what): expected $acc/$perf in the JSON, got: $line" ;;
    esac
    if [ "$acc" = SAME ] && { [ "$perf" = SAME ] || [ "$perf" = - ]; }; then
        ! grep -qF "| $id |" "$TMP/report" || fail "$id ($what): SAME, yet in the table"
    else
        grep -F "| $id |" "$TMP/report" | grep -qF "| $acc | $perf |" ||
            fail "$id ($what): no table row with | $acc | $perf |"
    fi
    pick "$id"
    expect "$code" "gate: " -- gate --baseline "$TMP/pb.csv" --candidate "$TMP/pc.csv"
done <<EOF
0000000000000001 SAME SAME 0 same-bits
0000000000000002 CHANGED SAME 0 errors-within-2x
0000000000000003 CHANGED SAME 0 error-floor
0000000000000004 WORSE SAME 1 error-grew-3x
0000000000000005 WORSE SAME 1 grade-A-to-B
0000000000000006 WORSE - 1 status-ok-to-error
0000000000000007 SAME FAST 0 faster
0000000000000008 SAME SLOW 1 slower
0000000000000009 SAME SAME 0 slower-within-noise
0000000000000010 SAME AMBIGUOUS 0 two-reps
0000000000000011 MISSING - 1 only-in-baseline
0000000000000012 NEW - 1 only-in-candidate-alone-compares-nothing
0000000000000013 INCOMPARABLE - 1 other-gpu
0000000000000014 INCOMPARABLE - 1 other-scheme-version
0000000000000015 INCOMPARABLE - 1 other-impl
0000000000000016 SAME - 0 host-no-perf
0000000000000017 SAME SAME 0 same-bits-small
0000000000000018 CHANGED SAME 0 no-errors-by-hash
0000000000000019 WORSE SAME 1 errors-lost
0000000000000020 CHANGED SAME 0 quotes-and-pipe
0000000000000021 SAME - 0 both-not-supported
0000000000000022 CHANGED - 0 not-supported-to-ok
0000000000000023 INCOMPARABLE - 1 one-side-graded
0000000000000024 SAME AMBIGUOUS 0 slower-but-under-min-ms
EOF

grep -qxF "accuracy: 9 SAME, 5 CHANGED, 4 WORSE, 1 MISSING, 1 NEW, 4 INCOMPARABLE" "$TMP/report" ||
    fail "accuracy counts"
grep -qxF "performance: 10 SAME, 1 FAST, 1 SLOW, 2 AMBIGUOUS, 10 without a verdict (-)" "$TMP/report" ||
    fail "performance counts"
grep -qxF "| driver_version | 570.86.15 | 580.159.04 |" "$TMP/report" || fail "driver versions"
grep -qxF "| cublas_version | 12.8.4 | 13.1.0 |" "$TMP/report" || fail "cuBLAS versions"
grep -qxF "| git_sha | abc123def456 | mixed |" "$TMP/report" || fail "a mixed git_sha"
grep -qxF "| cases | 23 | 23 |" "$TMP/report" || fail "case counts"
grep -qF '| strategy=eager note="a\|b" |' "$TMP/report" || fail "a '|' in a cell is not escaped"
for why in '| grade A→B |' '| status ok→error |' '| err_max_rel 1e-16→3e-16 |' \
    '| gpu_name NVIDIA H200→NVIDIA H100 80GB HBM3 |' '| 6 error column(s) empty in the candidate only |' \
    '| graded on one side only (grade A→(empty)) |'; do
    grep -qF -- "$why" "$TMP/report" || fail "no reason $why in the table"
done

# --json: valid JSON, every joined row once, both sides' versions.
rows=$(grep -c '"case_id"' "$TMP/g.json")
[ "$rows" = 24 ] || fail "--json holds $rows rows, expected 24"
grep -qF '"git_sha": "mixed"' "$TMP/g.json" || fail "--json lacks the candidate's versions"
grep -qF '"failed": true' "$TMP/g.json" || fail "--json does not say the gate failed"
if [ -x /usr/bin/python3 ]; then
    /usr/bin/python3 -m json.tool "$TMP/g.json" >/dev/null || fail "--json is not valid JSON"
else
    echo "note: /usr/bin/python3 absent, JSON syntax not checked"
fi

# Exit codes: 1 -> 0 with --report-only; 0 on a file against itself.
expect 0 "gate: FAIL: accuracy (4 WORSE), speed (1 SLOW), missing (1 MISSING), incomparable (4 INCOMPARABLE) (reported only)" -- \
    gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" --report-only
grep -qF '"failed_categories": ["accuracy", "speed", "missing", "incomparable"]' "$TMP/g.json" ||
    fail "--json lacks the failed categories"
# The FAIL line names the one category that failed.
for one in "0000000000000004 accuracy (1 WORSE)" "0000000000000008 speed (1 SLOW)" \
    "0000000000000013 incomparable (1 INCOMPARABLE)"; do
    id=${one%% *}
    pick "$id"
    expect 1 "gate: FAIL: ${one#* }" -- gate --baseline "$TMP/pb.csv" --candidate "$TMP/pc.csv"
    grep -q "^gate: FAIL: ${one#* }\$" "$TMP/out" || fail "$id: the FAIL line names more than ${one#* }"
done
grep -v ',0000000000000011,' "$TMP/b.csv" >"$TMP/b-11.csv"
expect 1 "gate: FAIL: missing (1 MISSING)" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/b-11.csv"
expect 0 "gate: PASS" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/b.csv"
pick 0000000000000001
expect 0 "Every case is SAME." -- gate --baseline "$TMP/pb.csv" --candidate "$TMP/pb.csv"
pick 0000000000000008
expect 0 "gate: PASS" -- gate --baseline "$TMP/pb.csv" --candidate "$TMP/pc.csv" --perf-tol 20
pick 0000000000000024
expect 1 "| SAME | SLOW |" -- gate --baseline "$TMP/pb.csv" --candidate "$TMP/pc.csv" --min-ms 0
grep -qF "calls under 0.1 ms" "$TMP/report" || fail "no reason for the min-ms AMBIGUOUS"
pick 0000000000000004
expect 0 "| CHANGED |" -- gate --baseline "$TMP/pb.csv" --candidate "$TMP/pc.csv" --err-tol=4

# 2: bad arguments, naming the option and the value.
expect 0 "--err-tol FACTOR" -- gate --help
expect 2 "missing --baseline" -- gate --candidate "$TMP/c.csv"
expect 2 "missing --candidate" -- gate --baseline "$TMP/b.csv"
expect 2 "--perf-tol 'abc'" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" --perf-tol abc
expect 2 "--perf-tol '-1'" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" --perf-tol=-1
expect 2 "--min-ms 'x'" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" --min-ms x
expect 2 "--err-tol '0.5'" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" --err-tol 0.5
expect 2 "--err-tol needs a value" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" --err-tol
expect 2 "unknown option '--bogus'" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" --bogus
expect 2 "unexpected argument 'extra.csv'" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" extra.csv
expect 2 "--json '/nonexistent-dir/g.json'" -- \
    gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" --json /nonexistent-dir/g.json

expect 2 "--json '$TMP/b.csv': that is an input file" -- \
    gate --baseline "$TMP/b.csv" --candidate "$TMP/c.csv" --json "$TMP/b.csv"
[ "$(wc -l <"$TMP/b.csv")" = 24 ] || fail "--json naming the baseline touched it"

# 3: a file that cannot be read, or is not an mpbench CSV; no --json left behind.
expect 3 "$TMP/none.csv: cannot read" -- gate --baseline "$TMP/none.csv" --candidate "$TMP/c.csv"
printf 'a,b\n1,2\n' >"$TMP/foreign.csv"
expect 3 "$TMP/foreign.csv:1: its header is not mpbench's" -- \
    gate --baseline "$TMP/b.csv" --candidate "$TMP/foreign.csv" --json "$TMP/bad.json"
[ ! -e "$TMP/bad.json" ] || fail "--json file left behind after exit 3"
sed '1s/,out_hash,/,hash,/' "$TMP/b.csv" >"$TMP/nohash.csv"
expect 3 "$TMP/nohash.csv:1: its header is not mpbench's: column 'hash' (field 37)" -- gate --baseline "$TMP/nohash.csv" --candidate "$TMP/c.csv"
: >"$TMP/empty.csv"
expect 3 "$TMP/empty.csv: empty" -- gate --baseline "$TMP/empty.csv" --candidate "$TMP/c.csv"
{ cat "$TMP/c.csv"; tail -n 1 "$TMP/c.csv" | head -c 60; } >"$TMP/cut.csv"
expect 3 "$TMP/cut.csv:25: no line end" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/cut.csv"
sed '2s/^6,/5,/' "$TMP/c.csv" >"$TMP/schema4.csv"
expect 3 "$TMP/schema4.csv:2: column schema_version (field 1): '5', but the header is schema_version 6's" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/schema4.csv"

# The gate must not pass what it cannot judge: every value a verdict reads
# is checked (exit 3 naming file, line and column), and a gate that
# compared no case fails.
# setcell IN LINE FIELD VALUE OUT: IN with field FIELD of line LINE (0: every
# data line) replaced (the expanded fixtures quote no comma).
setcell() {
    awk -F, -v OFS=, -v l="$2" -v c="$3" -v v="$4" '(l == 0 && NR > 1) || NR == l { $c = v } 1' "$1" >"$5"
}
pick 0000000000000001
setcell "$TMP/pc.csv" 2 37 0101010101010102 "$TMP/pc2.csv" # other bits
for bad in "29 nan" "30 garbage" "31 -1e-16" "32 -inf" "33 0x" "34 1e999x"; do
    set -- $bad
    setcell "$TMP/pb.csv" 2 "$1" "$2" "$TMP/bad.csv"
    col=$(head -n 1 "$TMP/bad.csv" | cut -d, -f"$1")
    expect 3 "$TMP/bad.csv:2: column $col (field $1): '$2' is not" -- \
        gate --baseline "$TMP/bad.csv" --candidate "$TMP/pc2.csv"
done
cp "$TMP/pc2.csv" "$TMP/neg.csv"
for f in 29 30 31 32 33 34; do setcell "$TMP/neg.csv" 0 $f -1 "$TMP/neg2.csv"; mv "$TMP/neg2.csv" "$TMP/neg.csv"; done
expect 3 "$TMP/neg.csv:2: column err_fro_rel (field 29): '-1' is not" -- \
    gate --baseline "$TMP/pb.csv" --candidate "$TMP/neg.csv"
for bad in "35 Z grade" "38 fine status" "38 '' status" "17 fast time_ms_median" "20 -3 noise_pct" "16 2.5 reps" \
    "7 fp16 target" "8 gpu impl" "5 v2 scheme_version" "37 xyz out_hash" "3 17 case_id"; do
    eval "set -- $bad"
    setcell "$TMP/pc2.csv" 2 "$1" "$2" "$TMP/bad.csv"
    expect 3 "$TMP/bad.csv:2: column $3 (field $1): '$2' is not" -- \
        gate --baseline "$TMP/pb.csv" --candidate "$TMP/bad.csv"
done
# An infinite error is a value (fp16 overflow), under grade F only: the
# candidate's finite errors are no worse than it.
pick 0000000000000001
setcell "$TMP/pb.csv" 2 32 inf "$TMP/inf.csv"
expect 3 "$TMP/inf.csv:2: column rho_a_max (field 32): 'inf', but the row is graded A" -- \
    gate --baseline "$TMP/inf.csv" --candidate "$TMP/pc2.csv"
setcell "$TMP/inf.csv" 2 33 inf "$TMP/inf2.csv"
setcell "$TMP/inf2.csv" 2 34 inf "$TMP/inf.csv"
setcell "$TMP/inf.csv" 2 35 F "$TMP/inf-f.csv"
expect 0 "| CHANGED | SAME |" -- gate --baseline "$TMP/inf-f.csv" --candidate "$TMP/pc2.csv"
head -n 1 "$TMP/b.csv" >"$TMP/header-only.csv"
expect 1 "gate: FAIL (no case_id in both files: nothing was compared)" -- \
    gate --baseline "$TMP/header-only.csv" --candidate "$TMP/c.csv"
grep -qF "0 SAME, 0 CHANGED, 0 WORSE, 0 MISSING, 23 NEW" "$TMP/out" || fail "header-only baseline: not 23 NEW"
expect 0 "gate: FAIL (no case_id in both files: nothing was compared), reported only" -- \
    gate --baseline "$TMP/header-only.csv" --candidate "$TMP/c.csv" --report-only
pick 0000000000000011
expect 1 "nothing was compared" -- gate --baseline "$TMP/pb.csv" --candidate "$TMP/header-only.csv"

# --pair-params: a MISSING row and a NEW one that are the same case but for
# the scheme's params (slices=7 -> 8; an -a list 16,64 -> 32,128 pairs in
# file order) are compared; a case with one MISSING and two NEW stays
# unpaired. Without the option, a hint says so.
head -n 1 "$DIR/baseline.csv" >"$TMP/pairb.fx"
cp "$TMP/pairb.fx" "$TMP/pairc.fx"
schema=$(sed -n 2p "$DIR/baseline.csv" | cut -d, -f2) # the fixtures' schema
row() { # ID SCHEME PARAMS GEN GEN_PARAMS ERR_MAX HASH
    echo "$1,$schema,$2,1,$3,fp64,cuda,1024,1024,1024,$4,$5,10,10.0,1.0,mpfr,1.1e-16,$6,5.5e-17,0.5,0.25,0.125,A,0,$7,ok,NVIDIA H200,570.86.15,12.8,12.8.4,0.1.0,abc123def456,real"
}
{
    row 0000000000000031 ozaki1_int8 slices=7 phi phi=0.5 2.2e-16 3131313131313131
    row 0000000000000032 ozaki1_int8 slices=7 phi phi=2 2.2e-16 3232323232323232
    row 0000000000000033 adp block=16 test2 b=504 2.2e-16 3333333333333333
    row 0000000000000034 adp block=64 test2 b=504 2.2e-16 3434343434343434
    row 0000000000000035 ozaki2_int8 moduli=15 randn "" 2.2e-16 3535353535353535
} >>"$TMP/pairb.fx"
{
    row 0000000000000041 ozaki1_int8 slices=8 phi phi=0.5 2.0e-16 4141414141414141
    row 0000000000000042 ozaki1_int8 slices=8 phi phi=2 6.6e-16 4242424242424242
    row 0000000000000043 adp block=32 test2 b=504 2.2e-16 4343434343434343
    row 0000000000000044 adp block=128 test2 b=504 2.2e-16 4444444444444444
    row 0000000000000045 ozaki2_int8 moduli=16 randn "" 2.2e-16 4545454545454545
    row 0000000000000046 ozaki2_int8 moduli=17 randn "" 2.2e-16 4646464646464646
} >>"$TMP/pairc.fx"
"$EXPAND" "$TMP/pairb.fx" "$TMP/pairb.csv" && "$EXPAND" "$TMP/pairc.fx" "$TMP/pairc.csv" ||
    fail "cannot expand the pairing fixtures"
expect 1 "hint: 4 MISSING row(s) have a NEW row that is the same case but for the scheme's params (the first: ozaki1_int8 slices=7 → slices=8); --pair-params compares them" -- \
    gate --baseline "$TMP/pairb.csv" --candidate "$TMP/pairc.csv"
grep -qF "5 MISSING, 6 NEW" "$TMP/out" || fail "without --pair-params: not 5 MISSING, 6 NEW"
expect 1 "gate: FAIL: accuracy (1 WORSE), missing (1 MISSING)" -- \
    gate --baseline "$TMP/pairb.csv" --candidate "$TMP/pairc.csv" --pair-params --json "$TMP/pair.json"
! grep -qF "hint:" "$TMP/out" || fail "--pair-params still hints"
grep -qF "0 SAME, 3 CHANGED, 1 WORSE, 1 MISSING, 2 NEW, 0 INCOMPARABLE" "$TMP/out" || fail "--pair-params counts"
grep -F "| 0000000000000031 |" "$TMP/out" | grep -qF "| slices=7 → slices=8 |" ||
    fail "--pair-params: the table does not show slices=7 → slices=8"
grep -F "| 0000000000000032 |" "$TMP/out" | grep -qF "| WORSE |" || fail "--pair-params: slices=8 at phi=2 is not WORSE"
# pairs: baseline id, candidate params, accuracy
for want in "31 slices=8 CHANGED" "32 slices=8 WORSE" "33 block=32 CHANGED" "34 block=128 CHANGED"; do
    set -- $want
    grep -F "\"case_id\": \"00000000000000$1\"" "$TMP/pair.json" |
        grep -qF "\"params_candidate\": \"$2\", \"paired\": true, \"accuracy\": \"$3\"" ||
        fail "--pair-params: $1 is not paired with $2 as $3 in the JSON"
done
grep -F '"case_id": "0000000000000035"' "$TMP/pair.json" | grep -qF '"paired": false, "accuracy": "MISSING"' ||
    fail "--pair-params paired a MISSING row with one of two NEW rows"
{ head -n 2 "$TMP/pairb.csv"; } >"$TMP/pairb1.csv"
{ head -n 1 "$TMP/pairc.csv"; grep ',0000000000000041,' "$TMP/pairc.csv"; } >"$TMP/pairc1.csv"
expect 1 "hint: 1 MISSING row(s)" -- gate --baseline "$TMP/pairb1.csv" --candidate "$TMP/pairc1.csv"
expect 0 "gate: PASS" -- gate --baseline "$TMP/pairb1.csv" --candidate "$TMP/pairc1.csv" --pair-params

# A parameter the scheme gained after the baseline was written, at its
# default (ozaki2_int8's gemm=auto here), is the same configuration: the
# case is compared without --pair-params; at another value (gemm=engine) it
# is not.
head -n 1 "$DIR/baseline.csv" >"$TMP/addb.fx"
cp "$TMP/addb.fx" "$TMP/addc.fx"
{
    row 0000000000000051 ozaki2_int8 "moduli=15 mode=fast nblock=0 mblock=0" phi phi=0.5 2.2e-16 5151515151515151
    row 0000000000000052 ozaki2_int8 "moduli=14 mode=fast nblock=0 mblock=0" phi phi=2 2.2e-16 5252525252525252
    row 0000000000000053 ozaki2_int8 "moduli=15 mode=fast nblock=0 mblock=0" randn "" 2.2e-16 5353535353535353
} >>"$TMP/addb.fx"
{
    row 0000000000000061 ozaki2_int8 "moduli=15 mode=fast nblock=0 mblock=0 gemm=auto" phi phi=0.5 2.2e-16 5151515151515151
    row 0000000000000062 ozaki2_int8 "moduli=14 mode=fast nblock=0 mblock=0 gemm=auto" phi phi=2 2.2e-16 5252525252525252
    row 0000000000000063 ozaki2_int8 "moduli=15 mode=fast nblock=0 mblock=0 gemm=engine" randn "" 2.2e-16 5353535353535353
} >>"$TMP/addc.fx"
"$EXPAND" "$TMP/addb.fx" "$TMP/addb.csv" && "$EXPAND" "$TMP/addc.fx" "$TMP/addc.csv" ||
    fail "cannot expand the added-parameter fixtures"
expect 1 "2 SAME, 0 CHANGED, 0 WORSE, 1 MISSING, 1 NEW, 0 INCOMPARABLE" -- \
    gate --baseline "$TMP/addb.csv" --candidate "$TMP/addc.csv" --min-ms 0 --json "$TMP/add.json"
grep -qF "note: 2 baseline row(s) compared with candidate rows whose scheme gained parameters since, at their defaults (the first: ozaki2_int8 moduli=15 mode=fast nblock=0 mblock=0 → moduli=15 mode=fast nblock=0 mblock=0 gemm=auto)" "$TMP/out" ||
    fail "added at its default: no note naming the pairing"
grep -F '"case_id": "0000000000000052"' "$TMP/add.json" | grep -qF '"added_defaults": true' ||
    fail "added at its default: 52 is not joined in the JSON"
grep -F '"case_id": "0000000000000053"' "$TMP/add.json" | grep -qF '"accuracy": "MISSING"' ||
    fail "a parameter added at another value than its default was joined"
{ head -n 3 "$TMP/addb.csv"; } >"$TMP/addb2.csv"
{ head -n 3 "$TMP/addc.csv"; } >"$TMP/addc2.csv"
expect 0 "gate: PASS" -- gate --baseline "$TMP/addb2.csv" --candidate "$TMP/addc2.csv" --min-ms 0

# RFC 4180: a quoted cell may hold a line break (a record spans lines).
awk -F, -v OFS=, '$3 == "0000000000000001" { $39 = "\"two" "\n" "lines, \"\"quoted\"\"\"" } 1' "$TMP/b.csv" >"$TMP/nl.csv"
[ "$(wc -l <"$TMP/nl.csv")" = 25 ] || fail "the multi-line fixture has $(wc -l <"$TMP/nl.csv") lines, expected 25"
expect 0 "gate: PASS" -- gate --baseline "$TMP/nl.csv" --candidate "$TMP/b.csv"
expect 0 "| cases | 23 | 23 |" -- gate --baseline "$TMP/b.csv" --candidate "$TMP/nl.csv"

# Schema 1 (schema1.csv: the first H200 gating baseline, written before
# ref_check was appended) against schema 2 (the same rows rewritten with the
# new columns, ref_check and cr_mismatch filled), both ways: the gate joins by case_id and
# reads columns by name.
v1="$DIR/schema1.csv"
head -n 1 "$v1" | grep -q ',tags$' || fail "$v1 is no longer a schema-1 file"
sed -e '1s/$/,ref_check,cr_mismatch/' -e '2,$s/^1,//' -e '2,$s/^/2,/' -e '2,$s/$/,1.5e-12,0/' "$v1" >"$TMP/v2.csv"
head -n 2 "$TMP/v2.csv" | tail -n 1 | grep -q '^2,.*,1.5e-12,0$' || fail "schema-2 rewrite of $v1"
expect 0 "Every case is SAME." -- gate --baseline "$v1" --candidate "$TMP/v2.csv" --min-ms 0
expect 0 "Every case is SAME." -- gate --baseline "$TMP/v2.csv" --candidate "$v1" --min-ms 0

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "test_gate: all checks passed"
