#!/bin/sh
# mpbench env on the host: exit 0 and the host's fields; "no NVIDIA driver"
# when NVML cannot be loaded; a fake NVML's GPU (clocks, power limit); the
# same lines after "# " as the header run and grade print when they write a
# CSV (stdout, or stderr when stdout is the CSV); energy columns empty on
# the host backend.
# Usage: test_env.sh MPBENCH FAKE_NVML.so
set -u
MPB=${1:?usage: test_env.sh MPBENCH FAKE_NVML}
FAKE=${2:?usage: test_env.sh MPBENCH FAKE_NVML}
. "$(dirname "$0")/test_lib.sh"
has() { # FILE TEXT WHAT
    grep -qF -- "$2" "$1" || { fail "$3: no '$2' in:"; sed 's/^/    /' "$1"; }
}

MPBENCH_NVML_LIB=/nonexistent/libnvidia-ml.so.1 "$MPB" env >env.out 2>env.err ||
    fail "mpbench env exited $? without a driver: $(cat env.err)"
for key in "mpbench: " "build: " "libraries: MPFR " ", GMP " ", CUDA runtime " ", cuBLAS " "host: " " CPUs, " \
    "driver: no NVIDIA driver (/nonexistent/libnvidia-ml.so.1" "gpus: none" "cuda: no GPU ("; do
    has env.out "$key" "env without a driver"
done
has env.out "$(uname -s) $(uname -r)" "env's OS"
[ ! -s env.err ] || fail "env wrote to stderr: $(cat env.err)"

MPBENCH_NVML_LIB=$FAKE "$MPB" env >fake.out 2>&1 || fail "mpbench env with the fake NVML exited $?"
for key in "driver: 999.1.2" "gpu0: Fake H200, GPU-00000000-1111-2222-3333-444444444444, 150 GB" \
    "gpu0 clocks: SM 1755 of 1980 MHz, memory 2619 of 3201 MHz" \
    "gpu0 power: limit 700 W, now 250 W, 41 C, P0, energy counter no (power sampled)"; do
    has fake.out "$key" "env with the fake NVML"
done

rc=0
"$MPB" env extra >/dev/null 2>err || rc=$?
[ $rc -eq 2 ] && grep -q "unexpected argument 'extra'" err || fail "env extra: exit $rc, $(cat err)"
"$MPB" env --help | grep -q "^usage: mpbench env" || fail "env --help"

# run: the header on stdout before the summary when the CSV is a file ...
MPBENCH_NVML_LIB=/nonexistent "$MPB" run -s dgemm -g phi --size 8 --backend host --progress never --csv r.csv \
    >run.out 2>run.err || fail "run exited $?: $(cat run.err)"
[ "$(head -n 1 run.out | cut -c1-11)" = "# mpbench: " ] || fail "run's stdout does not start with the header"
has run.out "# driver: no NVIDIA driver" "run's header"
head -n 1 r.csv | grep -q '^schema_version,' || fail "the header went into the CSV"
# ... and on stderr when stdout is the CSV
MPBENCH_NVML_LIB=/nonexistent "$MPB" run -s dgemm -g phi --size 8 --backend host --progress never \
    >csv.out 2>csv.err || fail "run --csv - exited $?"
head -n 1 csv.out | grep -q '^schema_version,' || fail "stdout (the CSV) does not start with its header"
grep -q '^#' csv.out && fail "the header is in the CSV on stdout"
has csv.err "# host: " "run --csv -'s header on stderr"

# The energy columns close the header, empty on the host backend.
head -n 1 r.csv | grep -q ',gpu_uuid,power_w,joules_per_call,gflops_per_w,field,rho_a_re_max,rho_a_im_max$' || fail "header: $(head -n 1 r.csv)"
tail -n 1 r.csv | grep -q ',,,real,,$' || fail "energy cells not empty on the host: $(tail -n 1 r.csv)"

# grade: the header when it writes a CSV, none otherwise.
"$MPB" grade -s dgemm --quick --backend host --progress never --csv v.csv >grade.out 2>&1 ||
    fail "grade --csv exited $?"
has grade.out "# mpbench: " "grade --csv's header"
"$MPB" grade -s dgemm --quick --backend host --progress never >plain.out 2>&1 || fail "grade exited $?"
grep -q '^# mpbench: ' plain.out && fail "grade without a CSV printed the header"
[ "$fails" = 0 ] || exit 1
echo "test_env: ok"
