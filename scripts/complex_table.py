#!/usr/bin/python3
"""Markdown table of a complex GEMM sweep (results/h100/complex/README.md).

Usage: /usr/bin/python3 scripts/complex_table.py RESULTS.csv

RESULTS.csv is an mpbench run CSV holding complex rows (field = complex):
the native complex GEMM of each precision (zgemm for fp64, cgemm for fp32)
beside the other schemes, measured in the same run. One row per case that
ran (status ok), grouped by precision, size and data: the median time, the
ratio to the native GEMM's time on the same case (— when the native did not
run it), the phases (split / GEMMs / accumulation, ms), err_fro_rel with the
native's in parentheses, and the grade. Real rows are left out (they belong
to scripts/emulation_table.py). Exits 1 on bad usage or an unreadable file.
"""
import csv
import sys

NATIVE = {"fp64": "zgemm", "fp32": "cgemm"}
DATA_ORDER = {"phi": 0, "smallim": 1}


def short_params(params):
    """The parameters that tell configurations apart (moduli and tiles at
    their defaults say nothing in a table)."""
    drop = ("nblock=0", "mblock=0")
    return " ".join(p for p in params.split() if p not in drop)


def number(text, fmt):
    try:
        return format(float(text), fmt)
    except ValueError:
        return "—"


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 1
    try:
        with open(argv[1], newline="") as f:
            rows = [r for r in csv.DictReader(f) if r.get("field") == "complex" and r.get("status") == "ok"]
    except OSError as e:
        sys.stderr.write("complex_table.py: %s\n" % e)
        return 1
    native = {}
    for r in rows:
        if r["scheme"] == NATIVE.get(r["target"]):
            native[(r["target"], r["m"], r["n"], r["k"], r["gen"], r["gen_params"])] = r

    def key(r):
        return (r["target"] != "fp64", int(r["m"]), DATA_ORDER.get(r["gen"], 2), r["gen"], r["gen_params"],
                r["scheme"] != NATIVE.get(r["target"]), r["scheme"], r["params"])

    print("| target | m×n×k | data | scheme | params | ms | × native | split / GEMMs / accum ms "
          "| err_fro_rel (native's) | grade |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in sorted(rows, key=key):
        nat = native.get((r["target"], r["m"], r["n"], r["k"], r["gen"], r["gen_params"]))
        t = float(r["time_ms_median"])
        ratio = "%.2f" % (float(nat["time_ms_median"]) / t) if nat else "—"
        phases = " / ".join(number(r[c], ".1f") for c in ("split_ms", "gemm_ms", "accum_ms"))
        err = number(r["err_fro_rel"], ".1e")
        if nat and nat is not r:
            err += " (%s)" % number(nat["err_fro_rel"], ".1e")
        data = r["gen_params"] if r["gen_params"].startswith(r["gen"] + "=") else \
            (r["gen"] + " " + r["gen_params"]).strip()
        print("| %s complex | %s×%s×%s | %s | `%s` | %s | %.1f | %s | %s | %s | %s |" % (
            r["target"], r["m"], r["n"], r["k"], data, r["scheme"],
            short_params(r["params"]) or "—", t, ratio, phases, err, r["grade"] or "—"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
