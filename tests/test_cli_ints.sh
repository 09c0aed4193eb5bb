#!/bin/sh
# Issue 28, defect 1: every integer option of every subcommand is read at
# its full width and in mpbench's own grammar (digits, an optional '-'), and
# a token out of range or not an integer is refused (exit 2, the option and
# the token named) before any file is touched: the existing --csv FILE and
# its .meta.json stay byte for byte as they were. `--shard 0/4294967296`
# was cut to 32 bits (0/0) and died of SIGFPE after truncating FILE.
# Usage: test_cli_ints.sh MPBENCH
set -u
MPB=${1:?usage: test_cli_ints.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"

# Outputs to keep: a finished run's CSV and sidecar, and stand-ins for the others.
"$MPB" run -s dgemm -g randn --size 4,5 --backend host --csv run.csv >/dev/null 2>&1 || fail "the first run exited $?"
for f in grade.csv tune.csv probe.csv; do
    echo "kept $f" >$f
    echo "kept $f.meta.json" >$f.meta.json
done
for f in run.csv grade.csv tune.csv probe.csv; do
    cp $f $f.orig
    cp $f.meta.json $f.meta.json.orig
done

# refused OPTION TOKEN CSV -- ARGS...: exit 2, stderr names "OPTION 'TOKEN'",
# and CSV (with its sidecar) unchanged.
refused() {
    opt=$1; token=$2; csv=$3; shift 4
    "$MPB" "$@" >out 2>err
    rc=$?
    if [ "$rc" != 2 ]; then
        fail "mpbench $*: exit $rc, expected 2 ($(head -c 300 err))"
    elif ! grep -qF -- "$opt '$token'" err; then
        fail "mpbench $*: stderr does not name $opt '$token': $(head -c 300 err)"
    fi
    { cmp -s "$csv" "$csv.orig" && cmp -s "$csv.meta.json" "$csv.meta.json.orig"; } ||
        { fail "mpbench $*: $csv or its sidecar changed"; cp "$csv.orig" "$csv"; cp "$csv.meta.json.orig" "$csv.meta.json"; }
}

run="run -s dgemm -g randn --size 4,5 --backend host --csv run.csv"
for t in 0/4294967296 0/4294967297 1/4294967297 0/48888888888888 0/18446744073709551617 \
    -1/4 4/4 0/0 " 0/4" "0/ 4" +0/4 0/4x 0x1/4 0/2147483648 1.0/4 /4 0/; do
    # shellcheck disable=SC2086 # $run is split on blanks, as meant
    refused --shard "$t" run.csv -- $run --shard "$t"
    # shellcheck disable=SC2086
    refused --shard "$t" run.csv -- $run --resume --shard="$t"
done
for o in --reps --warmup --warmup-ms --energy-min-ms --ref-samples; do
    for t in 4294967297 99999999999999999999 -1 " 5" +5 5x 0x10 1e3; do
        # shellcheck disable=SC2086
        refused $o "$t" run.csv -- $run $o "$t"
    done
done
# shellcheck disable=SC2086
refused --energy-min-ms 600001 run.csv -- $run --energy-min-ms 600001
for t in 4294967296 99999999999999999999 " 1" +1 -1 1x; do
    # shellcheck disable=SC2086
    refused --devices "$t" run.csv -- $run --devices "$t"
done
for o in --m --n --k; do
    # shellcheck disable=SC2086
    refused $o 4294967297 run.csv -- $run $o 4294967297
done
refused --size 4294967297 run.csv -- run -s dgemm -g randn --size 4294967297 --backend host --csv run.csv
refused --seed 18014398509481984 run.csv -- $run --seed 18014398509481984
refused --seed 18446744073709551617 run.csv -- $run --seed 18446744073709551617
refused --seed -1 run.csv -- $run --seed=-1
refused --size 2^-1 run.csv -- run -s dgemm -g randn --size 2^-1 --backend host --csv run.csv

grade="grade -s dgemm --quick --backend host --csv grade.csv"
for t in 4294967297 99999999999999999999 0 1001 " 3" +3 3x; do
    # shellcheck disable=SC2086
    refused --seeds "$t" grade.csv -- $grade --seeds "$t"
done
# shellcheck disable=SC2086
refused --ref-samples 4294967297 grade.csv -- $grade --ref-samples 4294967297
# shellcheck disable=SC2086
refused --sizes 4294967297 grade.csv -- $grade --sizes 4294967297
for t in 4294967297x1x1 1x1x99999999999999999999 8x8x 8x8x8x8 "8x 8x8" 8x+8x8 8x-1x8 8x0x8 x8x8 8x8x8, 8X8X8; do
    # shellcheck disable=SC2086
    refused --shapes "$t" grade.csv -- $grade --shapes "$t"
done
# shellcheck disable=SC2086
refused --devices 4294967296 grade.csv -- $grade --devices 4294967296

tune="tune -c micro3 --size 8 --levels sgemm --threshold E1 --backend host --csv tune.csv"
refused --size 4294967297 tune.csv -- tune -c micro3 --size 4294967297 --levels sgemm --threshold E1 --backend host \
    --csv tune.csv
for o in --seed --reps --warmup --exhaustive-limit; do
    for t in 18446744073709551617 -1 " 1" 1x; do
        # shellcheck disable=SC2086
        refused $o "$t" tune.csv -- $tune $o "$t"
    done
done
# shellcheck disable=SC2086
refused --seed 9007199254740992 tune.csv -- $tune --seed 9007199254740992

for o in --random --seed; do
    for t in 4294967297 99999999999999999999 -1 " 1" 1x; do
        refused $o "$t" probe.csv -- probe --csv probe.csv $o "$t"
    done
done

# The limits themselves still pass where they should.
"$MPB" run -s dgemm -g randn --size 4 --backend host --shard 2147483646/2147483647 --dry-run >out 2>&1 ||
    fail "--shard 2147483646/2147483647 exited $?: $(cat out)"
grep -q "^0 cases in shard 2147483646/2147483647" out || fail "--shard at INT_MAX: $(cat out)"
"$MPB" run -s dgemm -g randn --size 4 --backend host --shard 0/2147483647 --dry-run >out 2>&1 &&
    grep -q "^1 cases in shard 0/2147483647" out || fail "--shard 0/2147483647: $(cat out)"
"$MPB" grade -s dgemm --backend host --sizes 8 --shapes 8x4x2 --seeds 1 --csv g2.csv >/dev/null 2>&1 ||
    fail "--shapes 8x4x2 exited $?"

[ "$fails" = 0 ] && echo "ok: test_cli_ints"
exit $((fails != 0))
