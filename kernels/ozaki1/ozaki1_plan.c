/* The plan of one Ozaki-I call, shared by the host model and the CUDA
 * backend: how many digits, which slice pairs, packed into which GEMMs; and
 * the registry parts (parameters, check, bounds). */
#include "ozaki1/ozaki1.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpb_arith.h"
#include "common/cublas_util.h"
#include "common/int8_gemm_auto.h"
#include "tc/tc_engine.h"

static const char *const fp16_modes[] = {"dp", "cr", "fixed", NULL};
static const char *const int8_accums[] = {"fp64", "exact", NULL};
static const char *const int8_gemms[] = {"calls", "engine", "auto", NULL};


const struct mpb_param_spec mpb_ozaki1_fp16_params[] = {
    [MPB_OZ16_MODE] = {.name = "mode", .kind = MPB_PARAM_CHOICE, .def = "dp",
                       .choices = fp16_modes,
                       .help = "dp: digits from a probabilistic estimate, FP64 sum (≈ DGEMM); "
                               "cr: digits until exact, correctly rounded; fixed: `slices` digits"},
    [MPB_OZ16_SLICES] = {.name = "slices", .kind = MPB_PARAM_INT, .def = "160", .lo = 1,
                         .hi = MPB_OZAKI1_MAX_DIGITS,
                         .help = "fixed: digits per row/column; dp and cr: the cap"},
    [MPB_OZ16_FAST] = {.name = "fast", .kind = MPB_PARAM_INT, .def = "1", .lo = 0, .hi = 1,
                       .help = "1: only pairs p+q ≤ d+1 (d(d+1)/2 GEMMs); cr uses all pairs"},
};

const struct mpb_param_spec mpb_ozaki1_int8_params[] = {
    [MPB_OZ8_SLICES] = {.name = "slices", .kind = MPB_PARAM_INT, .def = "8", .lo = 3, .hi = 20,
                        .help = "INT8 digits of 7 bits per row of A / column of B"},
    [MPB_OZ8_FAST] = {.name = "fast", .kind = MPB_PARAM_INT, .def = "1", .lo = 0, .hi = 1,
                      .help = "1: pairs p+q ≤ s+1 (s(s+1)/2 products); 0: all s²"},
    [MPB_OZ8_ACCUM] = {.name = "accum", .kind = MPB_PARAM_CHOICE, .def = "exact",
                       .choices = int8_accums,
                       .help = "fp64: every GEMM added in FP64; exact: equal weights summed "
                               "exactly first (one INT8 GEMM per weight, pairs concatenated along k)"},
    [MPB_OZ8_GEMM] = {.name = "gemm", .kind = MPB_PARAM_CHOICE, .def = "auto", .choices = int8_gemms,
                      .help = "INT8 GEMMs: calls = one cublasGemmEx per GEMM of the plan; engine = "
                              "the same GEMMs, those of one k 24 a launch of mpbench's INT8 engine "
                              "(sm_90a); auto = engine up to m*n*k = 8192^3 where it runs, else "
                              "calls (settings say which)"},
};

bool mpb_ozaki1_needs_stats(int format, const double *params)
{
    return format == MPB_OZAKI1_FP16 && params[MPB_OZ16_MODE] != MPB_OZ16_FIXED;
}

/* dp: the truncation model of fast mode with d digits, relative to
 * 2^(eA+eB): dropped pairs p+q ≥ d+2 with |digit p| ≤ 2^(−(p−1)β) give
 * about (d+2)·2^(−dβ) per term (all pairs: p or q > d, about 3·2^(−dβ)). */
static double trunc_model(int fast, int d, int beta)
{
    return (fast ? d + 2.0 : 3.0) * ldexp(1.0, -d * beta);
}

/* Smallest over rows of wsum_i / (2^e_i · Σ_j 2^e_j(other)), computed
 * without overflow; +Inf when no row counts. */
static double dp_ratio(const struct mpb_ozaki1_vec_stats *st, int64_t count,
                       const struct mpb_ozaki1_vec_stats *other, int64_t other_count)
{
    int emax = MPB_OZAKI1_ZERO_EXP;
    for (int64_t j = 0; j < other_count; j++)
        emax = other[j].e > emax ? other[j].e : emax;
    double sum = 0.0;
    for (int64_t j = 0; j < other_count; j++)
        sum += ldexp(1.0, other[j].e - emax);
    double worst = INFINITY;
    for (int64_t i = 0; i < count; i++) {
        if (st[i].wsum == 0.0 || sum == 0.0)
            continue;
        double t = ldexp(st[i].wsum, -st[i].e - emax) / sum;
        worst = t < worst ? t : worst;
    }
    return worst;
}

/* DGEMM-equivalent digit count (after Algorithm 3 of Mukunoki et al. 2020):
 * with e = (1, …, 1) the row sums of the entrywise truncation error,
 * ≈ √k·2^eA_i·Σ_j 2^eB_j·f(d), must stay below a quarter of DGEMM's
 * probabilistic error √k·u·(|A|(|B|e))_i (Higham & Mary 2019), and the same
 * for the columns. */
static int dp_digits(const struct mpb_ozaki1_plan *plan, int cap, int64_t m, int64_t n,
                     const struct mpb_ozaki1_vec_stats *sta, const struct mpb_ozaki1_vec_stats *stb)
{
    double ra = dp_ratio(sta, m, stb, n), rb = dp_ratio(stb, n, sta, m);
    double target = ldexp(0.25, -plan->prec) * (ra < rb ? ra : rb);
    int d = 1;
    while (d < cap && trunc_model(plan->fast, d, plan->beta) > target)
        d++;
    return d;
}

/* cr: digits until every remainder is zero: unit 2^(e−dβ) ≤ lowest bit. */
static int cr_digits(const struct mpb_ozaki1_vec_stats *st, int64_t count, int beta)
{
    int need = 1;
    for (int64_t i = 0; i < count; i++) {
        if (st[i].e == MPB_OZAKI1_ZERO_EXP)
            continue;
        int span = st[i].e - st[i].lsb;
        int d = (span + beta - 1) / beta;
        need = d > need ? d : need;
    }
    return need;
}

static bool push_call(struct mpb_ozaki1_plan *plan, int *cap, struct mpb_ozaki1_call call)
{
    if (plan->ncalls == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        struct mpb_ozaki1_call *c = realloc(plan->calls, sizeof *c * (size_t)*cap);
        if (!c)
            return false;
        plan->calls = c;
    }
    plan->calls[plan->ncalls++] = call;
    return true;
}

/* Largest |sum| of one pair over `len` terms: must stay below 2^31 (INT32)
 * or 2^24 (FP32, guaranteed by β). */
static int64_t pair_max(const struct mpb_ozaki1_plan *plan, int p, int q, int64_t len)
{
    return len * mpb_ozaki1_digit_max(plan->format, plan->beta, p) *
           mpb_ozaki1_digit_max(plan->format, plan->beta, q);
}

/* The calls of weight w: INT8 exact concatenates consecutive pairs while
 * their sum stays below 2^31; a pair over the limit alone is blocked along
 * k; otherwise one call per pair. Every split gives the same exact int64
 * sum per weight. */
static bool plan_weight(struct mpb_ozaki1_plan *plan, int *cap, int w, int p_lo, int p_hi)
{
    const int64_t limit = INT64_C(2147483647);
    bool concat = plan->format == MPB_OZAKI1_INT8 && plan->acc == MPB_OZAKI1_ACC_PER_WEIGHT;
    int first = plan->ncalls;
    for (int p = p_lo; p <= p_hi;) {
        int64_t total = pair_max(plan, p, w - p, plan->k);
        if (plan->format == MPB_OZAKI1_INT8 && total > limit) {
            int64_t block = limit / pair_max(plan, p, w - p, 1) / 16 * 16;
            for (int64_t l0 = 0; l0 < plan->kpad; l0 += block) {
                int64_t len = plan->kpad - l0 < block ? plan->kpad - l0 : block;
                if (!push_call(plan, cap, (struct mpb_ozaki1_call){w, p, w - p, 1, 0, l0, len}))
                    return false;
            }
            p++;
            continue;
        }
        int np = 1;
        while (concat && p + np <= p_hi && total + pair_max(plan, p + np, w - p - np, plan->k) <= limit)
            total += pair_max(plan, p + np, w - p - np, plan->k), np++;
        if (!push_call(plan, cap, (struct mpb_ozaki1_call){w, p, w - p, np, 0, 0, plan->kpad}))
            return false;
        p += np;
    }
    if (plan->ncalls > first)
        plan->calls[plan->ncalls - 1].group_end = 1;
    return true;
}

int64_t mpb_ozaki1_call_k(const struct mpb_ozaki1_plan *plan, const struct mpb_ozaki1_call *call)
{
    return call->npairs > 1 ? call->npairs * plan->kpad : call->len;
}

bool mpb_ozaki1_plan_make(struct mpb_ozaki1_plan *plan, int format, enum mpb_target target,
                          const double *params, int64_t m, int64_t n, int64_t k,
                          const struct mpb_ozaki1_vec_stats *sta,
                          const struct mpb_ozaki1_vec_stats *stb)
{
    *plan = (struct mpb_ozaki1_plan){.format = format};
    plan->prec = target == MPB_TARGET_FP64 ? 53 : 24;
    plan->beta = mpb_ozaki1_beta(format, k);
    plan->k = k;
    plan->kpad = (k + 15) / 16 * 16;
    if (format == MPB_OZAKI1_INT8) {
        plan->sa = plan->sb = (int)params[MPB_OZ8_SLICES];
        plan->fast = params[MPB_OZ8_FAST] != 0;
        plan->acc = params[MPB_OZ8_ACCUM] == MPB_OZ8_ACC_EXACT ? MPB_OZAKI1_ACC_PER_WEIGHT
                                                              : MPB_OZAKI1_ACC_PER_CALL;
    } else {
        int cap = (int)params[MPB_OZ16_SLICES];
        int mode = (int)params[MPB_OZ16_MODE];
        plan->fast = mode != MPB_OZ16_CR && params[MPB_OZ16_FAST] != 0;
        plan->acc = mode == MPB_OZ16_CR ? MPB_OZAKI1_ACC_EXACT : MPB_OZAKI1_ACC_PER_WEIGHT;
        if (mode == MPB_OZ16_FIXED) {
            plan->sa = plan->sb = cap;
        } else if (mode == MPB_OZ16_DP) {
            plan->sa = plan->sb = dp_digits(plan, cap, m, n, sta, stb);
        } else {
            int na = cr_digits(sta, m, plan->beta), nb = cr_digits(stb, n, plan->beta);
            plan->sa = na < cap ? na : cap;
            plan->sb = nb < cap ? nb : cap;
            if (na > cap || nb > cap)
                snprintf(plan->note, sizeof plan->note,
                         "cr needs %d/%d digits > slices=%d: not correctly rounded", na, nb, cap);
        }
    }
    int d = plan->sa > plan->sb ? plan->sa : plan->sb;
    plan->wmax = plan->fast ? d + 1 : plan->sa + plan->sb;
    if (plan->wmax > plan->sa + plan->sb)
        plan->wmax = plan->sa + plan->sb;
    int cap = 0;
    /* Smallest weights first: the FP64 sum adds the small terms first. */
    for (int w = plan->wmax; w >= 2; w--) {
        int p_lo = w - plan->sb > 1 ? w - plan->sb : 1;
        int p_hi = w - 1 < plan->sa ? w - 1 : plan->sa;
        if (p_lo <= p_hi && !plan_weight(plan, &cap, w, p_lo, p_hi)) {
            snprintf(plan->note, sizeof plan->note, "out of host memory for the GEMM plan");
            mpb_ozaki1_plan_free(plan);
            return false;
        }
    }
    return true;
}

void mpb_ozaki1_plan_free(struct mpb_ozaki1_plan *plan)
{
    free(plan->calls);
    plan->calls = NULL;
    plan->ncalls = 0;
}

void mpb_ozaki1_plan_describe(const struct mpb_ozaki1_plan *plan, char *buf, size_t len)
{
    static const char *const acc[] = {"fp64_per_gemm", "fp64_per_weight", "exact_cr"};
    int pairs = 0;
    for (int c = 0; c < plan->ncalls; c++)
        pairs += plan->calls[c].l0 == 0 ? plan->calls[c].npairs : 0;
    snprintf(buf, len, "beta=%d sa=%d sb=%d pairs=%d gemm_calls=%d accum=%s", plan->beta,
             plan->sa, plan->sb, pairs, plan->ncalls, acc[plan->acc]);
}

bool mpb_ozaki1_fp16_check(const double *params, const struct mpb_gemm *g,
                           const struct mpb_device_info *dev, char *why, size_t why_len)
{
    (void)params;
    if (mpb_ozaki1_beta(MPB_OZAKI1_FP16, g->k) < 1) {
        snprintf(why, why_len, "k=%lld > 2^22: FP16 digits would have no bits left "
                 "(k-blocking not implemented)", (long long)g->k);
        return false;
    }
    return !dev || mpb_cublas_int_dims(g, "cublasGemmEx", why, why_len);
}

bool mpb_ozaki1_int8_engine_used(const double *params, const struct mpb_gemm *g,
                                 const struct mpb_device_info *dev)
{
    if (params[MPB_OZ8_GEMM] != MPB_OZ8_GEMM_AUTO)
        return params[MPB_OZ8_GEMM] == MPB_OZ8_GEMM_ENGINE;
    return mpb_int8_auto_engine(g, (g->k + 15) / 16 * 16, dev);
}

bool mpb_ozaki1_int8_check(const double *params, const struct mpb_gemm *g,
                           const struct mpb_device_info *dev, char *why, size_t why_len)
{
    if (!dev)
        return true;
    if (params[MPB_OZ8_GEMM] == MPB_OZ8_GEMM_ENGINE &&
        !tc_scheme_problem_supported(g->m, g->n, (g->k + 15) / 16 * 16, dev, why, why_len))
        return false;
    return mpb_cublas_int_dims(g, "cublasGemmEx", why, why_len);
}

/* Bounds for the generic selftest, |Ĉ−C| ≤ f·|A||B| entrywise.
 * cr: one rounding, f = u. dp: the digit count targets DGEMM's error, so
 * f = 2γ_k(u) (Higham eq. (3.13) with a factor 2 for the estimate). fixed
 * and INT8 are fixed-point: the dropped digits cost k·(d+2)·2^(−dβ) relative
 * to max|a_i:|·max|b_:j| (ozaki1_plan.c trunc_model); relative to (|A||B|)_ij
 * that holds only for data whose row/column max exceeds its mean by at most
 * 2^6 (uniform, randn, phi ≤ 0.5: the selftest's data), not in general. */
static double fp16_bound(const double *params, int64_t k, double u)
{
    int mode = (int)params[MPB_OZ16_MODE];
    if (mode == MPB_OZ16_CR)
        return u;
    double f = 2.0 * mpb_gamma_k(k, u);
    if (mode == MPB_OZ16_FIXED) {
        int d = (int)params[MPB_OZ16_SLICES];
        f += (double)k * ldexp(trunc_model(params[MPB_OZ16_FAST] != 0, d,
                                           mpb_ozaki1_beta(MPB_OZAKI1_FP16, k)), 12);
    }
    return f;
}

double mpb_ozaki1_fp16_bound(const double *params, int64_t k)
{
    return fp16_bound(params, k, 0x1p-53);
}

double mpb_ozaki1_fp16_sp_bound(const double *params, int64_t k)
{
    return fp16_bound(params, k, 0x1p-24);
}

double mpb_ozaki1_int8_bound(const double *params, int64_t k)
{
    int s = (int)params[MPB_OZ8_SLICES];
    return 2.0 * mpb_gamma_k(k, 0x1p-53) +
           (double)k * ldexp(trunc_model(params[MPB_OZ8_FAST] != 0, s, 7), 12);
}
