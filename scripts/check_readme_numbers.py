#!/usr/bin/python3
"""Recompute README.md's headline table from the committed CSVs it cites.

Usage: /usr/bin/python3 scripts/check_readme_numbers.py [README [ROOT]]
       (default: README.md of the repository this script is in; ROOT is the
       folder the CSV paths are relative to, default the README's folder)

The table follows the line `<!-- headline-table -->`; the HTML comment right
after it says where each number comes from, one line per number:

    row N: QUOTED STAT ARGS...

    speedup FILE {SEL} over {SEL}  time_ms_median of the second row / the first's
    ratio COL FILE {SEL} over {SEL}  the column's value in the first row / in the second
    value COL FILE {SEL}           the column's value in the row
    text COL FILE {SEL}            the column's text in the row (a word, not a number)
    samehash FILE FILE             case_ids of the first file whose out_hash the
                                   second file has for the same case_id
    rows FILE                      data rows in the file

A selector {COL=VALUE p:KEY=VALUE g:KEY=VALUE ...} must match exactly one row:
COL=VALUE compares the whole cell, p: and g: look for one KEY=VALUE word in
`params` and `gen_params` (so defaults need not be spelt out).

Fails (exit 1, one line per problem) when a recomputed value, rounded as the
quoted text is written (decimals, or significant digits with an exponent),
differs from it; when the numbers of a row's second column are not, in order,
the quoted numbers of its lines (so no number goes unchecked); or when a file,
column or row is missing or a selector is ambiguous. Exit 2: no table found.
Deterministic: the CSVs, nothing else.
"""
import csv
import os
import re
import sys

MARK = "<!-- headline-table -->"
NUMBER = re.compile(r"(?<![\w.^])\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w^])")


class Problem(Exception):
    pass


def read_csv(root, path, cache={}):
    full = os.path.join(root, path)
    if full not in cache:
        try:
            with open(full, newline="") as f:
                cache[full] = list(csv.DictReader(f))
        except OSError as e:
            raise Problem(f"{path}: {e.strerror}")
    return cache[full]


def select(rows, path, sel):
    conds = sel.split()
    def match(row):
        for c in conds:
            key, _, want = c.partition("=")
            if key.startswith("p:") or key.startswith("g:"):
                col = "params" if key[0] == "p" else "gen_params"
                if f"{key[2:]}={want}" not in row[col].split():
                    return False
            elif key not in row:
                raise Problem(f"{path}: no column '{key}'")
            elif row[key] != want:
                return False
        return True
    found = [r for r in rows if match(r)]
    if len(found) != 1:
        raise Problem(f"{path}: {{{sel}}} matches {len(found)} rows, not 1")
    return found[0]


def number(row, col, path):
    if col not in row:
        raise Problem(f"{path}: no column '{col}'")
    try:
        return float(row[col])
    except ValueError:
        raise Problem(f"{path}: column '{col}' holds '{row[col]}', not a number")


def compute(root, stat, args):
    """The statistic's value: a float, or a str for `text`."""
    text = " ".join(args)
    if stat == "speedup":
        m = re.fullmatch(r"(\S+) \{([^}]*)\} over \{([^}]*)\}", text)
        if not m:
            raise Problem(f"speedup wants FILE {{SEL}} over {{SEL}}, not '{text}'")
        path, this, base = m.groups()
        rows = read_csv(root, path)
        t = number(select(rows, path, this), "time_ms_median", path)
        return number(select(rows, path, base), "time_ms_median", path) / t
    if stat == "ratio":
        m = re.fullmatch(r"(\S+) (\S+) \{([^}]*)\} over \{([^}]*)\}", text)
        if not m:
            raise Problem(f"ratio wants COL FILE {{SEL}} over {{SEL}}, not '{text}'")
        col, path, this, base = m.groups()
        rows = read_csv(root, path)
        return number(select(rows, path, this), col, path) / number(select(rows, path, base), col, path)
    if stat in ("value", "text"):
        m = re.fullmatch(r"(\S+) (\S+) \{([^}]*)\}", text)
        if not m:
            raise Problem(f"{stat} wants COL FILE {{SEL}}, not '{text}'")
        col, path, sel = m.groups()
        row = select(read_csv(root, path), path, sel)
        if stat == "text":
            if col not in row:
                raise Problem(f"{path}: no column '{col}'")
            return row[col]
        return number(row, col, path)
    if stat == "samehash" and len(args) == 2:
        a = {r["case_id"]: r["out_hash"] for r in read_csv(root, args[0])}
        b = {r["case_id"]: r["out_hash"] for r in read_csv(root, args[1])}
        return float(sum(1 for k, h in a.items() if k in b and b[k] == h))
    if stat == "rows" and len(args) == 1:
        return float(len(read_csv(root, args[0])))
    raise Problem(f"unknown statistic '{stat} {text}'")


def rounded(value, quoted):
    """value written as quoted is: the same decimals, or significant digits."""
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?(e[-+]?\d+)?", quoted)
    if not m:
        raise Problem(f"'{quoted}' is not a number mpbench's README writes")
    if m.group(3):
        digits = len(m.group(1)) + len(m.group(2) or "") - 1
        return f"{value:.{digits}e}"
    return f"{value:.{len(m.group(2) or '')}f}"


def same(value, quoted):
    text = rounded(value, quoted)
    return float(text) == float(quoted), text


def table_and_checks(lines):
    try:
        start = lines.index(MARK) + 1
    except ValueError:
        return None, None
    table = []
    i = start
    while i < len(lines) and lines[i].startswith("|"):
        table.append(lines[i])
        i += 1
    if i >= len(lines) or lines[i].strip() != "<!-- checks":
        return table, []
    checks = []
    i += 1
    while i < len(lines) and lines[i].strip() != "-->":
        if lines[i].strip():
            checks.append((i + 1, lines[i].strip()))
        i += 1
    return table, checks


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    readme = os.path.normpath(argv[0] if argv else os.path.join(here, "..", "README.md"))
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(readme))
    with open(readme, encoding="utf-8") as f:
        lines = f.read().split("\n")
    table, checks = table_and_checks(lines)
    if not table:
        print(f"{readme}: no table after '{MARK}'")
        return 2
    body = table[2:]  # past the header and the |---| line
    quoted_by_row = {}
    problems = []
    for line_no, spec in checks:
        m = re.fullmatch(r"row (\d+): (\S+) (\S+) ?(.*)", spec)
        if not m:
            problems.append(f"{readme}:{line_no}: cannot read '{spec}'")
            continue
        row, quoted, stat, rest = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        if not 1 <= row <= len(body):
            problems.append(f"{readme}:{line_no}: row {row}: the table has {len(body)} rows")
            continue
        if stat != "text":
            quoted_by_row.setdefault(row, []).append(quoted)
        try:
            value = compute(root, stat, rest.split())
            if isinstance(value, str):
                ok, got = value == quoted, value
            else:
                ok, got = same(value, quoted)
            cell = body[row - 1].split("|")[2]
            if isinstance(value, str) and not re.search(rf"(?<!\w){re.escape(quoted)}(?!\w)", cell):
                problems.append(f"{readme}:{line_no}: row {row}: '{quoted}' is not in its result cell")
            if not ok:
                problems.append(f"{readme}:{line_no}: row {row}: README says {quoted}, "
                                f"{stat} {rest} gives {got}")
        except Problem as e:
            problems.append(f"{readme}:{line_no}: row {row}: {e}")
    for n, row in enumerate(body, 1):
        cells = row.split("|")
        shown = NUMBER.findall(cells[2]) if len(cells) > 3 else []
        if shown != quoted_by_row.get(n, []):
            problems.append(f"{readme}: table row {n}: its numbers {shown} are not the checked "
                            f"ones {quoted_by_row.get(n, [])}")
    for p in problems:
        print(p)
    if not problems:
        print(f"{readme}: {len(checks)} numbers of {len(body)} rows recomputed from the CSVs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
