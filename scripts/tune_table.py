#!/usr/bin/python3
"""Markdown tables of `mpbench tune` runs: motuner against exhaustive search.

Usage: /usr/bin/python3 scripts/tune_table.py TUNE.csv...

Prints, from the rows of one or more `mpbench tune` CSVs:
  1. per chain and size: the thresholds where exhaustive search ran, and in
     how many motuner's predicted speedup is within 5% of the optimum's
     (vs_optimum >= 0.95), the worst such ratio, and motuner's tuning cost
     against exhaustive's (chain runs and seconds, summed over thresholds);
  2. per chain and size: motuner's choice per threshold (levels by name,
     repeated runs folded: "fp16 x3"), its predicted and measured speedup;
  3. every row whose choice missed its threshold on the validation seed.
"""

import csv
import sys
from collections import defaultdict


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return float('nan')


def folded(choice):
    """'fp16;fp16;tf32' -> 'fp16 x2, tf32'."""
    runs = []
    for level in choice.split(';'):
        if runs and runs[-1][0] == level:
            runs[-1][1] += 1
        else:
            runs.append([level, 1])
    return ', '.join(name if count == 1 else f'{name} x{count}' for name, count in runs)


def main(paths):
    rows = []
    for path in paths:
        with open(path, newline='') as f:
            rows += [r for r in csv.DictReader(f) if r['status'] == 'ok']
    by = defaultdict(dict)  # (chain, size) -> (threshold, strategy) -> row
    for r in rows:
        by[(r['chain'], int(r['size']))][(r['threshold'], r['strategy'])] = r
    order = sorted(by, key=lambda cs: (cs[0], cs[1]))

    print('| chain | n | exhaustive ran | motuner within 5% | worst ratio | chain runs motuner/exhaustive '
          '| seconds motuner/exhaustive |')
    print('|---|---|---|---|---|---|---|')
    for cs in order:
        cells = by[cs]
        ths = sorted({th for th, st in cells if st == 'exhaustive' and (th, 'motuner') in cells})
        if not ths:
            print(f'| {cs[0]} | {cs[1]} | no (space above the limit) | | | | |')
            continue
        ratios = [number(cells[(th, 'motuner')]['vs_optimum']) for th in ths]
        runs = [sum(int(cells[(th, st)]['tune_chain_runs']) for th in ths) for st in ('motuner', 'exhaustive')]
        secs = [sum(number(cells[(th, st)]['tune_s']) for th in ths) for st in ('motuner', 'exhaustive')]
        within = sum(1 for x in ratios if x >= 0.95)
        print(f'| {cs[0]} | {cs[1]} | {len(ths)} | {within} of {len(ths)} | {min(ratios):.3f} '
              f'| {runs[0]}/{runs[1]} = {runs[0] / runs[1]:.1%} | {secs[0]:.2f}/{secs[1]:.2f} = '
              f'{secs[0] / secs[1]:.1%} |')

    print()
    print('| chain | n | threshold | motuner\'s choice | err | predicted x | measured x | valid |')
    print('|---|---|---|---|---|---|---|---|')
    for cs in order:
        for (th, st), r in sorted(by[cs].items()):
            if st != 'motuner':
                continue
            print(f'| {cs[0]} | {cs[1]} | {th} | {folded(r["choice"])} | {number(r["err"]):.3g} '
                  f'| {number(r["predicted_speedup"]):.2f} | {number(r["measured_speedup"]):.2f} '
                  f'| {r["valid_met"]} ({number(r["valid_err"]):.3g}) |')

    print()
    print('| chain | n | threshold | strategy | choice | err | valid_err | threshold value |')
    print('|---|---|---|---|---|---|---|---|')
    for cs in order:
        for (th, st), r in sorted(by[cs].items()):
            if r['valid_met'] != 'yes':
                print(f'| {cs[0]} | {cs[1]} | {th} | {st} | {folded(r["choice"])} | {number(r["err"]):.3g} '
                      f'| {number(r["valid_err"]):.3g} | {r["threshold_value"]} |')


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
