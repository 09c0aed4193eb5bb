/* Ozaki-II's scaling is scale-invariant (kernels/ozaki2/README.md "Fast-mode
 * scaling"): multiplying an operand by a constant that is not a power of two
 * (3, 1/3, 1e±30), or each row of A and column of B by such factors, keeps
 * the error class of both modes and both targets. Kawakami and Takahashi
 * (arXiv 2606.29129) show that the original fast-mode scaling of GEMMul8
 * does not: a small constant breaks the CRT reconstruction (relative error
 * about 1), a large one costs about as many bits as its exponent.
 * Per case, against MPFR's exact C on every entry:
 *  - one constant on A, on B or on both: err_fro_rel within 4× of the
 *    unscaled operands' (one binade of the scale on each side is the
 *    granularity of a power-of-two scaling: up to 2× each way, and the
 *    data differ by the rounding of the product);
 *  - row and column factors 10^u·3^v (u uniform in ±30, fp32 ±12): the
 *    row/column-wise error max |Ĉ−C|_ij/(u‖A(i,:)‖₂‖B(:,j)‖₂) within 4× of
 *    the unscaled operands';
 * and never a non-finite output. Prints each ratio (the README's table). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "elem.h"
#define TEST_RNG_SEED 0x243F6A8885A308D3ull
#include "rng.h"
#include "gen_host.h"
#include "generators.h"
#include "ozaki2/ozaki2.h"
#include "reference.h"
#include "schemes/registry.h"

enum { M = 24, N = 20, K = 96 };

struct errs {
    double fro, rowcol; /* err_fro_rel; max |Ĉ−C|_ij/(u‖a_i‖₂‖b_j‖₂) */
    int nonfinite;
};

/* The scheme's host model on (a, b), its errors against the exact C. */
static struct errs run(const struct mpb_scheme *s, int moduli, int mode, const void *a, const void *b)
{
    enum mpb_target t = s->target;
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(s->params, s->n_params, params);
    params[MPB_OZ2_MODULI] = moduli;
    params[MPB_OZ2_MODE] = mode;
    static double c[M * N];
    struct mpb_gemm g = {.m = M, .n = N, .k = K, .target = t, .a = a, .b = b, .c = c};
    struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
    CHECK(s->run_host(&g, params, &info) == MPB_STATUS_OK, "%s: %s", s->name, info.note);
    static struct mpb_ref_entry e[M * N];
    static struct mpb_ref_value v[M * N];
    for (int p = 0; p < M * N; p++)
        e[p] = (struct mpb_ref_entry){.i = p % M, .j = p / M};
    CHECK(mpb_ref_mpfr(&g, e, M * N, 1, v), "MPFR reference");
    long double num = 0, den = 0, ra[M] = {0}, rb[N] = {0};
    for (int l = 0; l < K; l++) {
        for (int i = 0; i < M; i++)
            ra[i] += (long double)elem_get(a, t, i + l * M) * elem_get(a, t, i + l * M);
        for (int j = 0; j < N; j++)
            rb[j] += (long double)elem_get(b, t, l + j * K) * elem_get(b, t, l + j * K);
    }
    struct errs r = {0, 0, 0};
    double u = t == MPB_TARGET_FP64 ? 0x1p-53 : 0x1p-24;
    for (int p = 0; p < M * N; p++) {
        double x = elem_get(c, t, p);
        long double exact = (long double)v[p].hi + v[p].lo, d = (long double)x - exact;
        r.nonfinite += !isfinite(x);
        num += d * d;
        den += exact * exact;
        long double scale = u * sqrtl(ra[p % M]) * sqrtl(rb[p / M]);
        if (scale > 0)
            r.rowcol = fmax(r.rowcol, (double)(fabsl(d) / scale));
    }
    r.fro = den > 0 ? (double)sqrtl(num / den) : 0;
    return r;
}

/* A·ca and B·cb, entry by entry in the target's precision. */
static void scale_all(enum mpb_target t, const void *a, const void *b, double ca, double cb, void *a2, void *b2)
{
    for (int p = 0; p < M * K; p++)
        elem_set(a2, t, p, elem_get(a, t, p) * ca);
    for (int p = 0; p < K * N; p++)
        elem_set(b2, t, p, elem_get(b, t, p) * cb);
}

/* diag(r)·A and B·diag(s) with factors 10^u·3^v, u uniform in ±span,
 * v in {−2..2}: never powers of two. */
static void scale_rowcol(enum mpb_target t, const void *a, const void *b, int span, void *a2, void *b2)
{
    double r[M], s[N];
    for (int i = 0; i < M + N; i++) {
        double f = pow(10.0, (double)((int)(rng_next() % (uint64_t)(2 * span + 1)) - span)) *
                   pow(3.0, (double)((int)(rng_next() % 5) - 2));
        if (i < M)
            r[i] = f;
        else
            s[i - M] = f;
    }
    for (int l = 0; l < K; l++) {
        for (int i = 0; i < M; i++)
            elem_set(a2, t, i + l * M, elem_get(a, t, i + l * M) * r[i]);
        for (int j = 0; j < N; j++)
            elem_set(b2, t, l + j * K, elem_get(b, t, l + j * K) * s[j]);
    }
}

static bool within(double x, double ref, double factor)
{
    return x <= ref * factor && x * factor >= ref;
}

int main(void)
{
    /* the defaults, and counts where the truncation error is far above the
     * final rounding (at the defaults it is below it in fp32) */
    static const struct {
        const char *name;
        int moduli;
    } schemes[] = {{"ozaki2_int8", 15}, {"ozaki2_int8", 11}, {"ozaki2_int8_sp", 8}, {"ozaki2_int8_sp", 5}};
    static const struct {
        const char *name;
        double param;
    } gens[] = {{"phi", 0.5}, {"phi", 2}, {"randn", NAN}, {"uniform", NAN}};
    /* fp64 only: C = 1e-60·(AB) underflows fp32 (any method returns 0) */
    static const struct {
        double ca, cb;
        bool fp64_only;
    } consts[] = {{3, 1, false},      {1.0 / 3, 1, false},   {1, 3, false},         {3, 1.0 / 3, false},
                  {1e30, 1, false},   {1e-30, 1, false},     {1, 1e30, false},      {1, 1e-30, false},
                  {1e30, 1e-30, false}, {1e15, 1e15, false}, {1e-15, 1e-15, false}, {1e-30, 1e-30, true}};
    static double a[M * K], b[K * N], a2[M * K], b2[K * N];
    const double factor = 4;
    for (size_t si = 0; si < sizeof schemes / sizeof schemes[0]; si++) {
        const struct mpb_scheme *s = mpb_scheme_find(schemes[si].name);
        int nm = schemes[si].moduli;
        enum mpb_target t = s->target;
        for (int mode = MPB_OZ2_FAST; mode <= MPB_OZ2_ACCURATE; mode++)
            for (size_t gi = 0; gi < sizeof gens / sizeof gens[0]; gi++) {
                gen_host_fill(gens[gi].name, gens[gi].param, t, M, N, K, 3, a, b);
                struct errs e0 = run(s, nm, mode, a, b);
                char what[96];
                snprintf(what, sizeof what, "%s moduli=%d %s %s(%g)", s->name, nm, mode ? "accurate" : "fast",
                         gens[gi].name, gens[gi].param);
                printf("%s: err_fro_rel %.3g, rowcol %.3g\n", what, e0.fro, e0.rowcol);
                for (size_t ci = 0; ci < sizeof consts / sizeof consts[0]; ci++) {
                    if (consts[ci].fp64_only && t != MPB_TARGET_FP64)
                        continue;
                    scale_all(t, a, b, consts[ci].ca, consts[ci].cb, a2, b2);
                    struct errs e = run(s, nm, mode, a2, b2);
                    printf("  A*%g B*%g: err_fro_rel %.3g (x%.2f)\n", consts[ci].ca, consts[ci].cb, e.fro,
                           e.fro / e0.fro);
                    CHECK(e.nonfinite == 0 && within(e.fro, e0.fro, factor),
                          "%s, A*%g B*%g: err_fro_rel %.3g against %.3g unscaled (%d non-finite)", what,
                          consts[ci].ca, consts[ci].cb, e.fro, e0.fro, e.nonfinite);
                }
                for (int rep = 0; rep < 3; rep++) {
                    scale_rowcol(t, a, b, t == MPB_TARGET_FP64 ? 30 : 12, a2, b2);
                    struct errs e = run(s, nm, mode, a2, b2);
                    printf("  rows/cols 10^(+-%d)*3^(+-2): rowcol %.3g (x%.2f)\n", t == MPB_TARGET_FP64 ? 30 : 12,
                           e.rowcol, e.rowcol / e0.rowcol);
                    CHECK(e.nonfinite == 0 && within(e.rowcol, e0.rowcol, factor),
                          "%s, rows/columns scaled: row/column-wise error %.3g against %.3g unscaled (%d non-finite)",
                          what, e.rowcol, e0.rowcol, e.nonfinite);
                }
            }
    }
    return check_report("test_ozaki2_scaling");
}
