# Sourced by the scripts/gpu-* sweeps: the binary, the output folder, the
# library path, and step(), which runs one command under a time limit so
# that a hang cannot eat the other steps' device time.
# Env: MPBENCH (default ./build/mpbench; the test programs are found beside
# it under tests/), OUT (default .).
mpb=${MPBENCH:-./build/mpbench}
build=$(dirname "$mpb")
out=${OUT:-.}
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
mkdir -p "$out"

# step NAME LIMIT_S COMMAND...: run, log to $out/NAME.log, record the exit
# status and the seconds taken in $out/steps.log. Sets the shell variables
# name, limit, start and st (sh has no locals): callers use other names.
step() {
    name=$1 limit=$2
    shift 2
    start=$(date +%s)
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    st=$?
    echo "$name: exit $st, $(( $(date +%s) - start )) s" | tee -a "$out/steps.log"
}

# sidecar CSV COMMAND...: write CSV.meta.json for a CSV that a program other
# than `mpbench run` wrote (mpbench writes its own): when, where, the GPU as
# nvidia-smi reports it, the mpbench build, and the command.
sidecar() {
    csv=$1
    shift
    gpu=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu \
          --format=csv,noheader 2>&1 | head -n 1)
    cat >"$csv.meta.json" <<JSON
{
  "written": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "host": "$(hostname)",
  "cpu_cores": $(nproc),
  "gpu_name_driver_clock_maxclock_power_temp": "$gpu",
  "mpbench_version": "$("$mpb" version 2>&1 | head -n 1)",
  "command": "$*"
}
JSON
}
