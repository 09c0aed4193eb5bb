#!/bin/sh
# mpbench tune end to end on the host models at n = 32: the CSV
# columns and sidecar, a choice that meets its threshold (on the tuning seed
# and on seed + 1), exhaustive's optimum as the floor of every other
# strategy's predicted time under an injected cost table, and the refusals.
# Usage: test_tune.sh MPBENCH
set -u
mpbench=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# GPU-like costs (tests/tune/costs-32.csv): the low-precision levels 3-5x
# cheaper than sgemm; and a row with status error, which the file's reader skips.
{ cat "$(dirname "$0")/tune/costs-32.csv"; echo 'sgemm,,32,32,32,9.0,error'; } >"$dir/costs.csv"
sed 's/,32,32,32,/,8,8,8,/' "$dir/costs.csv" >"$dir/costs8.csv"
levels="--levels bf16,fp16,tf32,sgemm --levels refine_fp16 -a tau=000,110"
if ! "$mpbench" tune -c micro3 --size 32 $levels --threshold E1,E3,1e-6:fro_rel,E7 \
    --strategy motuner,greedy,exhaustive,priork --backend host --cost-model "$dir/costs.csv" \
    --csv "$dir/t.csv" >"$dir/out" 2>"$dir/err"; then
    fail "tune exited $? ($(cat "$dir/err"))"
fi
[ -s "$dir/t.csv.meta.json" ] && grep -q '"tune"' "$dir/t.csv.meta.json" || fail "no meta.json with the argv"
for col in chain size gemms impl levels threshold metric threshold_value strategy status choice choice_ranks met \
    err predicted_ms baseline_predicted_ms predicted_speedup measured_ms baseline_measured_ms cost_model \
    optimum_predicted_ms vs_optimum valid_seed valid_err valid_met tune_chain_runs tune_gemm_runs tune_s; do
    head -1 "$dir/t.csv" | tr ',' '\n' | grep -qx "$col" || fail "no column $col"
done
rows=$(($(wc -l <"$dir/t.csv") - 1))
[ "$rows" -eq 16 ] || fail "$rows rows, expected 4 thresholds x 4 strategies"
# Per row: the guaranteeing strategies meet their threshold on both seeds,
# and no choice that meets it beats exhaustive's optimum.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { s = $c["strategy"]; th = $c["threshold"] }
    $c["status"] != "ok" { print "FAIL: " th " " s ": status " $c["status"] ": " $c["note"]; bad++ }
    s != "priork" && ($c["met"] != "yes" || $c["err"] + 0 > $c["threshold_value"] + 0 || $c["valid_met"] != "yes") {
        print "FAIL: " th " " s ": met " $c["met"] " err " $c["err"] " valid " $c["valid_met"]; bad++ }
    $c["met"] == "yes" && $c["predicted_ms"] + 0 < $c["optimum_predicted_ms"] - 1e-12 {
        print "FAIL: " th " " s " predicts " $c["predicted_ms"] " below the optimum " $c["optimum_predicted_ms"]; bad++ }
    s == "exhaustive" && th == "E1" && (($c["predicted_ms"] - 0.6) ^ 2 > 1e-20 || $c["choice"] !~ /^(bf16|fp16);(bf16|fp16);(bf16|fp16)$/) {
        print "FAIL: E1 exhaustive: " $c["choice"] " at " $c["predicted_ms"] " ms, expected 16-bit GEMMs at 0.6"; bad++ }
    s == "exhaustive" && th == "1e-6:fro_rel" && $c["choice"] != "refine_fp16;refine_fp16;refine_fp16" {
        print "FAIL: 1e-6 exhaustive: " $c["choice"] ", expected refine_fp16 (tau=110) throughout"; bad++ }
    $c["baseline_predicted_ms"] + 0 != 3 { print "FAIL: baseline " $c["baseline_predicted_ms"] " ms, expected 3"; bad++ }
    END { exit bad > 0 }' "$dir/t.csv" || fails=$((fails + 1))
grep -q "all-sgemm chain: 3 ms predicted" "$dir/out" || fail "the table lacks the baseline line"

# --margin 0.5: the strategies tune to half the threshold (E3's 5e-4 at
# margin 1 admits a choice erring 4.3e-4 here, so the margin must change it),
# valid_met still judges the threshold itself, and the column says 0.5.
if ! "$mpbench" tune -c micro3 --size 32 $levels --threshold E3 --strategy motuner,greedy,exhaustive --backend host \
    --cost-model "$dir/costs.csv" --margin 0.5 --csv "$dir/half.csv" >"$dir/out" 2>"$dir/err"; then
    fail "tune --margin 0.5 exited $? ($(cat "$dir/err"))"
fi
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    FNR == 1 { next }
    FILENAME ~ /half/ && ($c["met"] != "yes" || $c["err"] + 0 > 0.5 * $c["threshold_value"] || $c["margin"] != 0.5 ||
                          $c["valid_met"] != "yes") {
        print "FAIL: --margin 0.5 " $c["strategy"] ": met " $c["met"] " err " $c["err"] " margin " $c["margin"]; bad++ }
    FILENAME ~ /half/ && $c["strategy"] == "exhaustive" { half = $c["predicted_ms"] }
    FILENAME !~ /half/ && $c["threshold"] == "E3" && $c["strategy"] == "exhaustive" { full = $c["predicted_ms"]
        if ($c["margin"] != 1) { print "FAIL: margin " $c["margin"] " without --margin"; bad++ } }
    END { if (!(half + 0 > full + 0)) { print "FAIL: exhaustive under E3 predicts " half " ms with --margin 0.5, " \
          full " without: the margin changed nothing"; bad++ }; exit bad > 0 }' "$dir/t.csv" "$dir/half.csv" ||
    fails=$((fails + 1))

# The measured cost model on the host, mlp3 and micro6, two sizes: runs, says
# what host times are, and still meets the threshold.
if ! "$mpbench" tune -c mlp3,micro6 --size 16,24 --levels bf16,sgemm --threshold E2 --backend host \
    --csv "$dir/m.csv" >"$dir/out" 2>"$dir/err"; then
    fail "measured tune exited $? ($(cat "$dir/err"))"
fi
grep -q "note \[cost-host\]" "$dir/err" || fail "no note on host times"
[ "$(awk -F, 'NR > 1 && $15 == "yes"' "$dir/m.csv" | wc -l)" -ge 8 ] || fail "measured: fewer than 8 rows met"

# The blocked Cholesky: its FP64 chain solves A x = b to HPL-AI's limit
# unrefined (so its steps factor A), and with every trailing update in bf16
# or all in sgemm the FP64 refinement reaches the limit too, bf16 in more steps.
for lv in bf16 sgemm; do
    "$mpbench" tune -c cholesky --size 32,64 --levels $lv --threshold E1 --strategy motuner --backend host \
        --csv "$dir/c-$lv.csv" >"$dir/out" 2>"$dir/err" || fail "cholesky $lv exited $? ($(cat "$dir/err"))"
done
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    FNR == 1 { next }
    { lv = FILENAME ~ /bf16/ ? "bf16" : "sgemm"; it[lv " " $c["size"]] = $c["ir_iterations"] }
    $c["status"] != "ok" || $c["ir_met"] != "yes" || $c["fp64_backward_err"] + 0 > 16 * $c["size"] * 2 ^ -53 ||
    $c["choice"] != lv ";" lv ";" lv {
        print "FAIL: cholesky " lv " at " $c["size"] ": " $c["status"] " " $c["choice"] " ir_met " $c["ir_met"] \
            " fp64 " $c["fp64_backward_err"] " " $c["note"]; bad++ }
    END { for (n = 32; n <= 64; n += 32) if (!(it["bf16 " n] > it["sgemm " n])) {
              print "FAIL: cholesky at " n ": bf16 refined in " it["bf16 " n] " steps, sgemm in " it["sgemm " n]; bad++ }
          exit bad > 0 }' "$dir/c-bf16.csv" "$dir/c-sgemm.csv" || fails=$((fails + 1))
head -1 "$dir/c-bf16.csv" |
    grep -q '^tune_schema_version,.*,git_sha,ir_iterations,ir_backward_err,ir_met,fp64_backward_err,margin$' ||
    fail "the refinement columns and margin are not the last five"
awk -F, 'NR == 2 && $1 != 3 { exit 1 }' "$dir/c-bf16.csv" || fail "tune_schema_version is not 3"
awk -F, 'NR > 1 && ($(NF - 4) != "" || $(NF - 1) != "") { exit 1 }' "$dir/t.csv" || fail "micro3 rows have refinement values"

# Refusals: exit 2 and a message naming the option and value.
refuse() {
    want=$1
    shift
    "$mpbench" tune "$@" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "'$*' exited $rc, expected 2"
    grep -q -- "$want" "$dir/err" || fail "'$*': stderr lacks '$want': $(cat "$dir/err")"
}
base="-c micro3 --size 32 --backend host"
refuse "exhaustive-limit 20000" -c micro9 --size 32 --backend host $levels --threshold E1 --strategy exhaustive
refuse "threshold 'E9'" $base $levels --threshold E9
refuse "threshold '0.1:rel'" $base $levels --threshold 0.1:rel
refuse "threshold '-1:abs'" $base $levels --threshold=-1:abs
refuse "FP64 scheme" $base --levels dgemm,sgemm --threshold E1
refuse "-c 'lu'" -c lu --size 32 $levels --threshold E1
refuse "multiple of its 4 blocks" -c cholesky --size 32,30 $levels --threshold E1
refuse "strategy 'fast'" $base $levels --threshold E1 --strategy fast
refuse "motuner is given twice" $base $levels --threshold E1 --strategy motuner,motuner
refuse "'sgemm' is given twice" $base --levels sgemm,sgemm --threshold E1
refuse "margin '0'" $base $levels --threshold E1 --margin 0
refuse "margin '1.5'" $base $levels --threshold E1 --margin 1.5
refuse "margin 'half'" $base $levels --threshold E1 --margin half
refuse "no --threshold" $base $levels
refuse "no --levels" $base --threshold E1
refuse "unknown scheme" $base --levels sgemmm --threshold E1
refuse "cost-model $dir/none.csv: cannot read" $base $levels --threshold E1 --cost-model "$dir/none.csv"
# A cost file without a level's time: error rows naming what is missing
# (one per threshold and strategy), the run goes on to the next size, exit 3.
"$mpbench" tune -c micro3 --size 48,32 --backend host $levels --threshold E1,E3 --strategy motuner,priork \
    --cost-model "$dir/costs.csv" --csv "$dir/e.csv" >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 3 ] && grep -q "no time for .* at 48x48x48" "$dir/err" || fail "missing cost: rc $rc, $(cat "$dir/err")"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { n[$c["size"] " " $c["status"]]++ }
    $c["size"] == 48 && $c["note"] !~ /no time for/ { print "FAIL: error row without the reason: " $0; bad++ }
    END { if (n["48 error"] != 4 || n["32 ok"] != 4) { print "FAIL: rows by size and status: 48 error " n["48 error"] \
          ", 32 ok " n["32 ok"] " (4 each)"; bad++ }; exit bad > 0 }' "$dir/e.csv" || fails=$((fails + 1))
grep -q '"error": 4' "$dir/e.csv.meta.json" || fail "the sidecar does not count the 4 error rows"

# PriorK on micro9 under six levels (6^9, about 10^7 combinations, all
# acceptable under E1): it walks to its pick instead of refusing the space.
"$mpbench" tune -c micro9 --size 8 --backend host $levels --threshold E1 --strategy priork \
    --cost-model "$dir/costs8.csv" --csv "$dir/p.csv" >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 0 ] && awk -F, 'NR == 2 && $12 == "ok" && /among the fastest 16384 of 10077696 combinations/' "$dir/p.csv" |
    grep -q . || fail "priork on 6^9: rc $rc, $(cat "$dir/err") $(cat "$dir/p.csv")"

# Issue 28. The memory a tuning needs is checked before the first
# allocation, as run checks a case: refused with the figure (exit 77, nothing
# ran, the CSV untouched). micro3 at 46341 needs hundreds of GB; the chain
# file's X alone 4.4 TB. (Under a 8 GB address-space limit where the build
# allows one, so that a build without the check fails fast instead.)
echo kept >"$dir/kept.csv"
printf 'input X n*256 n*256 scale=1\ninput W n*256 n scale=1\ngemm Y = X W\noutput Y\n' >"$dir/huge.chain"
limited() {
    if (ulimit -v 8000000 && "$mpbench" version) >/dev/null 2>&1; then
        (ulimit -v 8000000 && exec "$mpbench" "$@")
    else
        "$mpbench" "$@"
    fi
}
for c in "micro3 --size 46341" "$dir/huge.chain --size 4096"; do
    # shellcheck disable=SC2086 # $c is split on blanks, as meant
    limited tune -c $c --levels sgemm --threshold E1 --backend host --csv "$dir/kept.csv" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ "$rc" -eq 77 ] && grep -q "too large for this machine: tuning it needs [0-9.e+]* GB ([0-9]* bytes) of host memory" \
        "$dir/err" || fail "-c $c: exit $rc, expected 77 with the figure: $(cat "$dir/err")"
    [ "$(cat "$dir/kept.csv")" = kept ] || fail "-c $c: the refused tuning changed its --csv FILE"
done

# The cost file (--cost-model FILE) is read strictly: a record with fewer or
# more fields than the header, an incomplete last one, a column named twice,
# two rows for one level and shape (the lookup took the first), a malformed
# cell: refused with FILE:LINE, exit 2, before the CSV is touched.
badcost() {
    want=$1
    "$mpbench" tune -c micro3 --size 32 --backend host $levels --threshold E1 --cost-model "$dir/bad.csv" \
        --csv "$dir/kept.csv" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -qF -- "$want" "$dir/err" || fail "cost file ($want): exit $rc: $(cat "$dir/err")"
    [ "$(cat "$dir/kept.csv")" = kept ] || fail "cost file ($want): the refused tuning changed its --csv FILE"
}
costs="$(dirname "$0")/tune/costs-32.csv"
{ cat "$costs"; echo 'sgemm,,32,32'; } >"$dir/bad.csv"
badcost "bad.csv:8: 4 fields, the header has 7"
{ cat "$costs"; echo 'tf32,,32,32,32,0.3,ok,extra'; } >"$dir/bad.csv"
badcost "bad.csv:8: 8 fields, the header has 7"
{ cat "$costs"; printf 'tf32,,8,8,8,0.3,ok'; } >"$dir/bad.csv"
badcost "bad.csv:8: an incomplete last record"
{ cat "$costs"; echo 'fp16,,32,32,32,0.9,ok'; } >"$dir/bad.csv"
badcost "bad.csv:8: scheme fp16, params '' at 32x32x32 is also at line 4"
sed '1s/$/,m/' "$costs" | sed '2,$s/$/,32/' >"$dir/bad.csv"
badcost "bad.csv:1: column 'm' twice"
sed '3s/,0.3,/,0.3ms,/' "$costs" >"$dir/bad.csv"
badcost "bad.csv:3: scheme must be named, m, n, k positive integers"
sed '3s/,32,32,32,/,32, 32,32,/' "$costs" >"$dir/bad.csv"
badcost "bad.csv:3: scheme must be named"
# One level in both forms (its parameters in full and only those changed): an error row naming both lines.
{ cat "$costs"; echo 'refine_fp16,tau=000 accum=tc flush_k=256 scale=rowcol,32,32,32,0.7,ok'; } >"$dir/both.csv"
"$mpbench" tune -c micro3 --size 32 --backend host $levels --threshold E1 --strategy motuner \
    --cost-model "$dir/both.csv" >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 3 ] && grep -q "both.csv: lines 6 and 8 both give refine_fp16 tau=000 at 32x32x32" "$dir/err" ||
    fail "one level in both forms: exit $rc: $(cat "$dir/err")"
# A run CSV's row from before ozaki2_int8_sp gained tol (its params in full, without tol=0)
# gives the time of the level at tol's default, as mpbench gate pairs such rows (the level
# names gemm=calls, what such rows ran: the default is auto since).
{ cat "$costs"; echo 'ozaki2_int8_sp,moduli=7 mode=fast nblock=0 mblock=0 gemm=calls,32,32,32,0.6,ok'; } >"$dir/old.csv"
"$mpbench" tune -c micro3 --size 32 --backend host --levels bf16,sgemm --levels ozaki2_int8_sp -a moduli=7 -a gemm=calls \
    --threshold E3 --strategy greedy --cost-model "$dir/old.csv" --csv "$dir/o.csv" >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 0 ] && ! grep -q "no time for" "$dir/o.csv" ||
    fail "a cost row from before tol=: exit $rc: $(cat "$dir/err") $(cat "$dir/o.csv")"

# --csv FILE: a folder is named with the reason; a FILE another run holds
# (run's lock, flock(1) plays it) is refused and left as it was.
mkdir "$dir/folder.csv"
"$mpbench" tune -c micro3 --size 8 --backend host --levels sgemm --threshold E1 --csv "$dir/folder.csv" \
    >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "folder.csv: cannot write .*folder.csv: Is a directory" "$dir/err" ||
    fail "--csv FOLDER: exit $rc: $(cat "$dir/err")"
flock -x "$dir/kept.csv" sleep 2 &
holder=$!
while flock -n "$dir/kept.csv" true; do sleep 0.02; done
"$mpbench" tune -c micro3 --size 8 --backend host --levels sgemm --threshold E1 --csv "$dir/kept.csv" \
    >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "is being written by another mpbench run" "$dir/err" ||
    fail "--csv FILE held by another run: exit $rc: $(cat "$dir/err")"
[ "$(cat "$dir/kept.csv")" = kept ] || fail "a tuning refused for the lock changed its --csv FILE"
wait $holder

[ "$fails" -eq 0 ] && echo "test_tune: all checks passed"
exit "$fails"
