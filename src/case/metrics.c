/* Error metrics and the per-case grade (README "Accuracy: the reference and
 * the grades"). Entry classes:
 *  - finite reference (the usual case): errors against the exact C = hi + lo;
 *  - reference NaN/±Inf in the target format (non-finite inputs, or an exact
 *    value beyond the target's range): compared like native, counted in the
 *    note, outside every error and ρ. */
#include "case/metrics.h"

#include "case/stats.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Squares of target elements span 2^-2148 … 2^2048: a double sum of squares
 * overflows for Test 2 swept to b = 510 (entries up to 2^511) and for the
 * outer/evil generators, and flushes subnormal squares to 0. Every sum of
 * squares and every error here is long double; x86's 80-bit format (and IEEE
 * quad) has a 15-bit exponent, so nothing overflows or underflows for any
 * k < 2^64. This is where mpbench relies on it: where long double is double
 * (MSVC) or double-double (PowerPC), the build fails instead of reporting
 * ρ_B = ρ_C = 0. */
_Static_assert(LDBL_MAX_EXP > 2 * DBL_MAX_EXP + 64 && LDBL_MIN_EXP < 2 * (DBL_MIN_EXP - DBL_MANT_DIG),
               "metrics.c needs a long double whose exponent range holds squares of doubles");

double mpb_unit_roundoff(enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? 0x1p-53 : 0x1p-24;
}

char mpb_grade_of(double rho_a, double rho_b, double rho_c, int64_t k, int64_t nonfinite)
{
    /* A non-finite output on finite input is F whatever the ρ (README
     * "Accuracy: the reference and the grades"); a NaN ρ fails every
     * comparison below and also gives F. */
    if (nonfinite > 0)
        return 'F';
    double kd = (double)k;
    if (rho_a <= 10 * kd)
        return 'A';
    if (rho_b <= 10 * kd)
        return 'B';
    /* k^log2(12) written as 12^log2(k): the same number, and exact when k is
     * a power of two (log2 is then an integer), so the bound there is exact. */
    if (rho_c <= 10 * pow(12.0, log2(kd)))
        return 'C';
    return 'F';
}

static double elem(const void *p, int64_t idx, enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? ((const double *)p)[idx] : ((const float *)p)[idx];
}

/* |x|² of element idx, both parts of a complex one. */
static long double elem_sq(const struct mpb_gemm *g, const void *p, int64_t idx)
{
    int parts = mpb_field_parts(g->field);
    long double s = 0;
    for (int q = 0; q < parts; q++) {
        long double x = elem(p, idx * parts + q, g->target);
        s += x * x;
    }
    return s;
}

/* README's conventions: 0/0 = 0, x/0 = +Inf; an infinite error (non-finite
 * Ĉ) stays infinite whatever the denominator. */
static long double ratio(long double x, long double y)
{
    if (x == 0)
        return 0;
    if (y == 0 || isinf(x))
        return INFINITY;
    return x / y;
}

/* |Ĉ_ij − C_ij| against the exact C = hi + lo, not the rounded value (a
 * correctly rounded Ĉ must show its ≤ u/2 error). (long double)ĉ − hi is
 * exact whenever ĉ is within a factor 2 of hi (Sterbenz), the only case
 * where the digits of the error matter; in long double it is exact for any
 * exponent gap ≤ 11, and beyond that |ĉ − hi| ≫ |hi| and its 2^-64 relative
 * rounding is invisible in a ratio printed to a few digits. Subtracting lo
 * (≤ ulp(hi)/2) then rounds once. The wide exponent keeps ĉ ≈ −hi ≈ DBL_MAX
 * from overflowing. */
static long double entry_error(double c_hat, const struct mpb_ref_value *v)
{
    if (!isfinite(c_hat))
        return INFINITY;
    return fabsl(((long double)c_hat - v->hi) - v->lo);
}

/* The rule for special values (reported, not graded): where the rounded
 * reference is NaN or ±Inf, Ĉ must be what native IEEE arithmetic gives. */
static bool like_native(double c_hat, double expected)
{
    return isnan(expected) ? isnan(c_hat) : c_hat == expected;
}

/* ra[i] = Σ_l A(i,l)² for every row (one pass down each column: A is
 * column-major); returns ‖A‖_F². All rows, not only the checked ones:
 * ρ_C needs the whole ‖A‖_F anyway, at the same O(mk) cost. */
static long double row_squares(const struct mpb_gemm *g, long double *ra)
{
    long double total = 0;
    for (int64_t i = 0; i < g->m; i++)
        ra[i] = 0;
    for (int64_t l = 0; l < g->k; l++)
        for (int64_t i = 0; i < g->m; i++)
            ra[i] += elem_sq(g, g->a, i + l * g->m);
    for (int64_t i = 0; i < g->m; i++)
        total += ra[i];
    return total;
}

/* cb[j] = Σ_l B(l,j)²; returns ‖B‖_F². */
static long double col_squares(const struct mpb_gemm *g, long double *cb)
{
    long double total = 0;
    for (int64_t j = 0; j < g->n; j++) {
        long double s = 0;
        for (int64_t l = 0; l < g->k; l++)
            s += elem_sq(g, g->b, l + j * g->k);
        cb[j] = s;
        total += s;
    }
    return total;
}

struct tally {
    long double err2, c2;                 /* Σ|Ĉ−C|², Σ|C|² */
    long double max_rel, rho_a, rho_b, rho_c;
    long double rho_re, rho_im;           /* complex: per part */
    int64_t finite, nonzero;              /* entries with a finite reference; of them, C ≠ 0 */
    int64_t special, native;              /* entries with a NaN/±Inf reference; of them, like native */
    int64_t nonfinite;
    int64_t cr_mismatch;                  /* Ĉ ≠ the correctly rounded C_ij */
    double *rel;                          /* |Ĉ−C|/|C| of each finite entry, for the median */
};

/* The header keeps a non-finite sum in hi; a finite one whose rounding to
 * the target overflows shows it in `rounded`. */
static double expected_of(const struct mpb_ref_value *v)
{
    return v->finite ? v->rounded : v->hi;
}

/* One checked entry with a finite reference: its error |Ĉ−C|, |C|, whether
 * Ĉ is not the correctly rounded C, whether Ĉ is not finite, and the
 * denominators of ρ_A, ρ_B, ρ_C before u. */
static void tally_core(struct tally *t, long double err, long double c_abs, bool mismatch, bool nonfinite,
                       long double u, long double absab, long double row_col, long double fro)
{
    long double rel = ratio(err, c_abs);
    t->nonfinite += nonfinite;
    t->cr_mismatch += mismatch;
    t->err2 += err * err;
    t->c2 += c_abs * c_abs;
    t->rel[t->finite++] = (double)rel;
    if (c_abs != 0) {
        t->nonzero++;
        t->max_rel = fmaxl(t->max_rel, rel);
    }
    t->rho_a = fmaxl(t->rho_a, ratio(err, u * absab));
    t->rho_b = fmaxl(t->rho_b, ratio(err, u * row_col));
    t->rho_c = fmaxl(t->rho_c, ratio(err, u * fro));
}

static void tally_entry(struct tally *t, double c_hat, const struct mpb_ref_value *v, long double u,
                        long double row_col, long double fro)
{
    double expected = expected_of(v);
    if (!isfinite(expected)) {
        t->special++;
        t->native += like_native(c_hat, expected);
        return;
    }
    /* C = 0 exactly when hi = 0 (then lo = 0), up to the reference's own
     * floor: |C| < 2^-1075 also gives hi = lo = 0. == ignores the sign of a
     * zero: RN gives +0 for an exact 0, but −0 is the same value. */
    tally_core(t, entry_error(c_hat, v), fabsl((long double)v->hi + v->lo), c_hat != expected,
               !isfinite(c_hat), u, v->absab, row_col, fro);
}

/* k-fold rounding in long double, about k·2^-64 relative, is invisible in ρ. */
long double mpb_complex_absab(const struct mpb_gemm *g, int64_t i, int64_t j)
{
    long double s = 0;
    for (int64_t l = 0; l < g->k; l++)
        s += sqrtl(elem_sq(g, g->a, i + l * g->m)) * sqrtl(elem_sq(g, g->b, l + j * g->k));
    return s;
}

/* A complex entry: the error is the modulus of the two parts' errors, each
 * against its exact part; ρ_A against the modulus (|A||B|)_ij, and each
 * part against its own Σ|·||·| from the reference (per-part ρ). */
static void tally_complex(struct tally *t, const struct mpb_gemm *g, int64_t i, int64_t j,
                          const struct mpb_ref_value *v, long double u, long double row_col, long double fro)
{
    int64_t at = 2 * (i + j * g->m);
    double re = elem(g->c, at, g->target), im = elem(g->c, at + 1, g->target);
    double want_re = expected_of(&v[0]), want_im = expected_of(&v[1]);
    if (!isfinite(want_re) || !isfinite(want_im)) {
        t->special++;
        t->native += like_native(re, want_re) && like_native(im, want_im);
        return;
    }
    long double err_re = entry_error(re, &v[0]), err_im = entry_error(im, &v[1]);
    long double c_abs = hypotl((long double)v[0].hi + v[0].lo, (long double)v[1].hi + v[1].lo);
    tally_core(t, hypotl(err_re, err_im), c_abs, re != want_re || im != want_im,
               !isfinite(re) || !isfinite(im), u, mpb_complex_absab(g, i, j), row_col, fro);
    t->rho_re = fmaxl(t->rho_re, ratio(err_re, u * v[0].absab));
    t->rho_im = fmaxl(t->rho_im, ratio(err_im, u * v[1].absab));
}

static void finish(const struct tally *t, int64_t k, bool inputs_finite, bool complex, struct mpb_metrics *out)
{
    if (t->finite > 0) {
        out->err_fro_rel = (double)ratio(sqrtl(t->err2), sqrtl(t->c2));
        out->err_median_rel = mpb_median(t->rel, t->finite); /* no NaN: each is ≥ 0 or +Inf */
        out->rho_a_max = (double)t->rho_a;
        out->rho_b_max = (double)t->rho_b;
        /* ‖A‖_F‖B‖_F is NaN or Inf with a non-finite input anywhere: ρ_C is undefined. */
        out->rho_c_max = inputs_finite ? (double)t->rho_c : NAN;
        if (complex) {
            out->rho_a_re_max = (double)t->rho_re;
            out->rho_a_im_max = (double)t->rho_im;
        }
    }
    if (t->nonzero > 0)
        out->err_max_rel = (double)t->max_rel;
    out->nonfinite = t->nonfinite;
    out->cr_mismatch = t->finite > 0 ? t->cr_mismatch : -1;

    /* F is given only for finite, in-range input; NaN/Inf propagation is
     * the extended family, reported but not graded. */
    const char *why = NULL;
    if (!inputs_finite)
        why = "non-finite inputs: outside the A/B/C verdict (grading.md extended family)";
    else if (t->special > 0)
        why = "exact C out of the target's range: outside the A/B/C verdict (grading.md: in-range input)";
    if (why) {
        snprintf(out->note, sizeof out->note, "%s; like native on %lld of %lld non-finite entries",
                 why, (long long)t->native, (long long)t->special);
    } else if (t->finite == 0) {
        snprintf(out->note, sizeof out->note, "no entries checked");
    } else {
        out->grade[0] = mpb_grade_of(out->rho_a_max, out->rho_b_max, out->rho_c_max, k, out->nonfinite);
    }
}

void mpb_metrics_compute(const struct mpb_gemm *g, const struct mpb_ref_entry *e,
                         const struct mpb_ref_value *v, int64_t n, struct mpb_metrics *out)
{
    memset(out, 0, sizeof *out);
    out->entries = n;
    out->err_fro_rel = out->err_max_rel = out->err_median_rel = NAN;
    out->rho_a_max = out->rho_b_max = out->rho_c_max = NAN;
    out->rho_a_re_max = out->rho_a_im_max = NAN;
    out->ref_check = NAN;
    out->cr_mismatch = -1;

    long double *ra = malloc(sizeof *ra * (size_t)(g->m > 0 ? g->m : 1));
    long double *cb = malloc(sizeof *cb * (size_t)(g->n > 0 ? g->n : 1));
    struct tally t = {.rel = malloc(sizeof *t.rel * (size_t)(n > 0 ? n : 1))};
    if (!ra || !cb || !t.rel) {
        snprintf(out->note, sizeof out->note, "metrics: out of host memory for %lld entries", (long long)n);
        free(ra);
        free(cb);
        free(t.rel);
        return;
    }
    long double fro_a2 = row_squares(g, ra), fro_b2 = col_squares(g, cb);
    /* A sum of squares of finite elements cannot overflow long double (see
     * the assertion above), so a non-finite ‖A‖_F² means a NaN/±Inf element.
     * Any element counts, checked entry or not: emulations scale by row,
     * column or whole-matrix maxima, so one NaN can reach every entry. */
    bool inputs_finite = isfinite(fro_a2) && isfinite(fro_b2);
    long double u = mpb_unit_roundoff(g->target), fro = sqrtl(fro_a2) * sqrtl(fro_b2);
    bool complex = g->field == MPB_FIELD_COMPLEX;
    for (int64_t p = 0; p < n; p++) {
        int64_t i = e[p].i, j = e[p].j;
        long double row_col = sqrtl(ra[i]) * sqrtl(cb[j]);
        if (complex)
            tally_complex(&t, g, i, j, &v[2 * p], u, row_col, fro);
        else
            tally_entry(&t, elem(g->c, i + j * g->m, g->target), &v[p], u, row_col, fro);
    }
    finish(&t, g->k, inputs_finite, complex, out);
    free(ra);
    free(cb);
    free(t.rel);
}
