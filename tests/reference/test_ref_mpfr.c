/* mpb_ref_mpfr: known exact answers (integers, cancellation, one ulp, ties
 * to even in fp64 and fp32 including subnormal results, overflow, a 2^±1000
 * spread, NaN/Inf), bitwise agreement with a naive MPFR evaluation (exact
 * products, 4400-bit exact accumulation, one rounding) on random data of
 * every exponent range, hi + lo against binary128, and thread-count
 * invariance. A failure prints the data's seed, the entry and k. */
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "elem.h"
#include "pcg32.h"
#include "reference.h"

/* Any sum of k < 2^100 products of doubles is exact in this precision: the
 * products lie in [2^-2148, 2^2048). */
#define NAIVE_PREC 4400

static bool same(double x, double y)
{
    return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
}

static bool ref_one(enum mpb_target t, const void *a, const void *b, int64_t k,
                    struct mpb_ref_value *v)
{
    struct mpb_gemm g = {1, 1, k, t, a, b, NULL, MPB_FIELD_REAL};
    struct mpb_ref_entry e = {0, 0};
    return mpb_ref_mpfr(&g, &e, 1, 1, v);
}

/* The dot product a·b of k doubles: check every field against its known value. */
static void expect64(const char *what, const double *a, const double *b, int64_t k,
                     double rounded, double lo, double absab)
{
    struct mpb_ref_value v;
    CHECK(ref_one(MPB_TARGET_FP64, a, b, k, &v), "%s: evaluation failed", what);
    CHECK(same(v.rounded, rounded) && same(v.hi, rounded), "%s: rounded %a hi %a, want %a", what,
          v.rounded, v.hi, rounded);
    CHECK(same(v.lo, lo), "%s: lo %a, want %a", what, v.lo, lo);
    CHECK(same(v.absab, absab), "%s: absab %a, want %a", what, v.absab, absab);
    CHECK(v.finite == (bool)isfinite(rounded), "%s: finite %d", what, v.finite);
}

/* The same for floats: the fp32 rounding, and hi + lo of the exact value. */
static void expect32(const char *what, const float *a, const float *b, int64_t k,
                     double rounded, double hi, double lo)
{
    struct mpb_ref_value v;
    CHECK(ref_one(MPB_TARGET_FP32, a, b, k, &v), "%s: evaluation failed", what);
    CHECK(same(v.rounded, rounded), "%s: rounded %a, want %a", what, v.rounded, rounded);
    CHECK(same(v.hi, hi) && same(v.lo, lo), "%s: hi %a lo %a, want %a %a", what, v.hi, v.lo,
          hi, lo);
}

static void test_exact_fp64(void)
{
    const double one[4] = {1, 1, 1, 1};
    /* Small integers: [1 2; 3 4]·[5 6; 7 8] = [19 22; 43 50], column-major. */
    const double a[4] = {1, 3, 2, 4}, b[4] = {5, 7, 6, 8}, c[4] = {19, 43, 22, 50};
    struct mpb_gemm g = {2, 2, 2, MPB_TARGET_FP64, a, b, NULL, MPB_FIELD_REAL};
    struct mpb_ref_entry e[4] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    struct mpb_ref_value v[4];
    CHECK(mpb_ref_mpfr(&g, e, 4, 2, v), "2x2: evaluation failed");
    for (int p = 0; p < 4; p++)
        CHECK(v[p].rounded == c[p] && v[p].lo == 0 && v[p].absab == c[p] && v[p].finite,
              "2x2 entry %d: %g %g %g", p, v[p].rounded, v[p].lo, v[p].absab);

    const double pw[4] = {0x1p-3, 0x1p40, -0x1p-10, 0x1p7};
    expect64("powers of two", pw, one, 4, 0x1p40 + 0x1p7 + 0x1p-3 - 0x1p-10, 0,
             0x1p40 + 0x1p7 + 0x1p-3 + 0x1p-10);

    const double x[2] = {0x1.8p0, -0x1.8p0};
    expect64("exact cancellation", x, one, 2, 0.0, 0.0, 0x1.8p1);
    const double ulp[2] = {0x1.0000000000001p0, -1};
    expect64("one ulp", ulp, one, 2, 0x1p-52, 0, 0x1.0000000000001p1); /* RU(2 + 2^-52) */

    /* 2^1000·x + 2^-1000·y − 2^1000·x = 2^-1000·y. */
    const double spread[3] = {0x1.123456789abcdp1000, 0x1.fedcba9876543p-1000,
                              -0x1.123456789abcdp1000};
    expect64("2^+-1000 spread", spread, one, 3, 0x1.fedcba9876543p-1000, 0,
             0x1.123456789abcep1001); /* RU(2^1001·x + tiny): one ulp up */
    /* Products outside the double range: 2^1100 − 2^1100 + 1.5·2^-1000 + 1. */
    const double big[4] = {0x1p600, -0x1p600, 0x1.8p-600, 1};
    const double big_b[4] = {0x1p500, 0x1p500, 0x1p-400, 1};
    expect64("products beyond the double range", big, big_b, 4, 1, 0x1.8p-1000, INFINITY);

    /* Ties in double, to even; a term far below the last bit breaks them
     * (S = RN_128 is then the midpoint, the ternary value decides). */
    const double t1[2] = {1, 0x1p-53}, t3[2] = {1, 0x1.8p-52};
    expect64("tie 1+2^-53 to even", t1, one, 2, 1, 0x1p-53, 1 + 0x1p-52);
    expect64("tie 1+3*2^-53 to even", t3, one, 2, 1 + 0x1p-51, -0x1p-53, 1 + 0x1p-51);
    const double up[3] = {1, 0x1p-53, 0x1p-1000}, dn[3] = {1, 0x1p-53, -0x1p-1000};
    expect64("tie broken up", up, one, 3, 1 + 0x1p-52, -0x1p-53, 1 + 0x1p-52);
    expect64("tie broken down", dn, one, 3, 1, 0x1p-53, 1 + 0x1p-52);
    /* lo far below hi: S cannot give it, the second sum does. */
    const double far[2] = {1, 0x1p-1000}, mid[3] = {1, 0x1p-80, 0x1p-1000};
    expect64("lo = 2^-1000", far, one, 2, 1, 0x1p-1000, 1 + 0x1p-52);
    expect64("lo = 2^-80", mid, one, 3, 1, 0x1p-80, 1 + 0x1p-52);

    /* Subnormal results: grid 2^-1074, ties to even. 5·2^-1075 would go
     * down to 2^-1073; 2^-1300 above it, it goes up, and C − hi rounds to −0. */
    const double s_a[2] = {0x1.4p-600, 0x1p-700}, s_b[2] = {0x1p-473, 0x1p-600};
    expect64("subnormal tie 5*2^-1075 broken up", s_a, s_b, 2, 0x1.8p-1073, -0.0, 0x1.8p-1073);
    const double h_a[1] = {0x1p-600}, h_b[1] = {0x1p-475};
    expect64("subnormal tie 2^-1075 to 0", h_a, h_b, 1, 0.0, 0.0, 0x1p-1074);
    const double hn_a[1] = {-0x1p-600};
    expect64("subnormal tie -2^-1075 to -0", hn_a, h_b, 1, -0.0, -0.0, 0x1p-1074);
    const double hu_a[2] = {0x1p-600, 0x1p-650}, hu_b[2] = {0x1p-475, 0x1p-650};
    expect64("subnormal tie 2^-1075 + 2^-1300 up", hu_a, hu_b, 2, 0x1p-1074, -0.0, 0x1p-1074);

    /* Overflow: DBL_MAX + 2^970 is the midpoint to 2^1024, ties to even
     * (DBL_MAX is odd) overflow; DBL_MAX + 2^969 rounds to DBL_MAX. */
    const double o_a[2] = {DBL_MAX, 0x1p485}, o_b[2] = {1, 0x1p485};
    expect64("overflow at the midpoint", o_a, o_b, 2, INFINITY, 0, INFINITY);
    const double n_b[2] = {1, 0x1p484};
    expect64("below the overflow midpoint", o_a, n_b, 2, DBL_MAX, 0x1p969, INFINITY);

    /* Non-finite inputs. */
    const double nan_a[2] = {1, NAN}, inf_a[2] = {INFINITY, 1}, mixed[2] = {INFINITY, -INFINITY};
    const double zero_b[2] = {0, 1};
    expect64("NaN input", nan_a, one, 2, NAN, 0, NAN);
    expect64("Inf input", inf_a, one, 2, INFINITY, 0, INFINITY);
    expect64("Inf - Inf", mixed, one, 2, NAN, 0, INFINITY);
    expect64("0 * Inf", inf_a, zero_b, 2, NAN, 0, NAN);

    expect64("k = 0", one, one, 0, 0.0, 0.0, 0.0);
}

static void test_exact_fp32(void)
{
    const float one[3] = {1, 1, 1};
    expect32("fp32 tie 1+2^-24 to even", (const float[]){1, 0x1p-24f}, one, 2, 1, 1 + 0x1p-24, 0);
    expect32("fp32 tie 1+3*2^-24 to even", (const float[]){1, 0x1.8p-23f}, one, 2, 1 + 0x1p-22,
             1 + 0x1.8p-23, 0);
    expect32("fp32 tie broken up", (const float[]){1, 0x1p-24f, 0x1p-100f}, one, 3, 1 + 0x1p-23,
             1 + 0x1p-24, 0x1p-100);
    /* Subnormal float results: grid 2^-149. 3·2^-150 ties to 2^-148. */
    expect32("fp32 subnormal tie up to even", (const float[]){0x1.8p-75f}, (const float[]){0x1p-74f},
             1, 0x1p-148, 0x1.8p-149, 0);
    expect32("fp32 subnormal tie 2^-150 to 0", (const float[]){0x1p-75f}, (const float[]){0x1p-75f},
             1, 0.0, 0x1p-150, 0);
    expect32("fp32 subnormal tie broken up", (const float[]){0x1p-75f, 0x1p-100f},
             (const float[]){0x1p-75f, 0x1p-100f}, 2, 0x1p-149, 0x1p-150 + 0x1p-200, 0);
    /* FLT_MAX + 2^103 is the midpoint to 2^128: overflows in fp32 only. */
    expect32("fp32 overflow", (const float[]){FLT_MAX, 0x1p103f}, one, 2, INFINITY,
             (double)FLT_MAX + 0x1p103, 0);
    expect32("fp32 below overflow", (const float[]){FLT_MAX, 0x1p102f}, one, 2, FLT_MAX,
             (double)FLT_MAX + 0x1p102, 0);
}

/* ---- random data against a naive, independent MPFR evaluation ---- */

enum family { FAM_UNIFORM, FAM_WIDE, FAM_CANCEL, FAM_SPECIAL, FAM_COUNT };
static const char *const family_name[FAM_COUNT] = {"uniform", "wide", "cancel", "special"};

static double uniform(struct mpb_pcg32 *g)
{
    return (double)mpb_pcg32_next(g) * 0x1p-32 + (double)mpb_pcg32_next(g) * 0x1p-64;
}

/* Element `idx` of operand `which` of a family: uniform(−1,1); times 2^e,
 * e in [−1100, 1000] (fp32: [−160, 120]: subnormal inputs, products beyond
 * the target's range, fp64 sums that overflow);
 * cancellation: the second half of the row of A repeats the first with the
 * sign flipped and B repeats, so C is the few unpaired terms (k odd) or 0;
 * special: 1% NaN/±Inf. */
static double element(enum family f, enum mpb_target t, int which, int64_t idx, int64_t k,
                      int64_t row, uint64_t seed)
{
    int64_t l = idx, half = k / 2;
    if (f == FAM_CANCEL && l >= half && l < 2 * half)
        l -= half;
    struct mpb_pcg32 g = mpb_pcg32_at(seed, (uint64_t)which, 8 * (uint64_t)(l + row * k));
    double x = 2 * uniform(&g) - 1;
    int span_lo = t == MPB_TARGET_FP64 ? -1100 : -160, span_hi = t == MPB_TARGET_FP64 ? 1000 : 120;
    if (f == FAM_WIDE || f == FAM_CANCEL)
        x = ldexp(x, span_lo + (int)(mpb_pcg32_next(&g) % (uint32_t)(span_hi - span_lo + 1)));
    if (f == FAM_CANCEL && which == 0 && idx != l)
        x = -x;
    if (f == FAM_SPECIAL && mpb_pcg32_next(&g) % 100 == 0) {
        static const double specials[3] = {NAN, INFINITY, -INFINITY};
        x = specials[mpb_pcg32_next(&g) % 3];
    }
    return t == MPB_TARGET_FP32 ? (double)(float)x : x;
}

/* A (m×k) and B (k×n) of a family, as the target's type. */
static void make(enum family f, enum mpb_target t, int64_t m, int64_t n, int64_t k, uint64_t seed,
                 void **a, void **b)
{
    size_t es = mpb_target_size(t);
    *a = malloc((size_t)(m * k) * es);
    *b = malloc((size_t)(k * n) * es);
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            double x = element(f, t, 0, l, k, i, seed);
            if (t == MPB_TARGET_FP64)
                ((double *)*a)[i + l * m] = x;
            else
                ((float *)*a)[i + l * m] = (float)x;
        }
    for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k; l++) {
            double y = element(f, t, 1, l, k, j, seed);
            if (t == MPB_TARGET_FP64)
                ((double *)*b)[l + j * k] = y;
            else
                ((float *)*b)[l + j * k] = (float)y;
        }
}

/* Entry (i, j) the plain way: mpfr_mul at 106 bits (exact), mpfr_add at
 * NAIVE_PREC (exact), one rounding at the end; and in binary128. */
static void naive(const struct mpb_gemm *g, int64_t i, int64_t j, struct mpb_ref_value *v,
                  __float128 *quad)
{
    mpfr_t x, y, p, acc, abs_acc;
    mpfr_inits2(53, x, y, (mpfr_ptr)0);
    mpfr_init2(p, 106);
    mpfr_inits2(NAIVE_PREC, acc, abs_acc, (mpfr_ptr)0);
    mpfr_set_zero(acc, 1);
    mpfr_set_zero(abs_acc, 1);
    *quad = 0;
    for (int64_t l = 0; l < g->k; l++) {
        double a = elem_get(g->a, g->target, i + l * g->m), b = elem_get(g->b, g->target, l + j * g->k);
        mpfr_set_d(x, a, MPFR_RNDN);
        mpfr_set_d(y, b, MPFR_RNDN);
        mpfr_mul(p, x, y, MPFR_RNDN);
        mpfr_add(acc, acc, p, MPFR_RNDN);
        mpfr_abs(p, p, MPFR_RNDN);
        mpfr_add(abs_acc, abs_acc, p, MPFR_RNDN);
        *quad += (__float128)a * b;
    }
    v->hi = mpfr_get_d(acc, MPFR_RNDN);
    v->rounded = g->target == MPB_TARGET_FP64 ? v->hi : (double)mpfr_get_flt(acc, MPFR_RNDN);
    v->finite = isfinite(v->hi);
    if (v->finite) {
        mpfr_sub_d(acc, acc, v->hi, MPFR_RNDN);
        v->lo = mpfr_get_d(acc, MPFR_RNDN);
    } else {
        v->lo = 0;
    }
    v->absab = mpfr_get_d(abs_acc, MPFR_RNDU);
    mpfr_clears(x, y, p, acc, abs_acc, (mpfr_ptr)0);
}

static void test_random(enum family f, enum mpb_target t, int64_t k, uint64_t seed)
{
    const int64_t m = 5, n = 4;
    void *a, *b;
    make(f, t, m, n, k, seed, &a, &b);
    struct mpb_gemm g = {m, n, k, t, a, b, NULL, MPB_FIELD_REAL};
    struct mpb_ref_entry e[20];
    struct mpb_ref_value v[20];
    for (int64_t p = 0; p < m * n; p++)
        e[p] = (struct mpb_ref_entry){p % m, p / m};
    CHECK(mpb_ref_mpfr(&g, e, m * n, 2, v), "evaluation failed");
    for (int64_t p = 0; p < m * n; p++) {
        struct mpb_ref_value w;
        __float128 quad;
        naive(&g, e[p].i, e[p].j, &w, &quad);
        bool ok = same(v[p].rounded, w.rounded) && same(v[p].hi, w.hi) && same(v[p].lo, w.lo) &&
                  same(v[p].absab, w.absab) && v[p].finite == w.finite;
        CHECK(ok, "%s %s k=%lld seed=%llu entry (%lld,%lld): got %a %a %a %a %d, naive %a %a %a %a %d",
              family_name[f], t == MPB_TARGET_FP64 ? "fp64" : "fp32", (long long)k,
              (unsigned long long)seed, (long long)e[p].i, (long long)e[p].j, v[p].rounded,
              v[p].hi, v[p].lo, v[p].absab, v[p].finite, w.rounded, w.hi, w.lo, w.absab,
              w.finite);
        /* binary128 sums the exact products with error ≤ (k−1)·2^-113·|A||B|
         * (Higham eq. 3.5); hi + lo is within 2^-105·|C| of C. */
        if (f == FAM_UNIFORM) {
            __float128 diff = (quad - (__float128)v[p].hi) - (__float128)v[p].lo;
            double tol = ((double)k * 0x1p-113 + 0x1p-105) * v[p].absab;
            CHECK(fabs((double)diff) <= tol, "binary128: k=%lld entry %lld: |diff| %a > %a",
                  (long long)k, (long long)p, (double)diff, tol);
        }
    }
    free(a);
    free(b);
}

/* Output of 1 and 3 threads (and one per core) is bitwise the same. */
static void test_threads(enum mpb_target t)
{
    const int64_t m = 37, n = 23, k = 300, count = m * n;
    void *a, *b;
    make(FAM_WIDE, t, m, n, k, 99, &a, &b);
    struct mpb_gemm g = {m, n, k, t, a, b, NULL, MPB_FIELD_REAL};
    struct mpb_ref_entry *e = malloc((size_t)count * sizeof *e);
    struct mpb_ref_value *v1 = calloc((size_t)count, sizeof *v1), *v3 = calloc((size_t)count, sizeof *v3),
                         *v0 = calloc((size_t)count, sizeof *v0);
    for (int64_t p = 0; p < count; p++)
        e[p] = (struct mpb_ref_entry){p % m, p / m};
    CHECK(mpb_ref_mpfr(&g, e, count, 1, v1) && mpb_ref_mpfr(&g, e, count, 3, v3) &&
              mpb_ref_mpfr(&g, e, count, 0, v0),
          "evaluation failed");
    CHECK(memcmp(v1, v3, (size_t)count * sizeof *v1) == 0, "1 and 3 threads differ");
    CHECK(memcmp(v1, v0, (size_t)count * sizeof *v1) == 0, "1 thread and one per core differ");
    struct mpb_ref_entry bad = {m, 0};
    CHECK(!mpb_ref_mpfr(&g, &bad, 1, 1, v1), "row m accepted");
    CHECK(mpb_ref_mpfr(&g, e, 0, 0, v1), "no entries: must succeed");
    free(e);
    free(v0);
    free(v1);
    free(v3);
    free(a);
    free(b);
}

int main(void)
{
    test_exact_fp64();
    test_exact_fp32();
    static const int64_t ks[] = {1, 2, 7, 64, 1001};
    for (int f = 0; f < FAM_COUNT; f++)
        for (int t = 0; t < 2; t++)
            for (size_t q = 0; q < sizeof ks / sizeof *ks; q++)
                for (uint64_t seed = 1; seed <= 3; seed++)
                    test_random((enum family)f, (enum mpb_target)t, ks[q], seed);
    test_threads(MPB_TARGET_FP64);
    test_threads(MPB_TARGET_FP32);
    return check_report("test_ref_mpfr");
}
