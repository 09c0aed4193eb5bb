#!/bin/sh
# The command-line contract (DESIGN.md "Command line"): exit codes, error
# messages that name the option and value, CSV + meta.json on the host
# backend, --resume, --dry-run, --shard. Usage: test_cli.sh path/to/mpbench
set -u
MPB=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

# expect CODE NEEDLE -- ARGS...: exit code CODE and NEEDLE in stdout+stderr.
expect() {
    code=$1; needle=$2; shift 3
    "$MPB" "$@" >"$TMP/out" 2>&1
    got=$?
    if [ "$got" != "$code" ]; then
        echo "FAIL: mpbench $*: exit $got, expected $code"; sed 's/^/    /' "$TMP/out"; fails=$((fails + 1))
    elif ! grep -qF -- "$needle" "$TMP/out"; then
        echo "FAIL: mpbench $*: output lacks '$needle'"; sed 's/^/    /' "$TMP/out"; fails=$((fails + 1))
    fi
}

expect 2 "usage: mpbench" --
expect 2 "unknown command 'bogus'" -- bogus
expect 0 "--shard I/N" -- run --help
expect 0 "dgemm" -- list schemes
expect 0 "phi" -- list generators
expect 2 "expected schemes or generators" -- list nothing
expect 2 "-s 'nosuch': unknown scheme" -- run -s nosuch -g uniform --size 8
expect 2 "-g 'nosuch': unknown generator" -- run -s dgemm -g nosuch --size 8
expect 2 "has no parameter 'x'" -- run -s dgemm -a x=1 -g uniform --size 8
expect 2 "parameter phi: 'abc' is not a number" -- run -s dgemm -g phi -a phi=abc --size 8
expect 2 "scheme 'quantensor_int8' parameter levels: 4 is out of range (allowed: integer 0..3)" -- \
    run -s quantensor_int8 -a levels=4 -g uniform --size 8
expect 2 "scheme 'quantensor_int8' parameter levels: 'high' is not a number" -- \
    run -s quantensor_int8 -a levels=high -g uniform --size 8
# ozaki2's tol: a finite relative error in 0..1, and only with moduli=auto (a row not_supported naming both)
expect 2 "scheme 'ozaki2_int8' parameter tol: -1 is out of range (allowed: real 0..1)" -- \
    run -s ozaki2_int8 -a moduli=auto -a tol=-1 -g uniform --size 8
expect 2 "scheme 'ozaki2_int8_sp' parameter tol: 'nan' is not a number" -- \
    run -s ozaki2_int8_sp -a moduli=auto -a tol=nan -g uniform --size 8
expect 2 "scheme 'ozaki2_int8' parameter tol: inf is out of range" -- \
    run -s ozaki2_int8 -a moduli=auto -a tol=inf -g uniform --size 8
expect 77 "tol=1e-08 needs moduli=auto (moduli=15 is a fixed count" -- \
    run -s ozaki2_int8 -a tol=1e-8 -g uniform --size 8 --backend host --csv "$TMP/tol.csv"
expect 0 "with moduli=auto: the fewest moduli whose error bound is at most tol, normwise relative" -- list schemes
expect 2 "--size '0'" -- run -s dgemm -g uniform --size 0
expect 2 "--size '-4'" -- run -s dgemm -g uniform --size -4
expect 2 "range '4:1' is empty" -- run -s dgemm -g uniform --size 4:1
expect 2 "--reps 'x'" -- run -s dgemm -g uniform --size 8 --reps x
expect 2 "--warmup-ms '-5'" -- run -s dgemm -g uniform --size 8 --warmup-ms -5
expect 2 "--warmup-ms '700000'" -- run -s dgemm -g uniform --size 8 --warmup-ms 700000
expect 2 "--backend 'gpu'" -- run -s dgemm -g uniform --size 8 --backend gpu
expect 2 "--shard '2/2'" -- run -s dgemm -g uniform --size 8 --shard 2/2
expect 2 "unknown option '--bogus'" -- run -s dgemm -g uniform --size 8 --bogus
expect 2 "--resume needs --csv FILE" -- run -s dgemm -g uniform --size 8 --resume
expect 2 "no shape" -- run -s dgemm -g uniform
expect 2 "/nonexistent-dir/x.csv" -- run -s dgemm -g uniform --size 8 --backend host --csv /nonexistent-dir/x.csv
expect 0 "6 cases" -- run -s dgemm,sgemm -g uniform --size 4,8,16 --dry-run --backend host
expect 0 "--seed 1 --backend cuda" -- run -s dgemm -g uniform --size 8 --dry-run --backend cuda
expect 0 "2 cases in shard 1/3 (6 in all)" -- run -s dgemm,sgemm -g uniform --size 4,8,16 --dry-run --backend host --shard 1/3

if ! nvidia-smi -L >/dev/null 2>&1; then
    expect 77 "--backend cuda: no usable GPU" -- run -s dgemm -g uniform --size 8 --backend cuda
    expect 0 "no usable GPU" -- run -s dgemm -g uniform --size 8 --csv "$TMP/auto.csv"
fi

# A host sweep writes a header, one row per case and a meta.json sidecar.
CSV="$TMP/r.csv"
expect 0 "err_fro" -- run -s dgemm,sgemm,fp16 -g phi -a phi=0.5,2 --size 1,7,33 --backend host --csv "$CSV" --tag purpose=test
rows=$(($(wc -l <"$CSV") - 1))
[ "$rows" = 18 ] || { echo "FAIL: $rows rows, expected 18"; fails=$((fails + 1)); }
grep -q '"run_id"' "$CSV.meta.json" || { echo "FAIL: no meta.json"; fails=$((fails + 1)); }
grep -q '"purpose": "test"' "$CSV.meta.json" || { echo "FAIL: tag not in meta.json"; fails=$((fails + 1)); }
if grep -v '^schema_version' "$CSV" | grep -qv ',host,'; then
    echo "FAIL: a row without impl=host"; fails=$((fails + 1))
fi
grep -q '"warmup_ms": 0,' "$CSV.meta.json" || { echo "FAIL: warmup_ms 0 not in meta.json"; fails=$((fails + 1)); }
grep -q '"energy_min_ms": 1000, "energy_extend": true,' "$CSV.meta.json" ||
    { echo "FAIL: the energy window's default (1000 ms, extended) not in meta.json"; fails=$((fails + 1)); }

# --energy-min-ms and --no-energy-extend (the window itself: test_energy) go to meta.json.
expect 0 "err_fro" -- run -s dgemm -g uniform --size 1 --backend host --energy-min-ms 0 --no-energy-extend \
    --csv "$TMP/e.csv"
grep -q '"energy_min_ms": 0, "energy_extend": false,' "$TMP/e.csv.meta.json" ||
    { echo "FAIL: --energy-min-ms 0 --no-energy-extend not in meta.json"; fails=$((fails + 1)); }

# --warmup-ms: untimed calls go on until that long has passed, per case (two
# cases of a 1x1 product: at least 0.6 s of warm-up in all), and meta.json
# records it.
start=$(date +%s%N)
expect 0 "err_fro" -- run -s dgemm -g uniform --size 1 --seed 1,2 --backend host --warmup-ms 300 --csv "$TMP/w.csv"
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$took_ms" -ge 600 ] || { echo "FAIL: --warmup-ms 300 on two cases took $took_ms ms"; fails=$((fails + 1)); }
grep -q '"warmup_ms": 300,' "$TMP/w.csv.meta.json" || { echo "FAIL: warmup_ms 300 not in meta.json"; fails=$((fails + 1)); }

# --resume runs nothing new; a partial last line is dropped and rerun.
expect 0 "18 cases already in" -- run -s dgemm,sgemm,fp16 -g phi -a phi=0.5,2 --size 1,7,33 --backend host --csv "$CSV" --resume
head -n 18 "$CSV" >"$TMP/cut.csv"; tail -n 1 "$CSV" | head -c 40 >>"$TMP/cut.csv"; mv "$TMP/cut.csv" "$CSV"
expect 0 "17 cases already in" -- run -s dgemm,sgemm,fp16 -g phi -a phi=0.5,2 --size 1,7,33 --backend host --csv "$CSV" --resume
rows=$(($(wc -l <"$CSV") - 1))
[ "$rows" = 18 ] || { echo "FAIL: after resume $rows rows, expected 18"; fails=$((fails + 1)); }
runs=$(grep -c '"run_id"' "$CSV.meta.json")
[ "$runs" = 3 ] || { echo "FAIL: meta.json holds $runs runs, expected 3"; fails=$((fails + 1)); }
printf 'a,b\n1,2\n' >"$TMP/foreign.csv"
expect 2 "header is not this mpbench's" -- run -s dgemm -g uniform --size 8 --backend host --csv "$TMP/foreign.csv" --resume

# A case the generator cannot make becomes a row, and the sweep goes on.
expect 0 "not_supported" -- run -s dgemm -g test2 -a b=500 --size 4096,8 --m 2 --n 2 --backend host --csv "$TMP/ns.csv"

# The exact reference fills the error and grade columns; --ref none leaves them empty.
expect 0 " A " -- run -s dgemm -g phi --size 33 --backend host --csv "$TMP/ref.csv"
grep -q ',mpfr,1089,' "$TMP/ref.csv" || { echo "FAIL: --ref mpfr did not check all 33x33 entries"; fails=$((fails + 1)); }
expect 0 "err_fro" -- run -s dgemm -g phi --size 33 --backend host --ref none --csv "$TMP/noref.csv"
grep -q ',none,,' "$TMP/noref.csv" || { echo "FAIL: --ref none filled reference columns"; fails=$((fails + 1)); }
expect 2 "--ref 'exact'" -- run -s dgemm -g phi --size 8 --ref exact

# --dump writes .npy files numpy can load, and the case string that reruns the case.
expect 0 "ok" -- run -s sgemm -g phi --m 5 --n 3 --k 4 --backend host --dump "$TMP/dump" --csv "$TMP/d.csv"
d=$(ls -d "$TMP"/dump/*/ | head -n 1)
for f in case.txt A.npy B.npy C.npy ref_i.npy ref_hi.npy; do
    [ -s "$d/$f" ] || { echo "FAIL: --dump did not write $f"; fails=$((fails + 1)); }
done
if /usr/bin/python3 -c "import numpy" 2>/dev/null; then
    /usr/bin/python3 - "$d" <<'PY' || { echo "FAIL: numpy cannot load the dump"; fails=$((fails + 1)); }
import sys, numpy as np
d = sys.argv[1]
a, b, c = (np.load(d + n + ".npy") for n in "ABC")
assert a.shape == (5, 4) and b.shape == (4, 3) and c.shape == (5, 3) and a.dtype == np.float32, (a.shape, a.dtype)
i, j, hi = np.load(d + "ref_i.npy"), np.load(d + "ref_j.npy"), np.load(d + "ref_hi.npy")
from fractions import Fraction   # exact sums; float(Fraction) rounds correctly
for p in range(len(i)):
    exact = sum(Fraction(float(a[i[p], l])) * Fraction(float(b[l, j[p]])) for l in range(4))
    assert float(exact) == hi[p], (p, float(exact), hi[p])
PY
fi
rerun=$(sed 's/^mpbench //' "$d/case.txt")
# shellcheck disable=SC2086
"$MPB" $rerun --csv "$TMP/rerun.csv" >/dev/null 2>&1 || { echo "FAIL: case.txt does not rerun"; fails=$((fails + 1)); }
h1=$(cut -d, -f37 "$TMP/d.csv" | tail -n 1); h2=$(cut -d, -f37 "$TMP/rerun.csv" | tail -n 1)
[ -n "$h1" ] && [ "$h1" = "$h2" ] || { echo "FAIL: rerun out_hash $h2 differs from $h1"; fails=$((fails + 1)); }

echo "$fails failed"
[ "$fails" = 0 ]
