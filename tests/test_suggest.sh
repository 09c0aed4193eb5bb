#!/bin/sh
# "did you mean": an unknown scheme, generator, command or long option that
# is a typo of a known one gets that one suggested; a far-off one gets no
# suggestion. Either way the exit is 2 and the message names what was typed.
# Usage: test_suggest.sh MPBENCH
set -u
MPB=${1:?usage: test_suggest.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"

# expect NEEDLE -- ARGS...: exit 2, NEEDLE on stderr ("" for no suggestion,
# then stderr must not suggest anything).
expect() {
    needle=$1
    shift 2
    "$MPB" "$@" >out 2>err
    got=$?
    if [ "$got" != 2 ]; then
        fail "mpbench $*: exit $got, expected 2 ($(head -c 300 err))"
    elif [ -n "$needle" ] && ! grep -qF -- "$needle" err; then
        fail "mpbench $*: stderr lacks \"$needle\": $(head -c 300 err)"
    elif [ -z "$needle" ] && grep -q "did you mean" err; then
        fail "mpbench $*: a far-off word got a suggestion: $(head -c 300 err)"
    fi
}
run="-g phi --size 4 --backend host --dry-run"
expect "-s 'dgem': unknown scheme; did you mean 'dgemm'?" -- run -s dgem $run
expect "-s 'ozaki2_int': unknown scheme; did you mean 'ozaki2_int8'?" -- run -s sgemm,ozaki2_int $run
expect "-s 'DGEMM': unknown scheme; did you mean 'dgemm'?" -- run -s DGEMM $run
expect "--levels 'sgem': unknown scheme; did you mean 'sgemm'?" -- tune -c micro3 --size 8 --levels sgem --threshold 1
expect "-g 'phii': unknown generator; did you mean 'phi'?" -- run -s dgemm -g phii --size 4 --backend host --dry-run
expect "unknown command 'rn'; did you mean 'run'?" -- rn -s dgemm
expect "unknown command 'grdae'; did you mean 'grade'?" -- grdae
expect "unknown option '--sise'; did you mean '--size'?" -- run -s dgemm -g phi --sise 4
expect "unknown option '--resum'; did you mean '--resume'?" -- run -s dgemm $run --resum
expect "unknown option '--progres=always'; did you mean '--progress'?" -- run -s dgemm $run --progres=always
expect "unknown option '--quik'; did you mean '--quick'?" -- grade -s dgemm --quik
expect "unknown option '--baselin'; did you mean '--baseline'?" -- gate --baselin a.csv
expect "unknown option '--thresholds'; did you mean '--threshold'?" -- tune --thresholds 1
expect "unknown option '--allow-partal'; did you mean '--allow-partial'?" -- merge --allow-partal out.csv a.csv
# far off: named, nothing suggested
expect "" -- run -s nonsense $run
grep -qF "'nonsense': unknown scheme" err || fail "the unknown scheme is not named: $(cat err)"
expect "" -- run -s dgemm -g qqqqq --size 4 --backend host --dry-run
grep -qF "'qqqqq': unknown generator" err || fail "the unknown generator is not named: $(cat err)"
expect "" -- xyzzy
grep -qF "unknown command 'xyzzy'" err || fail "the unknown command is not named: $(cat err)"
expect "" -- run -s dgemm $run --zzzzzz
grep -qF "unknown option '--zzzzzz'" err || fail "the unknown option is not named: $(cat err)"
# a hidden command is never offered
expect "" -- rnk
expect "" -- run -s dgemm $run --workr 0,x

[ "$fails" = 0 ] || exit 1
echo "test_suggest: ok"
