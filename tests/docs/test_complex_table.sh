#!/bin/sh
# scripts/complex_table.py on a small run CSV: complex rows that ran, each
# with its ratio to the native complex GEMM of its precision on the same
# case (— without one) and the native's error beside its own; real rows
# and failed rows left out; the native first in its case; bad usage exits 1.
# Usage: test_complex_table.sh SOURCE_ROOT
set -u
root=$1
table="/usr/bin/python3 $root/scripts/complex_table.py"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$tmp/run.csv" <<'CSV'
scheme,params,target,m,n,k,gen,gen_params,time_ms_median,split_ms,gemm_ms,accum_ms,err_fro_rel,grade,status,field
ozaki2_int8_z,moduli=15 nblock=0 mblock=0 form=karatsuba,fp64,64,64,64,phi,phi=0.5,2.0,0.25,1.5,0.25,4.0e-16,A,ok,complex
zgemm,,fp64,64,64,64,phi,phi=0.5,5.0,,4.9,,3.0e-15,A,ok,complex
dgemm,,fp64,64,64,64,phi,phi=0.5,1.0,,1.0,,1.0e-16,A,ok,real
ozaki2_int8_z,moduli=15 nblock=0 mblock=0 form=karatsuba,fp64,64,64,64,smallim,span=24,2.5,,,,5.0e-16,A,error,complex
ozaki2_int8_c,moduli=8 nblock=0 mblock=0 form=karatsuba,fp32,32,32,32,smallim,span=24,1.0,,,,2.0e-07,B,ok,complex
CSV
$table "$tmp/run.csv" >"$tmp/out.md" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
[ "$(grep -c '^| fp' "$tmp/out.md")" = 3 ] || { fail "not the 3 complex rows that ran"; cat "$tmp/out.md"; }
grep '^| fp' "$tmp/out.md" | cut -d'|' -f5 | tr -d ' `' >"$tmp/order"
printf '%s\n' zgemm ozaki2_int8_z ozaki2_int8_c >"$tmp/order.want"
cmp -s "$tmp/order" "$tmp/order.want" || fail "order: $(tr '\n' ' ' <"$tmp/order"), want fp64 first, the native first in its case"
# shellcheck disable=SC2016 # the backquotes are Markdown's
grep -qxF '| fp64 complex | 64×64×64 | phi=0.5 | `ozaki2_int8_z` | moduli=15 form=karatsuba | 2.0 | 2.50 | 0.2 / 1.5 / 0.2 | 4.0e-16 (3.0e-15) | A |' \
    "$tmp/out.md" || { fail "ozaki2_int8_z's row"; cat "$tmp/out.md"; }
# shellcheck disable=SC2016
grep -qxF '| fp32 complex | 32×32×32 | smallim span=24 | `ozaki2_int8_c` | moduli=8 form=karatsuba | 1.0 | — | — / — / — | 2.0e-07 | B |' \
    "$tmp/out.md" || { fail "a row without its native"; cat "$tmp/out.md"; }

for args in "" "$tmp/run.csv extra" "$tmp/missing.csv"; do
    # shellcheck disable=SC2086 # the words are the arguments
    $table $args >/dev/null 2>&1
    [ $? = 1 ] || fail "'$args': want exit 1"
done

[ "$fails" = 0 ] && echo "test_complex_table: all checks passed"
[ "$fails" = 0 ]
