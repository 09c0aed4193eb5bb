#!/bin/sh
# scripts/report on tests/plot/report/ (the phi rows at n = 8192 of seven schemes
# from the committed H200 and H100 gate baselines, with their .meta.json): one
# self-contained HTML page with the Pareto, grades and environment sections and
# both GPUs, and its Markdown; complex rows (../complex.csv) apart from real
# ones, their speed over zgemm/cgemm; the Pareto front of constructed points; a
# malformed CSV or meta.json fails with FILE:LINE (exit 3) and leaves the output
# as it was; bad arguments exit 2. scripts/plot.py puts two GPUs' figures in two
# folders and names both. Both scripts are executable and, without matplotlib,
# exit 77 with the command that installs it. Exits 77 without matplotlib itself.
# Usage: test_report.sh REPORT PLOT_PY
set -u
py=/usr/bin/python3
report=$1
plot=$2
fix="$(dirname "$0")/report"
"$py" -c 'import matplotlib' 2>/dev/null || { echo "skip: no matplotlib for $py"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
h200='NVIDIA H200'
h100='NVIDIA H100 80GB HBM3'

# The page and its Markdown from the two GPUs' fixtures.
"$report" "$fix/h200.csv" "$fix/h100.csv" --html "$tmp/r.html" --markdown "$tmp/r.md" >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] || fail "fixture report exit status $st"
[ -s "$tmp/err" ] && { fail "fixture report wrote to stderr"; cat "$tmp/err"; }
[ "$(cat "$tmp/out")" = "$tmp/r.html
$tmp/r.md" ] || fail "stdout does not list the two files written: $(cat "$tmp/out")"
for id in pareto grades environment; do
  grep -q "<h2 id=\"$id\">" "$tmp/r.html" || fail "no $id section in the HTML"
done
for gpu in "$h200" "$h100"; do
  grep -qF "$gpu" "$tmp/r.html" || fail "HTML does not name $gpu"
  grep -qF "$gpu" "$tmp/r.md" || fail "Markdown does not name $gpu"
done
# Self-contained: no address a browser would fetch, every image embedded.
grep -Eiq 'https?:|<link|<script|url\(|@import' "$tmp/r.html" && fail "HTML refers to something outside it"
srcs=$(grep -o 'src="[^"]*' "$tmp/r.html" | cut -c6- | cut -d, -f1 | sort | uniq -c | tr -s ' ')
[ "$srcs" = " 2 data:image/png;base64" ] || fail "want two embedded PNGs (fp32, fp64), got: $srcs"
grep -q '<th>driver</th>\|<td>driver</td>' "$tmp/r.html" || fail "environment lacks the driver"
grep -qF '580.159.04' "$tmp/r.html" || fail "environment lacks the driver version"
grep -q '^### Pareto front' "$tmp/r.md" || fail "Markdown lacks the Pareto table"
grep -q '^### Grades' "$tmp/r.md" || fail "Markdown lacks the grades table"
grep -q '^### Environment' "$tmp/r.md" || fail "Markdown lacks the environment table"
# The H100's ozaki2_int8 at phi = 0.5 is on its front: 1.21x DGEMM at 4.6e-16.
grep -qF "| fp64 | phi=0.5, n = 8192 | $h100 | ozaki2_int8 moduli=15 mode=fast nblock=0 mblock=0 gemm=calls | 4.60e-16 | 1.21× |  |" \
  "$tmp/r.md" || fail "the H100's ozaki2_int8 front row is missing"

# Complex rows (../complex.csv, host rows) are a target of their own: "fp64 complex" and
# "fp32 complex" panels and table rows, their speed over zgemm/cgemm, never over dgemm/sgemm.
"$report" "$(dirname "$0")/complex.csv" --html "$tmp/c.html" --markdown "$tmp/c.md" >/dev/null 2>"$tmp/err" ||
    fail "complex report exit status $?"
[ -s "$tmp/err" ] && { fail "complex report wrote to stderr"; cat "$tmp/err"; }
for t in fp64 'fp64 complex' fp32 'fp32 complex'; do
  grep -qF "<h3>$t</h3>" "$tmp/c.html" || fail "complex report: no '$t' figure"
done
[ "$(grep -o 'src="data:image/png' "$tmp/c.html" | wc -l)" = 4 ] || fail "complex report: want 4 figures"
grep -qF '| fp64 complex | phi=0.5, n = 32 | host models | zgemm | 2.76e-16 | 1.00× |  |' "$tmp/c.md" ||
    fail "complex report: zgemm is not the native of the complex fp64 front"
grep -qF '| fp64 complex | phi=0.5, n = 32 | host models | zgemm3m | 2.99e-16 | 1.31× |  |' "$tmp/c.md" ||
    fail "complex report: zgemm3m's speed is not over zgemm"
grep -qF '| fp64 | `dgemm` | A (4/6 graded; 2 not_supported) |' "$tmp/c.md" &&
    grep -qF '| fp64 complex | `zgemm3m` | A (6/6 graded) |' "$tmp/c.md" || fail "complex report: grades not by field"
grep -q '^| fp64 | [^|]* | [^|]* | z' "$tmp/c.md" && fail "complex report: a complex scheme on the real fp64 front"

# The front: the configurations no other beats on both error and speed.
"$py" - "$report" <<'PY' || fail "pareto() is wrong on constructed points"
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader('report', sys.argv[1])
spec = importlib.util.spec_from_loader('report', loader)
report = importlib.util.module_from_spec(spec)
loader.exec_module(report)
pts = {'a': (1e-16, 1.2, 'x', False), 'b': (1e-15, 1.0, 'x', False),   # b: a beats it on both
       'c': (1e-17, 0.1, 'x', False), 'd': (1e-15, 2.0, 'x', False),
       'e': (1e-16, 1.2, 'x', True), 'f': (1e-18, None, None, False)}  # e ties a; f has no speed
front = report.pareto(pts)
sys.exit(0 if front == ['c', 'a', 'e', 'd'] else print(front) or 1)
PY

# Malformed input: exit 3 naming FILE:LINE, the output left as it was.
echo old >"$tmp/keep.html"
expect_3() {  # NAME PATTERN: the report on $tmp/NAME exits 3 and says PATTERN
  "$report" "$tmp/$1" --html "$tmp/keep.html" >/dev/null 2>"$tmp/err"
  st=$?
  [ $st -eq 3 ] || fail "$1: exit status $st, want 3"
  grep -qF "$2" "$tmp/err" || { fail "$1: message lacks '$2'"; cat "$tmp/err"; }
  grep -q Traceback "$tmp/err" && fail "$1: traceback"
  [ "$(cat "$tmp/keep.html")" = old ] || fail "$1: the output was changed"
}
{ head -3 "$fix/h200.csv"; tail -n +4 "$fix/h200.csv" | head -1 | cut -d, -f1-20; } >"$tmp/short.csv"
expect_3 short.csv "$tmp/short.csv:4: 20 cells, the header has"
sed '3s/,NVIDIA H200,/,NVIDIA H200,extra,/' "$fix/h200.csv" >"$tmp/long.csv"
expect_3 long.csv "$tmp/long.csv:3: "
"$py" - "$fix/h200.csv" "$tmp/nan.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
rows[2][rows[0].index('tflops')] = 'fast'
csv.writer(open(sys.argv[2], 'w', newline=''), lineterminator='\n').writerows(rows)
PY
expect_3 nan.csv "$tmp/nan.csv:3: column tflops: 'fast' is not a number"
sed '5s/,real,/,quaternion,/' "$(dirname "$0")/complex.csv" >"$tmp/field.csv"
expect_3 field.csv "$tmp/field.csv:5: column field: 'quaternion' is not one of real, complex"
printf 'a,b\n1,2\n' >"$tmp/other.csv"
expect_3 other.csv "$tmp/other.csv:1: not an mpbench run CSV"
expect_3 absent.csv "$tmp/absent.csv: cannot read"
cp "$fix/h200.csv" "$tmp/meta.csv"
printf '{"schema_version": 1,\n "runs": [\n{"run_id": }\n]}\n' >"$tmp/meta.csv.meta.json"
expect_3 meta.csv "$tmp/meta.csv.meta.json:3: malformed JSON"
head -1 "$fix/h200.csv" >"$tmp/empty.csv"
expect_3 empty.csv "no row with status ok"

# Bad arguments: argparse's 2, nothing written.
"$report" "$fix/h200.csv" >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 2 ] || fail "no --html/--markdown: exit status $st, want 2"
"$report" >/dev/null 2>&1
st=$?
[ $st -eq 2 ] || fail "no arguments: exit status $st, want 2"
"$report" "$fix/h200.csv" --html "$tmp/x.html" --error rho >/dev/null 2>&1
st=$?
[ $st -eq 2 ] || fail "--error rho: exit status $st, want 2"
[ -e "$tmp/x.html" ] && fail "--error rho wrote its output"

# plot.py on two GPUs: one folder each, both named on stderr; never one merged figure.
"$py" "$plot" "$fix/h200.csv" "$fix/h100.csv" --out "$tmp/fig" --formats png --figures error >"$tmp/list" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] || fail "plot.py on two GPUs: exit status $st"
grep -qF "$h200" "$tmp/err" && grep -qF "$h100" "$tmp/err" || { fail "plot.py does not name both GPUs"; cat "$tmp/err"; }
grep -q "^$tmp/fig/NVIDIA_H200/err_max_rel_vs_phi_fp64_n8192.png\$" "$tmp/list" || fail "no H200 folder figure"
grep -q "^$tmp/fig/NVIDIA_H100_80GB_HBM3/err_max_rel_vs_phi_fp64_n8192.png\$" "$tmp/list" || fail "no H100 folder figure"
[ "$(grep -c . "$tmp/list")" -eq 4 ] || { fail "want 4 figures (2 GPUs x 2 targets)"; cat "$tmp/list"; }
"$py" "$plot" "$tmp/nan.csv" --out "$tmp/fig2" 2>"$tmp/err"
st=$?
[ $st -eq 3 ] || fail "plot.py on a malformed CSV: exit status $st, want 3"
grep -qF "$tmp/nan.csv:3: column tflops" "$tmp/err" || fail "plot.py's message lacks FILE:LINE"

# Executable, and without matplotlib (-S: no site packages) exit 77 with the hint.
for s in "$report" "$plot"; do
  [ -x "$s" ] || fail "$s is not executable"
  "$py" -S "$s" "$fix/h200.csv" --html "$tmp/y.html" --out "$tmp/y" >/dev/null 2>"$tmp/err"
  st=$?
  [ $st -eq 77 ] || fail "$s without matplotlib: exit status $st, want 77"
  grep -qF 'apt-get install python3-matplotlib' "$tmp/err" || fail "$s without matplotlib: no apt hint"
  grep -qF './scripts/setup' "$tmp/err" || fail "$s without matplotlib: no setup hint"
done

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
