#!/bin/sh
# scripts/emulation_table.py on small run CSVs: the speed table without the
# yardstick file (× native, phases, no efficiency); --energy: per case the native GEMM
# and the schemes at native accuracy (err_fro_rel <= the native's), most GFLOP/s per
# watt first; a scheme less accurate than the native and a row without energy left
# out; a case without the native's energy not tabled; bad usage exits 1.
# Usage: test_emulation_table.sh SOURCE_ROOT
set -u
root=$1
table="/usr/bin/python3 $root/scripts/emulation_table.py"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$tmp/run.csv" <<'CSV'
scheme,params,target,m,n,k,gen_params,time_ms_median,err_fro_rel,status,power_w,joules_per_call,gflops_per_w
sgemm,,fp32,64,64,64,phi=1,2.0,2.0e-06,ok,600,1.2,80.0
fast_bad,x=1,fp32,64,64,64,phi=1,0.5,3.0e-06,ok,700,0.35,300.0
slow_good,x=2,fp32,64,64,64,phi=1,4.0,1.0e-07,ok,500,2.0,40.0
best_good,x=3,fp32,64,64,64,phi=1,1.0,2.0e-06,ok,650,0.65,150.0
no_energy,x=4,fp32,64,64,64,phi=1,1.0,1.0e-07,ok,,,
failed,x=5,fp32,64,64,64,phi=1,0.1,1.0e-07,error,600,0.06,999.0
sgemm,,fp32,64,64,64,phi=2,2.0,2.0e-06,ok,,,
best_good,x=3,fp32,64,64,64,phi=2,1.0,2.0e-06,ok,650,0.65,150.0
CSV
$table --energy "$tmp/run.csv" >"$tmp/out.md" 2>"$tmp/err" || fail "--energy: exit $?: $(cat "$tmp/err")"
grep '^| 64 ' "$tmp/out.md" | cut -d'|' -f3,4 | tr -d ' `' >"$tmp/order"
printf '%s\n' 'phi=1|best_good' 'phi=1|sgemm' 'phi=1|slow_good' >"$tmp/want"
cmp -s "$tmp/order" "$tmp/want" || { fail "--energy rows are not the native-accuracy ones, best first"; cat "$tmp/out.md"; }
# shellcheck disable=SC2016 # the backquotes are Markdown's
grep -qxF '| 64 | phi=1 | `best_good` | x=3 | 2.00 | 2.0e-06 (2.0e-06) | 650 | 0.65 | 150.0 | 1.88 |' "$tmp/out.md" \
    || { fail "--energy: best_good's row"; cat "$tmp/out.md"; }
# shellcheck disable=SC2016 # the backquotes are Markdown's
grep -qxF '| 64 | phi=1 | `sgemm` | — | 1.00 | 2.0e-06 | 600 | 1.20 | 80.0 | 1.00 |' "$tmp/out.md" \
    || { fail "--energy: the native's row"; cat "$tmp/out.md"; }

# Without LOWP.csv: the speed table, × native from the same run, no efficiency.
cat >"$tmp/speed.csv" <<'CSV'
scheme,params,target,m,n,k,gen_params,time_ms_median,tflops,err_fro_rel,grade,status,split_ms,gemm_ms,accum_ms,slices,settings
dgemm,,fp64,64,64,64,phi=1,2.0,0.26,4.0e-15,A,ok,,2.0,,,
ozaki2_int8,moduli=15,fp64,64,64,64,phi=1,1.0,0.52,5.0e-16,A,ok,0.1,0.8,0.1,15,moduli=15 mode=fast
CSV
$table "$tmp/speed.csv" >"$tmp/speed.md" 2>"$tmp/err" || fail "without LOWP.csv: exit $?: $(cat "$tmp/err")"
# shellcheck disable=SC2016 # the backquotes are Markdown's
grep -qxF '| 64 | phi=1 | `ozaki2_int8` | moduli=15 | 1.0 | 0.5 | 2.00 | 5.0e-16 (4.0e-15) | A | 0.1 / 0.8 / 0.1 | 15 | — |' \
    "$tmp/speed.md" || { fail "without LOWP.csv: ozaki2_int8's row"; cat "$tmp/speed.md"; }

for args in "--energy" "--energy $tmp/run.csv extra" "--power $tmp/run.csv" "$tmp/speed.csv a b"; do
    # shellcheck disable=SC2086 # the words are the arguments
    $table $args >/dev/null 2>&1
    st=$?
    [ $st -eq 1 ] || fail "emulation_table.py $args: exit $st, not 1"
done

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
