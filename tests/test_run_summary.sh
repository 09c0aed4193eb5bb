#!/bin/sh
# What `mpbench run --csv FILE` prints: a summary table of at most 120
# columns (non-default scheme parameters only, long ones cut with an
# ellipsis), a mark on a scheme that ran the native GEMM and on an error of
# 1 or more, an "× native" column when dgemm/sgemm ran the same case, a
# legend for them; and progress lines naming the generator's parameters and
# the scheme's non-default ones.
# Usage: test_run_summary.sh MPBENCH
set -u
MPB=${1:?usage: test_run_summary.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"

run() { # OUT ARGS...: run on the host into OUT.csv, the table in OUT.txt, stderr in OUT.err
    out=$1
    shift
    "$MPB" run "$@" --backend host --csv "$out.csv" >"$out.all" 2>"$out.err" || fail "run $* exited $?"
    grep -v '^# ' "$out.all" >"$out.txt" # the table without the environment header above it
}
# The table's row of SCHEME (the first cell, marks included).
row() {
    awk -v s="$2" '$1 == s' "$1"
}

# Long parameters: every line fits in 120 columns (characters, not bytes),
# the cut cell ends in an ellipsis, and default parameters are not shown.
run wide -s adp -a max_bits=150 -a fallback=off -a decision=eager -a block=32 -a fixed_bits=40,60 -a engine=slices \
    -s ozaki2_int8 -a moduli=12 -a mode=accurate -a nblock=1024 -a mblock=2048 -a gemm=batched -s dgemm \
    -g test2 --m 17 --n 23 --k 40
python3 - wide.txt <<'PY' || fail "a summary line is wider than 120 columns: $(cat wide.txt)"
import sys
sys.exit(max(len(line.rstrip("\n")) for line in open(sys.argv[1], encoding="utf-8")) > 120)
PY
grep -q "…" wide.txt || fail "no cell was cut with an ellipsis: $(cat wide.txt)"
run eager -s adp -a decision=eager -g phi --size 16 --progress always
grep -q "^adp decision=eager " eager.txt || fail "adp decision=eager: not its only parameter shown: $(cat eager.txt)"
grep -q "max_bits" eager.txt eager.err && fail "a default parameter is shown: $(cat eager.txt eager.err)"

# Progress: the scheme's non-default parameters, the generator's.
grep -q "adp \[decision=eager\] host, phi phi=0.5, 16x16x16, seed 1: ok" eager.err ||
    fail "the progress line lacks the parameters: $(cat eager.err)"

# adp with its defaults (decision=auto) runs native DGEMM: marked, in the
# table and the progress line, and the legend says what the mark means.
run auto -s adp -g phi --size 32 --progress always
python3 - auto.csv <<'PY' || fail "adp decision=auto did not fall back on this case (the CSV's fallback)"
import csv, sys
sys.exit(next(csv.DictReader(open(sys.argv[1], newline="")))["fallback"] != "1")
PY
[ -n "$(row auto.txt 'adp*')" ] || fail "the fallback is not marked in the table: $(cat auto.txt)"
grep -q "^\*: fallback=1, all or part of the product computed another way" auto.txt || fail "no legend for the fallback mark: $(cat auto.txt)"
grep -q "ran the native GEMM" auto.err || fail "the progress line does not say it ran native: $(cat auto.err)"
[ -z "$(row eager.txt 'adp*')" ] || fail "adp decision=eager is marked as a fallback: $(cat eager.txt)"

# An error of 1 (the inner generator's exact zero-digit case for INT8 Ozaki-II in FP32): marked.
run inner -s ozaki2_int8_sp,sgemm -g inner --size 32
row inner.txt ozaki2_int8_sp | grep -q "1\.00e+00!" || fail "err_fro 1 is not marked: $(cat inner.txt)"
row inner.txt sgemm | grep -q "!" && fail "sgemm's small error is marked: $(cat inner.txt)"
grep -q "!: err_fro >= 1" inner.txt || fail "no legend for the error mark: $(cat inner.txt)"

# × native: present when the target's native GEMM ran the same case, with
# its time over the scheme's (the CSV's medians); absent without it.
run nat -s dgemm,ozaki2_int8 -g phi -a phi=0.5 --size 24
head -1 nat.txt | grep -q "× native" || fail "no × native column with dgemm in the run: $(cat nat.txt)"
python3 - nat.csv nat.txt <<'PY' || fail "× native is not dgemm's median over ozaki2_int8's: $(cat nat.txt)"
import csv, sys
rows = {r["scheme"]: float(r["time_ms_median"]) for r in csv.DictReader(open(sys.argv[1], newline=""))}
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
col = lines[0].index("× native") + len("× native")  # the column is right-aligned
cell = next(l for l in lines if l.startswith("ozaki2_int8 "))[:col].split()[-1]
sys.exit(cell != "%.3g" % (rows["dgemm"] / rows["ozaki2_int8"]))
PY
run alone -s ozaki2_int8 -g phi -a phi=0.5 --size 24
grep -q "native" alone.txt && fail "× native is shown without dgemm in the run: $(cat alone.txt)"
# the native GEMM of another target is no baseline: egemm (FP32) beside dgemm
run target -s dgemm,egemm -g phi -a phi=0.5 --size 24
python3 - target.txt <<'PY' || fail "egemm (FP32) got a ratio to dgemm: $(cat target.txt)"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
col = lines[0].index("× native") + len("× native")
sys.exit(next(l for l in lines if l.startswith("egemm "))[:col].split()[-1] != "-")
PY

[ "$fails" = 0 ] || exit 1
echo "test_run_summary: ok"
