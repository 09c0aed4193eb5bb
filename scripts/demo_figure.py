#!/usr/bin/python3
"""The demo's figure and takeaway (scripts/demo).

Usage: /usr/bin/python3 scripts/demo_figure.py CSV OUT.png

From the demo's run CSV (its fp64 rows), at its largest size: speedup over DGEMM against φ (left;
GPU rows only, the host models' times say nothing about a GPU) and the normwise
error err_fro_rel against φ (right; the error the run's summary table prints), one
line per configuration. Prints three lines: speed, what φ does to the error,
grades. Exit status 0
when written, 2 on bad arguments, 3 on an unreadable or malformed CSV, 77 without
matplotlib.
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # mpb_rows and plot beside this file
import mpb_rows  # noqa: E402

mpb_rows.need_matplotlib('demo_figure.py')
import matplotlib.pyplot as plt  # noqa: E402  (plot chooses the Agg backend first)
import plot  # noqa: E402

ERROR = 'err_fro_rel'


def by_phi(rows, value):
    """Per configuration, sorted (φ, median value) points; rows without one skipped."""
    out = {}
    for cfg, rs in plot.group(rows, plot.config).items():
        pts = {}
        for r in rs:
            v = value(r)
            if v is not None:
                pts.setdefault(plot.gen_param(r, 'phi'), []).append(v)
        if pts:
            out[cfg] = sorted((phi, statistics.median(vs)) for phi, vs in pts.items())
    return out


def names(cfgs):
    """Short names: the scheme alone unless two configurations share it."""
    schemes = [c[0] for c in cfgs]
    return {c: c[0] if schemes.count(c[0]) == 1 else plot.label(c) for c in cfgs}


def draw(speed, error, styles, short, n, gpu, out):
    """The two panels side by side into OUT, one legend under both."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for ax, data in ((left, speed), (right, error)):
        for cfg, pts in data.items():
            st = styles[cfg]
            ax.plot(*zip(*pts), label=short[cfg], color=st['color'], marker=st['marker'],
                    linestyle=st['linestyle'])
        ax.set_xlabel('φ (the inputs\' exponent range grows with φ)')
        ax.set_xticks(sorted({p for pts in error.values() for p, _ in pts}))
        ax.grid(True, alpha=0.3)
    if speed:
        left.axhline(1.0, color='black', linestyle='--', linewidth=0.8)
        left.set_ylabel('speedup over dgemm (same case)')
    else:
        left.text(0.5, 0.5, 'host models: no GPU time,\nso no speedup', transform=left.transAxes,
                  ha='center', va='center', color='grey')
        left.set_yticks([])
    left.set_title(f'Speed, n = {n}' + (f', {gpu}' if gpu else ''), fontsize=10)
    right.set_yscale('log')
    right.axhline(plot.UNIT_ROUNDOFF['fp64'], color='grey', linestyle=':', label='u = 2^-53')
    right.set_ylabel('‖Ĉ−C‖_F / ‖C‖_F (the table\'s err_fro)')
    right.set_title(f'Error against the exact product, n = {n}', fontsize=10)
    fig.tight_layout()
    handles, labels = right.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, ncol=3, loc='upper center', bbox_to_anchor=(0.5, 0))
    fig.savefig(out, dpi=110, bbox_inches='tight')
    plt.close(fig)


def takeaway(speed, error, rows, short, n):
    """Three lines: the fastest configuration at DGEMM's error or better, what a
    wider exponent range (φ) does to the errors, the worst grade of each."""
    dgemm = ('dgemm', '')
    phis = sorted({p for pts in error.values() for p, _ in pts})
    lo, hi = phis[0], phis[-1]
    err_at = {c: dict(pts) for c, pts in error.items()}
    native_err = err_at.get(dgemm, {}).get(hi)
    fast = {c: dict(pts).get(hi) for c, pts in speed.items() if c != dgemm}
    accurate = [c for c, x in fast.items() if x and native_err and err_at.get(c, {}).get(hi, 2) <= native_err]
    if accurate:
        best = max(accurate, key=lambda c: fast[c])
        e = err_at[best][hi]
        line1 = (f'speed: {short[best]} runs {fast[best]:.2f}× as fast as dgemm (n = {n}, φ = {hi:g}) '
                 f'with {native_err / e:.1f}× smaller error ({e:.1e} against {native_err:.1e})')
    elif speed:
        line1 = f'speed: no configuration is as accurate as dgemm and faster at n = {n}, φ = {hi:g}'
    else:
        line1 = ('speed: not measured (host models); their errors and grades are the GPU\'s, '
                 'on a GPU the demo adds the speedup over dgemm')
    growth = {c: e[hi] / e[lo] for c, e in err_at.items() if lo in e and hi in e and e[lo] > 0}
    order = sorted(growth, key=lambda c: -growth[c])
    line2 = (f'error ‖Ĉ−C‖_F/‖C‖_F from φ = {lo:g} to {hi:g} (wider exponent range): ' +
             ', '.join(f'{short[c]} ×{growth[c]:.1f}' for c in order))
    worst = {}
    for r in rows:
        if r.get('grade') in ('A', 'B', 'C', 'F'):
            c = plot.config(r)
            worst[c] = max(worst.get(c, 'A'), r['grade'])
    by_grade = {}
    for c, g in sorted(worst.items()):
        by_grade.setdefault(g, []).append(short[c])
    line3 = ('worst grade over the cases: ' + '; '.join(f'{g}: {", ".join(cs)}' for g, cs in sorted(by_grade.items()))
             + ' (A: within a conventional GEMM\'s error bound; README "Accuracy")')
    return line1, line2, line3


def main(argv):
    if len(argv) != 2:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    try:
        _, rows = mpb_rows.read_run_csv(argv[0])
    except mpb_rows.InputError as e:
        print(f'demo_figure.py: {e}', file=sys.stderr)
        return 3
    rows = [r for r in rows if r['status'] == 'ok' and r['target'] == 'fp64' and r['gen'] == 'phi'
            and r['m'] == r['n'] == r['k']]
    if not rows:
        print(f'demo_figure.py: {argv[0]}: no ok square fp64 phi rows', file=sys.stderr)
        return 3
    n = max(int(r['n']) for r in rows)
    rows = [r for r in rows if int(r['n']) == n]
    gpu_rows = [r for r in rows if r['impl'] == 'cuda']
    native = plot.native_times(gpu_rows)
    speed = by_phi([r for r in gpu_rows if plot.case_key(r) in native and plot.num(r, 'time_ms_median')],
                   lambda r: native[plot.case_key(r)] / plot.num(r, 'time_ms_median'))
    error = by_phi(rows, lambda r: plot.num(r, ERROR) if plot.positive(plot.num(r, ERROR)) else None)
    gpu = gpu_rows[0]['gpu_name'] if gpu_rows else ''
    short = names(sorted({plot.config(r) for r in rows}))
    draw(speed, error, plot.make_styles(rows), short, n, gpu, argv[1])
    for line in takeaway(speed, error, rows, short, n):
        print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
