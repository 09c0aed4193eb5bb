# Sourced by the scripts/h200-* sweeps: the binary, the output folder, the
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
# status and the seconds taken in $out/steps.log.
step() {
    name=$1 limit=$2
    shift 2
    start=$(date +%s)
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    st=$?
    echo "$name: exit $st, $(( $(date +%s) - start )) s" | tee -a "$out/steps.log"
}
