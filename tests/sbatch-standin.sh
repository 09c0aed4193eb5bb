#!/bin/sh
# A stand-in for SLURM's sbatch in the CPU tests (test_slurm_sweep.sh): it
# runs the job at once, on this machine, and returns when it has ended.
# Honoured: --array=A-B (tasks run in parallel, each with SLURM_JOB_ID,
# SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT),
# --dependency=afterany:ID or afterok:ID (ID must be a job submitted here
# before; afterok runs the job only when every task of ID exited 0, else the
# job never runs, as SLURM leaves it pending), --output=PATTERN (%A, %a, %j),
# --parsable ("ID;standin"), and --job-name, --account, --partition, --time,
# --gres, which only go to the log. Options take the --opt=VALUE form; any
# other is refused, so that a script that needs more fails its test.
# $SBATCH_STANDIN_DIR keeps the job counter, each job's exit statuses and a
# log of every submission (submissions: one line of arguments each).
set -u
state=${SBATCH_STANDIN_DIR:?set SBATCH_STANDIN_DIR to a folder for the state of the stand-in}
mkdir -p "$state"
echo "$*" >>"$state/submissions"

err() {
    echo "sbatch: error: $*" >&2
    exit 1
}

array='' dependency='' output='' parsable=no
while [ $# -gt 1 ]; do
    case $1 in
    --array=*) array=${1#--array=} ;;
    --dependency=*) dependency=${1#--dependency=} ;;
    --output=*) output=${1#--output=} ;;
    --parsable) parsable=yes ;;
    --job-name=* | --account=* | --partition=* | --time=* | --gres=*) ;;
    *) err "the stand-in does not know option '$1'" ;;
    esac
    shift
done
[ $# -eq 1 ] || err "expected the job script last"
script=$1
[ "$(head -c 2 "$script")" = "#!" ] || err "$script: a batch script starts with #!"

id=$(cat "$state/next" 2>/dev/null || echo 1000)
echo $((id + 1)) >"$state/next"

run_job=yes
if [ -n "$dependency" ]; then
    kind=${dependency%%:*}
    on=${dependency#*:}
    [ -f "$state/job_$on" ] || err "Job dependency problem: no job $on"
    case $kind in
    afterany) ;;
    afterok) grep -qv '^0$' "$state/job_$on" && run_job=no ;;
    *) err "the stand-in does not know dependency type '$kind'" ;;
    esac
fi

# run TASK: the script as SLURM runs it, its output where --output says.
run() {
    task=$1
    out=${output:-slurm-%j.out}
    out=$(printf '%s' "$out" | sed -e "s/%A/$id/g" -e "s/%a/$task/g" -e "s/%j/$id/g")
    if [ -n "$array" ]; then
        SLURM_JOB_ID=$id SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=$count \
            sh "$script" >"$out" 2>&1
    else
        SLURM_JOB_ID=$id sh "$script" >"$out" 2>&1
    fi
    echo $? >"$state/job_${id}_task_$task"
}

: >"$state/job_$id"
if [ "$run_job" = yes ]; then
    if [ -n "$array" ]; then
        first=${array%-*}
        last=${array#*-}
        case $first$last in *[!0-9]* | '') err "--array '$array': the stand-in takes A-B" ;; esac
        count=$((last - first + 1))
        task=$first
        while [ "$task" -le "$last" ]; do
            run "$task" &
            task=$((task + 1))
        done
        wait
        task=$first
        while [ "$task" -le "$last" ]; do
            cat "$state/job_${id}_task_$task" >>"$state/job_$id"
            task=$((task + 1))
        done
    else
        run "" && cat "$state/job_${id}_task_" >>"$state/job_$id"
    fi
else
    echo never >"$state/job_$id"
fi

if [ "$parsable" = yes ]; then
    echo "$id;standin"
else
    echo "Submitted batch job $id"
fi
