"""Reading mpbench run CSVs and their .meta.json sidecars, for plot.py and report.

Every malformed input is named as FILE:LINE and ends the run with exit 3 (README
"Exit codes": an input that cannot be read or a malformed cell); a missing
matplotlib ends it with exit 77 and the command that installs it.
"""

import csv
import json
import math
import sys

# Cells that must be numbers when they are not empty: a figure drawn from a
# misparsed cell would look plausible and be wrong.
NUMERIC = ('m', 'n', 'k', 'seed', 'time_ms_median', 'time_ms_min', 'time_ms_max', 'noise_pct',
           'tflops', 'split_ms', 'gemm_ms', 'accum_ms', 'err_fro_rel', 'err_max_rel',
           'err_median_rel', 'rho_a_max', 'rho_b_max', 'rho_c_max')
STATUSES = ('ok', 'incorrect', 'not_supported', 'error', 'skipped')
FIELDS = ('real', 'complex')  # schema 6's field column; a file of schema 1-5 has none: real
IDENTIFYING = ('schema_version', 'case_id', 'scheme', 'params', 'target', 'status')
HOST_LABEL = 'host models'


class InputError(Exception):
    """A file that cannot be used; the message starts with FILE or FILE:LINE."""


def need_matplotlib(prog):
    """Exit 77 with the command that installs matplotlib when it is missing.

    Debian's /usr/bin/python3 is the interpreter the scripts name; pip's
    matplotlib in another Python does not help it, so the hint is apt's.
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f'{prog}: matplotlib is missing for {sys.executable}: install it with '
              '`sudo apt-get install python3-matplotlib` (or run ./scripts/setup)', file=sys.stderr)
        sys.exit(77)


def read_run_csv(path):
    """The header of one mpbench run CSV and every row as a dict, with '_file' and
    '_line' added.

    Raises InputError naming PATH:LINE for a row with the wrong number of cells, a
    non-number in a numeric column, a size that is not a positive integer or an
    unknown status.
    """
    try:
        with open(path, newline='', encoding='utf-8') as f:
            reader = csv.reader(f, strict=True)
            header = next(reader, None)
            if header is None:
                raise InputError(f'{path}:1: empty file, not an mpbench run CSV')
            missing = [c for c in IDENTIFYING if c not in header]
            if missing:
                raise InputError(f'{path}:1: not an mpbench run CSV (no {", ".join(missing)} column)')
            rows = []
            for cells in reader:
                rows.append(check_row(path, reader.line_num, header, cells))
            return header, rows
    except csv.Error as e:
        raise InputError(f'{path}:{reader.line_num}: {e}') from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f'{path}: cannot read: {e}') from None


def check_row(path, line, header, cells):
    """One record as a dict, or InputError naming PATH:LINE and the bad cell."""
    where = f'{path}:{line}'
    if len(cells) != len(header):
        raise InputError(f'{where}: {len(cells)} cells, the header has {len(header)}')
    row = dict(zip(header, cells))
    for column in NUMERIC:
        text = row.get(column, '')
        if text:
            try:
                float(text)
            except ValueError:
                raise InputError(f'{where}: column {column}: {text!r} is not a number') from None
    for column in ('m', 'n', 'k'):
        value = float(row.get(column) or 'nan')
        if not (math.isfinite(value) and value >= 1 and value == int(value)):
            raise InputError(f'{where}: column {column}: {row.get(column)!r} is not a positive integer')
    if row['status'] not in STATUSES:
        raise InputError(f'{where}: column status: {row["status"]!r} is not one of {", ".join(STATUSES)}')
    if 'field' in row and row['field'] not in FIELDS:
        raise InputError(f'{where}: column field: {row["field"]!r} is not one of {", ".join(FIELDS)}')
    row['_file'], row['_line'] = path, line
    return row


def read_meta(csv_path):
    """The runs of CSV_PATH.meta.json (a list of dicts), [] when there is none."""
    path = csv_path + '.meta.json'
    try:
        with open(path, encoding='utf-8') as f:
            meta = json.load(f)
    except FileNotFoundError:
        return []
    except json.JSONDecodeError as e:
        raise InputError(f'{path}:{e.lineno}: malformed JSON: {e.msg}') from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f'{path}: cannot read: {e}') from None
    runs = meta.get('runs') if isinstance(meta, dict) else None
    if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
        raise InputError(f'{path}:1: no "runs" list of objects')
    return runs


def gpu_of(row):
    """The GPU that ran the row: its gpu_name, or the host models' label."""
    return row.get('gpu_name') or HOST_LABEL


def target_of(row):
    """What a figure's axis or a table's target holds: the target precision, with
    "complex" after it for a complex row ("fp64", "fp64 complex"), so that real and
    complex GEMMs of one precision are never drawn or compared as one."""
    return row['target'] + (' complex' if row.get('field') == 'complex' else '')
