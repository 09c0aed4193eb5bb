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

echo "$fails failed"
[ "$fails" = 0 ]
