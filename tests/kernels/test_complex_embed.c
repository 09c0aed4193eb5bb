/* The complex schemes made of real ones (kernels/common/complex_embed.h:
 * ozaki1_int8_z, adp_z, tf32x3_c, ape_bf16x3_c), host models against the
 * exact MPFR complex reference:
 *  - each is bitwise its real scheme's host model run on the embedding
 *    [Ar −Ai; Ai Ar]·[Br; Bi] built here from the formula, the result read
 *    back as [Re C; Im C];
 *  - every entry within the registry's bound (√2·f(2k), componentwise
 *    against the modulus |A||B| or row/column-wise, as the real scheme's);
 *  - err_fro_rel within 4× of zgemm's / cgemm's on phi 0.5 and randn, at the
 *    defaults for the FP64 schemes and with accum=rn flush_k=32 for the FP32
 *    splits (their default, one truncating tensor-core accumulator, is
 *    several times SGEMM's error by design: kernels/fp32split/README.md;
 *    the real tf32x3 at 80×30×128 on phi 0.5: 9.1e-7 with it, 2.5e-7 with
 *    rn, SGEMM 2.1e-7);
 *  - awkward shapes, m, n, k in 1, 7, 33, 127, non-square;
 *  - NaN in the imaginary part of A(2, 4): row 2 of C NaN in both parts.
 * Prints the errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "elem.h"
#include "gen_host.h"
#include "reference.h"
#include "schemes/registry.h"

/* max |Ĉ−C|_ij / bound_ij over C and err_fro_rel, against the exact product;
 * |·| the complex modulus. */
static void errors(const struct mpb_scheme *s, const double *params, const struct mpb_gemm *g, const void *c,
                   double *worst, double *fro)
{
    enum mpb_target t = g->target;
    int64_t m = g->m, n = g->n, k = g->k, cnt = m * n;
    struct mpb_ref_entry *e = calloc((size_t)cnt + 1, sizeof *e);
    struct mpb_ref_value *v = malloc(sizeof *v * (size_t)(2 * cnt) + 1);
    for (int64_t p = 0; p < cnt; p++)
        e[p] = (struct mpb_ref_entry){.i = p % m, .j = p / m};
    CHECK(mpb_ref_mpfr(g, e, cnt, 1, v), "MPFR reference");
    double f = s->bound(params, k);
    long double num = 0, den = 0;
    *worst = 0;
    for (int64_t p = 0; p < cnt; p++) {
        int64_t i = p % m, j = p / m;
        long double d2 = 0, scale = 0, ra = 0, rb = 0;
        for (int q = 0; q < 2; q++) {
            long double exact = (long double)v[2 * p + q].hi + v[2 * p + q].lo;
            long double d = (long double)elem_get(c, t, 2 * p + q) - exact;
            d2 += d * d;
            den += exact * exact;
        }
        for (int64_t l = 0; l < k; l++) {
            long double ar = elem_get(g->a, t, 2 * (i + l * m)), ai = elem_get(g->a, t, 2 * (i + l * m) + 1);
            long double br = elem_get(g->b, t, 2 * (l + j * k)), bi = elem_get(g->b, t, 2 * (l + j * k) + 1);
            scale += sqrtl(ar * ar + ai * ai) * sqrtl(br * br + bi * bi);
            ra += ar * ar + ai * ai;
            rb += br * br + bi * bi;
        }
        if (s->bound_rowcol)
            scale = sqrtl(ra) * sqrtl(rb);
        scale *= f;
        num += d2;
        double x = d2 == 0 ? 0 : scale > 0 ? (double)(sqrtl(d2) / scale) : INFINITY;
        *worst = fmax(*worst, isnan(x) ? INFINITY : x);
    }
    *fro = den > 0 ? (double)sqrtl(num / den) : 0;
    free(e), free(v);
}

static void run(const struct mpb_scheme *s, const double *params, const struct mpb_gemm *g)
{
    struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
    CHECK(s->run_host(g, params, &info) == MPB_STATUS_OK, "%s %lldx%lldx%lld: %s", s->name, (long long)g->m,
          (long long)g->n, (long long)g->k, info.note);
}

static void *zeroed(enum mpb_target t, int64_t count)
{
    return calloc((size_t)count + 1, mpb_target_size(t));
}

/* The real scheme on the embedding built from its formula gives the
 * complex scheme's bits. */
static void check_layout(const struct mpb_scheme *s, const struct mpb_scheme *real, const double *params,
                         const struct mpb_gemm *g)
{
    enum mpb_target t = g->target;
    int64_t m = g->m, n = g->n, k = g->k;
    void *ae = zeroed(t, 4 * m * k), *be = zeroed(t, 2 * k * n), *ce = zeroed(t, 2 * m * n);
    for (int64_t l = 0; l < k; l++)
        for (int64_t i = 0; i < m; i++) {
            double ar = elem_get(g->a, t, 2 * (i + l * m)), ai = elem_get(g->a, t, 2 * (i + l * m) + 1);
            elem_set(ae, t, i + l * 2 * m, ar);             /* [Ar ·] */
            elem_set(ae, t, m + i + l * 2 * m, ai);         /* [Ai ·] */
            elem_set(ae, t, i + (k + l) * 2 * m, -ai);      /* [· −Ai] */
            elem_set(ae, t, m + i + (k + l) * 2 * m, ar);   /* [· Ar] */
        }
    for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k; l++) {
            elem_set(be, t, l + j * 2 * k, elem_get(g->b, t, 2 * (l + j * k)));
            elem_set(be, t, k + l + j * 2 * k, elem_get(g->b, t, 2 * (l + j * k) + 1));
        }
    struct mpb_gemm rg = {.m = 2 * m, .n = n, .k = 2 * k, .target = t, .a = ae, .b = be, .c = ce};
    run(real, params, &rg);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            for (int q = 0; q < 2; q++) {
                double want = elem_get(ce, t, q * m + i + j * 2 * m), got = elem_get(g->c, t, 2 * (i + j * m) + q);
                CHECK(memcmp(&want, &got, sizeof want) == 0, "%s %lldx%lldx%lld: C(%lld,%lld) part %d %g, %s on the "
                      "embedding %g", s->name, (long long)m, (long long)n, (long long)k, (long long)i, (long long)j,
                      q, got, real->name, want);
            }
    free(ae), free(be), free(ce);
}

/* The parameters `settings` names ("k=v k=v", a test's own table: must
 * parse) set in params. */
static void set_params(const struct mpb_scheme *s, double *params, const char *settings)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", settings);
    for (char *save = NULL, *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        CHECK(eq != NULL, "%s: '%s' is not k=v", s->name, kv);
        if (!eq)
            continue;
        *eq = '\0';
        int p = mpb_param_find(s->params, s->n_params, kv);
        char why[256];
        CHECK(p >= 0 && mpb_param_parse(&s->params[p], eq + 1, &params[p], why, sizeof why), "%s: %s=%s",
              s->name, kv, eq + 1);
    }
}

/* vs_native: the error within 4× of native's, with `accurate` ("k=v k=v"
 * or NULL) set. */
static void check_case(const struct mpb_scheme *s, const struct mpb_scheme *real, const char *gen, double gp,
                       int64_t m, int64_t n, int64_t k, bool vs_native, const char *accurate)
{
    enum mpb_target t = s->target;
    const struct mpb_scheme *native = mpb_scheme_native(t, MPB_FIELD_COMPLEX);
    void *a = zeroed(t, 2 * m * k), *b = zeroed(t, 2 * k * n), *c = zeroed(t, 2 * m * n), *cn = zeroed(t, 2 * m * n);
    gen_host_fill_field(gen, gp, t, MPB_FIELD_COMPLEX, m, n, k, 1, a, b);
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = a, .b = b, .c = c, .field = MPB_FIELD_COMPLEX};
    double params[MPB_MAX_PARAMS], np[MPB_MAX_PARAMS] = {0};
    mpb_param_defaults(s->params, s->n_params, params);
    if (vs_native && accurate)
        set_params(s, params, accurate);
    run(s, params, &g);
    check_layout(s, real, params, &g);
    double worst, fro, nworst, nfro;
    errors(s, params, &g, c, &worst, &fro);
    CHECK(worst <= 1, "%s %s %lldx%lldx%lld: |diff|/bound %.3g", s->name, gen, (long long)m, (long long)n,
          (long long)k, worst);
    g.c = cn;
    run(native, np, &g);
    errors(native, np, &g, cn, &nworst, &nfro);
    if (vs_native)
        CHECK(fro <= 4 * nfro, "%s %s %g %lldx%lldx%lld: err_fro_rel %.3g vs %s %.3g", s->name, gen, gp,
              (long long)m, (long long)n, (long long)k, fro, native->name, nfro);
    printf("%-13s %-7s %-4g %4lld %4lld %4lld  err %.2e (%s %.2e)  |diff|/bound %.2g %s\n", s->name, gen, gp,
           (long long)m, (long long)n, (long long)k, fro, native->name, nfro, worst,
           vs_native && accurate ? accurate : "");
    free(a), free(b), free(c), free(cn);
}

static void check_nan_row(const struct mpb_scheme *s)
{
    enum mpb_target t = s->target;
    const int64_t m = 7, n = 5, k = 33;
    void *a = zeroed(t, 2 * m * k), *b = zeroed(t, 2 * k * n), *c = zeroed(t, 2 * m * n);
    gen_host_fill_field("randn", NAN, t, MPB_FIELD_COMPLEX, m, n, k, 5, a, b);
    elem_set(a, t, 2 * (2 + 4 * m) + 1, NAN);
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = a, .b = b, .c = c, .field = MPB_FIELD_COMPLEX};
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(s->params, s->n_params, params);
    run(s, params, &g);
    for (int64_t j = 0; j < n; j++)
        for (int q = 0; q < 2; q++)
            CHECK(isnan(elem_get(c, t, 2 * (2 + j * m) + q)), "%s: C(2,%lld) part %d = %g, want NaN", s->name,
                  (long long)j, q, elem_get(c, t, 2 * (2 + j * m) + q));
    free(a), free(b), free(c);
}

int main(void)
{
    /* complex scheme, its real one, the settings of the accuracy check */
    static const char *const names[][3] = {{"ozaki1_int8_z", "ozaki1_int8", NULL},
                                           {"adp_z", "adp", NULL},
                                           {"tf32x3_c", "tf32x3", "accum=rn flush_k=32"},
                                           {"ape_bf16x3_c", "ape_bf16x3", "accum=rn flush_k=32"}};
    static const int64_t shapes[][3] = {{1, 1, 1}, {7, 7, 7}, {1, 7, 127}, {127, 1, 7}, {7, 33, 1}, {33, 127, 7}};
    for (size_t si = 0; si < sizeof names / sizeof names[0]; si++) {
        const struct mpb_scheme *s = mpb_scheme_find(names[si][0]), *real = mpb_scheme_find(names[si][1]);
        CHECK(s && real && s->field == MPB_FIELD_COMPLEX && s->target == real->target &&
                  s->bitwise_host_device == real->bitwise_host_device && s->bound_rowcol == real->bound_rowcol,
              "%s: missing, not complex, or not %s's target and promises", names[si][0], names[si][1]);
        if (!s || !real)
            continue;
        for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
            check_case(s, real, "randn", NAN, shapes[sh][0], shapes[sh][1], shapes[sh][2], false, names[si][2]);
        check_case(s, real, "phi", 0.5, 40, 30, 64, true, names[si][2]);
        check_case(s, real, "randn", NAN, 40, 30, 64, true, names[si][2]);
        check_case(s, real, "phi", 2, 40, 30, 64, false, names[si][2]);
        check_case(s, real, "smallim", NAN, 40, 30, 64, false, names[si][2]);
        check_nan_row(s);
    }
    return check_report("test_complex_embed");
}
