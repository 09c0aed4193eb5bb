/* GEMM times from a results CSV (cost.h). */
#include "tune/cost.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

enum { COL_SCHEME, COL_PARAMS, COL_M, COL_N, COL_K, COL_TIME, COL_STATUS, COLS };
static const char *const wanted[COLS] = {"scheme", "params", "m", "n", "k", "time_ms_median", "status"};

#define MAX_FIELDS 256

static bool parse_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    *out = v;
    return *s && !*end && !errno && v > 0;
}

/* NULL, or what is wrong with the row. */
static const char *add_row(struct mpb_tune_costs *t, char **f, const int *col)
{
    struct mpb_tune_cost_row row = {0};
    char *end;
    row.time_ms = strtod(f[col[COL_TIME]], &end);
    if (!parse_int(f[col[COL_M]], &row.m) || !parse_int(f[col[COL_N]], &row.n) || !parse_int(f[col[COL_K]], &row.k) ||
        !*f[col[COL_TIME]] || *end || !(row.time_ms > 0) || !isfinite(row.time_ms))
        return "m, n, k must be positive integers and time_ms_median a positive number";
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
    int col[COLS], lines, lineno = 0;
    bool complete, ok = true;
    for (int c = 0; c < COLS; c++)
        col[c] = -1;
    ssize_t len;
    for (bool header = true; ok && (len = mpb_csv_read_record(f, &rec, &cap, &lines, &complete)) > 0; header = false) {
        lineno += lines;
        free(buf);
        buf = malloc((size_t)len + 1);
        int n = buf ? mpb_csv_split(rec, buf, (size_t)len + 1, fields, MAX_FIELDS) : -1;
        if (n < 0) {
            snprintf(why, why_len, "--cost-model %s: line %d is not a CSV record", path, lineno);
            ok = false;
        } else if (header) {
            for (int i = 0; i < n; i++)
                for (int c = 0; c < COLS; c++)
                    if (!strcmp(fields[i], wanted[c]))
                        col[c] = i;
            for (int c = 0; c < COL_STATUS && ok; c++)
                if (col[c] < 0) {
                    snprintf(why, why_len, "--cost-model %s: no column '%s' (it needs scheme, params, m, n, k and "
                             "time_ms_median, as mpbench run writes them)", path, wanted[c]);
                    ok = false;
                }
        } else {
            int need = 0;
            for (int c = 0; c < COLS; c++)
                need = col[c] > need ? col[c] : need;
            if (n <= need)
                continue; /* a short row (run's truncated last line): not a measurement */
            if (col[COL_STATUS] >= 0 && strcmp(fields[col[COL_STATUS]], "ok"))
                continue;
            const char *bad = add_row(t, fields, col);
            if (bad) {
                snprintf(why, why_len, "--cost-model %s: line %d: %s", path, lineno, bad);
                ok = false;
            }
        }
    }
    if (ok && t->n_rows == 0) {
        snprintf(why, why_len, "--cost-model %s: no row with a time", path);
        ok = false;
    }
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
    for (int i = 0; i < t->n_rows; i++) {
        const struct mpb_tune_cost_row *r = &t->rows[i];
        if (!strcmp(r->scheme, s->name) && (!strcmp(r->params, all) || !strcmp(r->params, changed)) && r->m == m &&
            r->n == n && r->k == k) {
            *time_ms = r->time_ms;
            return true;
        }
    }
    snprintf(why, why_len, "--cost-model %s: no time for %s at %lldx%lldx%lld (a row with scheme %s, params '%s' "
             "and m, n, k %lld, %lld, %lld)", t->path, level->name, (long long)m, (long long)n, (long long)k, s->name,
             all, (long long)m, (long long)n, (long long)k);
    return false;
}
