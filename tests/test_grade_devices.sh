#!/bin/sh
# mpbench grade --devices with stand-in GPUs (MPBENCH_DEVICES_STANDIN=N: the
# workers run the host models; src/grade/grade_devices.h): the verdict CSV and the
# table of a one-process run, its cases rows in its order, whichever worker
# finished first; every stand-in takes units, each row names its GPU, the
# sidecars list the GPUs; units go out largest (m n k) first; a worker that
# dies costs only the (configuration, shape) it held, counted as errors of
# that configuration with a warning naming the GPU, and exit 3; bad
# --devices values are usage errors.
# Usage: test_grade_devices.sh MPBENCH
set -u
MPB=${1:?usage: test_grade_devices.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"
# One column of a CSV, or (results) case_id, out_hash, grade, status, in file order.
column() {
    python3 -c 'import csv, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
for r in csv.DictReader(open(sys.argv[1])): print(" ".join(r[c] for c in sys.argv[2:]))' "$@"
}
results() {
    column "$1" case_id out_hash grade status
}

# 3 configurations x 4 shapes = 12 units, the shapes out of size order.
set -- -s sgemm -s dgemm -s fp16 --sizes 16,24,20 --shapes 8x12x40 --seeds 2
"$MPB" grade "$@" --backend host --csv one.csv --cases-csv one-cases.csv >one.out 2>one.err ||
    { fail "one-process grade exited $?: $(cat one.err)"; exit 1; }
results one-cases.csv >one.res

rc=0
# Stand-in 2 opens last, a second after the others: it still gets a unit.
MPBENCH_DEVICES_STANDIN=3 MPBENCH_DEVICES_STANDIN_SLOW=2 "$MPB" grade "$@" --devices all --csv three.csv --cases-csv three-cases.csv \
    >three.out 2>three.err || rc=$?
[ $rc -eq 0 ] || fail "--devices all with 3 stand-ins exited $rc: $(cat three.err)"
cmp -s one.csv three.csv || fail "--devices all: the verdict CSV differs from the one-process run's"
cmp -s one.out three.out || fail "--devices all: the printed table differs from the one-process run's"
results three-cases.csv >three.res
cmp -s one.res three.res || fail "--devices all: cases rows differ from the one-process run's (or their order)"
for d in 0 1 2; do
    column three-cases.csv gpu_uuid | grep -qx "standin-$d" || fail "stand-in $d ran no unit"
done
[ "$(column three-cases.csv gpu_uuid | grep -cv '^standin-[012]$')" -eq 0 ] || fail "a row without its GPU's uuid"
for f in three.csv three-cases.csv; do
    grep -q '"devices": \[{"name": "host stand-in' $f.meta.json || fail "$f.meta.json lists no devices"
done

# One stand-in: the units in the order they were handed out, largest m n k first.
MPBENCH_DEVICES_STANDIN=1 "$MPB" grade "$@" --devices all --progress always >/dev/null 2>one-gpu.err ||
    fail "--devices all with 1 stand-in exited $?: $(cat one-gpu.err)"
sed -n 's/^\[[0-9]*\/12\] GPU 0: [a-z0-9]* \([0-9]*\)x\([0-9]*\)x\([0-9]*\):.*/\1 \2 \3/p' one-gpu.err |
    awk '{ w = $1 * $2 * $3; if (NR > 1 && w > last) bad = 1; last = w } END { exit !(NR == 12 && !bad) }' ||
    fail "units not handed out largest first: $(grep '^\[' one-gpu.err | tr '\n' ';')"

# Stand-in 1 dies when handed its first unit: that configuration counts the
# shape's battery as errors and names the GPU, the other configurations'
# verdicts and every other row are those of the one-process run.
rc=0
MPBENCH_DEVICES_STANDIN=2 MPBENCH_DEVICES_STANDIN_EXIT=1:1 "$MPB" grade "$@" --devices 0,1 --csv dead.csv \
    --cases-csv dead-cases.csv >dead.out 2>dead.err || rc=$?
[ $rc -eq 3 ] || fail "a dead worker: exit $rc, expected 3"
lost=$(grep -c 'cases lost: the worker on GPU 1 (standin-1) exited with status 3' dead.csv)
[ "$lost" -eq 1 ] || fail "a dead worker: $lost verdict rows name the lost unit and GPU 1, expected 1"
[ "$(column dead.csv cases_error | grep -cv '^0$')" -eq 1 ] || fail "a dead worker: not exactly one configuration with errors"
[ "$(grep -vc 'cases lost' dead.csv)" -eq 3 ] || fail "a dead worker: the header and 2 other verdict rows expected"
grep -v 'cases lost' dead.csv | while IFS= read -r row; do
    grep -qxF "$row" one.csv || fail "a dead worker: a verdict row not the one-process run's: $row"
done
results dead-cases.csv >dead.res
python3 - one.res dead.res one-cases.csv <<'PY' || fail "a dead worker: rows other than one unit's are missing, or out of order"
import csv, sys
one = open(sys.argv[1]).read().splitlines()
dead = open(sys.argv[2]).read().splitlines()
unit = [(r['scheme'], r['m'], r['n'], r['k']) for r in csv.DictReader(open(sys.argv[3]))]
missing, j = [], 0
for i, line in enumerate(one):
    if j < len(dead) and dead[j] == line:
        j += 1
    else:
        missing.append(i)
lost = {unit[i] for i in missing}
whole = len(lost) == 1 and len(missing) == sum(u in lost for u in unit)
sys.exit(0 if j == len(dead) and whole else 1)
PY

# A complex configuration beside a real one: the same verdicts, table and
# rows as one process; a lost complex unit counts the complex battery's
# cases (16 per seed: smallim too).
set -- -s dgemm -s zgemm3m --sizes 16,20 --shapes none --seeds 1
"$MPB" grade "$@" --backend host --csv cx-one.csv --cases-csv cx-one-cases.csv >cx-one.out 2>cx-one.err ||
    fail "one-process complex grade exited $?: $(cat cx-one.err)"
MPBENCH_DEVICES_STANDIN=2 "$MPB" grade "$@" --devices all --csv cx-two.csv --cases-csv cx-two-cases.csv \
    >cx-two.out 2>cx-two.err || fail "--devices all, complex: exit $?: $(cat cx-two.err)"
cmp -s cx-one.csv cx-two.csv || fail "--devices all, complex: the verdict CSV differs from the one-process run's"
cmp -s cx-one.out cx-two.out || fail "--devices all, complex: the printed table differs from the one-process run's"
results cx-one-cases.csv >cx-one.res
results cx-two-cases.csv >cx-two.res
cmp -s cx-one.res cx-two.res || fail "--devices all, complex: cases rows differ from the one-process run's"
rc=0
MPBENCH_DEVICES_STANDIN=1 MPBENCH_DEVICES_STANDIN_EXIT=0:1 "$MPB" grade -s zgemm3m --sizes 16 --shapes none \
    --seeds 2 --devices all --csv cx-dead.csv >/dev/null 2>cx-dead.err || rc=$?
[ $rc -eq 3 ] || fail "a dead worker, complex: exit $rc, expected 3"
grep -q '16x16x16: 32 cases lost' cx-dead.csv || fail "a dead worker, complex: not 32 cases lost: $(cat cx-dead.csv)"

# Usage errors (2), and a GPU that is not there (77).
usage() {
    want=$1
    shift
    rc=0
    MPBENCH_DEVICES_STANDIN=2 "$MPB" grade -s sgemm --quick "$@" >/dev/null 2>usage.err || rc=$?
    [ $rc -eq "$want" ] || fail "grade $*: exit $rc, expected $want"
}
usage 2 --devices 0,0
grep -q "GPU 0 named twice" usage.err || fail "--devices 0,0: $(cat usage.err)"
usage 2 --devices 0,x
grep -q "at 'x'" usage.err || fail "--devices 0,x: $(cat usage.err)"
usage 2 --devices ''
usage 2 --devices all --backend host
grep -q "does not go with --backend host" usage.err || fail "--devices with --backend host: $(cat usage.err)"
usage 77 --devices 5
grep -q "no GPU 5" usage.err || fail "--devices 5 of 2: $(cat usage.err)"

[ $fails -eq 0 ] && echo "test_grade_devices: all checks passed"
exit $((fails > 0))
