#!/bin/sh
# scripts/slurm-sweep with a stand-in for sbatch (tests/sbatch-standin.sh,
# which runs each job locally when it is submitted): a host sweep as a job
# array of 3 tasks and a merge job after it gives the rows of an unsharded
# run, in its order; the options reach the right jobs; a killed task is
# finished by submitting again; bad arguments submit nothing.
# Usage: test_slurm_sweep.sh MPBENCH SOURCE_ROOT
set -u
MPB=${1:?usage: test_slurm_sweep.sh MPBENCH SOURCE_ROOT}
SRC=${2:?usage: test_slurm_sweep.sh MPBENCH SOURCE_ROOT}
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac
. "$(dirname "$0")/test_lib.sh"
export SBATCH_STANDIN_DIR="$TMP/slurm"

# The deterministic columns of CSV $1 (no cell of this sweep is quoted), in file order.
results() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             { print $c["case_id"], $c["out_hash"], $c["err_fro_rel"], $c["err_max_rel"], $c["grade"],
               $c["status"] }' "$1"
}
sweep_cmd() {
    sh "$SRC/scripts/slurm-sweep" --mpbench "$MPB" --sbatch "sh $SRC/tests/sbatch-standin.sh --account=proj" "$@"
}

# 16 cases, listed out of sorted order.
set -- -s sgemm,dgemm -g randn,phi --size 16,8 --seed 2,1 --backend host
"$MPB" run "$@" --progress never --csv full.csv >/dev/null || { fail "unsharded run exited $?"; exit 1; }
grep -q '"' full.csv && fail "a quoted cell: results() cannot split full.csv"
results full.csv >full.res

rc=0
sweep_cmd -N 3 --dir sweep --task-opts "--gres=gpu:1 --time=10" -- "$@" >submit.out 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat submit.out; fail "slurm-sweep exited $rc"; }
grep -q "16 cases in 3 tasks: array job 1000, then merge job 1001" submit.out || { cat submit.out; fail "no job ids said"; }
[ -f sweep/sweep.csv ] || { cat sweep/logs/* 2>/dev/null; fail "no merged sweep/sweep.csv"; }
results sweep/sweep.csv >sweep.res
cmp -s full.res sweep.res || { diff full.res sweep.res | head; fail "merged rows differ from the unsharded run's"; }
for i in 0 1 2; do
    grep -q "\"shard\": \"$i/3\"" "sweep/part_$i.csv.meta.json" 2>/dev/null || fail "part_$i.csv is not shard $i/3"
done
# The array has the task options and the common ones; the merge job only the
# common ones, and waits for the array.
array=$(grep -e '--array=' "$SBATCH_STANDIN_DIR/submissions")
merge=$(grep -e '--dependency=' "$SBATCH_STANDIN_DIR/submissions")
case $array in *--account=proj*--array=0-2*--gres=gpu:1\ --time=10*) ;; *) fail "array submission: $array" ;; esac
case $merge in *--account=proj*--dependency=afterany:1000\ *) ;; *) fail "merge submission: $merge" ;; esac
case $merge in *--gres*) fail "the merge job asks for the tasks' GPU: $merge" ;; esac

# A task killed mid-way (its part cut to two rows and half a line): the merge
# job names it; the same command again finishes the sweep.
{ head -n 3 sweep/part_1.csv; tail -n 1 sweep/part_1.csv | head -c 40; } >cut.csv
mv cut.csv sweep/part_1.csv
rm sweep/sweep.csv
sh sweep/merge.sh >merge.out 2>&1 && fail "merge.sh of a killed part exited 0"
grep -q "part_1.csv (shard 1/3) lacks 3 of its 5 cases" merge.out || { cat merge.out; fail "the killed part not named"; }
sweep_cmd -N 3 --dir sweep -- "$@" >submit2.out 2>&1 || { cat submit2.out; fail "the second submission failed"; }
results sweep/sweep.csv >sweep2.res 2>/dev/null
cmp -s full.res sweep2.res || fail "after the second submission the merged rows differ from the unsharded run's"
# With a task missing and --allow-partial the merge job writes what there is.
sweep_cmd -N 3 --dir partial --allow-partial -- "$@" >/dev/null 2>&1 || fail "the --allow-partial submission failed"
rm partial/part_2.csv partial/part_2.csv.meta.json partial/sweep.csv
sh partial/merge.sh >partial.out 2>&1 || { cat partial.out; fail "--allow-partial merge.sh failed"; }
grep -q "11 rows of 16 cases" partial.out || { cat partial.out; fail "--allow-partial: not 11 of 16 rows"; }

# Bad arguments: exit 2, nothing submitted.
before=$(wc -l <"$SBATCH_STANDIN_DIR/submissions")
expect_refused() {
    needle=$1
    shift
    sweep_cmd "$@" >bad.out 2>&1
    rc=$?
    [ "$rc" = 2 ] || fail "slurm-sweep $*: exit $rc, expected 2"
    grep -qF -- "$needle" bad.out || { cat bad.out; fail "slurm-sweep $*: output lacks '$needle'"; }
}
expect_refused "give -N TASKS" --dir bad -- "$@"
expect_refused "-N '0'" -N 0 --dir bad -- "$@"
expect_refused "no run arguments" -N 2 --dir bad
expect_refused "run argument '--csv'" -N 2 --dir bad -- "$@" --csv x.csv
expect_refused "-s 'nosuch': unknown scheme" -N 2 --dir bad -- -s nosuch -g randn --size 8 --backend host
expect_refused "unknown option '--bogus'" -N 2 --bogus -- "$@"
[ "$(wc -l <"$SBATCH_STANDIN_DIR/submissions")" = "$before" ] || fail "a refused command submitted a job"
sh "$SRC/scripts/slurm-sweep" --help | grep -q "usage: scripts/slurm-sweep" || fail "--help"

[ "$fails" = 0 ] && echo "ok: test_slurm_sweep"
exit $((fails != 0))
