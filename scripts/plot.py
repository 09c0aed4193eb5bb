#!/usr/bin/python3
"""Figures from mpbench CSVs (README "Figures").

Usage: /usr/bin/python3 scripts/plot.py CSV [CSV...] --out DIR
           [--error err_max_rel|err_fro_rel|rho_a_max_over_k] [--formats png,pdf]
           [--figures tflops,speedup,error,test2,rho,phases]

Only rows with status ok are drawn; an empty cell is a missing value. Rows of
several GPUs (gpu_name) are never drawn in one figure: each GPU's figures go into
DIR/<gpu>/, with a line on stderr naming the GPUs. Each scheme
configuration (scheme, params) keeps one colour, marker and line style in every
figure and in every call (its style is a function of its name); the native cuBLAS
GEMM of the target is the black dashed reference. Complex rows (field) are drawn
apart from the real rows of their precision: their figures say "complex" after the
target ("fp64 complex", files named fp64-complex), their native GEMM is zgemm or
cgemm. A figure whose data are absent is skipped with one line on stderr. Exit status: 0
when it ran, 2 on bad arguments, 3 on an unreadable, non-mpbench or malformed CSV
(named FILE:LINE), 77 without matplotlib.
"""

import argparse
import math
import os
import re
import statistics
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # mpb_rows beside this file
import mpb_rows  # noqa: E402

mpb_rows.need_matplotlib('plot.py')
import matplotlib  # noqa: E402

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.patches import Patch  # noqa: E402

# TrueType (Type 42) fonts: Type 3 fonts are rejected by many publishers.
matplotlib.rcParams['pdf.fonttype'] = 42
matplotlib.rcParams['ps.fonttype'] = 42

# The native GEMM of each target (mpb_rows.target_of: the precision, complex or not).
NATIVE = {'fp64': 'dgemm', 'fp32': 'sgemm', 'fp64 complex': 'zgemm', 'fp32 complex': 'cgemm'}
UNIT_ROUNDOFF = {'fp64': 2.0 ** -53, 'fp32': 2.0 ** -24}
ERROR_CHOICES = ('err_max_rel', 'err_fro_rel', 'rho_a_max_over_k')
PHASES = (('split_ms', 'split', ''), ('gemm_ms', 'GEMM', '//'), ('accum_ms', 'accumulate', '..'))
COLOURS = plt.get_cmap('tab10').colors
MARKERS = ('o', 's', '^', 'D', 'v', 'P', 'X')
LINESTYLES = ('-', '-.', ':', (0, (5, 1, 1, 1)))
NATIVE_STYLE = {'color': 'black', 'linestyle': '--', 'marker': 'x'}
NATIVE_ITEMS = {(s, '') for s in NATIVE.values()}


class Skip(Exception):
    """A figure cannot be drawn from these data; the message says why."""


# ---------------------------------------------------------------- reading

def read_csvs(paths):
    """All ok rows of every file, and the union of their columns.

    A file that cannot be read, lacks mpbench's identifying columns or has a
    malformed row ends the run with exit 3: drawing from the wrong file would give
    plausible-looking nonsense.
    """
    rows, columns = [], set()
    for path in paths:
        try:
            header, file_rows = mpb_rows.read_run_csv(path)
        except mpb_rows.InputError as e:
            fail(str(e))
        columns.update(header)
        rows.extend(r for r in file_rows if r['status'] == 'ok')
    return rows, columns


def fail(message):
    """Report an input error and exit 3 (distinct from argparse's 2)."""
    print(f'plot.py: {message}', file=sys.stderr)
    sys.exit(3)


def num(row, column):
    """The cell as a float, or None when it is empty, absent or not a number."""
    text = row.get(column) or ''
    try:
        return float(text)
    except ValueError:
        return None


def gen_param(row, name):
    """One value of the `k=v k=v` gen_params cell as a float, or None."""
    for item in (row.get('gen_params') or '').split():
        key, _, value = item.partition('=')
        if key == name:
            try:
                return float(value)
            except ValueError:
                return None
    return None


def config(row):
    """The scheme configuration: what keeps one style across figures."""
    return (row['scheme'], row.get('params') or '')


def label(cfg):
    """Legend text of a configuration."""
    return f'{cfg[0]} {cfg[1]}'.strip()


def is_native(row):
    """Whether the row is the plain cuBLAS GEMM of its target."""
    return row.get('scheme') == NATIVE.get(mpb_rows.target_of(row))


def unit_roundoff(target):
    """u of a target ("fp64" or "fp64 complex": each part is rounded to fp64)."""
    return UNIT_ROUNDOFF[target.split()[0]]


def target_slug(target):
    """A target in file names: `fp64`, `fp64-complex`."""
    return target.replace(' ', '-')


def slug(text):
    """A file-name-safe version of a cell value."""
    return re.sub(r'[^A-Za-z0-9.+-]+', '_', text.replace('=', '-')).strip('_')


def gen_slug(row):
    """Generator setting for file names: `phi-0.5`, `test2_b-49`, `randn`."""
    gen, params = row.get('gen') or 'nogen', row.get('gen_params') or ''
    if not params:
        return slug(gen)
    if params.startswith(gen + '='):
        return slug(params)
    return slug(f'{gen} {params}')


def size_slug(row):
    """`n4096` for square cases, `MxNxK` otherwise."""
    m, n, k = row['m'], row['n'], row['k']
    return f'n{n}' if m == n == k else f'{m}x{n}x{k}'


def group(rows, key):
    """Rows bucketed by key(row), in sorted key order for deterministic output."""
    out = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return dict(sorted(out.items()))


# ---------------------------------------------------------------- styling

def style_slot(index):
    """The index-th of the len(COLOURS)·len(MARKERS)·len(LINESTYLES) styles."""
    colour = index % len(COLOURS)
    marker = (index // len(COLOURS)) % len(MARKERS)
    line = (index // (len(COLOURS) * len(MARKERS))) % len(LINESTYLES)
    return {'color': COLOURS[colour], 'marker': MARKERS[marker], 'linestyle': LINESTYLES[line]}


def make_styles(rows):
    """Style of each configuration: a function of its name, so that it is the same
    in every call, whatever else the input holds.

    The name's CRC-32 picks one of the 280 styles; when two configurations of one
    input land on the same style, the later one in sorted order takes the next free
    style (only then can a style differ between calls).
    """
    n_slots = len(COLOURS) * len(MARKERS) * len(LINESTYLES)
    styles, taken = {}, set()
    for cfg in sorted({config(r) for r in rows if not is_native(r)}):
        slot = zlib.crc32(label(cfg).encode('utf-8')) % n_slots
        while slot in taken and len(taken) < n_slots:
            slot = (slot + 1) % n_slots
        taken.add(slot)
        styles[cfg] = style_slot(slot)
    for scheme in NATIVE.values():
        styles[(scheme, '')] = NATIVE_STYLE
    return styles


# ---------------------------------------------------------------- figures

def series(rows, x_of, y_of, reduce):
    """Per configuration, sorted (x, y) points; duplicates (seeds, reruns) reduced."""
    out = {}
    for cfg, rs in group(rows, config).items():
        points = {}
        for r in rs:
            x, y = x_of(r), y_of(r)
            if x is not None and y is not None and math.isfinite(y):
                points.setdefault(x, []).append(y)
        if points:
            out[cfg] = sorted((x, reduce(ys)) for x, ys in points.items())
    return out


def draw_lines(ax, lines, styles):
    """One line per configuration, natives last so they sit on top."""
    for cfg in sorted(lines, key=lambda c: (c in NATIVE_ITEMS, c)):
        xs, ys = zip(*lines[cfg])
        ax.plot(xs, ys, label=label(cfg), markersize=5, **styles[cfg])


def new_axes(title, xlabel, ylabel):
    """A figure with the common look."""
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which='major', alpha=0.3)
    return fig, ax


def log2_x(ax):
    """Log-2 x axis with plain integer tick labels (sizes, k)."""
    ax.set_xscale('log', base=2)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f'{v:g}'))


def cuda_square(rows):
    """GPU rows with m = n = k: the ones a size axis describes."""
    return [r for r in rows if r.get('impl') == 'cuda' and r['m'] == r['n'] == r['k']]


def fig_tflops(rows, styles, ctx):
    """Figure 1: throughput against size, per target and generator setting."""
    rows = [r for r in cuda_square(rows) if num(r, 'tflops') is not None]
    if not rows:
        raise Skip('no ok impl=cuda rows with m = n = k and tflops')
    for (target, gs), rs in group(rows, lambda r: (mpb_rows.target_of(r), gen_slug(r))).items():
        fig, ax = new_axes(f'GEMM throughput, {target} target, {gs}', 'n (m = n = k)', 'TFLOP/s')
        draw_lines(ax, series(rs, lambda r: int(r['n']), lambda r: num(r, 'tflops'),
                              statistics.median), styles)
        log2_x(ax)
        ax.set_ylim(bottom=0)
        ctx.save(fig, f'tflops_vs_size_{target_slug(target)}_{gs}', ax)


def native_times(rows):
    """Median native time per case, keyed as fig_speedup joins on."""
    times = {}
    for r in rows:
        t = num(r, 'time_ms_median')
        if is_native(r) and t:
            times.setdefault(case_key(r), []).append(t)
    return {k: statistics.median(v) for k, v in times.items()}


def case_key(r):
    """What makes two rows the same GEMM on the same data."""
    return (mpb_rows.target_of(r), r['m'], r['n'], r['k'], r['gen'], r['gen_params'], r['seed'])


def fig_speedup(rows, styles, ctx):
    """Figure 2: native time / scheme time on the same case."""
    rows = [r for r in cuda_square(rows) if num(r, 'time_ms_median')]
    native = native_times(rows)
    rows = [r for r in rows if not is_native(r) and case_key(r) in native]
    if not rows:
        raise Skip('no scheme rows with a native dgemm/sgemm/zgemm/cgemm row on the same case')
    for (target, gs), rs in group(rows, lambda r: (mpb_rows.target_of(r), gen_slug(r))).items():
        fig, ax = new_axes(f'Speedup over {NATIVE[target]} ({target}), {gs}',
                           'n (m = n = k)', f'speedup over {NATIVE[target]}')
        draw_lines(ax, series(rs, lambda r: int(r['n']),
                              lambda r: native[case_key(r)] / num(r, 'time_ms_median'),
                              statistics.median), styles)
        ax.axhline(1.0, label=NATIVE[target], **NATIVE_STYLE)
        log2_x(ax)
        ctx.save(fig, f'speedup_vs_size_{target_slug(target)}_{gs}', ax)


def error_of(choice):
    """The y value and axis label for --error."""
    if choice == 'rho_a_max_over_k':
        return (lambda r: ratio(num(r, 'rho_a_max'), num(r, 'k')),
                'ρ_A / k  (componentwise error / (k·u·|A||B|))')
    return (lambda r: num(r, choice), choice.replace('_', ' '))


def ratio(a, b):
    """a / b, or None when either is missing or b is zero."""
    return a / b if a is not None and b else None


def fig_error_phi(rows, styles, ctx):
    """Figure 3: error against φ, one file per target and size."""
    y_of, ylabel = error_of(ctx.error)
    rows = [r for r in rows if r.get('gen') == 'phi' and gen_param(r, 'phi') is not None
            and positive(y_of(r))]
    if not rows:
        raise Skip(f'no rows with gen=phi and a positive {ctx.error}')
    for (target, size), rs in group(rows, lambda r: (mpb_rows.target_of(r), size_slug(r))).items():
        fig, ax = new_axes(f'{ylabel.split("  ")[0]} vs φ, {target} target, {size}', 'φ', ylabel)
        draw_lines(ax, series(rs, lambda r: gen_param(r, 'phi'), y_of, max), styles)
        ax.set_yscale('log')
        reference_levels(ax, target, ctx.error)
        ctx.save(fig, f'{ctx.error}_vs_phi_{target_slug(target)}_{size}', ax)


def positive(y):
    """Whether y can be drawn on a log axis."""
    return y is not None and math.isfinite(y) and y > 0


def reference_levels(ax, target, choice):
    """Horizontal guides: u for relative errors, the bounds 1 and 10 for ρ_A/k."""
    if choice == 'rho_a_max_over_k':
        ax.axhline(1.0, color='grey', linestyle=':', label='rigorous bound (ρ_A = k)')
        ax.axhline(10.0, color='grey', linestyle='-', linewidth=0.8, label='Grade A (ρ_A = 10k)')
    else:
        u = unit_roundoff(target)
        ax.axhline(u, color='grey', linestyle=':', label=f'u = 2^{round(math.log2(u))}')


def fig_test2(rows, styles, ctx):
    """Figure 4: Test 2 max relative error against b (ADP paper Fig. 2)."""
    rows = [r for r in rows if r.get('gen') in ('test2', 'test2r')]
    if not rows:
        raise Skip('no rows with gen=test2 or test2r')
    rows = [r for r in rows if gen_param(r, 'b') is not None and positive(num(r, 'err_max_rel'))]
    if not rows:
        raise Skip('no test2 rows with b in gen_params and a positive err_max_rel')
    key = lambda r: (mpb_rows.target_of(r), r['gen'], size_slug(r))  # noqa: E731
    for (target, gen, size), rs in group(rows, key).items():
        fig, ax = new_axes(f'{gen}: max relative error vs b, {target} target, {size}',
                           'b (Test 2 parameter from gen_params)', 'max relative error')
        draw_lines(ax, series(rs, lambda r: gen_param(r, 'b'), lambda r: num(r, 'err_max_rel'),
                              max), styles)
        ax.set_yscale('log')
        reference_levels(ax, target, 'err_max_rel')
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ctx.save(fig, f'test2_error_vs_b_{target_slug(target)}_{gen}_{size}', ax)


def fig_rho_k(rows, styles, ctx):
    """Figure 5: componentwise error against k with the Grade-A bound 10·k."""
    rows = [r for r in rows if positive(num(r, 'rho_a_max')) and num(r, 'k')]
    if not rows:
        raise Skip('no rows with a positive rho_a_max')
    for (target, gs), rs in group(rows, lambda r: (mpb_rows.target_of(r), gen_slug(r))).items():
        fig, ax = new_axes(f'Componentwise error vs k, {target} target, {gs}',
                           'k', 'ρ_A  (max |Ĉ−C| / (u·|A||B|), units of u)')
        draw_lines(ax, series(rs, lambda r: int(r['k']), lambda r: num(r, 'rho_a_max'), max),
                   styles)
        ks = sorted({int(r['k']) for r in rs})
        ax.plot(ks, [10 * k for k in ks], color='grey', linewidth=0.8, label='Grade A: 10·k')
        ax.set_yscale('log')
        log2_x(ax)
        ctx.save(fig, f'rho_a_vs_k_{target_slug(target)}_{gs}', ax)


def fig_phases(rows, styles, ctx):
    """Figure 6: stacked split/GEMM/accumulate times per configuration and size."""
    present = [c for c, _, _ in PHASES if c in ctx.columns]
    if not present:
        raise Skip('no split_ms/gemm_ms/accum_ms columns')
    rows = [r for r in rows if any(num(r, c) is not None for c in present)]
    if not rows:
        raise Skip('no rows with a phase time')
    for (target, gs), rs in group(rows, lambda r: (mpb_rows.target_of(r), gen_slug(r))).items():
        fig = draw_phase_panels(rs, styles, f'Phase breakdown, {target} target, {gs}')
        ctx.save(fig, f'phases_{target_slug(target)}_{gs}')


def draw_phase_panels(rows, styles, title):
    """One panel per size, each with its own linear time axis.

    Times grow as n^3, so a shared axis would flatten the small sizes and a log
    axis would distort the stacks; separate panels keep every stack readable.
    """
    by_size = group(rows, lambda r: (int(r['m']), int(r['n']), int(r['k'])))
    configs = sorted({config(r) for r in rows})
    fig, axes = plt.subplots(1, len(by_size), figsize=(1.2 + 2.0 * len(by_size), 4.5),
                             squeeze=False)
    for ax, ((m, n, k), rs) in zip(axes[0], by_size.items()):
        for x, cfg in enumerate(configs):
            cell = [r for r in rs if config(r) == cfg]
            if cell:
                stack_bar(ax, x, cell, bar_colour(styles[cfg]))
        ax.set_xticks(range(len(configs)), [''] * len(configs))
        ax.set_title(str(n) if m == n == k else f'{m}×{n}×{k}', fontsize=9)
        ax.grid(True, axis='y', alpha=0.3)
    axes[0][0].set_ylabel('time of one instrumented call (ms)')
    fig.suptitle(title, fontsize=10)
    handles = [Patch(facecolor=bar_colour(styles[c]), label=label(c)) for c in configs]
    handles += [Patch(facecolor='white', edgecolor='black', hatch=h, label=name)
                for _, name, h in PHASES]
    fig.tight_layout()
    fig.legend(handles=handles, fontsize=7, ncol=2, loc='upper center', bbox_to_anchor=(0.5, 0))
    return fig


def bar_colour(style):
    """Bar fill: the native black would hide the phase hatching, so it is grey."""
    return '0.55' if style is NATIVE_STYLE else style['color']


def stack_bar(ax, x, rows, colour):
    """One stacked bar: the median of each phase over the rows of one cell."""
    bottom = 0.0
    for column, _, hatch in PHASES:
        values = [v for v in (num(r, column) for r in rows) if v is not None]
        if values:
            height = statistics.median(values)
            ax.bar(x, height, 0.8, bottom=bottom, color=colour, edgecolor='black',
                   linewidth=0.5, hatch=hatch)
            bottom += height


FIGURES = (
    (1, 'tflops', 'TFLOP/s vs size', fig_tflops),
    (2, 'speedup', 'speedup over native', fig_speedup),
    (3, 'error', 'error vs phi', fig_error_phi),
    (4, 'test2', 'test2 error vs b', fig_test2),
    (5, 'rho', 'componentwise error vs k', fig_rho_k),
    (6, 'phases', 'phase breakdown', fig_phases),
)
FIGURE_NAMES = [name for _, name, _, _ in FIGURES]

REQUIRED = {
    1: ('impl', 'm', 'n', 'k', 'target', 'gen', 'gen_params', 'tflops'),
    2: ('impl', 'm', 'n', 'k', 'target', 'gen', 'gen_params', 'seed', 'time_ms_median'),
    3: ('m', 'n', 'k', 'target', 'gen', 'gen_params'),
    4: ('m', 'n', 'k', 'target', 'gen', 'gen_params', 'err_max_rel'),
    5: ('k', 'target', 'gen', 'gen_params', 'rho_a_max'),
    6: ('m', 'n', 'k', 'target', 'gen', 'gen_params'),
}


# ---------------------------------------------------------------- driver

class Output:
    """Where figures go, in which formats, and the list of files written."""

    def __init__(self, out_dir, formats, error, columns):
        self.out_dir, self.formats, self.error, self.columns = out_dir, formats, error, columns
        self.written = []

    def save(self, fig, stem, ax=None):
        """Write one figure in every format; ax gets its legend outside the plot area."""
        if ax is not None:
            ax.legend(fontsize=7, loc='upper left', bbox_to_anchor=(1.01, 1))
        for ext in self.formats:
            path = os.path.join(self.out_dir, f'{stem}.{ext}')
            fig.savefig(path, bbox_inches='tight', dpi=150)
            self.written.append(path)
        plt.close(fig)


def parse_args(argv):
    """Command line; argparse exits 2 on anything malformed."""
    p = argparse.ArgumentParser(description='Figures from mpbench CSVs.')
    p.add_argument('csv', nargs='+', help='mpbench result CSVs')
    p.add_argument('--out', required=True, help='output directory (created if needed)')
    p.add_argument('--error', choices=ERROR_CHOICES, default='err_max_rel',
                   help='y of the error-vs-phi figure (default err_max_rel)')
    p.add_argument('--formats', default='png,pdf', help='comma-separated: png, pdf')
    p.add_argument('--figures', default=','.join(FIGURE_NAMES),
                   help='comma-separated figures to draw (default all): ' + ', '.join(FIGURE_NAMES))
    args = p.parse_args(argv)
    args.formats = [f for f in args.formats.split(',') if f]
    if not args.formats or any(f not in ('png', 'pdf') for f in args.formats):
        p.error('--formats takes a comma-separated list of png and pdf')
    args.figures = [f for f in args.figures.split(',') if f]
    unknown = [f for f in args.figures if f not in FIGURE_NAMES]
    if not args.figures or unknown:
        p.error(f"--figures: {', '.join(unknown) or 'empty'}: choose from {', '.join(FIGURE_NAMES)}")
    return args


def main(argv):
    args = parse_args(argv)
    rows, columns = read_csvs(args.csv)
    styles = make_styles(rows)
    by_gpu = group(rows, mpb_rows.gpu_of) or {'': []}  # no rows: every figure says why it is skipped
    if len(by_gpu) > 1:
        print(f'plot.py: the rows are of {len(by_gpu)} GPUs ({"; ".join(by_gpu)}): each GPU\'s '
              f'figures go into its own folder under {args.out} (scripts/report puts them side by side)',
              file=sys.stderr)
    written = []
    for gpu, gpu_rows in by_gpu.items():
        out = args.out if len(by_gpu) == 1 else os.path.join(args.out, slug(gpu))
        os.makedirs(out, exist_ok=True)
        ctx = Output(out, args.formats, args.error, columns)
        draw_all(gpu_rows, styles, ctx, args.figures, gpu if len(by_gpu) > 1 else '')
        written += ctx.written
    for path in written:
        print(path)
    return 0


def draw_all(rows, styles, ctx, figures, gpu):
    """Every figure asked for, from the rows of one GPU; a skip names the GPU when
    there are several."""
    of_gpu = f' on {gpu}' if gpu else ''
    for number, name, title, draw in FIGURES:
        if name not in figures:
            continue
        missing = [c for c in REQUIRED[number] + ('scheme', 'params') if c not in ctx.columns]
        try:
            if missing:
                raise Skip(f'missing column(s) {", ".join(missing)}')
            draw(rows, styles, ctx)
        except Skip as why:
            print(f'skip: figure {number} ({title}){of_gpu}: {why}', file=sys.stderr)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
