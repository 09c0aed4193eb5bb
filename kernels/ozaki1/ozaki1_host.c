/* Host model of Ozaki scheme I (both formats). The digit GEMMs are integer
 * dot products, exact here in int64 as they are on the tensor cores (FP32
 * or INT32, ozaki1_arith.h); the accumulation walks the same calls in the
 * same order with the same MPB_HD steps as ozaki1.cu, so the GPU result is
 * reproduced bit for bit. */
#include "ozaki1/ozaki1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scale exponents of `count` vectors of length k (element l of vector v at
 * x[v·vs + l·ls]): the max of what their entries ask for. */
static void host_exps(const void *x, int f32, int64_t count, int64_t k, int64_t vs, int64_t ls,
                      int format, int *e)
{
    for (int64_t v = 0; v < count; v++) {
        int ev = MPB_OZAKI1_ZERO_EXP;
        for (int64_t l = 0; l < k; l++) {
            int el = mpb_ozaki1_need_exp(mpb_ozaki1_load(x, v * vs + l * ls, f32), format);
            ev = el > ev ? el : ev;
        }
        e[v] = ev;
    }
}

/* Stats of A's rows and B's columns (ozaki1.h, mpb_ozaki1_plan_make), given
 * their scale exponents (rows/columns with NaN/±Inf are left out). */
static bool host_stats(const struct mpb_gemm *g, int format, const int *ea, const int *eb,
                       struct mpb_ozaki1_vec_stats *sta, struct mpb_ozaki1_vec_stats *stb)
{
    int f32 = g->target == MPB_TARGET_FP32;
    size_t es = mpb_target_size(g->target);
    double *col_a = malloc(sizeof *col_a * (size_t)g->k + 1), *row_b = malloc(sizeof *row_b * (size_t)g->k + 1);
    if (!col_a || !row_b) {
        free(col_a), free(row_b);
        return false;
    }
    for (int64_t l = 0; l < g->k; l++) {
        col_a[l] = mpb_ozaki1_stats((const char *)g->a + (size_t)(l * g->m) * es, g->m, 1,
                                    f32, NULL, ea, format).wsum;
        row_b[l] = mpb_ozaki1_stats((const char *)g->b + (size_t)l * es, g->n, g->k, f32,
                                    NULL, eb, format).wsum;
    }
    for (int64_t i = 0; i < g->m; i++)
        sta[i] = mpb_ozaki1_stats((const char *)g->a + (size_t)i * es, g->k, g->m, f32,
                                  row_b, NULL, format);
    for (int64_t j = 0; j < g->n; j++)
        stb[j] = mpb_ozaki1_stats((const char *)g->b + (size_t)(j * g->k) * es, g->k, 1,
                                  f32, col_a, NULL, format);
    free(col_a), free(row_b);
    return true;
}

/* Digits of the vectors of host_exps for their scale exponents e into
 * d[(v·s + p)·k + l]. */
static void host_split(const void *x, int f32, int64_t count, int64_t k, int64_t vs, int64_t ls,
                       int beta, int s, const int *e, int32_t *d)
{
    for (int64_t v = 0; v < count; v++) {
        int32_t dig[MPB_OZAKI1_MAX_DIGITS];
        for (int64_t l = 0; l < k; l++) {
            mpb_ozaki1_digits(mpb_ozaki1_load(x, v * vs + l * ls, f32), e[v], beta, s, dig);
            for (int p = 0; p < s; p++)
                d[(v * s + p) * k + l] = dig[p];
        }
    }
}

/* One call's exact integer result at entry (i, j). */
static int64_t call_value(const struct mpb_ozaki1_plan *plan, const struct mpb_ozaki1_call *c,
                          const int32_t *da, const int32_t *db, int64_t i, int64_t j)
{
    int64_t k = plan->k, end = c->l0 + c->len < k ? c->l0 + c->len : k, v = 0;
    for (int t = 0; t < c->npairs; t++) {
        const int32_t *x = da + (i * plan->sa + c->p_lo + t - 1) * k;
        const int32_t *y = db + (j * plan->sb + c->q_hi - t - 1) * k;
        for (int64_t l = c->l0; l < end; l++)
            v += (int64_t)x[l] * y[l];
    }
    return v;
}

static double entry(const struct mpb_ozaki1_plan *plan, const int32_t *da, const int32_t *db,
                    int64_t i, int64_t j, int escale, int64_t *sw, int32_t *dig)
{
    double acc = 0.0;
    int64_t s = 0;
    if (plan->acc == MPB_OZAKI1_ACC_EXACT)
        memset(sw, 0, sizeof *sw * (size_t)(plan->wmax + 1));
    for (int ci = 0; ci < plan->ncalls; ci++) {
        const struct mpb_ozaki1_call *c = &plan->calls[ci];
        int64_t v = call_value(plan, c, da, db, i, j);
        if (plan->acc == MPB_OZAKI1_ACC_PER_CALL) {
            acc = mpb_ozaki1_acc_add(acc, v, c->w, plan->beta);
        } else if (plan->acc == MPB_OZAKI1_ACC_PER_WEIGHT) {
            s += v;
            if (c->group_end) {
                acc = mpb_ozaki1_acc_add(acc, s, c->w, plan->beta);
                s = 0;
            }
        } else {
            sw[c->w] += v;
        }
    }
    if (plan->acc == MPB_OZAKI1_ACC_EXACT)
        return mpb_ozaki1_round_exact(sw, plan->wmax, plan->beta, escale, plan->prec, dig);
    return mpb_ozaki1_unscale(acc, escale);
}

static enum mpb_status host_run(const struct mpb_gemm *g, const double *params, int format,
                                struct mpb_scheme_info *info)
{
    int64_t m = g->m, n = g->n, k = g->k;
    int f32 = g->target == MPB_TARGET_FP32;
    int *ea = malloc(sizeof *ea * (size_t)(m + n) + 1);
    if (!ea) {
        snprintf(info->note, sizeof info->note, "out of host memory for the scale exponents");
        return MPB_STATUS_ERROR;
    }
    int *eb = ea + m;
    host_exps(g->a, f32, m, k, 1, m, format, ea);
    host_exps(g->b, f32, n, k, k, 1, format, eb);
    struct mpb_ozaki1_vec_stats *sta = NULL, *stb = NULL;
    bool stats = mpb_ozaki1_needs_stats(format, params);
    if (stats) {
        sta = malloc(sizeof *sta * (size_t)m + 1);
        stb = malloc(sizeof *stb * (size_t)n + 1);
        if (!sta || !stb || !host_stats(g, format, ea, eb, sta, stb)) {
            free(sta), free(stb), free(ea);
            snprintf(info->note, sizeof info->note, "out of host memory for the row statistics");
            return MPB_STATUS_ERROR;
        }
    }
    struct mpb_ozaki1_plan plan;
    bool planned = mpb_ozaki1_plan_make(&plan, format, g->target, params, m, n, k, sta, stb);
    free(sta), free(stb);
    if (!planned) {
        free(ea);
        snprintf(info->note, sizeof info->note, "%s", plan.note);
        return MPB_STATUS_ERROR;
    }
    int32_t *da = malloc(sizeof *da * (size_t)(m * plan.sa * k) + 1);
    int32_t *db = malloc(sizeof *db * (size_t)(n * plan.sb * k) + 1);
    int64_t *sw = malloc(sizeof *sw * (size_t)(plan.wmax + 1));
    int32_t *dig = malloc(sizeof *dig * (size_t)(plan.wmax + 1));
    enum mpb_status st = MPB_STATUS_OK;
    if (!da || !db || !sw || !dig || plan.sa > MPB_OZAKI1_MAX_DIGITS ||
        plan.sb > MPB_OZAKI1_MAX_DIGITS) {
        snprintf(info->note, sizeof info->note, "out of host memory for the digit slices");
        st = MPB_STATUS_ERROR;
    } else {
        host_split(g->a, f32, m, k, 1, m, plan.beta, plan.sa, ea, da);
        host_split(g->b, f32, n, k, k, 1, plan.beta, plan.sb, eb, db);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double c = entry(&plan, da, db, i, j, mpb_ozaki1_escale(ea[i], eb[j]), sw, dig);
                if (f32)
                    ((float *)g->c)[i + j * m] = (float)c;
                else
                    ((double *)g->c)[i + j * m] = c;
            }
        info->slices = plan.sa > plan.sb ? plan.sa : plan.sb;
        info->fallback = 0;
        mpb_ozaki1_plan_describe(&plan, info->settings, sizeof info->settings);
        snprintf(info->note, sizeof info->note, "%s", plan.note);
    }
    free(ea), free(da), free(db), free(sw), free(dig);
    mpb_ozaki1_plan_free(&plan);
    return st;
}

enum mpb_status mpb_ozaki1_fp16_host(const struct mpb_gemm *g, const double *params,
                                     struct mpb_scheme_info *info)
{
    return host_run(g, params, MPB_OZAKI1_FP16, info);
}

enum mpb_status mpb_ozaki1_int8_host(const struct mpb_gemm *g, const double *params,
                                     struct mpb_scheme_info *info)
{
    return host_run(g, params, MPB_OZAKI1_INT8, info);
}
