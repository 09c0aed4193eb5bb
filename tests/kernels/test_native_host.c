/* Host models of the native baselines (kernels/native/native_host.c):
 *  - integer-valued cases whose exact product every model must return exactly;
 *  - the l-ordered fma recurrence, bit for bit, also when columns are shared
 *    out among threads;
 *  - random cases within each model's bound, against a long double reference
 *    built from the unrounded inputs;
 *  - the bound functions themselves. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "elem.h"
#include "rng.h"
#include "native/native.h"

typedef enum mpb_status (*host_fn)(const struct mpb_gemm *, const double *,
                                   struct mpb_scheme_info *);
typedef double (*bound_fn)(const double *, int64_t);

static const struct model {
    const char *name;
    enum mpb_target target;
    host_fn run;
    bound_fn bound;
} models[] = {
    {"dgemm", MPB_TARGET_FP64, mpb_dgemm_host, mpb_dgemm_bound},
    {"sgemm", MPB_TARGET_FP32, mpb_sgemm_host, mpb_sgemm_bound},
    {"tf32", MPB_TARGET_FP32, mpb_tf32_host, mpb_tf32_bound},
    {"fp16", MPB_TARGET_FP32, mpb_fp16_host, mpb_fp16_bound},
    {"bf16", MPB_TARGET_FP32, mpb_bf16_host, mpb_bf16_bound},
};
#define N_MODELS (int)(sizeof models / sizeof models[0])

static double rng_uniform(void) /* [-1, 1) with 53 random bits */
{
    return (double)(rng_next() >> 11) * 0x1p-52 - 1.0;
}

static int64_t rng_int(int64_t lim) /* [-lim, lim] */
{
    return (int64_t)(rng_next() % (uint64_t)(2 * lim + 1)) - lim;
}

static enum mpb_status run_model(const struct model *md, int64_t m, int64_t n, int64_t k,
                                 const void *a, const void *b, void *c)
{
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = md->target, .a = a, .b = b, .c = c};
    struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
    enum mpb_status st = md->run(&g, NULL, &info);
    CHECK(st == MPB_STATUS_OK, "%s %lldx%lldx%lld: status %d (%s)", md->name, (long long)m,
          (long long)n, (long long)k, (int)st, info.note);
    CHECK(info.fallback == 0, "%s: fallback %d", md->name, info.fallback);
    return st;
}

/* Entries in [-lim, lim] whose products and partial sums are exact in the
 * model's accumulator: every model must return the exact integer result. */
static void check_exact(const struct model *md, int64_t m, int64_t n, int64_t k, int64_t lim)
{
    size_t es = mpb_target_size(md->target);
    void *a = malloc((size_t)(m * k) * es), *b = malloc((size_t)(k * n) * es);
    void *c = malloc((size_t)(m * n) * es);
    int64_t *ia = malloc(sizeof *ia * (size_t)(m * k)), *ib = malloc(sizeof *ib * (size_t)(k * n));
    for (int64_t i = 0; i < m * k; i++)
        elem_set(a, md->target, i, (double)(ia[i] = rng_int(lim)));
    for (int64_t i = 0; i < k * n; i++)
        elem_set(b, md->target, i, (double)(ib[i] = rng_int(lim)));
    if (run_model(md, m, n, k, a, b, c) == MPB_STATUS_OK) {
        int bad = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                int64_t want = 0;
                for (int64_t l = 0; l < k; l++)
                    want += ia[i + l * m] * ib[l + j * k];
                double got = elem_get(c, md->target, i + j * m);
                if (got != (double)want && bad++ < 5)
                    CHECK(0, "%s %lldx%lldx%lld: C(%lld,%lld) = %.17g, exact %lld", md->name,
                          (long long)m, (long long)n, (long long)k, (long long)i, (long long)j, got,
                          (long long)want);
            }
    }
    free(a), free(b), free(c), free(ia), free(ib);
}

/* The model is the recurrence c ← fma(a_il, b_lj, c) in l order: written
 * here entry by entry, it must agree bit for bit (the size is above the
 * threading threshold, so this also checks the column split). */
static void check_recurrence(void)
{
    int64_t m = 150, n = 140, k = 130;
    double *a = malloc(sizeof *a * (size_t)(m * k)), *b = malloc(sizeof *b * (size_t)(k * n));
    double *c = malloc(sizeof *c * (size_t)(m * n));
    float *af = malloc(sizeof *af * (size_t)(m * k)), *bf = malloc(sizeof *bf * (size_t)(k * n));
    float *cf = malloc(sizeof *cf * (size_t)(m * n));
    for (int64_t i = 0; i < m * k; i++)
        af[i] = (float)(a[i] = rng_uniform());
    for (int64_t i = 0; i < k * n; i++)
        bf[i] = (float)(b[i] = rng_uniform());
    if (run_model(&models[0], m, n, k, a, b, c) == MPB_STATUS_OK &&
        run_model(&models[1], m, n, k, af, bf, cf) == MPB_STATUS_OK) {
        int bad = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                double s = 0.0;
                float sf = 0.0f;
                for (int64_t l = 0; l < k; l++) {
                    s = fma(a[i + l * m], b[l + j * k], s);
                    sf = fmaf(af[i + l * m], bf[l + j * k], sf);
                }
                if ((s != c[i + j * m] || sf != cf[i + j * m]) && bad++ < 5)
                    CHECK(0, "C(%lld,%lld): dgemm %a vs %a, sgemm %a vs %a", (long long)i,
                          (long long)j, c[i + j * m], s, (double)cf[i + j * m], (double)sf);
            }
    }
    free(a), free(b), free(c), free(af), free(bf), free(cf);
}

/* |Ĉ − C| ≤ f·|A||B| entry by entry, C and |A||B| in long double from the
 * unrounded inputs; slack for the reference's own rounding. Returns the
 * largest ratio |Ĉ − C| / (|A||B|). */
static double check_within_bound(const struct model *md, int64_t m, int64_t n, int64_t k,
                                 const void *a, const void *b, const void *c)
{
    double f = md->bound(NULL, k), worst = 0.0;
    long double ref_slack = (long double)k * 2.0L * LDBL_EPSILON;
    int bad = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            long double s = 0.0L, abs_s = 0.0L;
            for (int64_t l = 0; l < k; l++) {
                long double p = (long double)elem_get(a, md->target, i + l * m) *
                                (long double)elem_get(b, md->target, l + j * k);
                s += p;
                abs_s += fabsl(p);
            }
            long double err = fabsl((long double)elem_get(c, md->target, i + j * m) - s);
            if (abs_s > 0 && (double)(err / abs_s) > worst)
                worst = (double)(err / abs_s);
            if (err > ((long double)f + ref_slack) * abs_s && bad++ < 5)
                CHECK(0, "%s %lldx%lldx%lld: C(%lld,%lld) error %Lg > bound %g·%Lg", md->name,
                      (long long)m, (long long)n, (long long)k, (long long)i, (long long)j, err, f,
                      abs_s);
        }
    return worst;
}

/* Random data within the bounds; the low-precision models must differ from
 * plain fp32 (their inputs were rounded) yet stay within their own bound. */
static void check_random(int64_t m, int64_t n, int64_t k)
{
    double *a = malloc(sizeof *a * (size_t)(m * k)), *b = malloc(sizeof *b * (size_t)(k * n));
    double *c = malloc(sizeof *c * (size_t)(m * n));
    float *af = malloc(sizeof *af * (size_t)(m * k)), *bf = malloc(sizeof *bf * (size_t)(k * n));
    float *c32 = malloc(sizeof *c32 * (size_t)(m * n)), *cf = malloc(sizeof *cf * (size_t)(m * n));
    for (int64_t i = 0; i < m * k; i++)
        af[i] = (float)(a[i] = rng_uniform());
    for (int64_t i = 0; i < k * n; i++)
        bf[i] = (float)(b[i] = rng_uniform());
    if (LDBL_MANT_DIG >= 64 && run_model(&models[0], m, n, k, a, b, c) == MPB_STATUS_OK)
        check_within_bound(&models[0], m, n, k, a, b, c);
    if (run_model(&models[1], m, n, k, af, bf, c32) == MPB_STATUS_OK)
        check_within_bound(&models[1], m, n, k, af, bf, c32);
    for (int md = 2; md < N_MODELS; md++) {
        if (run_model(&models[md], m, n, k, af, bf, cf) != MPB_STATUS_OK)
            continue;
        double worst = check_within_bound(&models[md], m, n, k, af, bf, cf);
        CHECK(memcmp(cf, c32, sizeof *cf * (size_t)(m * n)) != 0,
              "%s equals sgemm bit for bit: inputs not rounded?", models[md].name);
        CHECK(worst > 0x1p-20, "%s: largest relative error %g, too small for rounded inputs",
              models[md].name, worst);
    }
    free(a), free(b), free(c), free(af), free(bf), free(c32), free(cf);
}

static void check_bounds(void)
{
    for (int md = 0; md < N_MODELS; md++) {
        bound_fn f = models[md].bound;
        CHECK(f(NULL, 1) > 0 && f(NULL, 1) < f(NULL, 2) && f(NULL, 1000) < f(NULL, 100000),
              "%s bound not increasing", models[md].name);
        CHECK(isinf(f(NULL, INT64_C(1) << 60)), "%s bound finite beyond k·u ≥ 1",
              models[md].name);
    }
    CHECK(mpb_dgemm_bound(NULL, 0) == 0.0, "no products, no error");
    double g = mpb_dgemm_bound(NULL, 1000);
    CHECK(fabs(g / (1000 * 0x1p-53) - 1) < 1e-12, "γ_1000 in fp64: %g", g);
    CHECK(mpb_fp16_bound(NULL, 1) > 2 * 0x1p-11 && mpb_fp16_bound(NULL, 1) < 3 * 0x1p-11,
          "fp16 bound at k = 1: %g", mpb_fp16_bound(NULL, 1));
    CHECK(mpb_tf32_bound(NULL, 1) > 2 * 0x1p-10, "tf32 allows truncated inputs");
}

int main(void)
{
    static const int64_t shapes[][3] = {
        {1, 1, 1}, {2, 3, 7}, {7, 31, 33}, {33, 7, 129}, {31, 32, 1}};
    for (int md = 0; md < N_MODELS; md++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            /* dgemm: |sum| ≤ 129·2^40 < 2^53; the others: ≤ 129·2^8 < 2^24,
             * and |entries| ≤ 16 are exact in fp16, bf16 and tf32. */
            check_exact(&models[md], shapes[s][0], shapes[s][1], shapes[s][2],
                        md == 0 ? INT64_C(1) << 20 : 16);
    check_exact(&models[1], 0, 3, 4, 16);
    check_exact(&models[1], 3, 4, 0, 16);
    check_recurrence();
    check_random(37, 29, 300);
    check_random(100, 10, 1000);
    check_bounds();
    return check_report("test_native_host");
}
