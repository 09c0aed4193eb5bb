/* `mpbench gate`'s comparison (gate.h); gate_load.c reads the files. */
#include "gate/gate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schemes/registry.h"

const char *mpb_gate_cell(const struct mpb_row *row, enum mpb_col col)
{
    return row && row->cell[col] ? row->cell[col] : "";
}

const char *mpb_gate_version(const struct mpb_gate_file *f, enum mpb_col col)
{
    const char *seen = NULL;
    for (int i = 0; i < f->n_rows; i++) {
        const char *v = f->rows[i].cell[col];
        if (v && seen && strcmp(v, seen))
            return "mixed";
        if (v)
            seen = v;
    }
    return seen;
}

static const struct mpb_row *find(const struct mpb_gate_file *f, const char *case_id)
{
    int lo = 0, hi = f->n_rows;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(case_id, f->by_id[mid]->cell[MPB_COL_case_id]);
        if (!c)
            return f->by_id[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* A number cell (gate_row.c checked its grammar); NaN when empty. */
static double number(const struct mpb_row *row, enum mpb_col col)
{
    double x;
    return mpb_csv_read_real(mpb_gate_cell(row, col), &x) ? x : NAN;
}

/* Append a reason to the pair's `why`, "; "-separated. */
static void say(struct mpb_gate_pair *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct mpb_gate_pair *p, const char *fmt, ...)
{
    size_t used = strlen(p->why);
    if (used && used + 2 < sizeof p->why) {
        strcpy(p->why + used, "; ");
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why + used, sizeof p->why - used, fmt, ap);
    va_end(ap);
}

static const char *shown(const char *s)
{
    return *s ? s : "(empty)";
}

/* Rows of different scheme numerics, GPUs or backends say nothing about
 * the upgrade. */
static bool incomparable(struct mpb_gate_pair *p)
{
    static const enum mpb_col setup[] = {MPB_COL_scheme_version, MPB_COL_gpu_name, MPB_COL_impl};
    bool differ = false;
    for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++) {
        const char *b = mpb_gate_cell(p->base, setup[i]), *c = mpb_gate_cell(p->cand, setup[i]);
        if (strcmp(b, c)) {
            say(p, "%s %s→%s", mpb_csv_column_names[setup[i]], shown(b), shown(c));
            differ = true;
        }
    }
    return differ;
}

static const enum mpb_col error_cols[] = {MPB_COL_err_fro_rel, MPB_COL_err_max_rel, MPB_COL_err_median_rel,
                                          MPB_COL_rho_a_max,   MPB_COL_rho_b_max,   MPB_COL_rho_c_max};

static double error_floor(const struct mpb_row *base, enum mpb_col col)
{
    bool rho = col == MPB_COL_rho_a_max || col == MPB_COL_rho_b_max || col == MPB_COL_rho_c_max;
    double u = strcmp(mpb_gate_cell(base, MPB_COL_target), "fp32") ? 0x1p-53 : 0x1p-24;
    return ldexp(rho ? 1 : u, MPB_GATE_FLOOR_LOG2);
}

/* Sets worst_err and says which columns grew past the factor; true when
 * one did. A column the baseline lacks holds nothing to compare with; one
 * only the candidate lacks lost its value (--ref none, or a NaN error),
 * which the gate cannot pass. */
static bool errors_grew(struct mpb_gate_pair *p, double factor)
{
    bool grew = false;
    int lost = 0;
    for (size_t i = 0; i < sizeof error_cols / sizeof error_cols[0]; i++) {
        enum mpb_col col = error_cols[i];
        double b = number(p->base, col), c = number(p->cand, col);
        if (isnan(b))
            continue;
        double ratio = isnan(c) ? INFINITY : c == b ? 1 : c / fmax(b, error_floor(p->base, col));
        if (isnan(p->worst_err) || ratio > p->worst_err)
            p->worst_err = ratio;
        if (!(ratio > factor))
            continue;
        grew = true;
        if (isnan(c))
            lost++;
        else
            say(p, "%s %.3g→%.3g", mpb_csv_column_names[col], b, c);
    }
    if (lost)
        say(p, "%d error column(s) empty in the candidate only", lost);
    return grew;
}

/* A > B > C > F; -1 for not graded. */
static int grade_rank(const char *g)
{
    static const char order[] = "ABCF";
    const char *at = g[0] && !g[1] ? strchr(order, g[0]) : NULL;
    return at ? (int)(at - order) : -1;
}

/* Checked against a reference (ref mpfr or dd, not none). */
static bool checked(const struct mpb_row *row)
{
    return strcmp(mpb_gate_cell(row, MPB_COL_ref), "none") != 0;
}

static enum mpb_gate_acc judge_accuracy(struct mpb_gate_pair *p, double factor)
{
    const char *bs = mpb_gate_cell(p->base, MPB_COL_status), *cs = mpb_gate_cell(p->cand, MPB_COL_status);
    if (incomparable(p))
        return MPB_GATE_ACC_INCOMPARABLE;
    if (strcmp(bs, "ok")) { /* no numbers to hold the candidate to */
        if (!strcmp(bs, cs))
            return MPB_GATE_ACC_SAME;
        say(p, "status %s→%s", shown(bs), shown(cs));
        return MPB_GATE_ACC_CHANGED;
    }
    if (strcmp(cs, "ok")) {
        say(p, "status ok→%s", shown(cs));
        return MPB_GATE_ACC_WORSE;
    }
    /* rows with status ok have a hash (gate_row.c) */
    if (!strcmp(mpb_gate_cell(p->base, MPB_COL_out_hash), mpb_gate_cell(p->cand, MPB_COL_out_hash)))
        return MPB_GATE_ACC_SAME;
    const char *bg = mpb_gate_cell(p->base, MPB_COL_grade), *cg = mpb_gate_cell(p->cand, MPB_COL_grade);
    /* Whether a checked case is graded depends on its inputs and reference
     * only (non-finite inputs, an exact C out of range, nothing checked),
     * not on the scheme's output: rows that disagree judged different things. */
    if (checked(p->base) && checked(p->cand) && !*bg != !*cg) {
        say(p, "graded on one side only (grade %s→%s)", shown(bg), shown(cg));
        return MPB_GATE_ACC_INCOMPARABLE;
    }
    bool worse = errors_grew(p, factor);
    if (grade_rank(bg) >= 0 && grade_rank(cg) > grade_rank(bg)) {
        say(p, "grade %s→%s", bg, cg);
        worse = true;
    }
    if (!worse)
        say(p, "out_hash differs");
    return worse ? MPB_GATE_ACC_WORSE : MPB_GATE_ACC_CHANGED;
}

static bool both_are(const struct mpb_gate_pair *p, enum mpb_col col, const char *value)
{
    return !strcmp(mpb_gate_cell(p->base, col), value) && !strcmp(mpb_gate_cell(p->cand, col), value);
}

/* Timing noise widens the band: a ratio inside twice the noisier side's
 * noise_pct is not a measured change. */
static enum mpb_gate_perf judge_perf(struct mpb_gate_pair *p, const struct mpb_gate_tol *tol)
{
    const struct mpb_row *b = p->base, *c = p->cand;
    double tb = number(b, MPB_COL_time_ms_median), tc = number(c, MPB_COL_time_ms_median);
    if (tb > 0 && tc >= 0)
        p->time_ratio = tc / tb;
    if (!both_are(p, MPB_COL_impl, "cuda") || !both_are(p, MPB_COL_status, "ok"))
        return MPB_GATE_PERF_NONE;
    bool enough = number(b, MPB_COL_reps) >= MPB_GATE_PERF_MIN_REPS &&
                  number(c, MPB_COL_reps) >= MPB_GATE_PERF_MIN_REPS;
    if (!enough) {
        say(p, "reps %s/%s, fewer than %d", shown(mpb_gate_cell(b, MPB_COL_reps)),
            shown(mpb_gate_cell(c, MPB_COL_reps)), MPB_GATE_PERF_MIN_REPS);
        return MPB_GATE_PERF_AMBIGUOUS;
    }
    if (isnan(p->time_ratio)) {
        say(p, "no time");
        return MPB_GATE_PERF_AMBIGUOUS;
    }
    /* Calls of tens of µs vary by tens of percent between runs of one session
     * (launch latency, clock ramp: results/h200/gate/baseline-gate-rerun.md). */
    if (fmin(tb, tc) < tol->min_ms) {
        say(p, "calls under %g ms", tol->min_ms);
        return MPB_GATE_PERF_AMBIGUOUS;
    }
    /* fmax drops a NaN (empty noise_pct) operand */
    double noise = fmax(number(b, MPB_COL_noise_pct), number(c, MPB_COL_noise_pct));
    double t = fmax(tol->perf_pct, 2 * noise);
    if (fabs(p->time_ratio - 1) <= t / 100)
        return MPB_GATE_PERF_SAME;
    say(p, "time outside ±%.3g%%", t);
    return p->time_ratio < 1 ? MPB_GATE_PERF_FAST : MPB_GATE_PERF_SLOW;
}

static void judge(struct mpb_gate_pair *p, const struct mpb_gate_tol *tol)
{
    p->time_ratio = p->worst_err = NAN;
    if (p->added_defaults)
        say(p, "params %s→%s: parameters added since the baseline, at their defaults",
            shown(mpb_gate_cell(p->base, MPB_COL_params)), shown(mpb_gate_cell(p->cand, MPB_COL_params)));
    if (p->paired)
        say(p, "paired by --pair-params: params %s→%s", shown(mpb_gate_cell(p->base, MPB_COL_params)),
            shown(mpb_gate_cell(p->cand, MPB_COL_params)));
    if (!p->cand)
        p->acc = MPB_GATE_ACC_MISSING;
    else if (!p->base)
        p->acc = MPB_GATE_ACC_NEW;
    else
        p->acc = judge_accuracy(p, tol->err_factor);
    bool both = p->base && p->cand && p->acc != MPB_GATE_ACC_INCOMPARABLE;
    p->perf = both ? judge_perf(p, tol) : MPB_GATE_PERF_NONE;
}

/* The same case but for the scheme's parameters (and so its case_id). */
static bool same_but_params(const struct mpb_row *a, const struct mpb_row *b)
{
    static const enum mpb_col key[] = {MPB_COL_scheme, MPB_COL_target, MPB_COL_impl, MPB_COL_m, MPB_COL_n,
                                       MPB_COL_k, MPB_COL_gen, MPB_COL_gen_params, MPB_COL_seed};
    for (size_t i = 0; i < sizeof key / sizeof key[0]; i++)
        if (strcmp(mpb_gate_cell(a, key[i]), mpb_gate_cell(b, key[i])))
            return false;
    return true;
}

/* Whether the candidate's params are the baseline's and, besides them, only
 * parameters at the scheme's defaults: a parameter the scheme gained after
 * the baseline was written, at the value that runs the old configuration
 * (ozaki1_int8 and adp gained gemm=calls|engine, with calls the old way). */
static bool params_added_at_default(const struct mpb_row *base, const struct mpb_row *cand)
{
    const struct mpb_scheme *s = mpb_scheme_find(mpb_gate_cell(cand, MPB_COL_scheme));
    return s && mpb_param_added_at_default(s->params, s->n_params, mpb_gate_cell(base, MPB_COL_params),
                                           mpb_gate_cell(cand, MPB_COL_params));
}

/* Join each MISSING row to the one NEW row that is the same case with
 * parameters added at their defaults (params_added_at_default): the same
 * configuration, compared without --pair-params. */
static void pair_added_defaults(struct mpb_gate_result *res)
{
    int n = res->n_pairs;
    for (int i = 0; i < n; i++) {
        struct mpb_gate_pair *p = &res->pairs[i];
        if (p->cand || !p->base)
            continue;
        int found = -1, count = 0;
        for (int j = 0; j < n; j++) {
            const struct mpb_gate_pair *q = &res->pairs[j];
            if (!q->base && q->cand && same_but_params(p->base, q->cand) && params_added_at_default(p->base, q->cand)) {
                found = j;
                count++;
            }
        }
        if (count == 1) {
            p->cand = res->pairs[found].cand;
            p->added_defaults = true;
            res->pairs[found].cand = NULL; /* dropped below */
        }
    }
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (res->pairs[i].base || res->pairs[i].cand)
            res->pairs[kept++] = res->pairs[i];
    res->n_pairs = kept;
}

/* How many pairs of `res` hold the same-but-params key of `row`, as MISSING
 * (missing true) or NEW rows. */
static int count_alike(const struct mpb_gate_result *res, const struct mpb_row *row, bool missing)
{
    int n = 0;
    for (int i = 0; i < res->n_pairs; i++) {
        const struct mpb_gate_pair *p = &res->pairs[i];
        const struct mpb_row *r = missing ? (p->cand ? NULL : p->base) : (p->base ? NULL : p->cand);
        n += r && same_but_params(r, row);
    }
    return n;
}

/* Pair MISSING rows with NEW rows that are the same case but for params:
 * where a key has as many MISSING rows as NEW ones, in file order (a
 * changed -a list, 7,8 → 9,10, pairs 7 with 9); other keys stay unpaired,
 * as which became which is then a guess. With `apply`, each paired NEW row
 * joins its MISSING row's pair and leaves the list. false: out of memory. */
static bool pair_by_params(struct mpb_gate_result *res, bool apply)
{
    int n = res->n_pairs, *partner = malloc(sizeof *partner * (size_t)(n + 1));
    bool *taken = calloc((size_t)n + 1, sizeof *taken);
    if (!partner || !taken) {
        free(partner);
        free(taken);
        return false;
    }
    for (int i = 0; i < n; i++) {
        const struct mpb_gate_pair *p = &res->pairs[i];
        partner[i] = -1;
        if (p->cand || count_alike(res, p->base, true) != count_alike(res, p->base, false))
            continue;
        for (int j = 0; j < n && partner[i] < 0; j++) {
            const struct mpb_gate_pair *q = &res->pairs[j];
            if (q->base || taken[j] || !same_but_params(p->base, q->cand))
                continue;
            partner[i] = j;
            taken[j] = true;
            if (!res->n_param_pairs++) {
                res->param_pair_base = p->base;
                res->param_pair_cand = q->cand;
            }
        }
    }
    if (apply) {
        for (int i = 0; i < n; i++)
            if (partner[i] >= 0) {
                res->pairs[i].cand = res->pairs[partner[i]].cand;
                res->pairs[i].paired = true;
            }
        int kept = 0;
        for (int i = 0; i < n; i++)
            if (!taken[i])
                res->pairs[kept++] = res->pairs[i];
        res->n_pairs = kept;
    }
    free(partner);
    free(taken);
    return true;
}

bool mpb_gate_compare(const struct mpb_gate_file *base, const struct mpb_gate_file *cand,
                      const struct mpb_gate_tol *tol, struct mpb_gate_result *res)
{
    memset(res, 0, sizeof *res);
    res->pairs = calloc((size_t)base->n_rows + (size_t)cand->n_rows + 1, sizeof *res->pairs);
    if (!res->pairs)
        return false;
    for (int i = 0; i < base->n_rows; i++) {
        const struct mpb_row *b = &base->rows[i];
        res->pairs[res->n_pairs++] =
            (struct mpb_gate_pair){.base = b, .cand = find(cand, b->cell[MPB_COL_case_id])};
    }
    for (int i = 0; i < cand->n_rows; i++) {
        const struct mpb_row *c = &cand->rows[i];
        if (!find(base, c->cell[MPB_COL_case_id]))
            res->pairs[res->n_pairs++] = (struct mpb_gate_pair){.cand = c};
    }
    pair_added_defaults(res);
    if (!pair_by_params(res, tol->pair_params)) {
        mpb_gate_result_free(res);
        return false;
    }
    for (int i = 0; i < res->n_pairs; i++) {
        res->n_compared += res->pairs[i].base && res->pairs[i].cand;
        judge(&res->pairs[i], tol);
        res->acc_count[res->pairs[i].acc]++;
        res->perf_count[res->pairs[i].perf]++;
    }
    return true;
}

void mpb_gate_result_free(struct mpb_gate_result *res)
{
    free(res->pairs);
    memset(res, 0, sizeof *res);
}

/* How many rows fail category c (1 for nothing compared). */
static int category_count(const struct mpb_gate_result *res, enum mpb_gate_category c)
{
    switch (c) {
    case MPB_GATE_FAILS_ACCURACY: return res->acc_count[MPB_GATE_ACC_WORSE];
    case MPB_GATE_FAILS_SPEED: return res->perf_count[MPB_GATE_PERF_SLOW];
    case MPB_GATE_FAILS_MISSING: return res->acc_count[MPB_GATE_ACC_MISSING];
    case MPB_GATE_FAILS_INCOMPARABLE: return res->acc_count[MPB_GATE_ACC_INCOMPARABLE];
    case MPB_GATE_FAILS_NOTHING_COMPARED: return res->n_compared == 0;
    case MPB_GATE_CATEGORY_COUNT: break;
    }
    return 0;
}

bool mpb_gate_category_failed(const struct mpb_gate_result *res, enum mpb_gate_category c)
{
    return category_count(res, c) > 0;
}

bool mpb_gate_failed(const struct mpb_gate_result *res)
{
    for (int c = 0; c < MPB_GATE_CATEGORY_COUNT; c++)
        if (mpb_gate_category_failed(res, c))
            return true;
    return false;
}

const char *mpb_gate_category_name(enum mpb_gate_category c)
{
    static const char *const names[MPB_GATE_CATEGORY_COUNT] = {"accuracy", "speed", "missing", "incomparable",
                                                               "nothing compared"};
    return c < MPB_GATE_CATEGORY_COUNT ? names[c] : "?";
}

void mpb_gate_fail_categories(const struct mpb_gate_result *res, char *buf, size_t len)
{
    static const char *const verdict[MPB_GATE_CATEGORY_COUNT] = {"WORSE", "SLOW", "MISSING", "INCOMPARABLE", NULL};
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < MPB_GATE_CATEGORY_COUNT && used < len; c++) {
        int n = category_count(res, c);
        if (!n)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", mpb_gate_category_name(c));
        if (verdict[c] && used < len)
            used += (size_t)snprintf(buf + used, len - used, " (%d %s)", n, verdict[c]);
    }
}

const char *mpb_gate_acc_name(enum mpb_gate_acc a)
{
    static const char *const names[MPB_GATE_ACC_COUNT] = {"SAME", "CHANGED", "WORSE", "MISSING", "NEW",
                                                          "INCOMPARABLE"};
    return a < MPB_GATE_ACC_COUNT ? names[a] : "?";
}

const char *mpb_gate_perf_name(enum mpb_gate_perf p)
{
    static const char *const names[MPB_GATE_PERF_COUNT] = {"-", "SAME", "FAST", "SLOW", "AMBIGUOUS"};
    return p < MPB_GATE_PERF_COUNT ? names[p] : "?";
}
