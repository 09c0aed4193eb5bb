/* Host models of ozaki1_fp16 / ozaki1_int8 (kernels/ozaki1):
 *  - digit slicing: exact round trip and digit ranges (INT8 fits int8, FP16
 *    digits are FP16 integers);
 *  - cr mode: every entry equal to MPFR's correctly rounded value, fp64 and
 *    fp32, on phi 0.5..4 and Test 2;
 *  - dp mode: err_fro_rel within 4x of the dgemm host model on phi 0.1, 1, 2;
 *  - int8: fixed point by Test 2 (fails at wide b, passes at b = 0);
 *  - NaN/±Inf (kernels/ozaki1/README.md): NaN where the row of A or column
 *    of B holds one, the other entries unaffected, every scheme and mode;
 *  - subnormal inputs: cr still correctly rounded where they decide C_ij;
 *  - int8 gemm=engine: the calls plan's GEMMs (pairs concatenated), bitwise
 *    gemm=calls; check() refuses it off sm_90a. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "elem.h"
#define TEST_RNG_SEED 0x243F6A8885A308D3ull
#include "rng.h"
#include "generators.h"
#include "native/native.h"
#include "ozaki1/ozaki1.h"
#include "reference.h"
#include "schemes/registry.h"

static void check_digits(int format, int64_t k)
{
    int beta = mpb_ozaki1_beta(format, k);
    for (int t = 0; t < 20000; t++) {
        double x = ldexp((double)(int64_t)(rng_next() >> 11) * 0x1p-52 - 1.0, (int)(rng_next() % 200) - 100);
        int e = mpb_ozaki1_need_exp(x, format);
        int32_t d[MPB_OZAKI1_MAX_DIGITS];
        int s = (53 + beta) / beta + 1;
        double r = mpb_ozaki1_digits(x, e, beta, s, d);
        CHECK(r == 0.0, "format %d: %a not exact after %d digits", format, x, s);
        long double back = 0;
        for (int p = s; p >= 1; p--) {
            back += ldexpl((long double)d[p - 1], e - p * beta);
            int64_t lim = mpb_ozaki1_digit_max(format, beta, p);
            CHECK(llabs(d[p - 1]) <= lim, "digit %d of %a is %d > %lld", p, x, d[p - 1], (long long)lim);
            if (format == MPB_OZAKI1_FP16)
                CHECK(lim <= 2048, "FP16 digit bound %lld not an FP16 integer", (long long)lim);
        }
        CHECK(back == (long double)x, "format %d: digits of %a sum to %La", format, x, back);
    }
    if (format == MPB_OZAKI1_INT8)
        CHECK(mpb_ozaki1_digit_max(format, beta, 1) == 127, "int8 leading digit range");
    else
        CHECK(k * (mpb_ozaki1_digit_max(format, beta, 1) << beta) <= (INT64_C(1) << 24),
              "FP16 slice products of k=%lld could round in FP32", (long long)k);
}

/* One scheme's host model with parameters `kv` (key, value, …, NULL) on
 * m×k A and k×n B of its target; returns C (malloc'd). */
static void *run_gemm(const char *scheme, const char *const *kv, int64_t m, int64_t n, int64_t k,
                      const void *a, const void *b)
{
    const struct mpb_scheme *s = mpb_scheme_find(scheme);
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(s->params, s->n_params, params);
    for (; kv && kv[0]; kv += 2) {
        char why[128];
        int i = mpb_param_find(s->params, s->n_params, kv[0]);
        CHECK(i >= 0 && mpb_param_parse(&s->params[i], kv[1], &params[i], why, sizeof why), "%s", kv[0]);
    }
    void *c = malloc(mpb_target_size(s->target) * (size_t)(m * n));
    struct mpb_gemm gm = {.m = m, .n = n, .k = k, .target = s->target, .a = a, .b = b, .c = c};
    struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
    CHECK(s->run_host(&gm, params, &info) == MPB_STATUS_OK, "%s: %s", scheme, info.note);
    CHECK(info.note[0] == 0, "%s: %s", scheme, info.note);
    return c;
}

/* n×n A and B of `gen` (first parameter `gp` unless NaN) for the scheme's
 * target, seed 3 (malloc'd). */
static void gen_case(const char *scheme, const char *gen, double gp, int64_t n, void **a, void **b)
{
    enum mpb_target t = mpb_scheme_find(scheme)->target;
    const struct mpb_generator *g = mpb_generator_find(gen);
    double gpar[MPB_MAX_PARAMS];
    mpb_param_defaults(g->params, g->n_params, gpar);
    if (g->n_params && !isnan(gp))
        gpar[0] = gp;
    char why[256];
    if (g->resolve)
        g->resolve(gpar, t, n, n, n, why, sizeof why);
    struct mpb_gen_config cfg;
    mpb_gen_config_init(&cfg, g, gpar, t, n, n, n, 3);
    size_t es = mpb_target_size(t);
    *a = malloc(es * (size_t)(n * n));
    *b = malloc(es * (size_t)(n * n));
    mpb_gen_fill_host(&cfg, MPB_OPERAND_A, *a);
    mpb_gen_fill_host(&cfg, MPB_OPERAND_B, *b);
}

/* Run one scheme's host model on a generated case; returns C (malloc'd). */
static void *run_case(const char *scheme, const char *const *kv, const char *gen, double gp,
                      int64_t n, void **a, void **b)
{
    gen_case(scheme, gen, gp, n, a, b);
    return run_gemm(scheme, kv, n, n, n, *a, *b);
}

static struct mpb_ref_value *reference(enum mpb_target t, int64_t n, const void *a, const void *b)
{
    struct mpb_gemm g = {.m = n, .n = n, .k = n, .target = t, .a = a, .b = b};
    struct mpb_ref_entry *e = malloc(sizeof *e * (size_t)(n * n));
    struct mpb_ref_value *v = malloc(sizeof *v * (size_t)(n * n));
    for (int64_t p = 0; p < n * n; p++)
        e[p] = (struct mpb_ref_entry){.i = p % n, .j = p / n};
    CHECK(mpb_ref_mpfr(&g, e, n * n, 0, v), "MPFR reference");
    free(e);
    return v;
}

static void check_cr(const char *scheme, const char *gen, double gp, int64_t n)
{
    static const char *const kv[] = {"mode", "cr", NULL};
    void *a, *b;
    void *c = run_case(scheme, kv, gen, gp, n, &a, &b);
    enum mpb_target t = mpb_scheme_find(scheme)->target;
    struct mpb_ref_value *v = reference(t, n, a, b);
    int bad = 0;
    for (int64_t p = 0; p < n * n; p++) {
        double got = t == MPB_TARGET_FP64 ? ((double *)c)[p] : ((float *)c)[p];
        if (got != v[p].rounded && bad++ < 3)
            CHECK(0, "%s cr %s(%g) n=%lld entry %lld: %a, correctly rounded %a", scheme, gen, gp,
                  (long long)n, (long long)p, got, v[p].rounded);
    }
    free(a), free(b), free(c), free(v);
}

static double err_fro(enum mpb_target t, int64_t n, const void *c, const struct mpb_ref_value *v)
{
    long double num = 0, den = 0;
    for (int64_t p = 0; p < n * n; p++) {
        long double x = t == MPB_TARGET_FP64 ? ((double *)c)[p] : ((float *)c)[p];
        long double d = x - v[p].hi - v[p].lo, r = (long double)v[p].hi + v[p].lo;
        num += d * d;
        den += r * r;
    }
    return (double)sqrtl(num / den);
}

static void check_dp(double phi, int64_t n)
{
    void *a, *b, *a2, *b2;
    void *c = run_case("ozaki1_fp16", NULL, "phi", phi, n, &a, &b);
    void *cd = run_case("dgemm", NULL, "phi", phi, n, &a2, &b2);
    struct mpb_ref_value *v = reference(MPB_TARGET_FP64, n, a, b);
    double e_oz = err_fro(MPB_TARGET_FP64, n, c, v), e_d = err_fro(MPB_TARGET_FP64, n, cd, v);
    CHECK(e_oz <= 4 * e_d, "dp phi=%g n=%lld: err_fro %g > 4x dgemm %g", phi, (long long)n, e_oz, e_d);
    free(a), free(b), free(c), free(a2), free(b2), free(cd), free(v);
}

/* Test 2: fixed point fails 10·n·u once 2b + 53 exceeds its bits. */
static double int8_test2_err(double bexp, int64_t n)
{
    static const char *const kv[] = {"slices", "8", NULL};
    void *a, *b;
    void *c = run_case("ozaki1_int8", kv, "test2", bexp, n, &a, &b);
    struct mpb_ref_value *v = reference(MPB_TARGET_FP64, n, a, b);
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t p = i + i * n;
        double r = fabs((((double *)c)[p] - v[p].hi) / v[p].hi);
        worst = r > worst ? r : worst;
    }
    free(a), free(b), free(c), free(v);
    return worst;
}

/* NaN in row 3 of A, +Inf in row 10, −Inf in column 5 of B (one entry
 * each). C(3,:), C(10,:) and C(:,5) must be NaN, every other entry bitwise
 * what the same product gives with those rows and that column zeroed. Zeroed,
 * not any finite values: fp16 dp and cr decide one digit count from the
 * statistics of all rows and columns, where a non-finite row counts as a zero
 * row. Where the digit count does not depend on the data (`fixed_digits`:
 * int8, fp16 fixed) an entry depends only on its own row and column, so the
 * others are also bitwise those of the product without the specials. */
static void check_nonfinite(const char *scheme, const char *const *kv, bool fixed_digits)
{
    const int64_t n = 24, row_nan = 3, row_inf = 10, col_inf = 5;
    enum mpb_target t = mpb_scheme_find(scheme)->target;
    size_t es = mpb_target_size(t), bytes = es * (size_t)(n * n);
    void *a, *b;
    gen_case(scheme, "randn", NAN, n, &a, &b);
    void *c_clean = run_gemm(scheme, kv, n, n, n, a, b);
    void *az = malloc(bytes), *bz = malloc(bytes);
    memcpy(az, a, bytes);
    memcpy(bz, b, bytes);
    for (int64_t l = 0; l < n; l++) {
        elem_set(az, t, row_nan + l * n, 0.0);
        elem_set(az, t, row_inf + l * n, 0.0);
        elem_set(bz, t, l + col_inf * n, 0.0);
    }
    void *c_zero = run_gemm(scheme, kv, n, n, n, az, bz);
    elem_set(a, t, row_nan + 7 * n, NAN);
    elem_set(a, t, row_inf + 2 * n, INFINITY);
    elem_set(b, t, 11 + col_inf * n, -INFINITY);
    void *c = run_gemm(scheme, kv, n, n, n, a, b);
    char cfg[128] = "";
    for (const char *const *p = kv; p[0]; p += 2)
        snprintf(cfg + strlen(cfg), sizeof cfg - strlen(cfg), " %s=%s", p[0], p[1]);
    int bad = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int64_t p = i + j * n;
            double x = elem_get(c, t, p);
            const char *why = NULL;
            if (i == row_nan || i == row_inf || j == col_inf)
                why = isnan(x) ? NULL : "not NaN";
            else if (memcmp((char *)c + p * es, (char *)c_zero + p * es, es))
                why = "differs from the product with the specials' rows/column zeroed";
            else if (fixed_digits && memcmp((char *)c + p * es, (char *)c_clean + p * es, es))
                why = "differs from the product without the specials";
            if (why && bad++ < 3)
                CHECK(0, "%s%s: C(%lld,%lld) = %a %s", scheme, cfg, (long long)i, (long long)j, x, why);
        }
    free(a), free(b), free(az), free(bz), free(c), free(c_clean), free(c_zero);
}

/* cr where subnormals decide C: rows (1, −1, 2^−1074) and (2^60, −2^60,
 * 3·2^−1074) times (1, 1, 2^100) are 2^−974 and 3·2^−974 exactly. The
 * subnormal lies 1075 and 1135 bits below its row's scale, within the
 * 98 and 104 digits of 11 bits cr takes, so nothing may be lost. */
static void check_cr_subnormal(void)
{
    static const char *const kv[] = {"mode", "cr", NULL};
    const double a[6] = {1, 0x1p60, -1, -0x1p60, 0x1p-1074, 0x3p-1074}, b[3] = {1, 1, 0x1p100};
    double *c = run_gemm("ozaki1_fp16", kv, 2, 1, 3, a, b);
    CHECK(c[0] == 0x1p-974 && c[1] == 0x3p-974, "cr with subnormals: %a %a, exact 0x1p-974 0x3p-974",
          c[0], c[1]);
    free(c);
}

/* int8 gemm=engine's plan is the calls plan (pairs concatenated along k,
 * blocked where one pair's INT32 sum could overflow); the host model's
 * output bitwise gemm=calls'; check() refuses the engine off sm_90a,
 * naming it. */
static void check_engine_plan(void)
{
    const struct mpb_scheme *s = mpb_scheme_find("ozaki1_int8");
    static const int64_t ks[] = {1, 100, 270000};
    for (int fast = 0; fast <= 1; fast++)
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
            double params[MPB_MAX_PARAMS];
            mpb_param_defaults(s->params, s->n_params, params);
            params[MPB_OZ8_FAST] = fast;
            struct mpb_ozaki1_plan calls, engine;
            CHECK(mpb_ozaki1_plan_make(&calls, MPB_OZAKI1_INT8, MPB_TARGET_FP64, params, 4, 4, ks[i], NULL, NULL),
                  "calls plan");
            params[MPB_OZ8_GEMM] = MPB_OZ8_GEMM_ENGINE;
            CHECK(mpb_ozaki1_plan_make(&engine, MPB_OZAKI1_INT8, MPB_TARGET_FP64, params, 4, 4, ks[i], NULL, NULL),
                  "engine plan");
            /* The engine runs the calls' GEMMs (pairs concatenated along k). */
            CHECK(engine.ncalls == calls.ncalls, "k=%lld fast=%d: the engine plan has %d calls, the calls plan %d",
                  (long long)ks[i], fast, engine.ncalls, calls.ncalls);
            bool concat = false;
            for (int c = 0; c < calls.ncalls && c < engine.ncalls; c++) {
                const struct mpb_ozaki1_call *x = &calls.calls[c], *y = &engine.calls[c];
                CHECK(x->w == y->w && x->p_lo == y->p_lo && x->q_hi == y->q_hi && x->npairs == y->npairs &&
                          x->group_end == y->group_end && x->l0 == y->l0 && x->len == y->len,
                      "k=%lld fast=%d: call %d differs between the engine and calls plans", (long long)ks[i], fast, c);
                concat = concat || x->npairs > 1;
            }
            CHECK(concat || ks[i] > 100, "k=%lld: the calls plan concatenates no pairs: the test compares nothing",
                  (long long)ks[i]);
            mpb_ozaki1_plan_free(&calls);
            mpb_ozaki1_plan_free(&engine);
        }
    for (int fast = 0; fast <= 1; fast++) {
        const char *f = fast ? "1" : "0";
        const char *kv_calls[] = {"fast", f, NULL}, *kv_engine[] = {"fast", f, "gemm", "engine", NULL};
        void *a, *b;
        void *c0 = run_case("ozaki1_int8", kv_calls, "phi", 2, 40, &a, &b);
        void *c1 = run_gemm("ozaki1_int8", kv_engine, 40, 40, 40, a, b);
        CHECK(memcmp(c0, c1, sizeof(double) * 40 * 40) == 0, "fast=%s: host model gemm=engine differs from calls", f);
        free(a), free(b), free(c0), free(c1);
    }
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(s->params, s->n_params, params);
    params[MPB_OZ8_GEMM] = MPB_OZ8_GEMM_ENGINE;
    const struct mpb_gemm g = {.m = 33, .n = 7, .k = 1000, .target = MPB_TARGET_FP64};
    struct mpb_device_info hopper = {.cc_major = 9, .cc_minor = 0}, ampere = {.cc_major = 8, .cc_minor = 6};
    char why[256] = "";
    CHECK(!s->check(params, &g, &ampere, why, sizeof why) && strstr(why, "sm_90a") && strstr(why, "sm_86"),
          "gemm=engine on sm_86: '%s'", why);
    CHECK(s->check(params, &g, &hopper, why, sizeof why) && s->check(params, &g, NULL, why, sizeof why),
          "gemm=engine on sm_90 / the host: %s", why);
    params[MPB_OZ8_GEMM] = MPB_OZ8_GEMM_CALLS;
    CHECK(s->check(params, &g, &ampere, why, sizeof why), "gemm=calls on sm_86: %s", why);
    double v;
    why[0] = '\0';
    CHECK(!mpb_param_parse(&s->params[MPB_OZ8_GEMM], "cublas", &v, why, sizeof why) && strstr(why, "calls|engine"),
          "gemm=cublas: '%s'", why);
}

int main(void)
{
    check_engine_plan();
    check_digits(MPB_OZAKI1_INT8, 100);
    for (int64_t k = 1; k <= (INT64_C(1) << 22); k *= 8)
        check_digits(MPB_OZAKI1_FP16, k);
    static const double phis[] = {0.5, 1, 2, 4};
    for (int i = 0; i < 4; i++) {
        check_cr("ozaki1_fp16", "phi", phis[i], 40);
        check_cr("ozaki1_fp16_sp", "phi", phis[i], 33);
    }
    check_cr("ozaki1_fp16", "test2", NAN, 16);
    check_cr("ozaki1_fp16", "test2", 40, 24);
    check_cr("ozaki1_fp16_sp", "test2", NAN, 24);
    check_dp(0.1, 64);
    check_dp(1, 64);
    check_dp(2, 64);
    double n = 32, tol = 10 * n * 0x1p-53;
    double e0 = int8_test2_err(0, 32), e20 = int8_test2_err(20, 32);
    CHECK(e0 <= tol, "int8 test2 b=0: %g > 10nu", e0);
    CHECK(e20 > tol, "int8 test2 b=20 passes (%g): not fixed point?", e20);
    static const struct {
        const char *scheme, *kv[7];
        bool fixed_digits;
    } nf[] = {
        {"ozaki1_fp16", {"mode", "dp", NULL}, false},
        {"ozaki1_fp16", {"mode", "dp", "fast", "0", NULL}, false},
        {"ozaki1_fp16", {"mode", "cr", NULL}, false},
        {"ozaki1_fp16", {"mode", "fixed", "slices", "4", NULL}, true},
        {"ozaki1_fp16", {"mode", "fixed", "slices", "4", "fast", "0", NULL}, true},
        {"ozaki1_fp16_sp", {"mode", "dp", NULL}, false},
        {"ozaki1_fp16_sp", {"mode", "cr", NULL}, false},
        {"ozaki1_fp16_sp", {"mode", "fixed", "slices", "3", NULL}, true},
        {"ozaki1_int8", {"accum", "fp64", NULL}, true},
        {"ozaki1_int8", {"accum", "exact", NULL}, true},
        {"ozaki1_int8", {"accum", "exact", "fast", "0", "slices", "3", NULL}, true},
    };
    for (size_t i = 0; i < sizeof nf / sizeof nf[0]; i++)
        check_nonfinite(nf[i].scheme, nf[i].kv, nf[i].fixed_digits);
    check_cr_subnormal();
    return check_report("test_ozaki1_host");
}
