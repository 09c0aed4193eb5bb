#!/usr/bin/python3
"""Markdown tables of the FP64 accuracy sweep (scripts/gpu-fp64-accuracy).

Usage: /usr/bin/python3 scripts/accuracy_table.py fp64-accuracy.csv

Prints, from the rows of one such CSV (native dgemm measured on the same
cases):
  1. the smallest moduli (ozaki2_int8, per mode) and slices (ozaki1_int8)
     whose err_fro_rel is at most dgemm's on the same case, per phi;
  2. ozaki1_fp16 dp against dgemm (the ratio of err_fro_rel);
  3. ozaki1_fp16 cr: entries checked and entries not correctly rounded;
  4. Test 2: err_max_rel against b per configuration (ADP paper, Fig. 2);
  5. special inputs: output entries that are NaN/Inf, per configuration.
"""

import csv
import sys
from collections import defaultdict


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return float('nan')


def param(row, key):
    for item in row['params'].split():
        k, _, v = item.partition('=')
        if k == key:
            return v
    return ''


def case_key(row):
    return (row['gen'], row['gen_params'], row['m'], row['n'], row['k'], row['seed'])


def config(row):
    return f"{row['scheme']} {row['params']}".strip()


def smallest_counts(rows, dgemm):
    print('### Smallest count reaching native DGEMM (err_fro_rel ≤ dgemm\'s on the same case)\n')
    found = defaultdict(dict)  # (scheme, mode) -> phi -> count
    tried = defaultdict(set)
    for r in rows:
        if r['gen'] != 'phi' or r['scheme'] not in ('ozaki2_int8', 'ozaki1_int8'):
            continue
        knob = 'moduli' if r['scheme'] == 'ozaki2_int8' else 'slices'
        label = (r['scheme'], knob, param(r, 'mode') or param(r, 'accum'))
        phi = r['gen_params']
        tried[label].add(phi)
        ref = dgemm.get(case_key(r))
        if ref is None or not number(r['err_fro_rel']) <= number(ref['err_fro_rel']):
            continue
        count = int(param(r, knob))
        found[label][phi] = min(count, found[label].get(phi, count))
    phis = sorted({p for s in tried.values() for p in s}, key=lambda p: number(p.split('=')[1]))
    print('| scheme | knob | mode | ' + ' | '.join(phis) + ' |')
    print('|---|---|---|' + '---|' * len(phis))
    for label in sorted(tried):
        cells = [str(found[label].get(p, 'none')) if p in tried[label] else '—' for p in phis]
        print(f'| `{label[0]}` | {label[1]} | {label[2]} | ' + ' | '.join(cells) + ' |')
    print()


def dp_against_dgemm(rows, dgemm):
    print('### `ozaki1_fp16` dp against native DGEMM\n')
    print('| data | n | digits | err_fro_rel | dgemm | ratio |')
    print('|---|---|---|---|---|---|')
    for r in rows:
        if r['scheme'] == 'ozaki1_fp16' and param(r, 'mode') == 'dp' and r['gen'] == 'phi':
            ref = dgemm.get(case_key(r))
            if ref is None:
                continue
            e, d = number(r['err_fro_rel']), number(ref['err_fro_rel'])
            print(f"| {r['gen_params']} | {r['n']} | {r['slices']} | {e:.2e} | {d:.2e} | {e / d:.3f} |")
    print()


def correctly_rounded(rows):
    print('### `cr` mode: entries checked against MPFR and entries not correctly rounded\n')
    print('| scheme | data | n | digits | entries checked | not correctly rounded | err_max_rel |')
    print('|---|---|---|---|---|---|---|')
    for r in rows:
        if param(r, 'mode') == 'cr':
            print(f"| `{r['scheme']}` | {r['gen']} {r['gen_params']} | {r['n']} | {r['slices']} "
                  f"| {r['ref_entries']} | {r['cr_mismatch']} | {number(r['err_max_rel']):.2e} |")
    print()


def test2_sweep(rows):
    sweep = [r for r in rows if r['gen'] == 'test2']
    sizes = {r['n'] for r in sweep}
    if not sweep:
        return
    n = max(sizes, key=int)  # the sweep's size; cr mode's small Test 2 cases are shown above
    sweep = [r for r in sweep if r['n'] == n and param(r, 'mode') != 'cr']
    configs = list(dict.fromkeys(config(r) for r in sweep))
    bs = sorted({int(r['gen_params'].split('=')[1]) for r in sweep})
    cell = {(config(r), int(r['gen_params'].split('=')[1])): r for r in sweep}
    print(f'### Test 2 at n = {n}: err_max_rel against b (ADP paper, Fig. 2)\n')
    print('| configuration | ' + ' | '.join(f'b={b}' for b in bs) + ' |')
    print('|---|' + '---|' * len(bs))
    for c in configs:
        vals = []
        for b in bs:
            r = cell.get((c, b))
            mark = '*' if r is not None and r['fallback'] == '1' else ''
            vals.append(f"{number(r['err_max_rel']):.1e}{mark}" if r is not None else '—')
        print(f'| `{c}` | ' + ' | '.join(vals) + ' |')
    print('\n(* ran native DGEMM: `fallback` = 1)\n')


def special(rows):
    spec = [r for r in rows if r['gen'] == 'special']
    if not spec:
        return
    kinds = list(dict.fromkeys(r['gen_params'] for r in spec))
    configs = list(dict.fromkeys(config(r) for r in spec))
    cell = {(config(r), r['gen_params']): r for r in spec}
    n = spec[0]['n']
    print(f'### Special inputs at n = {n}: NaN/Inf entries of C (`nonfinite`)\n')
    print('| configuration | ' + ' | '.join(kinds) + ' |')
    print('|---|' + '---|' * len(kinds))
    for c in configs:
        vals = [cell[(c, k)]['nonfinite'] if (c, k) in cell else '—' for k in kinds]
        print(f'| `{c}` | ' + ' | '.join(vals) + ' |')
    print()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = [r for r in csv.DictReader(open(sys.argv[1], newline='')) if r['status'] == 'ok']
    dgemm = {case_key(r): r for r in rows if r['scheme'] == 'dgemm'}
    smallest_counts(rows, dgemm)
    dp_against_dgemm(rows, dgemm)
    correctly_rounded(rows)
    test2_sweep(rows)
    special(rows)


if __name__ == '__main__':
    main()
