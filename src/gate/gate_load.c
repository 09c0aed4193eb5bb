/* Reading a results CSV for `mpbench gate` (gate.h): the file as mpbench
 * writes it, or a reason naming file, line and column. Each record one
 * line ending in LF alone; the header one schema_version's exact column
 * list, and every row of that schema_version; each row's cells as
 * gate_row.c says; each case_id once. */
#include "gate/gate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate_row.h"

struct reader {
    struct mpb_gate_file *f;
    int schema;  /* the header's schema_version; 0 until the header is read */
    char schema_text[16];
    int n_cols;
    int cap;     /* rows allocated */
    int *lines;  /* the line each row starts on */
};

static int column_of(const char *name)
{
    for (int c = 0; c < MPB_COL_COUNT; c++)
        if (!strcmp(name, mpb_csv_column_names[c]))
            return c;
    return -1;
}

/* The header's schema_version; 0 with the first difference from every
 * schema's column list in `why`. */
static int read_header(char **fields, int n, const char *path, char *why, size_t why_len)
{
    int schema = mpb_csv_header_schema(fields, n);
    if (schema)
        return schema;
    int field_of[MPB_COL_COUNT] = {0};
    for (int p = 0; p < n; p++) {
        int c = column_of(fields[p]);
        if (c < 0) {
            snprintf(why, why_len, "%s:1: its header is not mpbench's: column '%s' (field %d) is none of its "
                     "columns (schema_version 1 to %d)", path, fields[p], p + 1, MPB_CSV_SCHEMA_VERSION);
            return 0;
        }
        if (field_of[c]) {
            snprintf(why, why_len, "%s:1: column %s is field %d and field %d", path, fields[p], field_of[c], p + 1);
            return 0;
        }
        field_of[c] = p + 1;
    }
    /* Distinct names of mpbench's: the first n columns with one missing,
     * or out of order, or in order but n is no schema's width. */
    for (int c = 0; c < n; c++)
        if (!field_of[c]) {
            snprintf(why, why_len, "%s:1: its header is not mpbench's: no column '%s'", path,
                     mpb_csv_column_names[c]);
            return 0;
        }
    for (int p = 0; p < n; p++)
        if (strcmp(fields[p], mpb_csv_column_names[p])) {
            snprintf(why, why_len, "%s:1: its header is not mpbench's: field %d is '%s', where mpbench writes '%s'",
                     path, p + 1, fields[p], mpb_csv_column_names[p]);
            return 0;
        }
    snprintf(why, why_len, "%s:1: its header is not mpbench's: no column '%s'", path, mpb_csv_column_names[n]);
    return 0;
}

static bool grow_rows(struct reader *r)
{
    if (r->f->n_rows < r->cap)
        return true;
    int want = r->cap ? 2 * r->cap : 64;
    struct mpb_row *grown = realloc(r->f->rows, sizeof *grown * (size_t)want);
    if (grown)
        r->f->rows = grown;
    int *lines = grown ? realloc(r->lines, sizeof *lines * (size_t)want) : NULL;
    if (!lines)
        return false;
    memset(grown + r->cap, 0, sizeof *grown * (size_t)(want - r->cap));
    r->lines = lines;
    r->cap = want;
    return true;
}

static bool read_row(struct reader *r, char **fields, int lineno, char *why, size_t why_len)
{
    const char *path = r->f->path;
    if (strcmp(fields[MPB_COL_schema_version], r->schema_text)) {
        snprintf(why, why_len, "%s:%d: column schema_version (field 1): '%s', but the header is schema_version "
                 "%d's", path, lineno, fields[MPB_COL_schema_version], r->schema);
        return false;
    }
    struct mpb_row *row = &r->f->rows[r->f->n_rows];
    r->lines[r->f->n_rows++] = lineno;
    for (int c = 0; c < r->n_cols; c++)
        if (fields[c][0])
            mpb_row_set(row, (enum mpb_col)c, fields[c]);
    char cell_why[768];
    if (mpb_gate_row_check(row, cell_why, sizeof cell_why))
        return true;
    snprintf(why, why_len, "%s:%d: %s", path, lineno, cell_why);
    return false;
}

/* What mpbench never writes into a record: a NUL byte, a CR outside quotes
 * (it writes a cell's line breaks as spaces, lines end in LF alone), an
 * empty line, a record with no line end or an open quote at the end. */
static const char *stray_bytes(const char *rec, size_t len, bool complete)
{
    if (strlen(rec) != len)
        return "a NUL byte";
    if (!complete)
        return rec[len - 1] == '\n' ? "a quote that never closes (the record runs to the end of the file)"
                                    : "no line end: a truncated last record (mpbench run --resume drops one)";
    bool quoted = false;
    for (const char *s = rec; *s; s++) {
        quoted ^= *s == '"';
        if (*s == '\r' && !quoted)
            return "a carriage return (CR LF line ends?); mpbench ends every line with LF alone";
    }
    return len == 1 ? "an empty line; mpbench writes none" : NULL;
}

/* One record (it may span lines: RFC 4180 lets a quoted cell hold a line
 * break); `lineno` is the line it starts on. */
static bool read_record(struct reader *r, const char *rec, size_t len, bool complete, int lineno, char *why,
                        size_t why_len)
{
    const char *path = r->f->path, *stray = stray_bytes(rec, len, complete);
    if (stray) {
        snprintf(why, why_len, "%s:%d: %s", path, lineno, stray);
        return false;
    }
    if (!r->schema && !strncmp(rec, "\xef\xbb\xbf", 3)) {
        snprintf(why, why_len, "%s:1: a UTF-8 byte-order mark; mpbench writes none", path);
        return false;
    }
    int max = 1;
    for (const char *s = rec; *s; s++)
        max += *s == ',';
    char *buf = malloc(len + 1);
    char **fields = malloc(sizeof *fields * (size_t)max);
    bool ok = buf && fields && grow_rows(r);
    int n = ok ? mpb_csv_split(rec, buf, len + 1, fields, max) : 0;
    if (!ok) {
        snprintf(why, why_len, "%s: out of memory", path);
    } else if (n < 0) {
        snprintf(why, why_len, "%s:%d: malformed quoting", path, lineno);
        ok = false;
    } else if (!r->schema) {
        r->schema = read_header(fields, n, path, why, why_len);
        r->n_cols = n;
        snprintf(r->schema_text, sizeof r->schema_text, "%d", r->schema);
        ok = r->schema != 0;
    } else if (n != r->n_cols) {
        snprintf(why, why_len, "%s:%d: %d fields, the header has %d", path, lineno, n, r->n_cols);
        ok = false;
    } else {
        ok = read_row(r, fields, lineno, why, why_len);
    }
    free(buf);
    free(fields);
    return ok;
}

struct id_at {
    const char *id;
    int at;
};

static int id_at_cmp(const void *a, const void *b)
{
    const struct id_at *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* by_id, and a case_id that is there twice: the first row (in file order)
 * that repeats an earlier one, named with the line of that one. mpbench
 * writes a case once (--resume runs only missing ones, merge drops
 * repeats), so a repeat is a corrupted or concatenated file. */
static bool index_rows(struct mpb_gate_file *f, const int *lines, char *why, size_t why_len)
{
    size_t n = (size_t)f->n_rows + 1;
    struct id_at *order = malloc(sizeof *order * n);
    f->by_id = malloc(sizeof *f->by_id * n);
    if (!order || !f->by_id) {
        free(order);
        snprintf(why, why_len, "%s: out of memory", f->path);
        return false;
    }
    for (int i = 0; i < f->n_rows; i++)
        order[i] = (struct id_at){f->rows[i].cell[MPB_COL_case_id], i};
    qsort(order, (size_t)f->n_rows, sizeof *order, id_at_cmp);
    int repeat = -1; /* index in order of the earliest repeating row */
    for (int i = 0; i < f->n_rows; i++) {
        f->by_id[i] = &f->rows[order[i].at];
        if (i && !strcmp(order[i - 1].id, order[i].id) && (repeat < 0 || order[i].at < order[repeat].at))
            repeat = i;
    }
    if (repeat >= 0)
        snprintf(why, why_len, "%s:%d: case_id %s is also on line %d; mpbench writes each case once", f->path,
                 lines[order[repeat].at], order[repeat].id, lines[order[repeat - 1].at]);
    free(order);
    return repeat < 0;
}

static bool read_file(struct mpb_gate_file *f, FILE *in, char *why, size_t why_len)
{
    struct reader r = {.f = f};
    char *rec = NULL;
    size_t cap = 0;
    ssize_t len;
    bool ok = true, complete;
    for (int lineno = 1, spans; ok && (len = mpb_csv_read_record(in, &rec, &cap, &spans, &complete)) > 0;
         lineno += spans)
        ok = read_record(&r, rec, (size_t)len, complete, lineno, why, why_len);
    if (ok && (len < 0 || ferror(in))) {
        snprintf(why, why_len, "%s: cannot read: %s", f->path, strerror(errno));
        ok = false;
    }
    if (ok && !r.schema) {
        snprintf(why, why_len, "%s: empty, expected mpbench's CSV header", f->path);
        ok = false;
    }
    ok = ok && index_rows(f, r.lines, why, why_len);
    free(rec);
    free(r.lines);
    return ok;
}

bool mpb_gate_load(struct mpb_gate_file *f, const char *path, char *why, size_t why_len)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(why, why_len, "%s: cannot read: %s", path, strerror(errno));
        return false;
    }
    bool ok = read_file(f, in, why, why_len);
    fclose(in);
    if (!ok)
        mpb_gate_free(f);
    return ok;
}

void mpb_gate_free(struct mpb_gate_file *f)
{
    for (int i = 0; i < f->n_rows; i++)
        mpb_row_clear(&f->rows[i]);
    free(f->rows);
    free(f->by_id);
    memset(f, 0, sizeof *f);
}
