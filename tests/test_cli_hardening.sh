#!/bin/sh
# Issue 15, "The command line and the CSV": messages that name what the user
# typed, no silent change to the input, a failing case said on stderr, no
# case written twice, every output checked before the first case.
# Usage: test_cli_hardening.sh path/to/mpbench
set -u
MPB=$1
TMP=$(mktemp -d)
trap 'chmod -R u+w "$TMP"; rm -rf "$TMP"' EXIT
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# expect CODE NEEDLE -- ARGS...: exit code CODE and NEEDLE in stdout+stderr
# ($TMP/out holds both, $TMP/stdout and $TMP/stderr each).
expect() {
    code=$1; needle=$2; shift 3
    "$MPB" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
    got=$?
    cat "$TMP/stdout" "$TMP/stderr" >"$TMP/out"
    if [ "$got" != "$code" ]; then
        fail "mpbench $*: exit $got, expected $code"; sed 's/^/    /' "$TMP/out"
    elif ! grep -qF -- "$needle" "$TMP/out"; then
        fail "mpbench $*: output lacks '$needle'"; sed 's/^/    /' "$TMP/out"
    fi
}

# Messages name what the user typed.
expect 2 "-s '1e-400': unknown scheme" -- run -s 1e-400 -g randn --size 4 --backend host
expect 2 "-s '2^-1': unknown scheme" -- run -s dgemm,2^-1 -g randn --size 4 --backend host
expect 2 "-g '2^-1': unknown generator" -- run -s dgemm -g 2^-1 --size 4 --backend host
expect 2 "'1e-400' underflows to 0" -- run -s dgemm -g phi -a phi=1e-400 --size 4 --backend host
expect 2 "'1e400' overflows" -- run -s dgemm -g phi -a phi=1e400 --size 4 --backend host
expect 2 "--backend needs a value" -- selftest --backend
expect 2 "--csv needs a value (the next argument, '--resume', is an option)" -- \
    run -s dgemm -g randn --size 4 --backend host --csv --resume
[ ! -e ./--resume ] || { rm -f ./--resume; fail "--csv --resume wrote a file named --resume"; }
expect 2 "unexpected argument '-a' (usage: mpbench list [schemes|generators])" -- list generators -a foo
expect 2 "unknown option '--bogus'" -- version --bogus
expect 2 "unexpected argument 'extra'" -- version extra
expect 0 "usage: mpbench version" -- version --help
expect 0 "mpbench " -- version

# No silent change to the input: a seed is an integer as typed or refused;
# a real keeps its value (shortest round trip); a tag is never cut.
expect 2 "--seed '9007199254740993': '9007199254740993' is not exactly representable" -- \
    run -s dgemm -g randn --size 4 --backend host --seed 9007199254740993 --dry-run
expect 0 "--seed 9007199254740992 " -- run -s dgemm -g randn --size 4 --backend host --seed 2^53 --dry-run
expect 0 "hi=0.12345678901234566 " -- \
    run -s dgemm -g uniform -a hi=0.12345678901234567 --size 4 --backend host --dry-run
long=$(printf 'k=%01100d' 0)
expect 2 "limit 1023" -- run -s dgemm -g randn --size 4 --backend host --tag "$long" --dry-run
expect 2 "limit 1023" -- run -s dgemm -g randn --size 4 --backend host --tag "a=$(printf '%0600d' 0)" \
    --tag "b=$(printf '%0600d' 0)" --dry-run
expect 0 "1 cases" -- run -s dgemm -g randn --size 4 --backend host --tag "a=$(printf '%01019d' 0)" --dry-run

# A failing case says why on stderr (its status, case string and note), with
# or without --progress; stdout keeps only the CSV.
expect 77 "mpbench run: not_supported: -s cublas_fp64emu -a strategy=eager" -- \
    run -s cublas_fp64emu -g randn --size 4 --backend host --progress never
grep -qF -- "--backend host: cublas_fp64emu has no host model" "$TMP/stderr" || fail "the failing case's note is not on stderr"
{ [ "$(wc -l <"$TMP/stdout")" = 2 ] && head -n 1 "$TMP/stdout" | grep -q '^schema_version,'; } ||
    fail "stdout holds more than the CSV"
expect 0 "mpbench run: not_supported: -s cublas_fp64emu" -- \
    run -s dgemm,cublas_fp64emu -g randn --size 4 --backend host --progress always --csv "$TMP/mixed.csv"
[ "$(grep -c '^mpbench run: not_supported: ' "$TMP/stderr")" = 1 ] || fail "not one failure line for one failing case"
"$MPB" run -s dgemm -g randn --size 100000 --backend host --csv "$TMP/huge.csv" >"$TMP/stdout" 2>"$TMP/stderr"
got=$?
{ [ "$got" = 3 ] || [ "$got" = 77 ]; } || fail "--size 100000 on the host: exit $got, expected 3 or 77"
grep -qE '^mpbench run: (error|not_supported): -s dgemm -g randn --m 100000 --n 100000 --k 100000 .*: .' "$TMP/stderr" ||
    { fail "--size 100000: no failure line on stderr"; sed 's/^/    /' "$TMP/stderr"; }

# An impossible generator parameter is a usage error, named with its value.
expect 2 "-g uniform: hi=1 is below lo=5" -- run -s dgemm -g uniform -a lo=5 -a hi=1 --size 4 --backend host --dry-run
expect 2 "-g uniform: hi=1 is below lo=5" -- \
    run -s dgemm -g uniform -a lo=0,5 -a hi=1 --size 4 --backend host --csv "$TMP/u.csv"
[ ! -e "$TMP/u.csv" ] || fail "an impossible generator parameter still wrote $TMP/u.csv"

# grade where no case can run: says so, no empty rerun line, no nan slopes.
for args in "-s cublas_fp64emu --backend host --quick" "-s dgemm --sizes 100000 --shapes none --backend host --quick"; do
    # shellcheck disable=SC2086
    "$MPB" grade $args >"$TMP/stdout" 2>"$TMP/stderr"
    got=$?
    { [ "$got" = 3 ] || [ "$got" = 77 ]; } || fail "grade $args: exit $got, expected 3 or 77"
    grep -qF "no case ran" "$TMP/stdout" || fail "grade $args: the table does not say that no case ran"
    grep -qF "no case of " "$TMP/stderr" || fail "grade $args: stderr does not say that no case ran"
    ! grep -qF "nan" "$TMP/stdout" || fail "grade $args: nan in the table"
    ! grep -qE "mpbench run *$" "$TMP/stdout" || fail "grade $args: an empty rerun line"
done
expect 77 "cublas_fp64emu has no host model" -- grade -s cublas_fp64emu --backend host --quick

# The same case twice in one expansion runs once, and stderr says so.
expect 0 "1 cases" -- run -s dgemm -g randn --size 8,8 --backend host --dry-run
grep -qF "1 duplicate case dropped" "$TMP/stderr" || fail "--size 8,8: no word of the dropped duplicate"
expect 0 "2 cases" -- run -s dgemm -s dgemm,sgemm -g randn -g randn --size 8 --seed 3,3 --backend host --dry-run
grep -qF "10 duplicate cases dropped" "$TMP/stderr" || fail "-s dgemm -s dgemm,sgemm ...: duplicates not counted"
expect 0 "err_fro" -- run -s dgemm -s dgemm -g randn --size 8,8 --backend host --csv "$TMP/dup.csv"
[ "$(wc -l <"$TMP/dup.csv")" = 2 ] || fail "--size 8,8 -s dgemm -s dgemm wrote $(($(wc -l <"$TMP/dup.csv") - 1)) rows, expected 1"
expect 0 "4 cases in shard 0/2 (8 in all)" -- run -s dgemm,sgemm -g randn --size 8,8,9 --seed 1,2,1 --backend host --dry-run --shard 0/2

# Two runs on one CSV: the second is refused (the first holds a lock on it)
# and writes nothing; the first finishes alone. The first run lasts 10 s
# (2.5 s of warm-up per case) and is given 30 s to start, so that a loaded
# machine (sanitizer builds, parallel tests) still sees the two overlap.
LOCKED="$TMP/locked.csv"
"$MPB" run -s dgemm -g randn --size 1 --seed 1:4 --warmup-ms 2500 --backend host --csv "$LOCKED" >"$TMP/first.out" 2>&1 &
first=$!
i=0
while [ ! -s "$LOCKED" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
expect 2 "$LOCKED is being written by another mpbench run" -- \
    run -s dgemm -g randn --size 1 --seed 1:4 --backend host --csv "$LOCKED" --resume
expect 2 "$LOCKED is being written by another mpbench run" -- \
    run -s dgemm -g randn --size 1 --seed 1:4 --backend host --csv "$LOCKED"
wait $first || fail "the first run on $LOCKED failed: $(cat "$TMP/first.out")"
[ "$(wc -l <"$LOCKED")" = 5 ] || fail "$LOCKED holds $(($(wc -l <"$LOCKED") - 1)) rows, expected 4"
[ "$(grep -c '"run_id"' "$LOCKED.meta.json")" = 1 ] || fail "the refused run wrote into $LOCKED.meta.json"

# --resume refuses a data row whose schema_version is not the header's.
sed '2s/^[0-9]*,/1,/' "$LOCKED" >"$TMP/mixed-schema.csv"
expect 2 "$TMP/mixed-schema.csv:2: schema_version '1'" -- \
    run -s dgemm -g randn --size 1 --seed 1:5 --backend host --csv "$TMP/mixed-schema.csv" --resume
[ "$(wc -l <"$TMP/mixed-schema.csv")" = 5 ] || fail "the refused --resume changed $TMP/mixed-schema.csv"

# Every output is checked before the first case: an unusable --dump DIR or
# FILE.meta.json is a usage error (2), no case runs and FILE is untouched.
echo keep >"$TMP/out.csv"
: >"$TMP/plainfile"
expect 2 "--dump $TMP/plainfile: " -- run -s dgemm -g randn --size 4 --backend host --csv "$TMP/out.csv" --dump "$TMP/plainfile"
[ "$(cat "$TMP/out.csv")" = keep ] || fail "--dump into a file: the CSV was rewritten"
if [ -d /proc/self ]; then
    expect 2 "--dump /proc/self: cannot write in it" -- \
        run -s dgemm -g randn --size 4 --backend host --csv "$TMP/out.csv" --dump /proc/self
    [ "$(cat "$TMP/out.csv")" = keep ] || fail "--dump /proc/self: the CSV was rewritten"
fi
if [ "$(id -u)" != 0 ]; then
    mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
    expect 2 "--dump $TMP/ro: cannot write in it" -- \
        run -s dgemm -g randn --size 4 --backend host --csv "$TMP/out.csv" --dump "$TMP/ro"
fi
mkdir "$TMP/meta.csv.meta.json"
expect 2 "cannot write $TMP/meta.csv.meta.json" -- run -s dgemm -g randn --size 4 --backend host --csv "$TMP/meta.csv"
[ ! -e "$TMP/meta.csv" ] || fail "an unwritable meta.json still wrote the CSV"

# RFC 4180: --resume reads a record whose quoted note spans lines as one row.
expect 0 "err_fro" -- run -s dgemm -g randn --size 4 --seed 1:3 --backend host --csv "$TMP/nl.csv"
awk -F, -v OFS=, 'NR == 2 { $39 = "\"first" "\n" "second, line\"" } 1' "$TMP/nl.csv" >"$TMP/nl2.csv" && mv "$TMP/nl2.csv" "$TMP/nl.csv"
expect 0 "3 cases already in" -- run -s dgemm -g randn --size 4 --seed 1:3 --backend host --csv "$TMP/nl.csv" --resume
[ "$(wc -l <"$TMP/nl.csv")" = 5 ] || fail "--resume of a multi-line record: $(wc -l <"$TMP/nl.csv") lines, expected 5"

echo "$fails failed"
[ "$fails" = 0 ]
