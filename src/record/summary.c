#include "record/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_COLS 11

static const char *const headers[SUMMARY_COLS] = {"scheme", "params", "gen", "gen_params", "m x n x k",
                                                  "ms", "TFLOP/s", "noise%", "err_fro", "grade",
                                                  "status"};

static void cell_double(char *buf, size_t len, double x, const char *fmt)
{
    if (isnan(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fmt, x);
}

void mpb_summary_add(struct mpb_summary *s, const struct mpb_case *c, const struct mpb_result *res,
                     const struct mpb_metrics *acc)
{
    char params[256], gparams[256], ms[32], tf[32], noise[32], err[32], line[1024];
    mpb_case_params(c, params, sizeof params);
    mpb_case_gen_params(c, gparams, sizeof gparams);
    cell_double(ms, sizeof ms, res->time_ms.median, "%.4g");
    cell_double(tf, sizeof tf, res->tflops, "%.1f");
    cell_double(noise, sizeof noise, res->time_ms.noise_pct, "%.1f");
    cell_double(err, sizeof err, acc ? acc->err_fro_rel : NAN, "%.2e");
    snprintf(line, sizeof line, "%s\t%s\t%s\t%s\t%lldx%lldx%lld\t%s\t%s\t%s\t%s\t%s\t%s", c->scheme->name,
             params[0] ? params : "-", c->gen->name, gparams[0] ? gparams : "-", (long long)c->m,
             (long long)c->n, (long long)c->k, ms, tf, noise, err, acc && acc->grade[0] ? acc->grade : "-",
             mpb_status_name(res->status));
    mpb_summary_add_line(s, line);
}

void mpb_summary_add_line(struct mpb_summary *s, const char *line)
{
    char **grown = realloc(s->lines, sizeof *grown * (size_t)(s->n + 1));
    if (!grown)
        return;
    s->lines = grown;
    s->lines[s->n] = strdup(line);
    if (s->lines[s->n])
        s->n++;
}

/* Calls `fn` on each tab-separated cell of `line` with its column index. */
static void each_cell(const char *line, void (*fn)(int col, const char *cell, int len, void *arg), void *arg)
{
    for (int col = 0; col < SUMMARY_COLS && line; col++) {
        const char *tab = strchr(line, '\t');
        int len = tab ? (int)(tab - line) : (int)strlen(line);
        fn(col, line, len, arg);
        line = tab ? tab + 1 : NULL;
    }
}

static void widen(int col, const char *cell, int len, void *arg)
{
    (void)cell;
    int *width = arg;
    if (len > width[col])
        width[col] = len;
}

struct print_arg {
    FILE *f;
    const int *width;
};

static void print_cell(int col, const char *cell, int len, void *arg)
{
    struct print_arg *p = arg;
    bool numeric = col >= 5 && col <= 8;
    fprintf(p->f, numeric ? "%*.*s" : "%-*.*s", p->width[col], len, cell);
    fputs(col + 1 < SUMMARY_COLS ? "  " : "\n", p->f);
}

void mpb_summary_print(const struct mpb_summary *s, FILE *f)
{
    if (s->n == 0)
        return;
    int width[SUMMARY_COLS];
    for (int c = 0; c < SUMMARY_COLS; c++)
        width[c] = (int)strlen(headers[c]);
    for (int i = 0; i < s->n; i++)
        each_cell(s->lines[i], widen, width);
    struct print_arg p = {f, width};
    for (int c = 0; c < SUMMARY_COLS; c++)
        print_cell(c, headers[c], (int)strlen(headers[c]), &p);
    for (int i = 0; i < s->n; i++)
        each_cell(s->lines[i], print_cell, &p);
}

void mpb_summary_free(struct mpb_summary *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->lines[i]);
    free(s->lines);
    s->lines = NULL;
    s->n = 0;
}
