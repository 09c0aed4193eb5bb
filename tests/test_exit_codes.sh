#!/bin/sh
# README "Exit codes": each row of the table, for each subcommand where it
# applies and can be brought about on a machine without a GPU (0 done, 1 a
# wrong result, 2 usage error, 3 runtime error, 77 nothing could run).
# Not here: run's 1 (no scheme reports `incorrect` yet), selftest's and
# grade's 1 (a broken host model), probe's 0, 1 and 3 (a GPU). Where a GPU
# is usable the rows "--backend cuda without a GPU" are skipped.
# Usage: test_exit_codes.sh MPBENCH
set -u
MPB=${1:?usage: test_exit_codes.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"

# code N CMD ARGS...: mpbench CMD ARGS exits N (stdout and stderr in out, err).
code() {
    want=$1
    shift
    "$MPB" "$@" >out 2>err
    got=$?
    [ "$got" = "$want" ] || fail "mpbench $*: exit $got, expected $want ($(head -c 300 err))"
}
# full N CMD ARGS...: the same with stdout on /dev/full.
full() {
    want=$1
    shift
    "$MPB" "$@" >/dev/full 2>err
    got=$?
    [ "$got" = "$want" ] || fail "mpbench $* >/dev/full: exit $got, expected $want ($(head -c 300 err))"
}
gpu=0
"$MPB" run -s dgemm -g randn --size 4 --backend cuda --csv probe-gpu.csv >/dev/null 2>&1 && gpu=1
[ -w /dev/full ] || echo "test_exit_codes: no writable /dev/full: the rows that need it are skipped"
nofull() { [ ! -w /dev/full ]; }

# list, version: 0, 2, 3.
code 0 list
code 2 list bogus
nofull || full 3 list
code 0 version
code 2 version extra
nofull || full 3 version

# run: 0, 2, 3, 77.
host="-s dgemm -g randn --size 4,5 --backend host"
# shellcheck disable=SC2086 # $host is split on blanks, as meant
code 0 run $host --csv run.csv
# shellcheck disable=SC2086
code 2 run $host --shard 0/4294967296
# shellcheck disable=SC2086
code 2 run $host --size 4 --csv run2.csv
code 2 run -s dgemm -g randn --size 4 --backend host --csv run.csv --resume --shard 1/2
# an input refused before anything runs: -g file's matrix (a .npy file cut after its magic)
printf '\223NUMPY\001\000' >cut.npy
code 2 run -s dgemm -g file -a a=cut.npy -a b=cut.npy --backend host --csv run3.csv
[ -e run3.csv ] && fail "run -g file with a malformed file: run3.csv was made"
# a case with status=error: a --devices worker that dies (stand-in GPUs; grade's too)
export MPBENCH_DEVICES_STANDIN=2 MPBENCH_DEVICES_STANDIN_EXIT=1:1
code 3 run -s dgemm -g randn --size 4,5,6,7 --devices 0,1 --csv dead.csv
code 3 grade -s sgemm -s dgemm --quick --devices 0,1
unset MPBENCH_DEVICES_STANDIN MPBENCH_DEVICES_STANDIN_EXIT
# shellcheck disable=SC2086
nofull || full 3 run $host --dry-run
code 77 run -s cublas_fp64emu -g randn --size 4 --backend host
[ "$gpu" = 1 ] || code 77 run -s dgemm -g randn --size 4 --backend cuda

# grade: 0, 2, 3, 77.
code 0 grade -s dgemm --quick --backend host
code 2 grade -s dgemm --quick --backend host --seeds 0
code 2 grade --quick
nofull || full 3 grade -s dgemm --quick --backend host
code 77 grade -s cublas_fp64emu --quick --backend host
[ "$gpu" = 1 ] || code 77 grade -s dgemm --quick --backend cuda

# tune: 0, 2, 3, 77.
tune="-c micro3 --size 8 --backend host --levels bf16,sgemm --threshold E1 --strategy motuner"
# shellcheck disable=SC2086
code 0 tune $tune
# shellcheck disable=SC2086
code 2 tune $tune --margin 2
# a cost file without a level's time: error rows
printf 'scheme,params,m,n,k,time_ms_median,status\nsgemm,,8,8,8,1.0,ok\n' >costs.csv
# shellcheck disable=SC2086
code 3 tune $tune --cost-model costs.csv
# shellcheck disable=SC2086
nofull || full 3 tune $tune
# (under an 8 GB address-space limit where the build starts under one, so that a
# build without the memory check fails fast instead of filling the machine)
if (ulimit -v 8000000 && "$MPB" version) >/dev/null 2>&1; then
    (ulimit -v 8000000 && exec "$MPB" tune -c micro3 --size 46341 --backend host --levels sgemm --threshold E1) \
        >out 2>err
    got=$?
else
    "$MPB" tune -c micro3 --size 46341 --backend host --levels sgemm --threshold E1 >out 2>err
    got=$?
fi
[ "$got" = 77 ] || fail "tune too large for the machine: exit $got, expected 77 ($(head -c 300 err))"
[ "$gpu" = 1 ] || code 77 tune -c micro3 --size 8 --backend cuda --levels sgemm --threshold E1

# selftest: 0 (--help: the host models' run is selftest_host's), 2, 3, 77.
code 0 selftest --help
code 2 selftest --backend gpu
nofull || full 3 selftest --help
[ "$gpu" = 1 ] || code 77 selftest --backend cuda

# probe: 2, 77 (it needs a GPU).
code 2 probe --random 4294967297
[ "$gpu" = 1 ] || code 77 probe --random 1

# gate: 0 PASS, 1 FAIL, 2 usage, 3 an unreadable or malformed input.
code 0 gate --baseline run.csv --candidate run.csv
# shellcheck disable=SC2086
"$MPB" run $host --csv one.csv --shard 0/2 >/dev/null 2>&1
code 1 gate --baseline run.csv --candidate one.csv
code 2 gate --baseline run.csv
code 3 gate --baseline run.csv --candidate missing.csv
awk -F, -v OFS=, 'NR == 2 { $38 = "bogus" } { print }' run.csv >bad.csv
code 3 gate --baseline run.csv --candidate bad.csv
nofull || full 3 gate --baseline run.csv --candidate run.csv

# merge: 0, 2, 3 (out of memory, where the build starts under an address-space limit).
# shellcheck disable=SC2086
"$MPB" run $host --csv two.csv --shard 1/2 >/dev/null 2>&1
code 0 merge merged.csv one.csv two.csv
code 2 merge merged2.csv one.csv
mkfifo fifo.csv
code 2 merge fifo.csv one.csv two.csv
sed 's/"--size", "4,5"/"--size", "1:100000", "--seed", "1:20"/' one.csv.meta.json >huge.csv.meta.json
cp one.csv huge.csv
if (ulimit -v 1500000 && "$MPB" version) >/dev/null 2>&1; then
    (ulimit -v 1500000 && exec "$MPB" merge --allow-partial merged3.csv huge.csv) >out 2>err
    got=$?
    [ "$got" = 3 ] || fail "merge out of memory: exit $got, expected 3 ($(head -c 300 err))"
fi
nofull || full 3 merge merged4.csv one.csv two.csv

[ "$fails" = 0 ] && echo "ok: test_exit_codes"
exit $((fails != 0))
