#!/bin/sh
# mpbench tune -c FILE (README "mpbench tune"): chain.c's micro3 and mlp3
# written as files (tests/tune) give the rows of -c micro3 and -c mlp3 bit
# for bit; a chain of other shapes runs end to end on the host models and
# meets its thresholds; every refusal exits 2 with one line naming -c and
# FILE:LINE. Usage: test_tune_chain_file.sh MPBENCH DATA_DIR
set -u
MPB=${1:?usage: test_tune_chain_file.sh MPBENCH DATA_DIR}
DATA=${2:?usage: test_tune_chain_file.sh MPBENCH DATA_DIR}
. "$(dirname "$0")/test_lib.sh"

# GPU-like costs at 32x32x32 (tests/tune/costs-32.csv, test_tune's too), so
# that every choice is the same however fast the host runs.
cp "$DATA/costs-32.csv" costs.csv
levels="--levels bf16,fp16,tf32,sgemm --levels refine_fp16 -a tau=000,110"
tune_args="--size 32 --backend host $levels --threshold E1,E3,1e-6:fro_rel,E7
    --strategy motuner,greedy,exhaustive,priork --cost-model costs.csv"

# The columns of tune CSV $1 that the chain decides: all but its name, the
# run id and what was timed.
decided() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++)
                         skip[i] = $i ~ /^(run_id|chain|tune_s|measured_ms|baseline_measured_ms|measured_speedup)$/ }
             { row = ""; for (i = 1; i <= NF; i++) if (!skip[i]) row = row $i ","; print row }' "$1"
}

# A built-in chain and its file (also with CRLF line ends): the same rows,
# 16 of them, all ok.
for name in micro3 mlp3; do
    "$MPB" tune -c "$name" $tune_args --csv "$name.csv" >out 2>err || fail "-c $name exited $? ($(cat err))"
    decided "$name.csv" >"$name.rows"
done
sed 's/$/\r/' "$DATA/micro3.chain" >crlf-micro3.chain
for pair in micro3:"$DATA/micro3.chain" mlp3:"$DATA/mlp3.chain" micro3:crlf-micro3.chain; do
    name=${pair%%:*}
    file=${pair#*:}
    "$MPB" tune -c "$file" $tune_args --csv file.csv >out 2>err || fail "-c $file exited $? ($(cat err))"
    decided file.csv >file.rows
    cmp -s "$name.rows" file.rows || fail "-c $file differs from -c $name: $(diff "$name.rows" file.rows | head -5)"
    chain=$(basename "$file" .chain)
    rows=$(awk -F, -v chain="$chain" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                    $c["status"] == "ok" && $c["chain"] == chain { n++ } END { print n + 0 }' file.csv)
    [ "$rows" -eq 16 ] || fail "-c $file: $rows ok rows named $chain, expected 16"
done
# The comparison sees a scale that is not written exactly (1.732/sqrt(n) is
# not sqrt(3/n)): it compares bits.
sed 's|scale=sqrt(3/n)|scale=1.732/sqrt(n)|' "$DATA/micro3.chain" >approx.chain
"$MPB" tune -c approx.chain $tune_args --csv approx.csv >out 2>err || fail "-c approx.chain exited $? ($(cat err))"
decided approx.csv >approx.rows
cmp -s micro3.rows approx.rows && fail "-c approx.chain (scale 1.732/sqrt(n)) gives -c micro3's bits"

# A chain of other shapes, written with every form of dimension and scale:
# a bias on the input, n x n/2 times n/2 x 2n with bias and ReLU, then
# 2n x n/4. Comments, tabs, blank lines.
cat >wide.chain <<'EOF'
# wide: not square
input      X    n    n/2  scale=1            # rows cols
input      b0   1    n/2  scale=0.1
bias       Xb = X b0

input	W1	n/2	n*2	scale=sqrt(12/n)
input      b1   1    n*2  scale=1/sqrt(100)
gemm       Z1 = Xb W1
bias_relu  H1 = Z1 b1
input      W2   n*2  n/4  scale=1.2/sqrt(n)
input      c    1    n/4  scale=sqrt(0.5/2)
gemm       Y  = H1 W2
bias       Yc = Y c
output Yc
EOF
# Its GEMMs are n x 2n x n/2 and n x n/4 x 2n: a cost file with only those
# shapes (GPU-like, bf16 and tf32 cheaper than sgemm) serves it at 32 and
# 48. The guaranteeing strategies meet every threshold on both seeds, the
# loosest takes bf16 throughout and the tightest sgemm, and the all-sgemm
# chain costs the sum of its GEMMs.
cat >wide-costs.csv <<'EOF'
scheme,params,m,n,k,time_ms_median,status
sgemm,,32,64,16,1.0,ok
tf32,,32,64,16,0.4,ok
bf16,,32,64,16,0.25,ok
sgemm,,32,8,64,0.5,ok
tf32,,32,8,64,0.2,ok
bf16,,32,8,64,0.125,ok
sgemm,,48,96,24,2.0,ok
tf32,,48,96,24,0.8,ok
bf16,,48,96,24,0.5,ok
sgemm,,48,12,96,1.0,ok
tf32,,48,12,96,0.4,ok
bf16,,48,12,96,0.25,ok
EOF
"$MPB" tune -c wide.chain --size 32,48 --backend host --levels bf16,tf32,sgemm --threshold E1,E3,1e-6:fro_rel \
    --strategy motuner,greedy,exhaustive,priork --cost-model wide-costs.csv --csv wide.csv >out 2>err ||
    fail "-c wide.chain exited $? ($(cat err))"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { n++; s = $c["strategy"]; th = $c["threshold"]; at = "wide at " $c["size"] " " th " " s ": " }
    $c["status"] != "ok" || $c["chain"] != "wide" || $c["gemms"] != 2 { print "FAIL: " at $c["status"] " " \
        $c["chain"] " gemms " $c["gemms"] " " $c["note"]; bad++ }
    s != "priork" && ($c["met"] != "yes" || $c["err"] + 0 > $c["threshold_value"] + 0 || $c["valid_met"] != "yes") {
        print "FAIL: " at "met " $c["met"] " err " $c["err"] " valid " $c["valid_met"]; bad++ }
    $c["baseline_predicted_ms"] != ($c["size"] == 32 ? 1.5 : 3) {
        print "FAIL: " at "baseline " $c["baseline_predicted_ms"]; bad++ }
    s == "exhaustive" && th == "E1" && $c["choice"] != "bf16;bf16" { print "FAIL: " at $c["choice"]; bad++ }
    s == "exhaustive" && th == "1e-6:fro_rel" && $c["choice"] != "sgemm;sgemm" { print "FAIL: " at $c["choice"]; bad++ }
    END { if (n != 24) { print "FAIL: wide: " n " rows, expected 24"; bad++ }; exit bad > 0 }' wide.csv ||
    fails=$((fails + 1))

# Names: the file's without folder and ".chain", at most 31 characters;
# built-in names and files in one -c.
mkdir sub
cp wide.chain sub/wide
long=a_chain_name_longer_than_the_csv_keeps
cp "$DATA/micro3.chain" "$long.chain"
{ cat wide-costs.csv; sed 1d costs.csv; } >all-costs.csv
"$MPB" tune -c micro3,sub/wide,"$long.chain" --size 32 --backend host --levels bf16,sgemm --threshold E1 \
    --strategy exhaustive --cost-model all-costs.csv --csv names.csv >out 2>err || fail "names: exit $? ($(cat err))"
names=$(awk -F, 'NR > 1 { printf "%s %s ", $3, $12 }' names.csv)
[ "$names" = "micro3 ok wide ok $(echo "$long" | cut -c1-31) ok " ] || fail "names and statuses: $names"

# Refusals. refuse_file NEEDLE ARGS...: tune ARGS exits 2 with one line on
# stderr that holds NEEDLE; refuse NEEDLE LINE...: so does bad.chain of
# those lines, tuned at --size 32.
refuse_file() {
    needle=$1
    shift
    "$MPB" tune "$@" >out 2>err
    rc=$?
    [ "$rc" -eq 2 ] && grep -qF -- "$needle" err && [ "$(wc -l <err)" -eq 1 ] ||
        fail "tune $*: exit $rc, expected 2 and \"$needle\" alone: $(cat err)"
}
refuse() {
    needle=$1
    shift
    printf '%s\n' "$@" >bad.chain
    "$MPB" tune -c bad.chain --size 32 --backend host --levels sgemm --threshold E1 >out 2>err
    rc=$?
    [ "$rc" -eq 2 ] || fail "bad.chain ($*): exit $rc, expected 2"
    grep -qF -- "$needle" err || fail "bad.chain ($*): stderr lacks \"$needle\": $(cat err)"
    [ "$(wc -l <err)" -eq 1 ] || fail "bad.chain ($*): more than one line: $(cat err)"
}
X='input X n n scale=1'
W='input W n n scale=1'
b='input b 1 n scale=0.1'
G='gemm Y = X W'
O='output Y'
at='mpbench tune: -c bad.chain:'
sized='mpbench tune: -c bad.chain --size 32: bad.chain:'
refuse "${at}3: unknown word 'potrf' (input, gemm, bias, bias_relu or output)" "$X" "$W" 'potrf L = X X' "$G" "$O"
refuse "${at}3: unknown word 'transpose'" "$X" "$W" 'transpose T = X' "$G" "$O"
refuse "${at}1: unknown word 'Input'" 'Input X n n scale=1'
for dim in 2n n*0 n/ 0 1048577 -4 n+1 m; do
    refuse "${at}2: bad dimension '$dim' (an INT, n, n*INT or n/INT, INT in 1..1048576)" "$X" "input W $dim n scale=1"
done
refuse "${sized}2: W's rows n/3 at n = 32: 3 does not divide n" "$X" 'input W n/3 n scale=1' "$G" "$O"
refuse "${sized}1: X's columns n*65536 at n = 32: more than 1048576" 'input X n n*65536 scale=1' "$W" "$G" "$O"
refuse "${sized}3: gemm Y = X W at n = 32: X is 32 x 16 and W 32 x 32, but X's columns must equal W's rows" \
    'input X n n/2 scale=1' "$W" "$G" "$O"
refuse "${sized}5: bias H = Y b at n = 32: the bias b is 1 x 16, not 1 x 32 (a row of Y's columns)" \
    "$X" "$W" 'input b 1 n/2 scale=1' "$G" 'bias H = Y b' 'output H'
refuse "${sized}5: bias_relu H = Y b at n = 32: the bias b is 32 x 32, not 1 x 32" \
    "$X" "$W" 'input b n n scale=1' "$G" 'bias_relu H = Y b' 'output H'
refuse "${at}3: unknown buffer 'Q' (neither an input nor written by an earlier step)" "$X" "$W" 'gemm Y = X Q' "$O"
refuse "${at}3: unknown buffer 'Z'" "$X" "$W" 'gemm Y = X Z' 'gemm Z = X W' "$O"
refuse "${at}4: 'Y' already names the buffer of line 3 (a step writes a new buffer)" "$X" "$W" "$G" 'gemm Y = Y W' "$O"
refuse "${at}3: 'X' already names the buffer of line 1" "$X" "$W" 'gemm X = X W' "$O"
refuse "${at}2: 'X' already names the buffer of line 1" "$X" 'input X n n scale=2'
refuse "${at}5: a second output (the first is at line 4)" "$X" "$W" "$G" "$O" "$O"
refuse "${at}4: the output 'X' is an input" "$X" "$W" "$G" 'output X'
refuse "${at}4: unknown buffer 'Z'" "$X" "$W" "$G" 'output Z'
refuse "${at}5: the output 'B' is written before the first gemm, so no level changes it" \
    "$X" "$W" "$b" 'bias B = X b' 'output B' "$G"
refuse "${at}4: expected 'output NAME'" "$X" "$W" "$G" 'output Y X'
refuse "mpbench tune: -c bad.chain: no 'output NAME' line (a chain has exactly one)" "$X" "$W" "$G"
refuse "mpbench tune: -c bad.chain: no gemm step (a chain tunes at least one)" "$X" "$b" 'bias Y = X b'
for name in 1X X-1 x.y ab_c_de_f_gh_ij_kl_mn_op_qr_st_uv; do
    refuse "${at}1: bad buffer name '$name' (a letter or _, then letters, digits or _, at most 31)" \
        "input $name n n scale=1"
done
for scale in 0 -1 abc inf nan 1/sqrt '1/sqrt(m)' '1/sqrt(0)' 'sqrt(3/n' 'sqrt(3)' 'sqrt(3/n))' '2/sqrt(n)x' 1e-400; do
    refuse "${at}1: bad scale '$scale' (NUM, NUM/sqrt(D) or sqrt(NUM/D): NUM a positive number, D n or an INT" \
        "input X n n scale=$scale"
done
refuse "${at}1: expected 'input NAME ROWS COLS scale=SCALE'" 'input X n n'
refuse "${at}1: expected 'input NAME ROWS COLS scale=SCALE'" 'input X n n size=1'
refuse "${at}1: expected 'input NAME ROWS COLS scale=SCALE'" 'input X n n scale=1 extra'
refuse "${at}3: expected 'gemm OUT = A B'" "$X" "$W" 'gemm Y X W' "$O"
refuse "${at}3: expected 'gemm OUT = A B'" "$X" "$W" 'gemm Y = X W W' "$O"
refuse "${at}3: expected 'gemm OUT = A B'" "$X" "$W" 'gemm Y=X W' "$O"
refuse "${at}4: expected 'bias_relu OUT = A BIAS'" "$X" "$W" "$G" 'bias_relu H = Y' 'output H'
refuse "${at}4: the bias 'Y' is not an input" "$X" "$W" "$G" 'bias H = Y Y' 'output H'
refuse "${at}6: 'Z1' is neither the output of the gemm at line 5 nor of an elementwise step after it" \
    "$X" "$W" "$b" 'gemm Z1 = X W' 'gemm Z2 = X W' 'bias H = Z1 b' 'output H'
refuse "${at}5: 'X' is neither the output of the gemm at line 4 nor of an elementwise step after it" \
    "$X" "$W" "$b" "$G" 'bias H = X b' 'output H'
# 16 gemms are allowed, a 17th is not; 32 buffers, not a 33rd.
gemms=$(i=1; while [ $i -le 17 ]; do echo "gemm Y$i = X W"; i=$((i + 1)); done)
printf '%s\n%s\n%s\noutput Y1\n' "$X" "$W" "$gemms" >many.chain
refuse_file "mpbench tune: -c many.chain:19: a gemm beyond the 16 a chain may have" -c many.chain
inputs=$(i=1; while [ $i -le 30 ]; do echo "input I$i 1 n scale=1"; i=$((i + 1)); done)
printf '%s\n%s\n%s\n%s\n' "$X" "$W" "$inputs" "$G" >many.chain
refuse_file "mpbench tune: -c many.chain:33: 'Y' is a buffer beyond the 32 a chain may have" -c many.chain
printf '%s\n%s\n%s\n%s\n%s\n' "$X" "$W" "$(echo "$inputs" | sed 1d)" "$G" "$O" >many.chain
"$MPB" tune -c many.chain --size 8 --backend host --levels sgemm --threshold E1 >out 2>err ||
    fail "32 buffers: exit $? ($(cat err))"
printf '%s\n%s\n%s\noutput Y16\n' "$X" "$W" "$(echo "$gemms" | sed 17d)" >many.chain
"$MPB" tune -c many.chain --size 8 --backend host --levels sgemm --threshold E1 --strategy greedy >out 2>err ||
    fail "16 gemms: exit $? ($(cat err))"
# Files that cannot be read, a NUL byte, a file far too long.
refuse_file "mpbench tune: -c none.chain: cannot read it: No such file or directory" -c none.chain
refuse_file "mpbench tune: -c sub/: cannot read it: Is a directory" -c micro3,sub/
printf '%s\n%s\n\0\n' "$X" "$W" >nul.chain
refuse_file "mpbench tune: -c nul.chain:3: a NUL byte (a chain description is text)" -c nul.chain
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "# %070d\n", i }' >long.chain
refuse_file "mpbench tune: -c long.chain: more than 65536 bytes" -c long.chain
# The file is read when -c is, before the options are checked together
# (here: no --levels).
printf '%s\nlu X\n' "$X" >bad.chain
refuse_file "mpbench tune: -c bad.chain:2: unknown word 'lu'" --size 32 -c bad.chain
# A word without '/' or ".chain" is a built-in's name; at most 8 chains.
refuse_file "mpbench tune: -c 'wide': expected micro3|micro6|micro9|mlp3|cholesky" -c wide
nine=micro3,micro3,micro3,micro3,micro3,micro3,micro3,micro3,wide.chain
refuse_file "mpbench tune: -c '$nine': more than 8 chains" -c "$nine"
"$MPB" tune --help | grep -q "FILE (a word with" || fail "--help does not say what FILE is"

[ "$fails" -eq 0 ] && echo "test_tune_chain_file: all checks passed"
exit "$fails"
