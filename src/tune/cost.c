/* GEMM times from a results CSV (cost.h). */
#include "tune/cost.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/csv.h"
#include "case/values.h"

enum { COL_SCHEME, COL_PARAMS, COL_M, COL_N, COL_K, COL_TIME, COL_STATUS, COLS };
static const char *const wanted[COLS] = {"scheme", "params", "m", "n", "k", "time_ms_median", "status"};

#define MAX_FIELDS 256

static bool parse_dim(const char *s, int64_t *out)
{
    return mpb_int_parse(s, out) && *out > 0;
}

/* NULL, or what is wrong with the row. */
static const char *add_row(struct mpb_tune_costs *t, char **f, const int *col, int line)
{
    struct mpb_tune_cost_row row = {.line = line};
    char *end;
    errno = 0;
    row.time_ms = strtod(f[col[COL_TIME]], &end);
    if (!*f[col[COL_SCHEME]] || !parse_dim(f[col[COL_M]], &row.m) || !parse_dim(f[col[COL_N]], &row.n) ||
        !parse_dim(f[col[COL_K]], &row.k) || !*f[col[COL_TIME]] || *end || errno || !(row.time_ms > 0) ||
        !isfinite(row.time_ms))
        return "scheme must be named, m, n, k positive integers and time_ms_median a positive number";
    struct mpb_tune_cost_row *grown = realloc(t->rows, sizeof *grown * (size_t)(t->n_rows + 1));
    if (!grown)
        return "out of memory";
    t->rows = grown;
    row.scheme = strdup(f[col[COL_SCHEME]]);
    row.params = strdup(f[col[COL_PARAMS]]);
    if (!row.scheme || !row.params) {
        free(row.scheme);
        free(row.params);
        return "out of memory";
    }
    t->rows[t->n_rows++] = row;
    return NULL;
}

/* By key (scheme, params, m, n, k), then line. */
static int compare_rows(const void *pa, const void *pb)
{
    const struct mpb_tune_cost_row *a = *(const struct mpb_tune_cost_row *const *)pa,
                                   *b = *(const struct mpb_tune_cost_row *const *)pb;
    int c = strcmp(a->scheme, b->scheme);
    c = c ? c : strcmp(a->params, b->params);
    c = c ? c : (a->m > b->m) - (a->m < b->m);
    c = c ? c : (a->n > b->n) - (a->n < b->n);
    c = c ? c : (a->k > b->k) - (a->k < b->k);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* One time per key: two would make the lookup pick one silently. */
static bool check_unique(const struct mpb_tune_costs *t, char *why, size_t why_len)
{
    const struct mpb_tune_cost_row **by_key = malloc(sizeof *by_key * (size_t)(t->n_rows ? t->n_rows : 1));
    if (!by_key) {
        snprintf(why, why_len, "--cost-model %s: out of memory", t->path);
        return false;
    }
    for (int i = 0; i < t->n_rows; i++)
        by_key[i] = &t->rows[i];
    if (t->n_rows)
        qsort(by_key, (size_t)t->n_rows, sizeof *by_key, compare_rows);
    bool ok = true;
    for (int i = 1; ok && i < t->n_rows; i++) {
        const struct mpb_tune_cost_row *a = by_key[i - 1], *b = by_key[i];
        if (!strcmp(a->scheme, b->scheme) && !strcmp(a->params, b->params) && a->m == b->m && a->n == b->n &&
            a->k == b->k) {
            snprintf(why, why_len, "--cost-model %s:%d: scheme %s, params '%s' at %lldx%lldx%lld is also at line %d: "
                     "give one time per level and shape (a sweep over several generators or seeds has several rows "
                     "of each: keep one)", t->path, b->line, b->scheme, b->params, (long long)b->m, (long long)b->n,
                     (long long)b->k, a->line);
            ok = false;
        }
    }
    free(by_key);
    return ok;
}

/* The header's columns: each wanted one once. */
static bool read_header(const struct mpb_tune_costs *t, char **fields, int n, int *col, char *why, size_t why_len)
{
    for (int i = 0; i < n; i++)
        for (int c = 0; c < COLS; c++)
            if (!strcmp(fields[i], wanted[c])) {
                if (col[c] >= 0) {
                    snprintf(why, why_len, "--cost-model %s:1: column '%s' twice (columns %d and %d)", t->path,
                             wanted[c], col[c] + 1, i + 1);
                    return false;
                }
                col[c] = i;
            }
    for (int c = 0; c < COL_STATUS; c++)
        if (col[c] < 0) {
            snprintf(why, why_len, "--cost-model %s: no column '%s' (it needs scheme, params, m, n, k and "
                     "time_ms_median, as mpbench run writes them)", t->path, wanted[c]);
            return false;
        }
    return true;
}

bool mpb_tune_costs_load(const char *path, struct mpb_tune_costs *t, char *why, size_t why_len)
{
    memset(t, 0, sizeof *t);
    t->path = strdup(path);
    FILE *f = fopen(path, "r");
    if (!f || !t->path) {
        snprintf(why, why_len, "--cost-model %s: cannot read it: %s", path, strerror(errno));
        if (f)
            fclose(f);
        mpb_tune_costs_free(t);
        return false;
    }
    char *rec = NULL, *buf = NULL, *fields[MAX_FIELDS];
    size_t cap = 0;
    int col[COLS], lines, lineno = 1, header_fields = 0;
    bool complete, ok = true;
    for (int c = 0; c < COLS; c++)
        col[c] = -1;
    ssize_t len;
    for (; ok && (len = mpb_csv_read_record(f, &rec, &cap, &lines, &complete)) > 0; lineno += lines) {
        free(buf);
        buf = malloc((size_t)len + 1);
        int n = buf ? mpb_csv_split(rec, buf, (size_t)len + 1, fields, MAX_FIELDS) : -1;
        if (!buf) {
            snprintf(why, why_len, "--cost-model %s:%d: out of memory", path, lineno);
            ok = false;
        } else if (n < 0) {
            snprintf(why, why_len, "--cost-model %s:%d: not a CSV record (malformed quoting, or more than %d fields)",
                     path, lineno, MAX_FIELDS);
            ok = false;
        } else if (!complete) {
            snprintf(why, why_len, "--cost-model %s:%d: an incomplete last record (no line end: a run killed while "
                     "writing it); finish that run (--resume) first", path, lineno);
            ok = false;
        } else if (lineno == 1) {
            header_fields = n;
            ok = read_header(t, fields, n, col, why, why_len);
        } else if (n != header_fields) {
            snprintf(why, why_len, "--cost-model %s:%d: %d fields, the header has %d", path, lineno, n, header_fields);
            ok = false;
        } else if (col[COL_STATUS] < 0 || !strcmp(fields[col[COL_STATUS]], "ok")) {
            const char *bad = add_row(t, fields, col, lineno);
            if (bad) {
                snprintf(why, why_len, "--cost-model %s:%d: %s", path, lineno, bad);
                ok = false;
            }
        }
    }
    if (ok && len < 0) {
        snprintf(why, why_len, "--cost-model %s: cannot read it: %s", path, strerror(errno));
        ok = false;
    }
    if (ok && t->n_rows == 0) {
        snprintf(why, why_len, "--cost-model %s: no row with a time", path);
        ok = false;
    }
    ok = ok && check_unique(t, why, why_len);
    free(rec);
    free(buf);
    fclose(f);
    if (!ok) /* the caller frees only a table that loaded */
        mpb_tune_costs_free(t);
    return ok;
}

void mpb_tune_costs_free(struct mpb_tune_costs *t)
{
    for (int i = 0; i < t->n_rows; i++) {
        free(t->rows[i].scheme);
        free(t->rows[i].params);
    }
    free(t->rows);
    free(t->path);
    memset(t, 0, sizeof *t);
}

bool mpb_tune_costs_find(const struct mpb_tune_costs *t, const struct mpb_tune_level *level, int64_t m, int64_t n,
                         int64_t k, double *time_ms, char *why, size_t why_len)
{
    const struct mpb_scheme *s = level->scheme;
    char all[512];
    mpb_param_format_all(s->params, s->n_params, level->params, all, sizeof all);
    const char *changed = level->name + strlen(s->name);
    changed += *changed == ' ';
    const struct mpb_tune_cost_row *hit = NULL;
    for (int i = 0; i < t->n_rows; i++) {
        const struct mpb_tune_cost_row *r = &t->rows[i];
        /* params in full, only those changed, or in full from before the scheme gained parameters
         * that the level has at their defaults (as mpbench gate pairs rows) */
        if (strcmp(r->scheme, s->name) ||
            (strcmp(r->params, all) && strcmp(r->params, changed) &&
             !mpb_param_added_at_default(s->params, s->n_params, r->params, all)) ||
            r->m != m || r->n != n || r->k != k)
            continue;
        if (hit) { /* the same level, its parameters written in full and only those changed */
            snprintf(why, why_len, "--cost-model %s: lines %d and %d both give %s at %lldx%lldx%lld: give one",
                     t->path, hit->line, r->line, level->name, (long long)m, (long long)n, (long long)k);
            return false;
        }
        hit = r;
    }
    if (hit) {
        *time_ms = hit->time_ms;
        return true;
    }
    snprintf(why, why_len, "--cost-model %s: no time for %s at %lldx%lldx%lld (a row with scheme %s, params '%s' "
             "and m, n, k %lld, %lld, %lld)", t->path, level->name, (long long)m, (long long)n, (long long)k, s->name,
             all, (long long)m, (long long)n, (long long)k);
    return false;
}
