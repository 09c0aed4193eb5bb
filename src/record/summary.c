#include "record/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schemes/registry.h"

enum { COL_SCHEME, COL_GEN, COL_SIZE, COL_MS, COL_TFLOPS, COL_NOISE, COL_NATIVE, COL_ERR, COL_GRADE, COL_STATUS,
       N_COLS };

static const char *const headers[N_COLS] = {"scheme", "generator", "size", "ms", "TFLOP/s", "noise%",
                                            "× native", "err_fro", "grade", "status"};

/* Columns whose cells are numbers (right-aligned), and those left out when
 * no row has a value in them. */
static bool numeric(int col)
{
    return col >= COL_MS && col <= COL_ERR;
}

static bool optional(int col)
{
    return col == COL_TFLOPS || col == COL_NOISE || col == COL_NATIVE;
}

/* The narrowest the two free-text columns get when the table is too wide:
 * the longest scheme name (15) and its mark. */
#define MIN_TEXT_WIDTH 16
#define CELL 320

static const char fallback_mark[] = "*", wrong_mark[] = "!";

static bool fell_back(const struct mpb_summary_row *r)
{
    return r->status == MPB_STATUS_OK && r->fallback == 1;
}

/* An error of 1 or more (+Inf too) leaves no correct digit. */
static bool all_wrong(const struct mpb_summary_row *r)
{
    return r->status == MPB_STATUS_OK && !isnan(r->err_fro) && !(r->err_fro < 1);
}

static bool append(struct mpb_summary *s, const struct mpb_summary_row *r)
{
    struct mpb_summary_row *grown = realloc(s->rows, sizeof *grown * (size_t)(s->n + 1));
    if (!grown)
        return false;
    s->rows = grown;
    s->rows[s->n++] = *r;
    return true;
}

void mpb_summary_add(struct mpb_summary *s, const struct mpb_case *c, const struct mpb_result *res,
                     const struct mpb_metrics *acc)
{
    struct mpb_summary_row r = {.c = c, .status = res->status, .ms = res->time_ms.median, .tflops = res->tflops,
                                .noise_pct = res->time_ms.noise_pct, .err_fro = acc ? acc->err_fro_rel : NAN,
                                .fallback = res->info.fallback};
    snprintf(r.grade, sizeof r.grade, "%s", acc ? acc->grade : "");
    append(s, &r);
}

void mpb_summary_encode(const struct mpb_summary_row *r, char *buf, size_t len)
{
    snprintf(buf, len, "%d %.17g %.17g %.17g %.17g %d %s", (int)r->status, r->ms, r->tflops, r->noise_pct,
             r->err_fro, r->fallback, r->grade[0] ? r->grade : "-");
}

bool mpb_summary_add_encoded(struct mpb_summary *s, const struct mpb_case *c, const char *text)
{
    struct mpb_summary_row r = {.c = c};
    int status, used = 0;
    char grade[2];
    if (sscanf(text, "%d %lf %lf %lf %lf %d %1s%n", &status, &r.ms, &r.tflops, &r.noise_pct, &r.err_fro,
               &r.fallback, grade, &used) != 7 || text[used] || status < 0 || status > MPB_STATUS_SKIPPED)
        return false;
    r.status = (enum mpb_status)status;
    snprintf(r.grade, sizeof r.grade, "%s", strcmp(grade, "-") ? grade : "");
    return append(s, &r);
}

/* "128" for a cube, else "64x128x32". */
static void format_size(const struct mpb_case *c, char *buf, size_t len)
{
    if (c->m == c->n && c->n == c->k)
        snprintf(buf, len, "%lld", (long long)c->m);
    else
        snprintf(buf, len, "%lldx%lldx%lld", (long long)c->m, (long long)c->n, (long long)c->k);
}

static void format_generator(const struct mpb_case *c, char *buf, size_t len)
{
    char gparams[256];
    mpb_case_gen_params(c, gparams, sizeof gparams);
    snprintf(buf, len, "%s%s%s", c->gen->name, gparams[0] ? " " : "", gparams);
}

void mpb_summary_progress(const struct mpb_summary_row *r, char *buf, size_t len)
{
    const struct mpb_case *c = r->c;
    char params[256], gen[300];
    mpb_param_format_changed(c->scheme->params, c->scheme->n_params, c->sp, params, sizeof params);
    format_generator(c, gen, sizeof gen);
    size_t used = (size_t)snprintf(buf, len, "%s%s%s%s %s, %s, %lldx%lldx%lld, seed %llu: %s", c->scheme->name,
                                   params[0] ? " [" : "", params, params[0] ? "]" : "", mpb_impl_name(c->impl),
                                   gen, (long long)c->m, (long long)c->n, (long long)c->k,
                                   (unsigned long long)c->seed, mpb_status_name(r->status));
    if (r->status != MPB_STATUS_OK || used >= len)
        return;
    used += (size_t)snprintf(buf + used, len - used, " %.4g ms", r->ms);
    if (!isnan(r->tflops) && used < len)
        used += (size_t)snprintf(buf + used, len - used, " %.4g TFLOP/s", r->tflops);
    if (!isnan(r->err_fro) && used < len)
        used += (size_t)snprintf(buf + used, len - used, " err_fro %.3g grade %s", r->err_fro,
                                 r->grade[0] ? r->grade : "-");
    if (fell_back(r) && used < len)
        used += (size_t)snprintf(buf + used, len - used, " %s ran the native GEMM (fallback)", fallback_mark);
    if (all_wrong(r) && used < len)
        snprintf(buf + used, len - used, " %s no correct digit", wrong_mark);
}

/* Columns on a terminal: UTF-8 continuation bytes take none. */
static int display_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* Cut `cell` to `width` columns, its last one an ellipsis (cells are ASCII). */
static void truncate_cell(char *cell, int width)
{
    if (display_width(cell) > width && width >= 1)
        snprintf(cell + width - 1, CELL - (size_t)(width - 1), "…");
}

/* The row of the target's native GEMM on the same case (shape, generator
 * and its parameters or files, seed) that ran, or NULL. */
static const struct mpb_summary_row *native_row(const struct mpb_summary *s, const struct mpb_summary_row *r,
                                                const int *natives, int n_natives)
{
    const struct mpb_case *c = r->c;
    const struct mpb_scheme *nat = mpb_scheme_native(c->scheme->target, c->scheme->field);
    for (int i = 0; i < n_natives; i++) {
        const struct mpb_summary_row *n = &s->rows[natives[i]];
        const struct mpb_case *d = n->c;
        if (d->scheme == nat && n->status == MPB_STATUS_OK && n->ms > 0 && d->m == c->m && d->n == c->n &&
            d->k == c->k && d->gen == c->gen && d->files == c->files && d->seed == c->seed &&
            d->impl == c->impl && !memcmp(d->gp, c->gp, sizeof d->gp))
            return n;
    }
    return NULL;
}

static void row_cells(const struct mpb_summary *s, const struct mpb_summary_row *r, const int *natives,
                      int n_natives, char cells[N_COLS][CELL])
{
    const struct mpb_case *c = r->c;
    bool ok = r->status == MPB_STATUS_OK;
    char params[256];
    mpb_param_format_changed(c->scheme->params, c->scheme->n_params, c->sp, params, sizeof params);
    snprintf(cells[COL_SCHEME], CELL, "%s%s%s%s", c->scheme->name, fell_back(r) ? fallback_mark : "",
             params[0] ? " " : "", params);
    format_generator(c, cells[COL_GEN], CELL);
    format_size(c, cells[COL_SIZE], CELL);
    for (int col = COL_MS; col <= COL_ERR; col++)
        snprintf(cells[col], CELL, "-");
    if (ok && !isnan(r->ms))
        snprintf(cells[COL_MS], CELL, "%.4g", r->ms);
    if (ok && !isnan(r->tflops))
        snprintf(cells[COL_TFLOPS], CELL, "%.1f", r->tflops);
    if (ok && !isnan(r->noise_pct))
        snprintf(cells[COL_NOISE], CELL, "%.1f", r->noise_pct);
    const struct mpb_summary_row *nat = ok && r->ms > 0 ? native_row(s, r, natives, n_natives) : NULL;
    if (nat)
        snprintf(cells[COL_NATIVE], CELL, "%.3g", nat->ms / r->ms);
    if (ok && !isnan(r->err_fro))
        snprintf(cells[COL_ERR], CELL, "%.2e%s", r->err_fro, all_wrong(r) ? wrong_mark : "");
    snprintf(cells[COL_GRADE], CELL, "%s", r->grade[0] ? r->grade : "-");
    snprintf(cells[COL_STATUS], CELL, "%s", mpb_status_name(r->status));
}

static void print_cell(FILE *f, const char *cell, int width, bool right, bool last)
{
    int pad = width - display_width(cell);
    if (right)
        fprintf(f, "%*s%s", pad > 0 ? pad : 0, "", cell);
    else
        fprintf(f, "%s%*s", cell, last || pad < 0 ? 0 : pad, "");
    fputs(last ? "\n" : "  ", f);
}

/* Shrink the wider of the scheme and generator columns, one column at a
 * time, until the table fits or both are at their narrowest. */
static void fit(int *width, const bool *shown)
{
    int total = -2;
    for (int c = 0; c < N_COLS; c++)
        total += shown[c] ? width[c] + 2 : 0;
    while (total > MPB_SUMMARY_WIDTH) {
        int *wider = width[COL_SCHEME] >= width[COL_GEN] ? &width[COL_SCHEME] : &width[COL_GEN];
        if (*wider <= MIN_TEXT_WIDTH)
            return;
        (*wider)--;
        total--;
    }
}

static int compare_expansion_order(const void *a, const void *b)
{
    int x = (*(const struct mpb_summary_row *const *)a)->c->index;
    int y = (*(const struct mpb_summary_row *const *)b)->c->index;
    return (x > y) - (x < y);
}

void mpb_summary_print(const struct mpb_summary *s, FILE *f)
{
    if (s->n == 0)
        return;
    int *natives = malloc(sizeof *natives * (size_t)s->n), n_natives = 0;
    /* run --devices adds rows as the GPUs finish them */
    const struct mpb_summary_row **order = malloc(sizeof *order * (size_t)s->n);
    if (!natives || !order) {
        free(natives);
        free(order);
        return;
    }
    for (int i = 0; i < s->n; i++)
        order[i] = &s->rows[i];
    qsort(order, (size_t)s->n, sizeof *order, compare_expansion_order);
    for (int i = 0; i < s->n; i++)
        if (s->rows[i].c->scheme == mpb_scheme_native(s->rows[i].c->scheme->target, s->rows[i].c->scheme->field))
            natives[n_natives++] = i;
    int width[N_COLS];
    bool shown[N_COLS], any_fallback = false, any_wrong = false;
    char cells[N_COLS][CELL];
    for (int c = 0; c < N_COLS; c++) {
        width[c] = display_width(headers[c]);
        shown[c] = !optional(c);
    }
    for (int i = 0; i < s->n; i++) {
        row_cells(s, order[i], natives, n_natives, cells);
        for (int c = 0; c < N_COLS; c++) {
            int w = display_width(cells[c]);
            width[c] = w > width[c] ? w : width[c];
            shown[c] |= strcmp(cells[c], "-") != 0;
        }
        any_fallback |= fell_back(order[i]);
        any_wrong |= all_wrong(order[i]);
    }
    fit(width, shown);
    for (int c = 0; c < N_COLS; c++)
        if (shown[c]) {
            /* numbers stay aligned on their last digit beside a marked one */
            snprintf(cells[c], CELL, "%s%s", headers[c], c == COL_ERR && any_wrong ? " " : "");
            print_cell(f, cells[c], width[c], numeric(c), c == COL_STATUS);
        }
    for (int i = 0; i < s->n; i++) {
        row_cells(s, order[i], natives, n_natives, cells);
        for (int c = 0; c < N_COLS; c++) {
            if (!shown[c])
                continue;
            truncate_cell(cells[c], width[c]);
            if (c == COL_ERR && any_wrong && !strstr(cells[c], wrong_mark))
                strcat(cells[c], " ");
            print_cell(f, cells[c], width[c], numeric(c), c == COL_STATUS);
        }
    }
    const char *legend[] = {any_fallback ? "*: fallback=1, all or part of the product computed another way than "
                                           "the emulation"
                                         : NULL,
                            any_wrong ? "!: err_fro >= 1, no correct digit" : NULL,
                            shown[COL_NATIVE] ? "× native: the target's native GEMM's ms / this ms" : NULL};
    const char *sep = "";
    for (int i = 0; i < 3; i++)
        if (legend[i]) {
            fprintf(f, "%s%s", sep, legend[i]);
            sep = "; ";
        }
    if (*sep)
        fputc('\n', f);
    free(natives);
    free(order);
}

void mpb_summary_free(struct mpb_summary *s)
{
    free(s->rows);
    s->rows = NULL;
    s->n = 0;
}
