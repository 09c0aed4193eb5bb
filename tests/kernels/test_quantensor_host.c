/* quantensor_int8 (kernels/quantensor): the arithmetic and the host model.
 *  - levels: 1, 3, 6, 9 distinct pairs of 1, 2, 3, 3 slices, weight never
 *    increasing (the accumulation order), the documented weights;
 *  - slicing: digit ranges (|d_0| ≤ 127, |d_p| ≤ 64), x = Σ d_p·2^(e−7−7p)
 *    + remainder exactly, |remainder| ≤ 1/2 of the last unit, over the
 *    whole FP32 range (subnormals, the 255/256 boundary, FLT_MAX);
 *  - the host model against MPFR at every level on uniform, randn and phi,
 *    shapes 1, 7, 33, 127 and non-square: within the registry's bound, and
 *    err_fro_rel falling with the level; the bound within 4x of an error
 *    that attains it (so it can fail);
 *  - NaN/±Inf: the rows/columns holding them get SGEMM's non-finite value,
 *    every other entry is bitwise the clean product's; overflow gives ±Inf;
 *  - parameter validation: a bad `levels` is refused, naming the range;
 *    `gemm` takes calls|engine, and check() refuses engine off sm_90a. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define TEST_RNG_SEED 0x9E3779B97F4A7C15ull
#include "rng.h"
#include "common/host_gemm.h"
#include "generators.h"
#include "quantensor/quantensor.h"
#include "reference.h"
#include "schemes/registry.h"

static const struct mpb_scheme *scheme(void)
{
    return mpb_scheme_find("quantensor_int8");
}

static void check_levels(void)
{
    static const int want_pairs[] = {1, 3, 6, 9}, want_slices[] = {1, 2, 3, 3}, want_w[] = {0, 1, 2, 4};
    for (int level = 0; level <= MPB_QT_MAX_LEVEL; level++) {
        struct mpb_qt_pair pr[MPB_QT_MAX_PAIRS];
        int n = mpb_qt_pairs(level, pr), s = mpb_qt_slices(level);
        CHECK(n == want_pairs[level] && s == want_slices[level], "level %d: %d pairs of %d slices", level, n, s);
        CHECK(mpb_qt_max_weight(level) == want_w[level], "level %d: max weight %d", level, mpb_qt_max_weight(level));
        CHECK(pr[0].p + pr[0].q == want_w[level] && pr[n - 1].p == 0 && pr[n - 1].q == 0,
              "level %d: order starts at weight %d, ends at (%d,%d)", level, pr[0].p + pr[0].q, pr[n - 1].p,
              pr[n - 1].q);
        for (int t = 0; t < n; t++) {
            CHECK(pr[t].p < s && pr[t].q < s, "level %d pair %d: (%d,%d)", level, t, pr[t].p, pr[t].q);
            if (t > 0)
                CHECK(pr[t].p + pr[t].q <= pr[t - 1].p + pr[t - 1].q, "level %d: weight rises at pair %d", level, t);
            for (int u = 0; u < t; u++)
                CHECK(pr[t].p != pr[u].p || pr[t].q != pr[u].q, "level %d: pair (%d,%d) twice", level, pr[t].p,
                      pr[t].q);
        }
    }
}

/* One value sliced against the scale of a row whose maximum is `mx`. */
static void check_one_slicing(float x, float mx)
{
    int e = mpb_qt_exponent(mpb_qt_abs_bits(mx));
    for (int s = 1; s <= MPB_QT_MAX_SLICES; s++) {
        int8_t d[MPB_QT_MAX_SLICES];
        double r = mpb_qt_slice(x, e, s, d);
        long double back = ldexpl((long double)r, e - MPB_QT_BETA * s);
        for (int p = 0; p < s; p++) {
            CHECK(abs(d[p]) <= (p ? 64 : 127), "%a (max %a) slice %d = %d", x, mx, p, d[p]);
            back += ldexpl((long double)d[p], e - MPB_QT_BETA * (p + 1));
        }
        CHECK(fabs(r) <= 0.5, "%a: remainder %g units", x, r);
        CHECK(back == (long double)x, "%a (max %a, %d slices): slices sum to %La", x, mx, s, back);
    }
}

static float random_float(int emin, int emax)
{
    float f = (float)((double)(rng_next() >> 40) * 0x1p-24);
    return ldexpf(rng_next() & 1 ? -f : f, emin + (int)(rng_next() % (uint64_t)(emax - emin + 1)));
}

static void check_slicing(void)
{
    static const float edges[] = {0x1.fep-1f, 0x1.fdfffep-1f, 0x1.fffffep-1f, FLT_MAX, FLT_MIN, 0x1p-149f, 1.0f};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_one_slicing(edges[i], edges[i]);
        check_one_slicing(-edges[i], edges[i]);
    }
    for (int t = 0; t < 20000; t++) {
        float mx = random_float(-149, 127), x = random_float(-149, 127);
        if (fabsf(x) > fabsf(mx)) {
            float tmp = x;
            x = mx, mx = tmp;
        }
        check_one_slicing(x, mx);
    }
    /* 255/256 of a binade moves the scale up: rint(x·2^(7−e)) would be 128. */
    CHECK(mpb_qt_exponent(mpb_qt_abs_bits(0x1.fep-1f)) == 1 && mpb_qt_exponent(mpb_qt_abs_bits(0x1.fdfffep-1f)) == 0,
          "the 255/256 boundary");
}

/* The host model at `level` on A (m×k) and B (k×n); returns C (malloc'd). */
static float *run(int level, int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                  struct mpb_scheme_info *info)
{
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(scheme()->params, scheme()->n_params, params);
    params[MPB_QT_LEVELS] = level;
    float *c = malloc(sizeof *c * (size_t)(m * n) + 1);
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = MPB_TARGET_FP32, .a = a, .b = b, .c = c};
    *info = (struct mpb_scheme_info){.slices = -1, .fallback = -1};
    CHECK(scheme()->run_host(&g, params, info) == MPB_STATUS_OK, "level %d: %s", level, info->note);
    CHECK(info->slices == mpb_qt_slices(level) && info->fallback == 0, "level %d: slices %d", level, info->slices);
    return c;
}

static void gen(const char *name, double param, int64_t m, int64_t n, int64_t k, float **a, float **b)
{
    const struct mpb_generator *g = mpb_generator_find(name);
    double gp[MPB_MAX_PARAMS];
    char why[256];
    mpb_param_defaults(g->params, g->n_params, gp);
    if (g->n_params && !isnan(param))
        gp[0] = param;
    if (g->resolve)
        g->resolve(gp, MPB_TARGET_FP32, m, n, k, why, sizeof why);
    struct mpb_gen_config cfg;
    mpb_gen_config_init(&cfg, g, gp, MPB_TARGET_FP32, m, n, k, 5);
    *a = malloc(sizeof **a * (size_t)(m * k) + 1);
    *b = malloc(sizeof **b * (size_t)(k * n) + 1);
    mpb_gen_fill_host(&cfg, MPB_OPERAND_A, *a);
    mpb_gen_fill_host(&cfg, MPB_OPERAND_B, *b);
}

/* Max over entries of |Ĉ − C|/(f·‖A(i,:)‖₂‖B(:,j)‖₂) against MPFR's exact
 * C; *fro = err_fro_rel. */
static double worst_vs_exact(int level, int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                             const float *c, double *fro)
{
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = MPB_TARGET_FP32, .a = a, .b = b};
    struct mpb_ref_entry *e = malloc(sizeof *e * (size_t)(m * n));
    struct mpb_ref_value *v = malloc(sizeof *v * (size_t)(m * n));
    for (int64_t p = 0; p < m * n; p++)
        e[p] = (struct mpb_ref_entry){.i = p % m, .j = p / m};
    CHECK(mpb_ref_mpfr(&g, e, m * n, 0, v), "MPFR reference");
    double params[MPB_MAX_PARAMS] = {[MPB_QT_LEVELS] = level};
    double f = mpb_qt_bound(params, k), worst = 0;
    long double num = 0, den = 0;
    for (int64_t p = 0; p < m * n; p++) {
        int64_t i = p % m, j = p / m;
        long double na = 0, nb = 0;
        for (int64_t l = 0; l < k; l++) {
            na += (long double)a[i + l * m] * a[i + l * m];
            nb += (long double)b[l + j * k] * b[l + j * k];
        }
        long double exact = (long double)v[p].hi + v[p].lo, d = fabsl(c[p] - exact);
        double r = d == 0 ? 0 : (double)(d / (f * sqrtl(na) * sqrtl(nb)));
        worst = r > worst || isnan(r) ? r : worst;
        num += d * d;
        den += exact * exact;
    }
    *fro = den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
    free(e), free(v);
    return worst;
}

static void check_accuracy(void)
{
    static const int64_t shapes[][3] = {{1, 1, 1}, {7, 7, 7}, {33, 33, 33}, {127, 127, 127},
                                        {33, 127, 7}, {127, 1, 33}, {1, 7, 127}, {7, 33, 127}};
    static const struct {
        const char *name;
        double param;
    } gens[] = {{"uniform", NAN}, {"randn", NAN}, {"phi", 0.5}, {"phi", 2}};
    for (size_t gi = 0; gi < sizeof gens / sizeof gens[0]; gi++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            int64_t m = shapes[si][0], n = shapes[si][1], k = shapes[si][2];
            float *a, *b;
            gen(gens[gi].name, gens[gi].param, m, n, k, &a, &b);
            double fro[MPB_QT_MAX_LEVEL + 1];
            for (int level = 0; level <= MPB_QT_MAX_LEVEL; level++) {
                struct mpb_scheme_info info;
                float *c = run(level, m, n, k, a, b, &info);
                double w = worst_vs_exact(level, m, n, k, a, b, c, &fro[level]);
                CHECK(w <= 1, "%s(%g) %lldx%lldx%lld level %d: |err|/bound %g", gens[gi].name, gens[gi].param,
                      (long long)m, (long long)n, (long long)k, level, w);
                free(c);
            }
            /* Each level gains what its products promise: about 7 bits from
             * 0 to 1, 7 more to 2. Level 3 adds the products 2 drops, which
             * are as small as the slices' truncation (≤ 2^-20 relative), so
             * it gains little and, on a handful of entries, may lose a few %. */
            if (k >= 33) {
                CHECK(fro[1] < fro[0] / 16 && fro[2] < fro[1] / 16 && fro[3] <= fro[2] * 1.05,
                      "%s(%g) %lldx%lldx%lld: err_fro_rel by level %g %g %g %g", gens[gi].name, gens[gi].param,
                      (long long)m, (long long)n, (long long)k, fro[0], fro[1], fro[2], fro[3]);
                CHECK(fro[3] < 0x1p-18, "%s(%g): level 3 err_fro_rel %g", gens[gi].name, gens[gi].param, fro[3]);
            }
            free(a), free(b);
        }
}

/* An error near the bound: every a_l = 1 + 3·2^−23 loses 3·2^−23 to the
 * slices (its scale is 2, the third slice's unit 2^−20), b_l = 1 is exact,
 * so C = k·(1 + 3·2^−23) comes out as k at every level ≥ 2. */
static void check_bound_attained(void)
{
    for (int64_t k = 1; k <= 4; k *= 2) {
        float a[4], b[4];
        for (int l = 0; l < k; l++)
            a[l] = 1 + 0x3p-23f, b[l] = 1;
        struct mpb_scheme_info info;
        float *c = run(3, 1, 1, k, a, b, &info);
        double fro, w = worst_vs_exact(3, 1, 1, k, a, b, c, &fro);
        CHECK(c[0] == (float)k && w <= 1 && w >= 0.25 / sqrt((double)k),
              "k=%lld: C = %a, |err|/bound %g", (long long)k, c[0], w);
        CHECK(strstr(info.note, "truncated by 3 slices") != NULL, "loss note: '%s'", info.note);
        free(c);
    }
}

/* NaN in row 3 of A, +Inf in row 10 (one meets a zero of B: Inf·0), −Inf
 * in column 5 of B, +Inf and −Inf in row 12 of A. Those rows and that column
 * of C must be non-finite exactly where and as SGEMM's are (NaN, +Inf or
 * −Inf), every other entry bitwise that of the product without specials. */
static void check_nonfinite(void)
{
    const int64_t n = 24;
    float *a, *b;
    gen("randn", NAN, n, n, n, &a, &b);
    b[2 + 9 * n] = 0;
    struct mpb_scheme_info info;
    float *clean = run(2, n, n, n, a, b, &info);
    a[3 + 7 * n] = NAN;
    a[10 + 2 * n] = INFINITY;
    b[11 + 5 * n] = -INFINITY;
    a[12 + 1 * n] = INFINITY;
    a[12 + 4 * n] = -INFINITY;
    float *c = run(2, n, n, n, a, b, &info), *ref = malloc(sizeof *ref * (size_t)(n * n));
    mpb_host_gemm_f32(a, b, ref, n, n, n);
    CHECK(strstr(info.note, "3 rows of A with NaN/Inf fixed up") && strstr(info.note, "1 columns of B with NaN/Inf"),
          "note '%s'", info.note);
    int bad = 0;
    for (int64_t p = 0; p < n * n; p++) {
        bool special = isfinite(ref[p]) == 0;
        bool same = special ? (isnan(c[p]) && isnan(ref[p])) || c[p] == ref[p]
                            : memcmp(&c[p], &clean[p], sizeof *c) == 0;
        if (!same && bad++ < 4)
            CHECK(0, "C(%lld,%lld) = %a, SGEMM %a, clean %a", (long long)(p % n), (long long)(p / n), c[p],
                  ref[p], clean[p]);
    }
    CHECK(isnan(c[10 + 9 * n]) && c[10] == copysignf(INFINITY, b[2]), "Inf*0 %a, Inf*b %a", c[10 + 9 * n], c[10]);
    /* Finite inputs whose product overflows FP32: ±Inf, as SGEMM. */
    float big[2] = {0x1p120f, -0x1p120f}, huge[1] = {0x1p10f};
    float *o = run(3, 2, 1, 1, big, huge, &info);
    CHECK(o[0] == INFINITY && o[1] == -INFINITY, "overflow: %a %a", o[0], o[1]);
    free(a), free(b), free(clean), free(c), free(ref), free(o);
}

static void check_params(void)
{
    const struct mpb_scheme *s = scheme();
    CHECK(s && s->n_params == MPB_QT_N_PARAMS && !strcmp(s->params[MPB_QT_LEVELS].name, "levels"),
          "registry entry");
    static const char *const bad[] = {"4", "-1", "1.5", "three", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v;
        char why[256] = "";
        CHECK(!mpb_param_parse(&s->params[MPB_QT_LEVELS], bad[i], &v, why, sizeof why), "levels=%s accepted",
              bad[i]);
        CHECK(strstr(why, "0..3") != NULL, "levels=%s: '%s' does not say 0..3", bad[i], why);
    }
    double v;
    char why[256];
    for (int level = 0; level <= 3; level++) {
        char text[4];
        snprintf(text, sizeof text, "%d", level);
        CHECK(mpb_param_parse(&s->params[MPB_QT_LEVELS], text, &v, why, sizeof why) && v == level, "levels=%d", level);
    }
    const struct mpb_param_spec *gemm = &s->params[MPB_QT_GEMM];
    CHECK(!strcmp(gemm->name, "gemm") && !strcmp(gemm->def, "auto"), "gemm: %s, default %s", gemm->name, gemm->def);
    CHECK(mpb_param_parse(gemm, "engine", &v, why, sizeof why) && v == MPB_QT_GEMM_ENGINE, "gemm=engine");
    CHECK(mpb_param_parse(gemm, "calls", &v, why, sizeof why) && v == MPB_QT_GEMM_CALLS, "gemm=calls");
    why[0] = '\0';
    CHECK(!mpb_param_parse(gemm, "cublas", &v, why, sizeof why) && strstr(why, "calls|engine"),
          "gemm=cublas: '%s' does not say calls|engine", why);
    /* check(): the engine on sm_90a only (the host backend, dev NULL, runs
     * the host model whatever gemm says) */
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(s->params, s->n_params, params);
    params[MPB_QT_GEMM] = MPB_QT_GEMM_ENGINE;
    const struct mpb_gemm g = {.m = 33, .n = 7, .k = 200000, .target = MPB_TARGET_FP32};
    struct mpb_device_info hopper = {.cc_major = 9, .cc_minor = 0}, ampere = {.cc_major = 8, .cc_minor = 0};
    why[0] = '\0';
    CHECK(!s->check(params, &g, &ampere, why, sizeof why) && strstr(why, "sm_90a") && strstr(why, "sm_80"),
          "gemm=engine on sm_80: '%s'", why);
    CHECK(s->check(params, &g, &hopper, why, sizeof why), "gemm=engine on sm_90: %s", why);
    CHECK(s->check(params, &g, NULL, why, sizeof why), "gemm=engine on the host: %s", why);
    params[MPB_QT_GEMM] = MPB_QT_GEMM_CALLS;
    CHECK(s->check(params, &g, &ampere, why, sizeof why), "gemm=calls on sm_80: %s", why);
}

int main(void)
{
    check_levels();
    check_slicing();
    check_accuracy();
    check_bound_attained();
    check_nonfinite();
    check_params();
    return check_report("test_quantensor_host");
}
