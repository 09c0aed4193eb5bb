/* The complex Ozaki-II host models (ozaki2_int8_z, ozaki2_int8_c) against
 * the exact MPFR complex reference, next to the native 4M models
 * (zgemm, cgemm) on the same data:
 *  - form=karatsuba and form=conventional give the same bits (both modes, both
 *    targets, every case below): Karatsuba's three products are exact on
 *    residues, so it loses nothing against 4m;
 *  - at the default moduli, err_fro_rel within 2× of zgemm's / cgemm's on
 *    phi 0.5, 1, 2, randn, uniform and smallim (imaginary parts 2^-24 of
 *    the real ones); on smallim the real part's error within 2× of 4M's
 *    and the imaginary part's below 3M's (check_smallim says why not at
 *    4M's);
 *  - every entry within the registry's row/column-wise bound;
 *  - awkward shapes, m, n, k in 1, 7, 33, 127, non-square;
 *  - NaN / Inf in a part of row i of A or column j of B makes row i /
 *    column j of C NaN in both parts and leaves every other entry's bits
 *    as without it (the real scheme's rule);
 *  - k split into chunks: any chunk length gives the unsplit bits; above
 *    MPB_OZ2_MAX_K (2 and 3 chunks) both forms agree and meet the bound.
 * Prints the errors (kernels/ozaki2/README.md's complex table). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "elem.h"
#include "gen_host.h"
#include "ozaki2/ozaki2_complex.h"
#include "reference.h"
#include "schemes/registry.h"

struct errs {
    double fro, re, im; /* err_fro_rel over complex entries, and per part (each relative to its part's norm) */
    double bound;       /* max |Ĉ−C|_ij / (f‖A(i,:)‖₂‖B(:,j)‖₂), f the scheme's bound */
};

/* Errors of c (m×n complex) against the exact product of a and b. */
static struct errs errors(const struct mpb_scheme *s, const double *params, int64_t m, int64_t n, int64_t k,
                          const void *a, const void *b, const void *c)
{
    enum mpb_target t = s->target;
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = a, .b = b, .field = MPB_FIELD_COMPLEX};
    int64_t cnt = m * n;
    struct mpb_ref_entry *e = malloc(sizeof *e * (size_t)cnt + 1);
    struct mpb_ref_value *v = malloc(sizeof *v * (size_t)(2 * cnt) + 1);
    long double *ra = calloc((size_t)m + 1, sizeof *ra), *rb = calloc((size_t)n + 1, sizeof *rb);
    for (int64_t p = 0; p < cnt; p++)
        e[p] = (struct mpb_ref_entry){.i = p % m, .j = p / m};
    CHECK(mpb_ref_mpfr(&g, e, cnt, 1, v), "MPFR reference");
    for (int64_t l = 0; l < k; l++)
        for (int q = 0; q < 2; q++) {
            for (int64_t i = 0; i < m; i++)
                ra[i] += (long double)elem_get(a, t, 2 * (i + l * m) + q) * elem_get(a, t, 2 * (i + l * m) + q);
            for (int64_t j = 0; j < n; j++)
                rb[j] += (long double)elem_get(b, t, 2 * (l + j * k) + q) * elem_get(b, t, 2 * (l + j * k) + q);
        }
    long double num[2] = {0, 0}, den[2] = {0, 0};
    struct errs r = {0, 0, 0, 0};
    double f = s->bound(params, k);
    for (int64_t p = 0; p < cnt; p++) {
        long double d2 = 0;
        for (int q = 0; q < 2; q++) {
            long double exact = (long double)v[2 * p + q].hi + v[2 * p + q].lo;
            long double d = (long double)elem_get(c, t, 2 * p + q) - exact;
            num[q] += d * d;
            den[q] += exact * exact;
            d2 += d * d;
        }
        long double scale = f * sqrtl(ra[p % m]) * sqrtl(rb[p / m]);
        double x = d2 == 0 ? 0 : scale > 0 ? (double)(sqrtl(d2) / scale) : INFINITY;
        r.bound = fmax(r.bound, isnan(x) ? INFINITY : x);
    }
    r.fro = den[0] + den[1] > 0 ? (double)sqrtl((num[0] + num[1]) / (den[0] + den[1])) : 0;
    r.re = den[0] > 0 ? (double)sqrtl(num[0] / den[0]) : 0;
    r.im = den[1] > 0 ? (double)sqrtl(num[1] / den[1]) : 0;
    free(e), free(v), free(ra), free(rb);
    return r;
}

static void run_host(const struct mpb_scheme *s, const double *params, int64_t m, int64_t n, int64_t k,
                     const void *a, const void *b, void *c)
{
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = s->target, .a = a, .b = b, .c = c,
                         .field = MPB_FIELD_COMPLEX};
    struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
    CHECK(s->run_host(&g, params, &info) == MPB_STATUS_OK, "%s %lldx%lldx%lld: %s", s->name, (long long)m,
          (long long)n, (long long)k, info.note);
}

static void *cmatrix(enum mpb_target t, int64_t count)
{
    return calloc((size_t)(2 * count) + 1, mpb_target_size(t));
}

/* One generator at one shape: both forms and modes bitwise equal, the
 * error within 2× native's (`vs_native`) and within the bound. */
static void check_case(const struct mpb_scheme *s, const char *gen, double gp, int64_t m, int64_t n, int64_t k,
                       bool vs_native)
{
    enum mpb_target t = s->target;
    const struct mpb_scheme *native = mpb_scheme_native(t, MPB_FIELD_COMPLEX);
    void *a = cmatrix(t, m * k), *b = cmatrix(t, k * n), *c = cmatrix(t, m * n), *c4 = cmatrix(t, m * n);
    void *cn = cmatrix(t, m * n);
    gen_host_fill_field(gen, gp, t, MPB_FIELD_COMPLEX, m, n, k, 1, a, b);
    double np[MPB_MAX_PARAMS] = {0};
    run_host(native, np, m, n, k, a, b, cn);
    struct errs en = errors(native, np, m, n, k, a, b, cn);
    for (int mode = 0; mode < 2; mode++) {
        double params[MPB_MAX_PARAMS];
        mpb_param_defaults(s->params, s->n_params, params);
        params[MPB_OZ2_MODE] = mode;
        run_host(s, params, m, n, k, a, b, c);
        params[MPB_OZ2C_FORM] = MPB_OZ2C_4M;
        run_host(s, params, m, n, k, a, b, c4);
        CHECK(memcmp(c, c4, 2 * mpb_target_size(t) * (size_t)(m * n)) == 0,
              "%s %s %s %lldx%lldx%lld: form=karatsuba and form=conventional differ", s->name,
              mode ? "accurate" : "fast", gen, (long long)m, (long long)n, (long long)k);
        struct errs e = errors(s, params, m, n, k, a, b, c);
        CHECK(e.bound <= 1, "%s %s %s %lldx%lldx%lld: |diff|/bound %.3g", s->name, mode ? "accurate" : "fast", gen,
              (long long)m, (long long)n, (long long)k, e.bound);
        if (vs_native)
            CHECK(e.fro <= 2 * en.fro, "%s %s %s %lldx%lldx%lld: err_fro_rel %.3g vs %s %.3g", s->name,
                  mode ? "accurate" : "fast", gen, (long long)m, (long long)n, (long long)k, e.fro, native->name,
                  en.fro);
        printf("%-14s %-8s %-7s %g %4lld %4lld %4lld  err %.2e re %.2e im %.2e (%s %.2e re %.2e im %.2e) "
               "bound %.2g\n",
               s->name, mode ? "accurate" : "fast", gen, gp, (long long)m, (long long)n, (long long)k, e.fro, e.re,
               e.im, native->name, en.fro, en.re, en.im, e.bound);
    }
    free(a), free(b), free(c), free(c4), free(cn);
}

/* smallim (imaginary parts 2^-24 of the real ones): the real part within
 * 2× of 4M's error, the imaginary part's error below 3M's (zgemm3m,
 * cgemm3m) by at least 4×, but not at 4M's level: one scale per row and
 * column over both parts (forced: Ar and Ai meet Br and Bi in both Re and
 * Im) puts the truncation at 2^-L/2 of the real parts, which is what 3M's
 * rounding does at u (kernels/ozaki2/README.md "Complex"). Both forms give
 * these bits (check_case), so it is the scaling, not Karatsuba. */
static void check_smallim(const struct mpb_scheme *s, int64_t m, int64_t n, int64_t k)
{
    enum mpb_target t = s->target;
    const struct mpb_scheme *native = mpb_scheme_native(t, MPB_FIELD_COMPLEX);
    const struct mpb_scheme *three = mpb_scheme_find(t == MPB_TARGET_FP64 ? "zgemm3m" : "cgemm3m");
    void *a = cmatrix(t, m * k), *b = cmatrix(t, k * n), *c = cmatrix(t, m * n);
    gen_host_fill_field("smallim", NAN, t, MPB_FIELD_COMPLEX, m, n, k, 3, a, b);
    double params[MPB_MAX_PARAMS], np[MPB_MAX_PARAMS] = {0};
    mpb_param_defaults(s->params, s->n_params, params);
    run_host(s, params, m, n, k, a, b, c);
    struct errs e = errors(s, params, m, n, k, a, b, c);
    run_host(native, np, m, n, k, a, b, c);
    struct errs en = errors(native, np, m, n, k, a, b, c);
    run_host(three, np, m, n, k, a, b, c);
    struct errs e3 = errors(three, np, m, n, k, a, b, c);
    CHECK(e.re <= 2 * en.re, "%s smallim: re %.3g vs %s re %.3g", s->name, e.re, native->name, en.re);
    CHECK(e3.im > 4 * e.im, "%s smallim: im %.3g, not 4x below %s's %.3g", s->name, e.im, three->name, e3.im);
    printf("%-14s smallim %lldx%lldx%lld: re %.2e im %.2e, %s re %.2e im %.2e, %s re %.2e im %.2e\n", s->name,
           (long long)m, (long long)n, (long long)k, e.re, e.im, native->name, en.re, en.im, three->name, e3.re,
           e3.im);
    free(a), free(b), free(c);
}

/* Row 2 of A with a NaN imaginary part, column 1 of B with an Inf real
 * part: that row and column NaN in both parts, every other entry as on
 * the clean operands, bit for bit. */
static void check_special(const struct mpb_scheme *s, int form)
{
    enum mpb_target t = s->target;
    const int64_t m = 7, n = 5, k = 33;
    void *a = cmatrix(t, m * k), *b = cmatrix(t, k * n), *c = cmatrix(t, m * n), *clean = cmatrix(t, m * n);
    gen_host_fill_field("randn", NAN, t, MPB_FIELD_COMPLEX, m, n, k, 5, a, b);
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(s->params, s->n_params, params);
    params[MPB_OZ2C_FORM] = form;
    run_host(s, params, m, n, k, a, b, clean);
    elem_set(a, t, 2 * (2 + 4 * m) + 1, NAN);
    elem_set(b, t, 2 * (6 + 1 * k), INFINITY);
    run_host(s, params, m, n, k, a, b, c);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            for (int q = 0; q < 2; q++) {
                size_t p = (size_t)(2 * (i + j * m) + q);
                double x = elem_get(c, t, (int64_t)p);
                if (i == 2 || j == 1)
                    CHECK(isnan(x), "%s: C(%lld,%lld) part %d = %g, want NaN", s->name, (long long)i, (long long)j,
                          q, x);
                else
                    CHECK(x == elem_get(clean, t, (int64_t)p), "%s: C(%lld,%lld) part %d = %g, without NaN/Inf %g",
                          s->name, (long long)i, (long long)j, q, x, elem_get(clean, t, (int64_t)p));
            }
    free(a), free(b), free(c), free(clean);
}

/* k split into chunks: any chunk length gives the unsplit bits (the chunk
 * sums folded modulo 2·m_t), both forms and modes. */
static void check_chunks(const struct mpb_scheme *s)
{
    enum mpb_target t = s->target;
    const int64_t m = 7, n = 5, k = 100;
    void *a = cmatrix(t, m * k), *b = cmatrix(t, k * n), *c = cmatrix(t, m * n), *whole = cmatrix(t, m * n);
    gen_host_fill_field("phi", 1, t, MPB_FIELD_COMPLEX, m, n, k, 9, a, b);
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = a, .b = b, .field = MPB_FIELD_COMPLEX};
    for (int v = 0; v < 4; v++) {
        double params[MPB_MAX_PARAMS];
        mpb_param_defaults(s->params, s->n_params, params);
        params[MPB_OZ2_MODE] = v & 1;
        params[MPB_OZ2C_FORM] = v >> 1;
        struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
        g.c = whole;
        CHECK(mpb_ozaki2_complex_host(&g, params, &info) == MPB_STATUS_OK, "%s: %s", s->name, info.note);
        static const int64_t chunks[] = {1, 7, 33, 99};
        for (int i = 0; i < 4; i++) {
            g.c = c;
            CHECK(mpb_ozaki2_complex_host_chunked(&g, params, &info, chunks[i]) == MPB_STATUS_OK, "%s: %s",
                  s->name, info.note);
            CHECK(memcmp(c, whole, 2 * mpb_target_size(t) * (size_t)(m * n)) == 0 &&
                      strstr(info.settings, "kchunks="),
                  "%s variant %d, chunks of %lld: not the unsplit bits [%s]", s->name, v, (long long)chunks[i],
                  info.settings);
        }
    }
    free(a), free(b), free(c), free(whole);
}

/* k above the INT32 limit of one INT8 GEMM: 2 and 3 chunks, named in
 * settings, both forms the same bits, within the bound. */
static void check_long_k(const struct mpb_scheme *s, int64_t m, int64_t n, int64_t k, const char *split)
{
    enum mpb_target t = s->target;
    void *a = cmatrix(t, m * k), *b = cmatrix(t, k * n), *c = cmatrix(t, m * n), *c4 = cmatrix(t, m * n);
    gen_host_fill_field("phi", 0.5, t, MPB_FIELD_COMPLEX, m, n, k, 2, a, b);
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(s->params, s->n_params, params);
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = a, .b = b, .c = c, .field = MPB_FIELD_COMPLEX};
    struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
    CHECK(s->run_host(&g, params, &info) == MPB_STATUS_OK && strstr(info.settings, split), "%s k=%lld: [%s] [%s]",
          s->name, (long long)k, info.settings, info.note);
    params[MPB_OZ2C_FORM] = MPB_OZ2C_4M;
    run_host(s, params, m, n, k, a, b, c4);
    CHECK(memcmp(c, c4, 2 * mpb_target_size(t) * (size_t)(m * n)) == 0, "%s k=%lld: the forms differ", s->name,
          (long long)k);
    struct errs e = errors(s, params, m, n, k, a, b, c);
    CHECK(e.bound <= 1, "%s k=%lld: |diff|/bound %.3g", s->name, (long long)k, e.bound);
    printf("%-14s long k %lldx%lldx%lld: err %.2e bound %.2g [%s]\n", s->name, (long long)m, (long long)n,
           (long long)k, e.fro, e.bound, info.settings);
    free(a), free(b), free(c), free(c4);
}

int main(void)
{
    static const char *const names[] = {"ozaki2_int8_z", "ozaki2_int8_c"};
    static const int64_t shapes[][3] = {{1, 1, 1}, {7, 7, 7}, {33, 33, 33}, {1, 7, 127}, {127, 1, 7},
                                        {7, 33, 1}, {33, 127, 7}, {127, 33, 127}};
    for (int si = 0; si < 2; si++) {
        const struct mpb_scheme *s = mpb_scheme_find(names[si]);
        CHECK(s && s->field == MPB_FIELD_COMPLEX, "%s missing or not complex", names[si]);
        if (!s)
            continue;
        for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
            check_case(s, "randn", NAN, shapes[sh][0], shapes[sh][1], shapes[sh][2], false);
        static const double phis[] = {0.5, 1, 2};
        for (int p = 0; p < 3; p++)
            check_case(s, "phi", phis[p], 64, 48, 100, true);
        check_case(s, "randn", NAN, 64, 48, 100, true);
        check_case(s, "uniform", NAN, 64, 48, 100, true);
        check_case(s, "smallim", NAN, 64, 48, 100, true);
        check_smallim(s, 40, 30, 64);
        check_special(s, MPB_OZ2C_KARATSUBA);
        check_special(s, MPB_OZ2C_4M);
        check_chunks(s);
        check_long_k(s, 1, 2, 131073, "kchunks=2 ");
        check_long_k(s, 2, 1, 262200, "kchunks=3 ");
    }
    return check_report("test_ozaki2_complex");
}
