#!/usr/bin/python3
"""Markdown tables of an emulation benchmark (results/h200/fp64-emulation/README.md).

Usage: /usr/bin/python3 scripts/emulation_table.py RESULTS.csv [LOWP.csv]
       /usr/bin/python3 scripts/emulation_table.py --energy RESULTS.csv

RESULTS.csv is an mpbench run CSV holding the native GEMM of the target
(dgemm or sgemm) beside the emulation schemes, measured in the same run;
LOWP.csv is bench_lowp_gemm's output from the same session (without it the
efficiency column is left empty). For every case:
TFLOP/s, the ratio to the native GEMM on the same case, err_fro_rel (and the
native's), the grade, the phase split, and the efficiency
P · t(one low-precision GEMM of that size) / t(scheme),
where P is the number of low-precision GEMMs the scheme ran (from its
`slices` and `settings` columns) and t(one GEMM) the plain cuBLAS
time of bench_lowp_gemm (int8_tn or fp16; for int8_tn the fastest of its
one-call and column-blocked timings). bench_lowp_gemm times each GEMM
after a short warm-up (`burst`) and after 300 ms of calls (`sustained`, the
state a scheme's GEMMs run in); the table gives the efficiency against
both, sustained first (LOWP.csv files without the `warm` column: burst only).

--energy: per case, the native GEMM and every scheme at native accuracy
(err_fro_rel <= the native's on the same case), most GFLOP/s per watt first:
board power, joules per call, GFLOP/s per W and its ratio to the native's
(the CSV's power_w, joules_per_call, gflops_per_w; rows without them left out).
"""

import csv
import re
import sys
from collections import defaultdict

NATIVE = {'fp64': 'dgemm', 'fp32': 'sgemm'}


def low_precision_gemms(row):
    """(path, P): which bench_lowp_gemm path the scheme's GEMMs are, and how many it ran."""
    scheme, settings = row['scheme'], row.get('settings') or ''
    pairs = re.search(r'\bpairs=(\d+)', settings)
    slices = int(row['slices']) if (row.get('slices') or '').lstrip('-').isdigit() else 0
    if scheme.startswith('ozaki2_int8'):
        extra = 1 if 'mode=accurate' in row['params'] else 0
        return 'int8_tn', slices + extra
    if scheme == 'ozaki1_int8' and pairs:
        return 'int8_tn', int(pairs.group(1))
    if scheme.startswith('ozaki1_fp16') and pairs:
        return 'fp16', int(pairs.group(1))
    if scheme == 'adp' and slices > 0:
        # engine=crt: one GEMM per modulus; the slice engine: s(s+1)/2
        if 'CRT over' in (row.get('note') or ''):
            return 'int8_tn', slices
        return 'int8_tn', slices * (slices + 1) // 2
    return None, 0


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return float('nan')


def cases(rows):
    """{(target, gen_params, n): rows} in table order, and each case's native row."""
    native = {}
    for r in rows:
        if r['scheme'] == NATIVE.get(r['target']):
            native[(r['target'], r['gen_params'], r['m'], r['n'], r['k'])] = r
    by_case = defaultdict(list)
    for r in rows:
        by_case[(r['target'], r['gen_params'], r['n'])].append(r)
    ordered = sorted(by_case.items(), key=lambda kv: (kv[0][0], int(kv[0][2]), kv[0][1]))
    return [(key, group, native.get((key[0], key[1], group[0]['m'], key[2], group[0]['k'])))
            for key, group in ordered]


def energy_table(rows):
    print('| n | data | scheme | params | × native | err_fro_rel (native) | W | J per call '
          '| GFLOP/s per W | × native GFLOP/s per W |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for (_, gp, n), group, nat in cases(rows):
        if not nat or not nat['gflops_per_w']:
            continue
        limit = number(nat['err_fro_rel'])
        fit = [r for r in group if r['gflops_per_w'] and number(r['err_fro_rel']) <= limit]
        for r in sorted(fit, key=lambda r: -number(r['gflops_per_w'])):
            ratio = number(nat['time_ms_median']) / number(r['time_ms_median'])
            nat_err = f" ({limit:.1e})" if r is not nat else ''
            joules = number(r['joules_per_call'])
            places = 0 if joules >= 100 else 1 if joules >= 10 else 2
            print(f"| {n} | {gp} | `{r['scheme']}` | {r['params'] or '—'} | {ratio:.2f} "
                  f"| {number(r['err_fro_rel']):.1e}{nat_err} | {number(r['power_w']):.0f} "
                  f"| {joules:.{places}f} | {number(r['gflops_per_w']):.1f} "
                  f"| {number(r['gflops_per_w']) / number(nat['gflops_per_w']):.2f} |")


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == '--energy':
        energy_table([r for r in csv.DictReader(open(args[1], newline='')) if r['status'] == 'ok'])
        return
    if len(args) not in (1, 2) or any(a.startswith('--') for a in args):
        sys.exit(__doc__)
    rows = [r for r in csv.DictReader(open(args[0], newline='')) if r['status'] == 'ok']
    # t(one GEMM): the fastest way plain cuBLAS computes that product, i.e.
    # for INT8 also in column blocks (one call is 15% slower at 16384).
    lowp = {}
    for r in csv.DictReader(open(args[1], newline='')) if len(args) == 2 else ():
        key = (r['path'], int(r['n']), r.get('warm') or 'burst')
        lowp[key] = min(lowp.get(key, float('inf')), number(r['ms_median']))
    print('| n | data | scheme | params | ms | TFLOP/s | × native | err_fro_rel (native) | grade '
          '| split / gemm / accum ms | P | efficiency (sustained / burst) |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|')
    for (_, gp, n), group, nat in cases(rows):
        for r in group:
            t = number(r['time_ms_median'])
            ratio = number(nat['time_ms_median']) / t if nat else float('nan')
            path, p = low_precision_gemms(r)
            effs = [f'{p * one / t:.2f}' for warm in ('sustained', 'burst')
                    if path and (one := lowp.get((path, int(n), warm)))]
            eff = ' / '.join(effs) or '—'
            phases = ' / '.join(f'{number(r[c]):.1f}' if r[c] else '—' for c in ('split_ms', 'gemm_ms', 'accum_ms'))
            nat_err = f" ({number(nat['err_fro_rel']):.1e})" if nat and r is not nat else ''
            print(f"| {n} | {gp} | `{r['scheme']}` | {r['params'] or '—'} | {t:.1f} | {number(r['tflops']):.1f} "
                  f"| {ratio:.2f} | {number(r['err_fro_rel']):.1e}{nat_err} | {r['grade'] or '—'} | {phases} "
                  f"| {p or '—'} | {eff} |")


if __name__ == '__main__':
    main()
