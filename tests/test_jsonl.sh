#!/bin/sh
# run --jsonl FILE: one JSON object per CSV row with the CSV's columns,
# numbers as numbers, empty cells as null, params and gen_params as objects;
# refused (exit 2, nothing touched) beside itself as --csv or as stdout, and
# left as it was when --resume refuses the CSV; made again from the CSV's
# rows on --resume; in the CSV's order after run --devices.
# Usage: test_jsonl.sh MPBENCH
set -u
MPB=${1:?usage: test_jsonl.sh MPBENCH}
. "$(dirname "$0")/test_lib.sh"
same_rows() { # CSV JSONL: every row, column and cell alike, in order
    python3 - "$1" "$2" <<'PY'
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
objs = [json.loads(line) for line in open(sys.argv[2])]
numeric = {"schema_version", "scheme_version", "m", "n", "k", "seed", "warmup", "reps", "time_ms_median",
           "time_ms_min", "time_ms_max", "noise_pct", "tflops", "split_ms", "gemm_ms", "accum_ms", "slices",
           "fallback", "ref_entries", "err_fro_rel", "err_max_rel", "err_median_rel", "rho_a_max", "rho_b_max",
           "rho_c_max", "nonfinite", "ref_check", "cr_mismatch", "max_abs_vs_native", "power_w",
           "joules_per_call", "gflops_per_w"}
def params(text):
    out = {}
    for kv in text.split():
        k, v = kv.split("=", 1)
        try:
            out[k] = float(v)
        except ValueError:
            out[k] = v
    return out
if len(rows) != len(objs):
    sys.exit(f"{len(rows)} CSV rows, {len(objs)} JSON lines")
for i, (r, o) in enumerate(zip(rows, objs), 2):
    if list(o) != list(r):
        sys.exit(f"row {i}: members {list(o)} are not the CSV's columns")
    for c, cell in r.items():
        v = o[c]
        if c in ("params", "gen_params"):
            ok = isinstance(v, dict) and v == params(cell) and all(
                isinstance(x, (int, float)) == isinstance(params(cell)[k], float) for k, x in v.items())
        elif cell == "":
            ok = v is None
        elif c in numeric:
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and float(cell) == v
            ok = ok and (isinstance(v, int) or "." in cell or "e" in cell or "inf" in cell)
        else:
            ok = v == cell
        if not ok:
            sys.exit(f"row {i}, column {c}: CSV '{cell}', JSON {v!r}")
PY
}
set -- -s dgemm -s ozaki2_int8 -a moduli=6,8 -g phi -a phi=0.5 --size 16 --backend host --progress never

"$MPB" run "$@" --csv a.csv --jsonl a.jsonl >/dev/null 2>err || fail "run --jsonl exited $?: $(cat err)"
same_rows a.csv a.jsonl || fail "a.jsonl is not a.csv's rows"
python3 -c '
import json, sys
o = [json.loads(l) for l in open("a.jsonl")]
assert o[1]["params"]["moduli"] == 6 and isinstance(o[1]["params"]["moduli"], int), o[1]["params"]
assert o[0]["gen_params"] == {"phi": 0.5}, o[0]["gen_params"]
assert o[0]["tflops"] is None and o[0]["power_w"] is None and isinstance(o[0]["m"], int)
' || fail "a.jsonl: params, gen_params or types"

cp a.csv keep.csv
cp a.jsonl keep.jsonl
rc=0
"$MPB" run "$@" --csv a.csv --jsonl a.csv >/dev/null 2>err || rc=$?
[ $rc -eq 2 ] && grep -q -- "--jsonl a.csv is the --csv file" err || fail "--jsonl = --csv: exit $rc, $(cat err)"
rc=0
"$MPB" run "$@" --csv a.csv --jsonl ./a.csv >/dev/null 2>err || rc=$?
[ $rc -eq 2 ] || fail "--jsonl ./a.csv beside --csv a.csv: exit $rc"
rc=0
"$MPB" run "$@" --csv a.csv --jsonl a.csv.meta.json >/dev/null 2>err || rc=$?
[ $rc -eq 2 ] || fail "--jsonl onto the sidecar: exit $rc"
rc=0
"$MPB" run "$@" --csv a.csv --jsonl - >/dev/null 2>err || rc=$?
[ $rc -eq 2 ] && grep -q -- "--jsonl -: name a file" err || fail "--jsonl -: exit $rc, $(cat err)"
cmp -s a.csv keep.csv && cmp -s a.jsonl keep.jsonl || fail "a refused run changed a.csv or a.jsonl"

# --resume refusing the CSV (another sweep's rows) leaves the JSON Lines as they were.
rc=0
"$MPB" run -s sgemm -g phi --size 16 --backend host --progress never --csv a.csv --resume --jsonl a.jsonl \
    >/dev/null 2>err || rc=$?
[ $rc -eq 2 ] || fail "--resume of another sweep's CSV: exit $rc"
cmp -s a.jsonl keep.jsonl || fail "a refused --resume changed a.jsonl"

# --resume: the JSON Lines hold the kept rows and the new ones, as the CSV does.
"$MPB" run -s dgemm -g phi --size 16 --backend host --progress never --csv r.csv >/dev/null 2>&1
echo stale >r.jsonl
"$MPB" run -s dgemm -g phi --size 16,24 --backend host --progress never --csv r.csv --resume --jsonl r.jsonl \
    >/dev/null 2>err || fail "--resume --jsonl exited $?: $(cat err)"
[ "$(wc -l <r.jsonl)" -eq 2 ] || fail "--resume: $(wc -l <r.jsonl) lines, expected the kept row and the new one"
same_rows r.csv r.jsonl || fail "--resume: r.jsonl is not r.csv's rows"

# --devices: the JSON Lines in the CSV's (expansion) order.
MPBENCH_DEVICES_STANDIN=2 "$MPB" run -s sgemm,dgemm -g randn,phi --size 24,8,16 --progress never --devices all \
    --csv d.csv --jsonl d.jsonl >/dev/null 2>err || fail "--devices --jsonl exited $?: $(cat err)"
same_rows d.csv d.jsonl || fail "--devices: d.jsonl is not d.csv's rows in order"
[ "$fails" = 0 ] || exit 1
echo "test_jsonl: ok"
