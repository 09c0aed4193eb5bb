#!/usr/bin/python3
"""Speedup and error against threshold per strategy from `mpbench tune` CSVs
(moTuner's Figs. 8-9, Mo et al., CF 2022).

Usage: /usr/bin/python3 scripts/plot_tune.py CSV [CSV...] --out DIR [--formats png,pdf]

One figure per (chain, size), `tune_<chain>_<size>.<fmt>`, two panels over the
thresholds (E1..E8 in order, then other thresholds by metric, loosest first):
left, the chosen levels' speedup over the all-sgemm chain (measured_speedup, or
predicted_speedup where that is empty); right, the chain output's error (err) on a
log axis with the threshold dashed. A hollow marker is a choice that missed its
threshold on the tuning seed or on the validation seed. Only rows with status ok
are drawn; where several runs give the same (chain, size, threshold, strategy),
the latest run_id (it begins with the run's UTC time) is drawn. Each strategy keeps
one colour and marker in every figure. A (chain, size) without ok rows is skipped
with one line on stderr. Exit status: 0 when it ran, 2 on bad arguments, 3 on an
unreadable or non-tune CSV.
"""

import argparse
import csv
import math
import os
import re
import sys
import zlib

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.lines import Line2D  # noqa: E402

# TrueType (Type 42) fonts: Type 3 fonts are rejected by many publishers.
matplotlib.rcParams['pdf.fonttype'] = 42
matplotlib.rcParams['ps.fonttype'] = 42

REQUIRED = ('tune_schema_version', 'run_id', 'chain', 'size', 'threshold', 'metric',
            'threshold_value', 'strategy', 'status', 'met', 'err', 'valid_met',
            'predicted_speedup', 'measured_speedup')
COLOURS = plt.get_cmap('tab10').colors
STRATEGY_STYLES = {
    'motuner': {'color': COLOURS[0], 'marker': 'o', 'linestyle': '-'},
    'greedy': {'color': COLOURS[1], 'marker': 's', 'linestyle': '--'},
    'exhaustive': {'color': COLOURS[2], 'marker': '^', 'linestyle': ':'},
    'priork': {'color': COLOURS[3], 'marker': 'D', 'linestyle': '-.'},
}
METRIC_WORDS = {'fro_rel': 'rel.', 'abs': 'abs.'}
# Strategies share x positions; a small shift keeps identical choices visible.
DODGE = 0.07


def fail(message):
    """Report an input error and exit 3 (distinct from argparse's 2)."""
    print(f'plot_tune.py: {message}', file=sys.stderr)
    sys.exit(3)


def read_csvs(paths):
    """The ok rows of every file, the latest run's where several give one point, and
    every (chain, size) seen, ok or not."""
    latest, seen = {}, set()
    for path in paths:
        try:
            with open(path, newline='', encoding='utf-8') as f:
                reader = csv.DictReader(f)
                missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
                if missing:
                    fail(f'{path}: not an mpbench tune CSV (no {", ".join(missing)})')
                for r in reader:
                    seen.add((r['chain'], r['size']))
                    if r['status'] != 'ok':
                        continue
                    key = (r['chain'], r['size'], r['threshold'], r['metric'], r['strategy'])
                    if key not in latest or r['run_id'] >= latest[key]['run_id']:
                        latest[key] = r
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            fail(f'{path}: cannot read: {e}')
    return list(latest.values()), seen


def num(row, column):
    """The cell as a float, or None when it is empty or not a finite number."""
    try:
        value = float(row.get(column) or '')
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def threshold_order(row):
    """E1..E8 by number first, then the others by metric, loosest first."""
    m = re.fullmatch(r'E(\d+)', row['threshold'])
    if m:
        return (0, int(m.group(1)), '', 0.0)
    return (1, 0, row['metric'], -(num(row, 'threshold_value') or 0.0))


def strategy_style(name):
    """A strategy's style; one not known here gets a colour from its name."""
    if name in STRATEGY_STYLES:
        return STRATEGY_STYLES[name]
    return {'color': COLOURS[4 + zlib.crc32(name.encode('utf-8')) % 6], 'marker': 'v',
            'linestyle': '-'}


def missed(row):
    """Whether the choice missed its threshold on the tuning or the validation seed."""
    return row['met'] != 'yes' or row['valid_met'] != 'yes'


def speedup(row):
    """(speedup, measured?) of a row: measured where there is one."""
    measured = num(row, 'measured_speedup')
    return (measured, True) if measured is not None else (num(row, 'predicted_speedup'), False)


def draw_points(ax, points, style):
    """A line through points (x, y, hollow) and its markers, hollow where asked."""
    if not points:
        return
    xs, ys, _ = zip(*points)
    ax.plot(xs, ys, color=style['color'], linestyle=style['linestyle'])
    for x, y, hollow in points:
        ax.plot([x], [y], linestyle='none', marker=style['marker'], markersize=6,
                color=style['color'], markerfacecolor='none' if hollow else style['color'])


def metric_runs(thresholds):
    """Consecutive x positions that share a metric: errors in different metrics
    are not joined by a line."""
    runs = []
    for x, t in enumerate(thresholds):
        if runs and runs[-1][0] == t['metric']:
            runs[-1][1].append(x)
        else:
            runs.append((t['metric'], [x]))
    return [xs for _, xs in runs]


def tick_label(t):
    """`E3` over `rel.` over `0.0005`: the category and what it means."""
    value = num(t, 'threshold_value')
    value_text = f'{value:g}' if value is not None else t['threshold_value']
    name = t['threshold'] if re.fullmatch(r'E\d+', t['threshold']) else ''
    return f'{name}\n{METRIC_WORDS.get(t["metric"], t["metric"])}\n{value_text}'.strip()


def draw_figure(chain, size, rows):
    """The two panels of one (chain, size)."""
    thresholds = sorted({(r['threshold'], r['metric']): r for r in rows}.values(),
                        key=threshold_order)
    x_of = {(t['threshold'], t['metric']): x for x, t in enumerate(thresholds)}
    strategies = sorted({r['strategy'] for r in rows},
                        key=lambda s: (list(STRATEGY_STYLES).index(s)
                                       if s in STRATEGY_STYLES else len(STRATEGY_STYLES), s))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    kinds = set()
    for i, strategy in enumerate(strategies):
        style = strategy_style(strategy)
        shift = (i - (len(strategies) - 1) / 2) * DODGE
        mine = sorted((r for r in rows if r['strategy'] == strategy),
                      key=lambda r: x_of[(r['threshold'], r['metric'])])
        speed = []
        for r in mine:
            s, measured = speedup(r)
            if s is not None:
                kinds.add(measured)
                speed.append((x_of[(r['threshold'], r['metric'])] + shift, s, missed(r)))
        draw_points(left, speed, style)
        errs = {x_of[(r['threshold'], r['metric'])]: (num(r, 'err'), missed(r)) for r in mine}
        for run in metric_runs(thresholds):
            draw_points(right, [(x + shift, errs[x][0], errs[x][1]) for x in run
                                if x in errs and errs[x][0] is not None and errs[x][0] > 0],
                        style)
    for run in metric_runs(thresholds):
        right.stairs([num(thresholds[x], 'threshold_value') for x in run],
                     [x - 0.5 for x in run] + [run[-1] + 0.5], baseline=None, color='grey',
                     linestyle='--', linewidth=1)
    left.axhline(1.0, color='black', linewidth=0.8)
    which = {frozenset({False}): 'predicted', frozenset({True, False}):
             'measured; predicted where not measured'}.get(frozenset(kinds), 'measured')
    left.set_title(f'Speedup of the chosen levels ({which})', fontsize=10)
    left.set_ylabel('speedup over the all-sgemm chain')
    left.set_ylim(bottom=0)
    right.set_title('Error of the chain output against the FP64 chain', fontsize=10)
    right.set_ylabel('error (relative Frobenius or max absolute,\nas the threshold)')
    right.set_yscale('log')
    for ax in (left, right):
        ax.set_xticks(range(len(thresholds)), [tick_label(t) for t in thresholds], fontsize=8)
        ax.set_xlim(-0.5, len(thresholds) - 0.5)
        ax.set_xlabel('error threshold (relative Frobenius or max absolute)')
        ax.grid(True, which='major', alpha=0.3)
    handles = [Line2D([], [], **strategy_style(s)) for s in strategies]
    handles += [Line2D([], [], color='black', linewidth=0.8),
                Line2D([], [], color='grey', linestyle='--'),
                Line2D([], [], color='grey', marker='o', markerfacecolor='none', linestyle='none')]
    labels = strategies + ['all-sgemm chain', 'threshold',
                           'missed the threshold (tuning or validation seed)']
    fig.suptitle(f'mpbench tune: {chain}, n = {size}', fontsize=11)
    fig.tight_layout()
    fig.legend(handles, labels, fontsize=8, ncol=len(labels), loc='upper center',
               bbox_to_anchor=(0.5, 0))
    return fig


def parse_args(argv):
    """Command line; argparse exits 2 on anything malformed."""
    p = argparse.ArgumentParser(description='Speedup and error against threshold from '
                                            'mpbench tune CSVs.')
    p.add_argument('csv', nargs='+', help='mpbench tune CSVs')
    p.add_argument('--out', required=True, help='output directory (created if needed)')
    p.add_argument('--formats', default='png,pdf', help='comma-separated: png, pdf')
    args = p.parse_args(argv)
    args.formats = [f for f in args.formats.split(',') if f]
    if not args.formats or any(f not in ('png', 'pdf') for f in args.formats):
        p.error('--formats takes a comma-separated list of png and pdf')
    return args


def slug(text):
    """A file-name-safe version of a cell value."""
    return re.sub(r'[^A-Za-z0-9.+-]+', '_', text).strip('_')


def main(argv):
    args = parse_args(argv)
    rows, seen = read_csvs(args.csv)
    os.makedirs(args.out, exist_ok=True)
    groups = {}
    for r in rows:
        groups.setdefault((r['chain'], r['size']), []).append(r)
    # Sizes are integers: shorter strings first sorts them numerically.
    for chain, size in sorted(seen, key=lambda cs: (cs[0], len(cs[1]), cs[1])):
        if (chain, size) not in groups:
            print(f'skip: tune_{slug(chain)}_{slug(size)}: no rows with status ok', file=sys.stderr)
            continue
        fig = draw_figure(chain, size, groups[(chain, size)])
        for ext in args.formats:
            path = os.path.join(args.out, f'tune_{slug(chain)}_{slug(size)}.{ext}')
            fig.savefig(path, bbox_inches='tight', dpi=150)
            print(path)
        plt.close(fig)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
