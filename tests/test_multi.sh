#!/bin/sh
# A GEMM over several processes (src/case/multi.c) on the host backend: mp_dgemm
# split over 1 to 6 parts, on grids of every shape the parts allow and
# blocks that leave parts empty, partial or whole, gives dgemm's output bits
# on awkward shapes (its host model is dgemm's per entry, so any block
# generated, gathered or placed wrong changes out_hash); the row names the
# grid; with the reference its errors are dgemm's; a part that dies costs
# only its case; bad grids and mp_fp64emu on the host are not_supported with their
# reason, and `mpbench rank` refuses a user.
# Usage: test_multi.sh MPBENCH
set -u
MPB=${1:?usage: test_multi.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"
# m n k out_hash status per row, in file order
results() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             { print $c["m"], $c["n"], $c["k"], $c["out_hash"], $c["status"] }' "$1"
}
shapes="--m 1,33 --n 7,65 --k 1,127 --seed 2 --progress never --backend host --ref none"
"$MPB" run -s dgemm -g randn $shapes --csv dgemm.csv >/dev/null 2>&1 || fail "dgemm run exited $?"
results dgemm.csv | sort >dgemm.res
[ "$(wc -l <dgemm.res)" -eq 8 ] || fail "dgemm: $(wc -l <dgemm.res) rows, expected 8"
for grid in "gpus=1 -a prows=0" "gpus=2 -a prows=1,2" "gpus=3 -a prows=0" "gpus=4 -a prows=0" "gpus=6 -a prows=2,3"; do
    rm -f mp.csv mp.csv.meta.json
    # shellcheck disable=SC2086
    "$MPB" run -s mp_dgemm -a $grid -a block=1,16 -g randn $shapes --csv mp.csv >/dev/null 2>mp.err ||
        fail "mp_dgemm -a $grid exited $?: $(cat mp.err)"
    results mp.csv | sort -u >mp.res
    cmp -s dgemm.res mp.res || fail "mp_dgemm -a $grid: rows differ from dgemm's: $(diff dgemm.res mp.res | head -5)"
done

# with the reference: the errors and grade are dgemm's (A, B and C kept from the parts' blocks)
"$MPB" run -s dgemm -s mp_dgemm -a gpus=3 -a block=4 -g phi --m 33 --n 20 --k 17 --backend host --progress never \
    --csv ref.csv >/dev/null 2>&1 || fail "dgemm and mp_dgemm with the reference exited $?"
[ "$(wc -l <ref.csv)" -eq 3 ] || fail "the reference run has $(($(wc -l <ref.csv) - 1)) rows, expected 2"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
         { print $c["err_fro_rel"], $c["err_max_rel"], $c["grade"], $c["out_hash"] }' ref.csv | sort -u >ref.res
[ "$(wc -l <ref.res)" -eq 1 ] || fail "mp_dgemm's errors differ from dgemm's: $(cat ref.res)"
grep -q ',A,' ref.csv || fail "no grade A in the reference rows"

# a part that dies costs its case only: an error row naming it, the next case runs
rc=0
MPBENCH_MULTI_PART_EXIT=2 "$MPB" run -s mp_dgemm -a gpus=3,1 -g randn --size 16 --backend host --ref none \
    --progress never --csv dead.csv >/dev/null 2>&1 || rc=$?
[ $rc -eq 3 ] || fail "a dead part: exit $rc, expected 3"
grep -q 'error,part 2 of 3: the part.s process ended before it was ready' dead.csv ||
    fail "a dead part: no error row naming part 2: $(cat dead.csv)"
[ "$(grep -c ',ok,' dead.csv)" -eq 1 ] || fail "a dead part: the one-part case did not run"

# a part whose grid does not fit the parts, and the emulation on the host
"$MPB" run -s mp_dgemm -a gpus=4 -a prows=3 -g randn --size 8 --backend host --csv bad.csv >/dev/null 2>&1
grep -q 'not_supported.*prows=3 does not divide gpus=4' bad.csv || fail "prows=3 with gpus=4 is not refused"
"$MPB" run -s mp_fp64emu -g randn --size 8 --backend host --csv emu.csv >/dev/null 2>&1
grep -q 'not_supported.*no host model' emu.csv || fail "mp_fp64emu on the host is not not_supported"

# the hidden part command is not for users
rc=0
"$MPB" rank </dev/null >/dev/null 2>rank.err || rc=$?
[ $rc -eq 2 ] || fail "mpbench rank from a user exited $rc, expected 2"
grep -q 'not for users' rank.err || fail "mpbench rank does not say it is internal"
[ $fails -eq 0 ] && echo "test_multi: ok"
exit $((fails > 0))
