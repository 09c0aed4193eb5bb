#!/bin/sh
# Issue 28, item 8: an option given twice is refused (exit 2, naming it)
# instead of the second silently replacing the first, except those that add
# (-s, -g, -a, --tag, tune's --levels); and a command whose standard output
# cannot be written (a full disk: /dev/full) exits 3 saying so, whatever
# the command (one check in main.c when the command returns).
# Usage: test_cli_output.sh MPBENCH
set -u
MPB=${1:?usage: test_cli_output.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"

# expect CODE NEEDLE -- ARGS...: exit code CODE and NEEDLE on stderr.
expect() {
    code=$1; needle=$2; shift 3
    "$MPB" "$@" >out 2>err
    got=$?
    if [ "$got" != "$code" ]; then
        fail "mpbench $*: exit $got, expected $code ($(head -c 300 err))"
    elif [ -n "$needle" ] && ! grep -qF -- "$needle" err; then
        fail "mpbench $*: stderr lacks '$needle': $(head -c 300 err)"
    fi
}

"$MPB" run -s dgemm -g randn --size 4 --backend host --csv base.csv >/dev/null 2>&1 || fail "the base run exited $?"
cp base.csv base.csv.orig

# Repeated options: refused before anything runs or is written.
tw="is given twice"
expect 2 "--size $tw" -- run -s dgemm -g randn --size 4 --size 8 --backend host --csv new.csv
[ ! -e new.csv ] || fail "a refused run created new.csv"
expect 2 "--size $tw" -- run -s dgemm -g randn --size=4 --size 8 --backend host --dry-run
expect 2 "--csv $tw" -- run -s dgemm -g randn --size 4 --backend host --csv base.csv --csv other.csv
expect 2 "--resume $tw" -- run -s dgemm -g randn --size 4 --backend host --csv base.csv --resume --resume
expect 2 "--backend $tw" -- run -s dgemm -g randn --size 4 --backend host --backend=cuda --dry-run
cmp -s base.csv base.csv.orig || fail "a refused run changed base.csv"
[ ! -e other.csv ] || fail "a refused run created other.csv"
expect 0 "" -- run -s dgemm -g randn -g phi -a phi=1 --size 4 --backend host --tag a=1 --tag b=2 --dry-run
expect 2 "--seeds $tw" -- grade -s dgemm --quick --backend host --seeds 1 --seeds 2
expect 0 "" -- grade -s dgemm -s sgemm --quick --backend host
tune="-c micro3 --size 8 --backend host --levels bf16 --levels sgemm"
# shellcheck disable=SC2086 # $tune is split on blanks, as meant
expect 2 "--threshold $tw" -- tune $tune --threshold E1 --threshold E2
# shellcheck disable=SC2086
expect 2 "-c is given twice ('micro3', then 'micro6')" -- tune $tune -c micro6 --threshold E1
# shellcheck disable=SC2086
expect 0 "" -- tune $tune --threshold E1
expect 2 "--baseline $tw" -- gate --baseline base.csv --candidate base.csv --baseline base.csv
expect 2 "--seed $tw" -- probe --seed 1 --seed 2
expect 2 "--backend $tw" -- selftest --backend host --backend cuda
expect 2 "--allow-partial $tw" -- merge --allow-partial --allow-partial out.csv base.csv

# stdout that cannot be written: exit 3 and a message, whatever the command.
full() {
    "$MPB" "$@" >/dev/full 2>err
    rc=$?
    [ "$rc" = 3 ] || fail "mpbench $* >/dev/full: exit $rc, expected 3 ($(head -c 300 err))"
    grep -qF "writing to standard output failed" err || fail "mpbench $* >/dev/full: no message: $(head -c 300 err)"
}
if [ -w /dev/full ]; then
    full list
    full list schemes
    full version
    full --help
    full run --help
    full run -s dgemm -g randn --size 4 --backend host --dry-run
    # the CSV itself on stdout: an output checked before the first case (exit 2, nothing ran)
    "$MPB" run -s dgemm -g randn --size 4 --backend host --csv - >/dev/full 2>err
    rc=$?
    [ "$rc" = 2 ] && grep -qF -- "--csv -: cannot write -" err || fail "run --csv - >/dev/full: exit $rc: $(cat err)"
    full run -s dgemm -g randn --size 4 --backend host --csv full.csv
    full grade -s dgemm --quick --backend host
    # shellcheck disable=SC2086
    full tune $tune --threshold E1
    full gate --baseline base.csv --candidate base.csv
    full merge --help
    full replay --help
    full selftest --help
else
    echo "test_cli_output: no writable /dev/full here: the stdout checks are skipped"
fi

[ "$fails" = 0 ] && echo "ok: test_cli_output"
exit $((fails != 0))
