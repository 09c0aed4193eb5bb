#!/usr/bin/python3
"""README's FP32 table from the committed H200 results: for every FP32
configuration of the speed sweep, the speed against native SGEMM measured in
the same run, err_fro_rel on phi = 0.5 (speed sweep) and on U(-1,1) (accuracy
sweep), and the `mpbench grade` verdict where one was run.

Usage: /usr/bin/python3 scripts/fp32_split_table.py [GPU_DIR]   (default results/h200: its
fp32-emulation/ speed, accuracy and grade CSVs, and the grades in fp64-emulation/ and native/)
"""
import csv
import os
import sys


def configuration(row):
    """A short name: the scheme and the parameters that differ from its defaults."""
    defaults = {"flush_k=256", "scale=rowcol", "engine=fused", "terms=4", "accum=tc", "mode=fast", "nblock=0",
                "mblock=0", "gemm=calls", "slices=160", "fast=1", "tau=110"}
    params = [p for p in row["params"].split() if p not in defaults]
    return " ".join([row["scheme"]] + params)


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "results/h200"
    speed = load(os.path.join(root, "fp32-emulation", "fp32-split-speed.csv"))
    accuracy = load(os.path.join(root, "fp32-emulation", "fp32-split-accuracy.csv"))
    grades = {}
    for name in ("fp32-emulation/grade-fp32-split-1.csv", "fp32-emulation/grade-fp32-split-2.csv",
                 "fp64-emulation/grade-emulation.csv", "native/grade-native.csv"):
        path = os.path.join(root, name)
        if os.path.exists(path):
            for row in load(path):
                grades[configuration(row)] = row["grade"]
    sizes = (8192, 16384)
    sgemm = {int(r["n"]): float(r["time_ms_median"]) for r in speed if r["scheme"] == "sgemm"}
    uniform = {(configuration(r), int(r["n"])): r["err_fro_rel"] for r in accuracy
               if r["gen"] == "uniform"}
    order = []
    rows = {}
    for r in speed:
        c, n = configuration(r), int(r["n"])
        if c not in order:
            order.append(c)
        rows[(c, n)] = r
    print("| configuration | × SGEMM 8192 | × SGEMM 16384 | TFLOP/s 16384 | err_fro_rel φ=0.5, 16384 "
          "| err_fro_rel U(−1,1), 16384 | grade |")
    print("|---|---|---|---|---|---|---|")
    for c in order:
        cells = []
        for n in sizes:
            r = rows.get((c, n))
            cells.append(f"{sgemm[n] / float(r['time_ms_median']):.2f}" if r and r["time_ms_median"] else "-")
        r = rows.get((c, 16384))
        tflops = f"{float(r['tflops']):.1f}" if r and r["tflops"] else "-"
        err = f"{float(r['err_fro_rel']):.2g}" if r and r["err_fro_rel"] else "-"
        err_u = uniform.get((c, 16384))
        err_u = f"{float(err_u):.2g}" if err_u else "-"
        print(f"| `{c}` | {cells[0]} | {cells[1]} | {tflops} | {err} | {err_u} | {grades.get(c, '-')} |")


main()
