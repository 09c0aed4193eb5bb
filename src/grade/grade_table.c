/* The verdict table of `mpbench grade` (grade_table.h). */
#include "grade/grade_table.h"

#include <math.h>
#include <string.h>

/* A label longer than this wraps onto more lines of its column, so that
 * long parameter lists keep the other columns aligned. */
#define LABEL_WIDTH 40

enum { COL_LABEL, COL_GRADE, COL_A, COL_B, COL_C, COL_RE, COL_IM, COL_T1, COL_T2, COL_BSTAR, COL_T3, COL_SPECIAL,
       COL_INNER, COL_SLOPE, N_COLS };

/* rhoRe/2k and rhoIm/2k are shown only when a configuration is complex. */
static const char *const headers[N_COLS] = {"configuration", "grade", "rhoA/k", "rhoB/k", "rhoC/k^c", "rhoRe/2k",
                                            "rhoIm/2k", "test1", "test2", "b*", "test3", "special", "inner",
                                            "slope A/B/C"};

void mpb_grade_label(const struct mpb_grade_config *cfg, char *buf, size_t len)
{
    const struct mpb_scheme *s = cfg->scheme;
    double def[MPB_MAX_PARAMS];
    mpb_param_defaults(s->params, s->n_params, def);
    size_t used = (size_t)snprintf(buf, len, "%s", s->name);
    for (int p = 0; p < s->n_params && used < len; p++) {
        if (cfg->params[p] == def[p] || (isnan(cfg->params[p]) && isnan(def[p])))
            continue;
        char v[64];
        mpb_param_format(&s->params[p], cfg->params[p], v, sizeof v);
        used += (size_t)snprintf(buf + used, len - used, " %s=%s", s->params[p].name, v);
    }
}

static void ratio(char *buf, size_t len, double x)
{
    snprintf(buf, len, x < 0 ? "-" : "%.3g", x);
}

static void row_cells(const struct mpb_grade_config *cfg, const struct mpb_verdict *v, char cells[N_COLS][256])
{
    mpb_grade_label(cfg, cells[COL_LABEL], 256);
    snprintf(cells[COL_GRADE], 256, "%c", v->grade);
    ratio(cells[COL_A], 256, v->rho_a.value);
    ratio(cells[COL_B], 256, v->rho_b.value);
    ratio(cells[COL_C], 256, v->rho_c.value);
    ratio(cells[COL_RE], 256, v->rho_re.value);
    ratio(cells[COL_IM], 256, v->rho_im.value);
    snprintf(cells[COL_T1], 256, "%s", mpb_test1_class_name(v->test1_class));
    snprintf(cells[COL_T2], 256, "%s", mpb_test2_class_name(v->test2_class));
    if (v->b_star == MPB_BSTAR_UNKNOWN)
        snprintf(cells[COL_BSTAR], 256, "-");
    else
        snprintf(cells[COL_BSTAR], 256, v->b_star == MPB_BSTAR_NONE ? "none" : "%d", v->b_star);
    snprintf(cells[COL_T3], 256, "%s", mpb_test3_class_name(v->test3_class));
    snprintf(cells[COL_SPECIAL], 256, "%s", mpb_special_class_name(v->special_class));
    snprintf(cells[COL_INNER], 256, "%s", mpb_inner_class_name(v->inner_class));
    char sl[3][16];
    for (int r = 0; r < 3; r++)
        snprintf(sl[r], sizeof sl[r], isnan(v->slope[r]) ? "-" : "%.2f", v->slope[r]);
    snprintf(cells[COL_SLOPE], 256, "%s/%s/%s", sl[0], sl[1], sl[2]);
}

/* The next line of `text` at most `width` characters, broken after a
 * space where there is one; *len its length, the return where the rest
 * starts. */
static const char *wrap(const char *text, int width, int *len)
{
    int n = (int)strlen(text);
    if (n <= width) {
        *len = n;
        return text + n;
    }
    int cut = width;
    while (cut > 0 && text[cut] != ' ')
        cut--;
    *len = cut > 0 ? cut : width;
    const char *rest = text + *len;
    return *rest == ' ' ? rest + 1 : rest;
}

/* A width of -1: the column is not shown. */
static void print_row(FILE *f, char cells[N_COLS][256], const int *width)
{
    int len;
    const char *rest = wrap(cells[COL_LABEL], width[COL_LABEL], &len);
    fprintf(f, "%-*.*s", width[COL_LABEL], len, cells[COL_LABEL]);
    for (int c = 1; c < N_COLS; c++)
        if (width[c] >= 0)
            fprintf(f, " %-*s", c < N_COLS - 1 ? width[c] : 0, cells[c]);
    fputc('\n', f);
    for (const char *line = rest; *line; line = rest) {
        rest = wrap(line, width[COL_LABEL], &len);
        fprintf(f, "  %.*s\n", len, line);
    }
}

static void print_details(FILE *f, const struct mpb_grade_config *cfg, const struct mpb_verdict *v)
{
    char label[256], sentence[1024];
    mpb_grade_label(cfg, label, sizeof label);
    mpb_verdict_sentence(v, sentence, sizeof sentence);
    fprintf(f, "\n%s (%lld cases, %lld ok, %lld graded):\n  %s\n", label, (long long)v->cases,
            (long long)v->cases_ok, (long long)v->cases_graded, sentence);
    const struct mpb_grade_worst *worst[5] = {&v->rho_a, &v->rho_b, &v->rho_c, &v->rho_re, &v->rho_im};
    static const char *const names[5] = {"A", "B", "C", "Re", "Im"};
    for (int r = 0; r < 5; r++)
        if (worst[r]->where[0])
            fprintf(f, "  worst rho_%s: mpbench run %s\n", names[r], worst[r]->where);
    if (v->warnings[0])
        fprintf(f, "  warning: %s\n", v->warnings);
    if (v->special_class == MPB_SPECIAL_FINITE_WRONG)
        fprintf(f, "  warning [special-finite]: %lld entries finite where native IEEE gives NaN/Inf\n",
                (long long)v->special_finite_wrong);
}

void mpb_grade_print_table(FILE *f, const struct mpb_grade_config *cfgs, const struct mpb_verdict *v, int n)
{
    static char cells[N_COLS][256];
    int width[N_COLS];
    for (int c = 0; c < N_COLS; c++) {
        snprintf(cells[c], sizeof cells[c], "%s", headers[c]);
        width[c] = (int)strlen(headers[c]);
    }
    for (int i = 0; i < n; i++) {
        row_cells(&cfgs[i], &v[i], cells);
        for (int c = 0; c < N_COLS; c++) {
            int w = (int)strlen(cells[c]);
            width[c] = w > width[c] ? w : width[c];
        }
    }
    if (width[COL_LABEL] > LABEL_WIDTH)
        width[COL_LABEL] = LABEL_WIDTH;
    bool complex = false;
    for (int i = 0; i < n; i++)
        complex |= cfgs[i].scheme->field == MPB_FIELD_COMPLEX;
    if (!complex)
        width[COL_RE] = width[COL_IM] = -1;
    for (int c = 0; c < N_COLS; c++)
        snprintf(cells[c], sizeof cells[c], "%s", headers[c]);
    print_row(f, cells, width);
    for (int i = 0; i < n; i++) {
        row_cells(&cfgs[i], &v[i], cells);
        print_row(f, cells, width);
    }
    for (int i = 0; i < n; i++)
        print_details(f, &cfgs[i], &v[i]);
}
