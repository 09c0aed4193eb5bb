/* mpb_ref_mpfr on complex operands against an independent oracle: each part
 * of C_ij summed from the complex formula itself (Re = Σ ar·br − ai·bi,
 * Im = Σ ar·bi + ai·br) with every product and the sum exact in a
 * 4400-bit MPFR number, rounded once to the target; (|A||B|) per part as the
 * same sum of absolute values rounded up. Random data over wide exponent
 * ranges, fp64 and fp32, k from 1 to 40, and known answers ((1+i)² = 2i, a
 * real part that cancels exactly). */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>

#include "check.h"
#include "elem.h"
#define TEST_RNG_SEED 0x5EEDC0FFEE12345ull
#include "rng.h"
#include "reference.h"

#define NAIVE_PREC 4400

static bool same(double x, double y)
{
    return (isnan(x) && isnan(y)) || x == y;
}

/* A random value of the target with exponent in [-span, span]. */
static double random_value(enum mpb_target t, int span)
{
    double sig = (double)(rng_next() >> 11) * 0x1p-53 + 0.5;
    int e = (int)(rng_next() % (uint64_t)(2 * span + 1)) - span;
    double x = ldexp(rng_next() & 1 ? -sig : sig, e);
    return t == MPB_TARGET_FP32 ? (double)(float)x : x;
}

/* Part `part` of Σ_l a_l·b_l over the interleaved complex vectors, exactly,
 * rounded to the target (and |·| summed rounded up into *absab). */
static double oracle(enum mpb_target t, const void *a, const void *b, int64_t k, int part, double *absab)
{
    mpfr_t s, abs_s, p;
    mpfr_inits2(NAIVE_PREC, s, abs_s, p, (mpfr_ptr)0);
    mpfr_set_zero(s, 1);
    mpfr_set_zero(abs_s, 1);
    for (int64_t l = 0; l < k; l++) {
        double ar = elem_get(a, t, 2 * l), ai = elem_get(a, t, 2 * l + 1);
        double br = elem_get(b, t, 2 * l), bi = elem_get(b, t, 2 * l + 1);
        double x[2] = {ar, part ? ai : -ai}, y[2] = {part ? bi : br, part ? br : bi};
        for (int q = 0; q < 2; q++) {
            mpfr_set_d(p, x[q], MPFR_RNDN);
            mpfr_mul_d(p, p, y[q], MPFR_RNDN); /* exact: 106 bits ≤ NAIVE_PREC */
            mpfr_add(s, s, p, MPFR_RNDN);      /* exact: every term lies in [2^-2148, 2^2048) */
            mpfr_abs(p, p, MPFR_RNDN);
            mpfr_add(abs_s, abs_s, p, MPFR_RNDN);
        }
    }
    double r;
    if (t == MPB_TARGET_FP64) {
        r = mpfr_get_d(s, MPFR_RNDN);
    } else {
        /* One rounding to binary32, subnormals included. */
        mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
        mpfr_t f;
        mpfr_init2(f, 24);
        mpfr_set_emin(-148);
        mpfr_set_emax(128);
        int tern = mpfr_set(f, s, MPFR_RNDN);
        tern = mpfr_check_range(f, tern, MPFR_RNDN);
        mpfr_subnormalize(f, tern, MPFR_RNDN);
        r = mpfr_get_d(f, MPFR_RNDN);
        mpfr_set_emin(emin);
        mpfr_set_emax(emax);
        mpfr_clear(f);
    }
    *absab = mpfr_get_d(abs_s, MPFR_RNDU);
    mpfr_clears(s, abs_s, p, (mpfr_ptr)0);
    return r;
}

/* A 1×1 complex product of length k: A is 1×k, B is k×1, both interleaved. */
static void check_one(enum mpb_target t, const void *a, const void *b, int64_t k, const char *what)
{
    struct mpb_gemm g = {1, 1, k, t, a, b, NULL, MPB_FIELD_COMPLEX};
    struct mpb_ref_entry e = {0, 0};
    struct mpb_ref_value v[2];
    CHECK(mpb_ref_mpfr(&g, &e, 1, 1, v), "%s: evaluation failed", what);
    for (int part = 0; part < 2; part++) {
        double absab, want = oracle(t, a, b, k, part, &absab);
        CHECK(same(v[part].rounded, want), "%s k=%lld part %d: rounded %a, oracle %a", what, (long long)k,
              part, v[part].rounded, want);
        CHECK(same(v[part].absab, absab), "%s k=%lld part %d: absab %a, oracle %a", what, (long long)k, part,
              v[part].absab, absab);
    }
}

static void test_known(void)
{
    double a[2] = {1, 1}, b[2] = {1, 1};
    struct mpb_gemm g = {1, 1, 1, MPB_TARGET_FP64, a, b, NULL, MPB_FIELD_COMPLEX};
    struct mpb_ref_entry e = {0, 0};
    struct mpb_ref_value v[2];
    CHECK(mpb_ref_mpfr(&g, &e, 1, 1, v), "(1+i)^2: evaluation failed");
    CHECK(v[0].rounded == 0 && v[0].absab == 2, "(1+i)^2: Re %a absab %a, want 0 and 2", v[0].rounded, v[0].absab);
    CHECK(v[1].rounded == 2 && v[1].absab == 2, "(1+i)^2: Im %a absab %a, want 2 and 2", v[1].rounded, v[1].absab);
    /* (2^60 + i)(2^60 − i)... a real part whose terms cancel to 1 + 2^120. */
    double c[2] = {0x1p60, 1}, d[2] = {0x1p60, -1};
    g.a = c;
    g.b = d;
    CHECK(mpb_ref_mpfr(&g, &e, 1, 1, v), "cancel: evaluation failed");
    CHECK(v[0].hi == 0x1p120 && v[0].lo == 1, "cancel: Re hi %a lo %a, want 2^120 + 1", v[0].hi, v[0].lo);
    CHECK(v[1].rounded == 0, "cancel: Im %a, want 0", v[1].rounded);
}

static void test_random(enum mpb_target t)
{
    static const int spans[] = {0, 8, 60};
    for (int si = 0; si < 3; si++)
        for (int64_t k = 1; k <= 40; k += 3) {
            size_t es = mpb_target_size(t);
            void *a = malloc(2 * (size_t)k * es), *b = malloc(2 * (size_t)k * es);
            for (int64_t l = 0; l < 2 * k; l++) {
                elem_set(a, t, l, random_value(t, spans[si]));
                elem_set(b, t, l, random_value(t, spans[si]));
            }
            check_one(t, a, b, k, t == MPB_TARGET_FP64 ? "fp64" : "fp32");
            free(a);
            free(b);
        }
}

/* A 3×2 case through the entry list: each entry's parts land at 2p, 2p+1. */
static void test_layout(void)
{
    enum { M = 3, N = 2, K = 4 };
    double a[2 * M * K], b[2 * K * N];
    for (int p = 0; p < 2 * M * K; p++)
        a[p] = random_value(MPB_TARGET_FP64, 4);
    for (int p = 0; p < 2 * K * N; p++)
        b[p] = random_value(MPB_TARGET_FP64, 4);
    struct mpb_gemm g = {M, N, K, MPB_TARGET_FP64, a, b, NULL, MPB_FIELD_COMPLEX};
    struct mpb_ref_entry e[M * N];
    struct mpb_ref_value v[2 * M * N];
    for (int p = 0; p < M * N; p++)
        e[p] = (struct mpb_ref_entry){p % M, p / M};
    CHECK(mpb_ref_mpfr(&g, e, M * N, 2, v), "layout: evaluation failed");
    for (int p = 0; p < M * N; p++) {
        double x[2 * K], y[2 * K];
        for (int l = 0; l < K; l++) {
            x[2 * l] = a[2 * (e[p].i + l * M)];
            x[2 * l + 1] = a[2 * (e[p].i + l * M) + 1];
            y[2 * l] = b[2 * (l + e[p].j * K)];
            y[2 * l + 1] = b[2 * (l + e[p].j * K) + 1];
        }
        for (int part = 0; part < 2; part++) {
            double absab, want = oracle(MPB_TARGET_FP64, x, y, K, part, &absab);
            CHECK(v[2 * p + part].rounded == want, "layout: entry (%lld, %lld) part %d: %a, oracle %a",
                  (long long)e[p].i, (long long)e[p].j, part, v[2 * p + part].rounded, want);
        }
    }
}

int main(void)
{
    test_known();
    test_random(MPB_TARGET_FP64);
    test_random(MPB_TARGET_FP32);
    test_layout();
    return check_report("test_ref_complex");
}
