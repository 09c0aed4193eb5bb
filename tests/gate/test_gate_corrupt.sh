#!/bin/sh
# mpbench gate against corrupted and hostile inputs: whatever is done to a
# baseline or a candidate, the gate refuses the file (exit 3, naming file,
# line and column) or fails (exit 1); it never passes. The inputs are the
# committed H200 gating baseline and its same-session rerun, which pass
# (results/h200/gate/baseline-gate-rerun.md), each corrupted in one way.
# Usage: test_gate_corrupt.sh path/to/mpbench SOURCE_ROOT
set -u
MPB=$1
ROOT=$2
case $MPB in /*) ;; *) MPB=$PWD/$MPB ;; esac # the committed verdicts are run from results/h200/gate
B=$ROOT/results/h200/gate/baseline.csv
C=$ROOT/results/h200/gate/baseline-rerun.csv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
checks=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# expect CODE NEEDLE WHAT -- ARGS...: exit code CODE and NEEDLE in stdout+stderr.
expect() {
    code=$1; needle=$2; what=$3; shift 4
    checks=$((checks + 1))
    "$MPB" "$@" >"$TMP/out" 2>&1
    got=$?
    if [ "$got" != "$code" ]; then
        fail "$what: exit $got, expected $code (mpbench $*)"; sed 's/^/    /' "$TMP/out" | tail -n 5
    elif ! grep -qF -- "$needle" "$TMP/out"; then
        fail "$what: output lacks '$needle' (mpbench $*)"; sed 's/^/    /' "$TMP/out" | tail -n 5
    fi
}

# refused FILE-SIDE FILE NEEDLE WHAT: gating FILE as the baseline (b) against
# the rerun, or as the candidate (c) against the baseline, is exit 3 with
# NEEDLE.
refused() {
    if [ "$1" = b ]; then
        expect 3 "$4" "$3" -- gate --baseline "$2" --candidate "$C"
    else
        expect 3 "$4" "$3" -- gate --baseline "$B" --candidate "$2"
    fi
}

# Field number of a column of the committed header.
col() {
    head -n 1 "$B" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1
}

# setcell IN ID COLUMN VALUE OUT: IN with COLUMN of the row of case_id ID
# set to VALUE (the rows used here quote no comma).
setcell() {
    awk -F, -v OFS=, -v id="$2" -v c="$(col "$3")" -v v="$4" '$3 == id { $c = v } 1' "$1" >"$5"
}

# Line of case_id ID in FILE.
line_of() {
    grep -n "^[^,]*,[^,]*,$2," "$1" | cut -d: -f1
}

A=be6229a10b3eaa5f  # dgemm phi=0.5 1024: ok, mpfr, grade A
A4=68697ecdb71ebb6b # dgemm phi=0.5 4096: ok, grade A, calls of 2.5 ms (a speed verdict)
F=c8af6bf122e0d902  # fp16 test2 1024: ok, grade F, every error inf (nonfinite 1048576)
NS=5264709d0d890c04 # cublas_bf16x9: not_supported
LA=$(line_of "$B" $A)
LA4=$(line_of "$B" $A4)
LF=$(line_of "$B" $F)
LNS=$(line_of "$B" $NS)

# The committed files are accepted and give the committed verdicts.
(cd "$ROOT/results/h200/gate" && "$MPB" gate --baseline baseline.csv --candidate baseline-rerun.csv >"$TMP/rerun.md")
[ $? = 0 ] || fail "results/h200/gate: baseline-rerun.csv against baseline.csv is not exit 0 (PASS)"
cmp -s "$TMP/rerun.md" "$ROOT/results/h200/gate/baseline-gate-rerun.md" ||
    { fail "the gate of baseline-rerun.csv differs from results/h200/gate/baseline-gate-rerun.md"; diff "$TMP/rerun.md" "$ROOT/results/h200/gate/baseline-gate-rerun.md" | head; }
"$MPB" gate --baseline "$B" --candidate "$ROOT/results/h100/gate/baseline.csv" >"$TMP/h100.md"
[ $? = 1 ] || fail "results/h100/gate/baseline.csv against the H200 baseline is not exit 1 (INCOMPARABLE)"
grep -v '^| file |' "$TMP/h100.md" >"$TMP/h100.got"
grep -v '^| file |' "$ROOT/results/h100/gate/gate-h200-vs-h100.md" >"$TMP/h100.want"
cmp -s "$TMP/h100.got" "$TMP/h100.want" || fail "the gate of the H100 baseline differs from results/h100/gate/gate-h200-vs-h100.md"
expect 0 "gate: PASS" "the H100 baseline against itself" -- \
    gate --baseline "$ROOT/results/h100/gate/baseline.csv" --candidate "$ROOT/results/h100/gate/baseline.csv"

# A candidate that is worse on one case (other bits, err_fro_rel 0.9, still
# graded A as its ρ say) fails against the clean baseline...
setcell "$C" $A out_hash 0123456789abcdef "$TMP/w1.csv"
setcell "$TMP/w1.csv" $A err_fro_rel 0.90000000000000002 "$TMP/w2.csv"
setcell "$TMP/w2.csv" $A err_max_rel 0.94999999999999996 "$TMP/worse.csv"
expect 1 "| WORSE |" "a worse candidate" -- gate --baseline "$B" --candidate "$TMP/worse.csv"

# ...and a baseline poisoned in any error cell of that case does not let it
# pass: the row is refused, naming file, line and column.
for c in err_fro_rel err_max_rel err_median_rel rho_a_max rho_b_max rho_c_max; do
    for v in '' inf nan 1e+300 -1; do
        setcell "$B" $A $c "$v" "$TMP/poison.csv"
        if [ $c = err_max_rel ] && [ "$v" = 1e+300 ]; then
            # consistent with the rest of the row (a maximum may be that
            # large); the other errors still hold the candidate
            expect 1 "| WORSE |" "baseline err_max_rel 1e+300" -- \
                gate --baseline "$TMP/poison.csv" --candidate "$TMP/worse.csv"
            continue
        fi
        expect 3 "$TMP/poison.csv:$LA: column " "baseline $c '$v' in a graded row" -- \
            gate --baseline "$TMP/poison.csv" --candidate "$TMP/worse.csv"
    done
done
# every error 1e+300 at once: the grade A no longer follows from the ρ
src=$B
for c in err_fro_rel err_max_rel err_median_rel rho_a_max rho_b_max rho_c_max; do
    setcell "$src" $A $c 1e+300 "$TMP/p$c.csv"
    src=$TMP/p$c.csv
done
refused b "$src" "every error of a grade-A row 1e+300" "$src:$LA: column grade (field $(col grade)): 'A'"

# Grade and errors that disagree, on either side.
setcell "$B" $A grade F "$TMP/g.csv"
refused b "$TMP/g.csv" "grade F over the ρ of an A" "column grade (field $(col grade)): 'F', but rho_a_max"
setcell "$C" $A grade B "$TMP/g.csv"
refused c "$TMP/g.csv" "grade B over the ρ of an A" "$TMP/g.csv:$LA: column grade (field $(col grade)): 'B'"
setcell "$B" $A rho_a_max 20480.5 "$TMP/g.csv"
refused b "$TMP/g.csv" "rho_a_max past 10k under grade A" "column grade (field $(col grade)): 'A', but rho_a_max"
setcell "$B" $F grade A "$TMP/g.csv"
refused b "$TMP/g.csv" "grade A over infinite errors" "$TMP/g.csv:$LF: column err_fro_rel (field $(col err_fro_rel)): 'inf'"
setcell "$B" $A rho_c_max 1000 "$TMP/g.csv"
refused b "$TMP/g.csv" "rho_c_max above rho_b_max" "column rho_c_max (field $(col rho_c_max)): '1000' is above rho_b_max"
setcell "$B" $A err_median_rel 0.5 "$TMP/g.csv"
refused b "$TMP/g.csv" "err_median_rel above err_max_rel" "column err_median_rel (field $(col err_median_rel)): '0.5' is above err_max_rel"
setcell "$B" $A grade '' "$TMP/g.csv"
expect 1 "graded on one side only" "a baseline row stripped of its grade" -- \
    gate --baseline "$TMP/g.csv" --candidate "$TMP/worse.csv"
setcell "$B" $A ref none "$TMP/g.csv"
refused b "$TMP/g.csv" "errors under ref none" "$TMP/g.csv:$LA: column err_fro_rel (field $(col err_fro_rel)): '1.0912105871563946e-15', but ref is none"
setcell "$B" $A ref '' "$TMP/g.csv"
refused b "$TMP/g.csv" "empty ref" "column ref (field $(col ref)): '' is not mpfr, dd or none"
setcell "$B" $A ref exact "$TMP/g.csv"
refused b "$TMP/g.csv" "unknown ref" "column ref (field $(col ref)): 'exact' is not"
setcell "$B" $NS grade A "$TMP/g.csv"
refused b "$TMP/g.csv" "not_supported with a grade" "$TMP/g.csv:$LNS: column grade (field $(col grade)): 'A', but status is not_supported"
setcell "$B" $A status not_supported "$TMP/g.csv"
refused b "$TMP/g.csv" "not_supported with a hash and errors" "column time_ms_median (field $(col time_ms_median)): '0.042304001748561859', but status is not_supported"
setcell "$C" $A out_hash '' "$TMP/g.csv"
refused c "$TMP/g.csv" "status ok without out_hash" "column out_hash (field $(col out_hash)): empty, but status is ok"
setcell "$C" $A nonfinite '' "$TMP/g.csv"
refused c "$TMP/g.csv" "status ok without nonfinite" "column nonfinite (field $(col nonfinite)): empty, but status is ok"
setcell "$C" $A time_ms_median '' "$TMP/g.csv"
refused c "$TMP/g.csv" "status ok without a time" "column time_ms_median (field $(col time_ms_median)): empty, but status is ok"

# Times that contradict each other: a median outside [min, max], a noise the
# spread cannot give.
setcell "$B" $A4 time_ms_median 1e+300 "$TMP/t.csv"
refused b "$TMP/t.csv" "median above max" "$TMP/t.csv:$LA4: column time_ms_median (field $(col time_ms_median)): '1e+300' is outside"
setcell "$B" $A4 time_ms_min 3 "$TMP/t.csv"
refused b "$TMP/t.csv" "min above median" "column time_ms_median (field $(col time_ms_median)): '2.512719988822937' is outside"
setcell "$B" $A4 noise_pct 50 "$TMP/t.csv"
refused b "$TMP/t.csv" "noise past the spread" "column noise_pct (field $(col noise_pct)): '50' is more than"

# Wrong types, in every column a verdict or the report reads.
while read -r c v; do
    [ "$v" = "''" ] && v=
    setcell "$C" $A "$c" "$v" "$TMP/ty.csv"
    expect 3 "$TMP/ty.csv:$LA: column $c (field $(col "$c")): '$v' is not" "candidate $c '$v'" -- \
        gate --baseline "$B" --candidate "$TMP/ty.csv"
done <<'EOF'
case_id BE6229A10B3EAA5F
case_id be6229a10b3eaa5
case_id ''
scheme ''
scheme DGEMM
scheme dgemm!
scheme_version v1
scheme_version 01
scheme_version -1
scheme_version +1
scheme_version ''
target fp16
target ''
impl gpu
m -5
m abc
m 0
m 01024
m +1024
m 1024.0
m 1e3
m ''
n 0x400
k 99999999999999999999999
gen ''
gen PHI
reps 2.5
reps ''
reps 010
reps -1
time_ms_median fast
time_ms_median -1
time_ms_median inf
time_ms_median nan
time_ms_median 1e999
time_ms_median 0x1p-4
time_ms_min x
time_ms_max -2
noise_pct -3
noise_pct +1
err_fro_rel +1.0912105871563946e-15
err_fro_rel 0x1p-50
err_fro_rel 1.0912105871563946E-15
err_fro_rel .1
err_fro_rel 1.
err_fro_rel 1e-
err_fro_rel infinity
err_fro_rel -inf
err_max_rel 4.7268230935717854e-13x
err_median_rel NaN
rho_a_max garbage
rho_b_max 1e309
rho_c_max -0.5
grade Z
grade a
grade AB
nonfinite -1
nonfinite x
nonfinite 00
out_hash xyz
out_hash 2B1FD7F38BF39D9A
ref MPFR
status fine
status OK
status ''
EOF
# A leading space (a cell is what lies between the commas).
for c in err_fro_rel m schema_version; do
    awk -F, -v OFS=, -v id=$A -v c="$(col $c)" '$3 == id { $c = " " $c } 1' "$C" >"$TMP/sp.csv"
    expect 3 "$TMP/sp.csv:$LA: column $c (field $(col $c)): ' " "candidate $c with a leading space" -- \
        gate --baseline "$B" --candidate "$TMP/sp.csv"
done

# Schema versions: every row's must be the header's,
# written as the writer writes it.
for v in 3 1 4 5 04 +2 ' 2' '' 2.0; do
    setcell "$C" $A schema_version "$v" "$TMP/sv.csv"
    expect 3 "$TMP/sv.csv:$LA: column schema_version (field 1): '$v'" "schema_version '$v' under a schema-2 header" -- \
        gate --baseline "$B" --candidate "$TMP/sv.csv"
done
sed '2,$s/^2,/3,/' "$C" >"$TMP/sv.csv"
refused c "$TMP/sv.csv" "rows of schema 3 under a schema-2 header" "$TMP/sv.csv:2: column schema_version (field 1): '3', but the header is schema_version 2's"
sed -e '1s/,cr_mismatch,/,/' "$ROOT/results/h100/gate/baseline.csv" >"$TMP/sv.csv"
refused c "$TMP/sv.csv" "a header between two schemas" "$TMP/sv.csv:1: its header is not mpbench's: no column 'cr_mismatch'"

# Duplicated header columns: the last copy no longer wins.
awk -F, -v OFS=, -v id=$A -v c="$(col err_fro_rel)" \
    'NR == 1 { print $0 ",err_fro_rel"; next } { v = $c } $3 == id { $c = 0.5 } { print $0 "," v }' "$TMP/worse.csv" >"$TMP/dup.csv"
refused c "$TMP/dup.csv" "a duplicated err_fro_rel column" "$TMP/dup.csv:1: column err_fro_rel is field $(col err_fro_rel) and field 51"
sed '1s/,case,/,note,/' "$C" >"$TMP/dup.csv"
refused c "$TMP/dup.csv" "a column renamed to another's name" "$TMP/dup.csv:1: column note is field $(col note) and field $(col case)"

# Duplicated case_id rows: thirty failing rows then thirty
# clean copies.
{ head -n 31 "$C" | sed '2,$s/,ok,/,error,/'; sed -n '2,31p' "$C"; } >"$TMP/dupid.csv"
refused c "$TMP/dupid.csv" "thirty failing rows then their clean copies" "$TMP/dupid.csv:32: case_id $(sed -n 2p "$C" | cut -d, -f3) is also on line 2"
{ cat "$B"; sed -n "${LA}p" "$B"; } >"$TMP/dupid.csv"
refused b "$TMP/dupid.csv" "one row twice in the baseline" "$TMP/dupid.csv:128: case_id $A is also on line $LA"

# The header: missing, unknown, reordered, renamed columns; a BOM; another
# program's CSV; a second header inside.
sed '1s/,out_hash,/,hash,/' "$C" >"$TMP/h.csv"
refused c "$TMP/h.csv" "out_hash renamed" "$TMP/h.csv:1: its header is not mpbench's: column 'hash' (field $(col out_hash))"
awk -F, -v c="$(col out_hash)" '{ s = ""; for (i = 1; i <= NF; i++) if (i != c) s = s (i > 1 && s != "" ? "," : "") $i; print s }' "$C" >"$TMP/h.csv"
refused c "$TMP/h.csv" "out_hash removed" "$TMP/h.csv:1: its header is not mpbench's: no column 'out_hash'"
awk -F, -v OFS=, -v a="$(col err_fro_rel)" -v b="$(col err_max_rel)" '{ t = $a; $a = $b; $b = t } 1' "$C" >"$TMP/h.csv"
refused c "$TMP/h.csv" "two columns swapped (header and rows)" "$TMP/h.csv:1: its header is not mpbench's: field $(col err_fro_rel) is 'err_max_rel'"
sed -e '1s/$/,extra/' -e '2,$s/$/,1/' "$C" >"$TMP/h.csv"
refused c "$TMP/h.csv" "an unknown column appended" "$TMP/h.csv:1: its header is not mpbench's: column 'extra' (field 51)"
printf '\357\273\277' | cat - "$C" >"$TMP/h.csv"
refused c "$TMP/h.csv" "a UTF-8 byte-order mark" "$TMP/h.csv:1: a UTF-8 byte-order mark"
{ cat "$C"; head -n 1 "$C"; } >"$TMP/h.csv"
refused c "$TMP/h.csv" "a second header (two files concatenated)" "$TMP/h.csv:128: column schema_version (field 1): 'schema_version'"
printf 'a,b\n1,2\n' >"$TMP/h.csv"
refused c "$TMP/h.csv" "a foreign CSV" "$TMP/h.csv:1: its header is not mpbench's"
head -n 3 "$ROOT/results/h200/tune/tune-smoke.csv" >"$TMP/h.csv"
refused c "$TMP/h.csv" "mpbench tune's CSV" "$TMP/h.csv:1: its header is not mpbench's"

# Lines and bytes: CRLF, an empty line, a NUL, a truncated last record, a
# missing or extra field, an open quote, no line end, binary bytes.
sed 's/$/\r/' "$C" >"$TMP/l.csv"
refused c "$TMP/l.csv" "CR LF line ends" "$TMP/l.csv:1: a carriage return"
sed "${LA}s/,ok,/,ok\r,/" "$C" >"$TMP/l.csv"
refused c "$TMP/l.csv" "a CR inside a line" "$TMP/l.csv:$LA: a carriage return"
sed '5s/^/\n/' "$C" >"$TMP/l.csv"
refused c "$TMP/l.csv" "an empty line" "$TMP/l.csv:5: an empty line"
{ cat "$C"; echo; } >"$TMP/l.csv"
refused c "$TMP/l.csv" "an empty last line" "$TMP/l.csv:128: an empty line"
awk -v l="$LA" 'NR == l { printf "%s", substr($0, 1, 40); printf "%c", 0; print substr($0, 41); next } 1' "$C" >"$TMP/l.csv"
refused c "$TMP/l.csv" "a NUL byte" "$TMP/l.csv:$LA: a NUL byte"
{ cat "$C"; tail -n 1 "$C" | head -c 60; } >"$TMP/l.csv"
refused c "$TMP/l.csv" "a truncated last record" "$TMP/l.csv:128: no line end"
head -c -1 "$C" >"$TMP/l.csv"
refused c "$TMP/l.csv" "the last line end cut" "$TMP/l.csv:127: no line end"
sed "${LA}s/,ok,/,ok,,/" "$C" >"$TMP/l.csv"
refused c "$TMP/l.csv" "an extra field" "$TMP/l.csv:$LA: 51 fields, the header has 50"
sed "${LA}s/,ok,/,/" "$C" >"$TMP/l.csv"
refused c "$TMP/l.csv" "a missing field" "$TMP/l.csv:$LA: 49 fields, the header has 50"
sed "${LA}s/,ok,/,\"ok,/" "$C" >"$TMP/l.csv"
refused c "$TMP/l.csv" "an open quote" "$TMP/l.csv:$LA: a quote that never closes"
head -c 3000 /dev/zero | tr '\0' '\377' >"$TMP/l.csv"
refused c "$TMP/l.csv" "binary bytes" "$TMP/l.csv:1:"
: >"$TMP/l.csv"
refused c "$TMP/l.csv" "an empty file" "$TMP/l.csv: empty"
refused c "$TMP" "a directory" "$TMP: cannot read"
refused c "$TMP/none.csv" "no such file" "$TMP/none.csv: cannot read"

# Files that read but cannot pass: header only on either side, a case lost,
# another GPU.
head -n 1 "$C" >"$TMP/ho.csv"
expect 1 "nothing was compared" "a header-only candidate" -- gate --baseline "$B" --candidate "$TMP/ho.csv"
expect 1 "nothing was compared" "a header-only baseline" -- gate --baseline "$TMP/ho.csv" --candidate "$C"
grep -v ",$A," "$C" >"$TMP/lost.csv"
expect 1 "| MISSING |" "a case dropped from the candidate" -- gate --baseline "$B" --candidate "$TMP/lost.csv"
setcell "$C" $A gpu_name "NVIDIA H100" "$TMP/gpu.csv"
expect 1 "| INCOMPARABLE |" "another GPU on one case" -- gate --baseline "$B" --candidate "$TMP/gpu.csv"

[ "$fails" = 0 ] || { echo "$fails of $checks check(s) failed"; exit 1; }
echo "test_gate_corrupt: all $checks checks passed"
