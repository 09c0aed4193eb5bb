/* Writes a compact gate fixture as a real results CSV: the fixture is a CSV
 * whose header names some of mpbench's columns, in any order; the output
 * has mpbench's header (written by csv.c, as `mpbench run` writes it) with
 * those columns filled and the rest empty. An unknown column name is an
 * error, so a typo cannot silently leave a cell empty.
 * Usage: gate_expand FIXTURE OUT.csv */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/csv.h"

#define MAX_FIELDS 64

static int column_of(const char *name)
{
    for (int c = 0; c < MPB_COL_COUNT; c++)
        if (!strcmp(name, mpb_csv_column_names[c]))
            return c;
    return -1;
}

static bool map_header(const char *path, char **fields, int n, int *map)
{
    for (int p = 0; p < n; p++)
        if ((map[p] = column_of(fields[p])) < 0) {
            fprintf(stderr, "%s: '%s' is not an mpbench column\n", path, fields[p]);
            return false;
        }
    return true;
}

static bool write_row(struct mpb_csv *out, char **fields, const int *map, int n)
{
    struct mpb_row row = {0};
    for (int p = 0; p < n; p++)
        mpb_row_set(&row, (enum mpb_col)map[p], fields[p][0] ? fields[p] : NULL);
    bool ok = mpb_csv_write(out, &row);
    mpb_row_clear(&row);
    return ok;
}

static bool expand(const char *path, FILE *in, struct mpb_csv *out)
{
    char *line = NULL, buf[8192], *fields[MAX_FIELDS];
    size_t cap = 0;
    int map[MAX_FIELDS], n_cols = -1;
    bool ok = true;
    for (int lineno = 1; ok && getline(&line, &cap, in) > 0; lineno++) {
        int n = mpb_csv_split(line, buf, sizeof buf, fields, MAX_FIELDS);
        if (n < 0 || (n_cols >= 0 && n != n_cols)) {
            fprintf(stderr, "%s:%d: malformed, or not %d fields\n", path, lineno, n_cols);
            ok = false;
        } else if (n_cols < 0) {
            n_cols = n;
            ok = map_header(path, fields, n, map);
        } else {
            ok = write_row(out, fields, map, n);
        }
    }
    free(line);
    return ok && !ferror(in);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gate_expand FIXTURE OUT.csv\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    char why[512];
    struct mpb_csv *out = mpb_csv_open(argv[2], false, why, sizeof why);
    if (!out) {
        fprintf(stderr, "%s\n", why);
        fclose(in);
        return 1;
    }
    bool ok = expand(argv[1], in, out);
    fclose(in);
    return mpb_csv_close(out) && ok ? 0 : 1;
}
