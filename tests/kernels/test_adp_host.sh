#!/bin/sh
# The adp host model against the exact MPFR reference, through `mpbench run`
# (kernels/adp/README.md, README "Accuracy: the reference and the grades"):
#  - fallback=on, decision=eager, both engines: grade A on the battery at
#    small sizes, the emulated path taken where the bits fit (fallback 0 on
#    phi/uniform/randn) by the engine asked for (engine=crt: CRT where its
#    moduli suffice), Test 2 at b_max passed by falling back (fallback 1);
#  - fallback=off fixed_bits=55: the paper's Fig. 2 failure, Test 2's error
#    passes 10·n·u at b = 0 and grows past it with b;
#  - NaN/Inf/subnormal input: fallback 1 and the dgemm host model's bits,
#    the note counting the entries;
#  - k above 131071 (k split into INT32-exact chunks): eager emulates with
#    either engine, grade A, the split in the note; decision=auto with
#    fallback=on runs native (fallback 1), never not_supported.
# Usage: test_adp_host.sh path/to/mpbench
set -u
MPB=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# col FILE NAME: the values of column NAME, one per row.
col() {
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                          { print $c }' "$1"
}

run() { # run OUT ARGS...: host backend, exact reference, CSV to OUT
    out=$1; shift
    "$MPB" run --backend host --ref mpfr --csv "$out" "$@" >/dev/null 2>"$TMP/err" ||
        { fail "mpbench run $* exited $?"; cat "$TMP/err"; }
}

# 1. Grade A on the battery (eager, fallback on), each engine.
for engine in crt slices; do
    run "$TMP/battery.csv" -s adp -a decision=eager -a engine=$engine \
        -g uniform,randn,test1a,test1b,test2,test2r,outer,inner,evil \
        -g phi -a phi=0.5,1,2,4 --size 1,7,33,64 --seed 1,2
    run "$TMP/rect.csv" -s adp -a decision=eager -a engine=$engine -g phi -a phi=0.5,4 \
        -g evil,test2 --m 66 --n 7 --k 130 --seed 3
    for f in "$TMP/battery.csv" "$TMP/rect.csv"; do
        rows=$(col "$f" grade | wc -l)
        [ "$rows" -gt 0 ] || fail "$engine $f: no rows"
        bad=$(col "$f" grade | grep -vc '^A$')
        [ "$bad" = 0 ] || { fail "$engine $f: $bad of $rows cases not grade A"; grep -v ',A,' "$f" | head -5; }
        col "$f" status | grep -vq '^ok$' && fail "$engine $f: a case without status ok"
    done
    emulated=$(awk -F, 'NR > 1 && /phi=/ && /,0,mpfr,/' "$TMP/battery.csv" | wc -l)
    [ "$emulated" -gt 0 ] || fail "$engine: no phi case took the emulated path (fallback 0)"
    # phi <= 2 needs at most 53 + 30 bits at these sizes: within 25 moduli
    # (phi = 4 may need more: 94 bits at n = 64, seed 1, then slices run)
    case $engine in
    crt) want='CRT over' ;;
    *) want='INT8 slices' ;;
    esac
    other=$(awk -F, 'NR > 1 && /phi=(0.5|1|2),/ && /,0,mpfr,/' "$TMP/battery.csv" |
            grep -vc "$want")
    [ "$other" = 0 ] || fail "engine=$engine: $other emulated phi cases not run by it"
done

# 2. Test 2 at b_max: passed by falling back (53 + ESC > 200 bits).
run "$TMP/t2.csv" -s adp -a decision=eager -g test2 --size 64,129
col "$TMP/t2.csv" fallback | grep -vq '^1$' && fail "Test 2 at b_max: fallback not 1"
col "$TMP/t2.csv" grade | grep -vq '^A$' && fail "Test 2 at b_max: not grade A"

# 3. fallback=off fixed_bits=55: error grows with b past 10·n·u (n = 64).
run "$TMP/fig2.csv" -s adp -a decision=eager -a fallback=off -a fixed_bits=55 \
    -g test2 -a b=0,8,16,24,32,40,48 --size 64
col "$TMP/fig2.csv" err_max_rel > "$TMP/errs"
awk 'BEGIN { tol = 10 * 64 * 2^-53 }
     { e[NR] = $1 + 0 }
     END {
        if (NR != 7) { print "expected 7 rows, got " NR; exit 1 }
        if (e[1] > tol) { print "b=0 fails 10nu: " e[1]; exit 1 }
        if (e[7] <= tol) { print "b=48 passes 10nu: " e[7]; exit 1 }
        if (e[7] < e[3]) { print "error does not grow with b: " e[3] " then " e[7]; exit 1 }
     }' "$TMP/errs" || fail "fallback=off fixed_bits=55 Test 2 sweep"
col "$TMP/fig2.csv" fallback | grep -vq '^0$' && fail "fallback=off fell back"

# 4. Special values: native, bit for bit the dgemm host model.
for kind in nan inf subnormal all; do
    run "$TMP/sp_adp.csv" -s adp -a decision=eager -g special -a kind=$kind -a rate=0.01 --size 33
    run "$TMP/sp_dgemm.csv" -s dgemm -g special -a kind=$kind -a rate=0.01 --size 33
    [ "$(col "$TMP/sp_adp.csv" out_hash)" = "$(col "$TMP/sp_dgemm.csv" out_hash)" ] ||
        fail "special kind=$kind: output differs from dgemm's"
    [ "$(col "$TMP/sp_adp.csv" fallback)" = 1 ] || fail "special kind=$kind: fallback not 1"
    grep -q 'subnormal input ([1-9][0-9]* of the 2178 entries of A and B)' "$TMP/sp_adp.csv" ||
        fail "special kind=$kind: the note does not count the entries"
done

# 5. k above 131071: 2 × 2 × 131073 and 1 × 2 × 262200 (2 and 3 chunks).
run "$TMP/longk.csv" -s adp -a decision=eager -a engine=crt,slices -g phi --m 1,2 --n 2 --k 131073,262200
[ "$(col "$TMP/longk.csv" status | grep -c '^ok$')" = 8 ] || fail "long k, eager: not 8 rows ok"
col "$TMP/longk.csv" grade | grep -vq '^A$' && fail "long k, eager: not grade A"
col "$TMP/longk.csv" fallback | grep -vq '^0$' && fail "long k, eager: fell back"
[ "$(grep -c 'k split into [23] chunks' "$TMP/longk.csv")" = 8 ] || fail "long k, eager: the split not in every note"
run "$TMP/longk_auto.csv" -s adp -g phi --m 2 --n 2 --k 131073
[ "$(col "$TMP/longk_auto.csv" status)" = ok ] && [ "$(col "$TMP/longk_auto.csv" fallback)" = 1 ] ||
    fail "long k, decision=auto: not native with fallback 1"

[ "$fails" = 0 ] && echo "test_adp_host: all checks passed"
[ "$fails" = 0 ]
