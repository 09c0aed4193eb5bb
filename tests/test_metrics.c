/* Error metrics and grades on hand-made cases with known exact values
 * (README "Accuracy: the reference and the grades"): exact and 1-ulp
 * results, the exact value hi + lo rather than the rounded one, cancellation
 * and the 0/0, x/0 conventions, NaN/Inf outputs, each grade boundary, 2^±511
 * entries, the fp32 unit roundoff, non-finite inputs and out-of-range
 * results. No MPFR: every reference is built here. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "case/metrics.h"

#define U64 0x1p-53
#define HAND_MAX 12

/* One small case, column-major, every matrix stored as double (converted to
 * float for an fp32 target). c is the scheme's output, v the reference of
 * entry (i, j) at index i + j·m. */
struct hand {
    int64_t m, n, k;
    enum mpb_target target;
    double a[HAND_MAX], b[HAND_MAX], c[HAND_MAX];
    struct mpb_ref_value v[HAND_MAX];
};

/* The reference header's fields, computed in long double: exact for every
 * case below, whose products and partial sums fit in 64 significant bits.
 * Ĉ starts as the correctly rounded result. */
static void hand_reference(struct hand *h)
{
    for (int64_t j = 0; j < h->n; j++)
        for (int64_t i = 0; i < h->m; i++) {
            long double s = 0, abs_s = 0;
            for (int64_t l = 0; l < h->k; l++) {
                long double p = (long double)h->a[i + l * h->m] * h->b[l + j * h->k];
                s += p;
                abs_s += fabsl(p);
            }
            struct mpb_ref_value *v = &h->v[i + j * h->m];
            v->hi = (double)s;
            v->finite = isfinite(v->hi); /* as mpb_ref_mpfr: a sum beyond double's range is not finite */
            v->lo = v->finite ? (double)(s - v->hi) : 0;
            v->rounded = h->target == MPB_TARGET_FP64 ? v->hi : (double)(float)s;
            v->absab = (double)abs_s;
            if (v->absab < abs_s)
                v->absab = nextafter(v->absab, INFINITY);
            h->c[i + j * h->m] = v->rounded;
        }
}

/* Metrics over the listed entries (all of them when e is NULL). */
static struct mpb_metrics hand_metrics(struct hand *h, const struct mpb_ref_entry *e, int64_t count)
{
    struct mpb_ref_entry all[HAND_MAX];
    struct mpb_ref_value v[HAND_MAX];
    float af[HAND_MAX], bf[HAND_MAX], cf[HAND_MAX];
    if (!e) {
        count = 0;
        for (int64_t j = 0; j < h->n; j++)
            for (int64_t i = 0; i < h->m; i++)
                all[count++] = (struct mpb_ref_entry){i, j};
        e = all;
    }
    for (int64_t p = 0; p < count; p++)
        v[p] = h->v[e[p].i + e[p].j * h->m];
    struct mpb_gemm g = {h->m, h->n, h->k, h->target, h->a, h->b, h->c, MPB_FIELD_REAL};
    if (h->target == MPB_TARGET_FP32) {
        for (int p = 0; p < HAND_MAX; p++) {
            af[p] = (float)h->a[p];
            bf[p] = (float)h->b[p];
            cf[p] = (float)h->c[p];
        }
        g.a = af;
        g.b = bf;
        g.c = cf;
    }
    struct mpb_metrics out;
    mpb_metrics_compute(&g, e, v, count, &out);
    return out;
}

static bool close_to(double x, double want)
{
    return fabs(x - want) <= 1e-14 * fabs(want);
}

static void test_exact(void)
{
    /* A 3×4 and B 4×2 with mixed signs; Ĉ correctly rounded (here exact). */
    struct hand h = {.m = 3, .n = 2, .k = 4, .target = MPB_TARGET_FP64,
                     .a = {1, -2, 3, 4, 5, -6, -7, 8, 9, 10, -11, 12}, .b = {1, 2, 3, 4, -5, 6, -7, 8}};
    hand_reference(&h);
    struct mpb_metrics r = hand_metrics(&h, NULL, 0);
    CHECK(r.entries == 6, "entries %lld", (long long)r.entries);
    CHECK(r.err_fro_rel == 0 && r.err_max_rel == 0 && r.err_median_rel == 0, "errors %g %g %g",
          r.err_fro_rel, r.err_max_rel, r.err_median_rel);
    CHECK(r.rho_a_max == 0 && r.rho_b_max == 0 && r.rho_c_max == 0, "rho %g %g %g", r.rho_a_max,
          r.rho_b_max, r.rho_c_max);
    CHECK(r.nonfinite == 0 && strcmp(r.grade, "A") == 0 && r.note[0] == 0, "nonfinite %lld grade '%s' note '%s'",
          (long long)r.nonfinite, r.grade, r.note);
    CHECK(r.cr_mismatch == 0, "cr_mismatch %lld", (long long)r.cr_mismatch);
}

static void test_one_ulp(void)
{
    /* A = [1 2; 3 4], B = [1 0; 1 1]: C = [3 2; 7 4]. Ĉ(0,0) one ulp
     * (2^-51) above 3: ρ_A = 2^-51/(u·3) = 4/3, ρ_B = 4/(‖(1,2)‖‖(1,1)‖)
     * = 4/√10, ρ_C = 4/(√30·√3), ‖Ĉ−C‖_F/‖C‖_F = 2^-51/√78, and the
     * median of {2^-51/3, 0, 0, 0} is 0. */
    struct hand h = {.m = 2, .n = 2, .k = 2, .target = MPB_TARGET_FP64, .a = {1, 3, 2, 4}, .b = {1, 1, 0, 1}};
    hand_reference(&h);
    h.c[0] = 3 + 0x1p-51;
    struct mpb_metrics r = hand_metrics(&h, NULL, 0);
    CHECK(close_to(r.rho_a_max, 4.0 / 3), "rho_a %.17g", r.rho_a_max);
    CHECK(close_to(r.rho_b_max, 4 / sqrt(10)), "rho_b %.17g", r.rho_b_max);
    CHECK(close_to(r.rho_c_max, 4 / sqrt(90)), "rho_c %.17g", r.rho_c_max);
    CHECK(close_to(r.err_fro_rel, 0x1p-51 / sqrt(78)), "err_fro %.17g", r.err_fro_rel);
    CHECK(close_to(r.err_max_rel, 0x1p-51 / 3), "err_max %.17g", r.err_max_rel);
    CHECK(r.err_median_rel == 0, "err_median %.17g", r.err_median_rel);
    CHECK(strcmp(r.grade, "A") == 0, "grade '%s'", r.grade);
    CHECK(r.cr_mismatch == 1, "one entry one ulp off: cr_mismatch %lld", (long long)r.cr_mismatch);

    /* The sign of the error does not matter; Ĉ = −C is a relative error of 2. */
    h.c[0] = 3 - 0x1p-51;
    r = hand_metrics(&h, NULL, 0);
    CHECK(close_to(r.rho_a_max, 4.0 / 3), "below C: rho_a %.17g", r.rho_a_max);
    h.c[0] = -3;
    r = hand_metrics(&h, NULL, 0);
    CHECK(r.err_max_rel == 2, "C = -C: err_max %.17g", r.err_max_rel);

    /* An even count takes the mean of the middle two: relative errors
     * {2^-51/3, 2^-52, 0, 2^-52} (Ĉ(0,1) = 2 + 2^-51, Ĉ(1,1) = 4 + 2^-50)
     * have median (2^-51/3 + 2^-52)/2 = (5/6)·2^-52. */
    h.c[0] = 3 + 0x1p-51;
    h.c[2] = 2 + 0x1p-51;
    h.c[3] = 4 + 0x1p-50;
    r = hand_metrics(&h, NULL, 0);
    CHECK(close_to(r.err_median_rel, 5.0 / 6 * 0x1p-52), "even median %.17g", r.err_median_rel);
}

static void test_exact_not_rounded(void)
{
    /* (1, 2^-30)·(1, 2^-30) = 1 + 2^-60: hi = 1, lo = 2^-60. A correctly
     * rounded Ĉ = 1 still errs by 2^-60 (absab rounds up to 1 + 2^-52). */
    struct hand h = {.m = 1, .n = 1, .k = 2, .target = MPB_TARGET_FP64, .a = {1, 0x1p-30}, .b = {1, 0x1p-30}};
    hand_reference(&h);
    CHECK(h.v[0].hi == 1 && h.v[0].lo == 0x1p-60, "hand reference %a + %a", h.v[0].hi, h.v[0].lo);
    struct mpb_metrics r = hand_metrics(&h, NULL, 0);
    CHECK(close_to(r.err_fro_rel, 0x1p-60), "err_fro %.17g", r.err_fro_rel);
    CHECK(close_to(r.rho_a_max, 0x1p-7 / (1 + 0x1p-52)), "rho_a %.17g", r.rho_a_max);
    CHECK(r.cr_mismatch == 0, "correctly rounded yet inexact: cr_mismatch %lld", (long long)r.cr_mismatch);
}

static void test_far_error(void)
{
    /* C = 1.5·2^1000·2^23 = 1.5·2^1023 and Ĉ = −C: the error 3·2^1023 is
     * beyond DBL_MAX but must stay finite: a relative error of exactly 2,
     * ρ = 2/u, and a finite-input F rather than a non-finite output. */
    struct hand h = {.m = 1, .n = 1, .k = 1, .target = MPB_TARGET_FP64, .a = {1.5 * 0x1p1000}, .b = {0x1p23}};
    hand_reference(&h);
    h.c[0] = -h.c[0];
    struct mpb_metrics r = hand_metrics(&h, NULL, 0);
    CHECK(r.err_max_rel == 2 && r.err_fro_rel == 2, "err_max %g err_fro %g", r.err_max_rel, r.err_fro_rel);
    CHECK(r.rho_a_max == 2 / U64 && r.nonfinite == 0 && strcmp(r.grade, "F") == 0,
          "rho_a %g nonfinite %lld grade '%s'", r.rho_a_max, (long long)r.nonfinite, r.grade);

    /* 2^1023·2 = 2^1024 is beyond double's range: outside the verdict, +Inf is native. */
    struct hand o = {.m = 1, .n = 1, .k = 1, .target = MPB_TARGET_FP64, .a = {0x1p1023}, .b = {2}};
    hand_reference(&o);
    r = hand_metrics(&o, NULL, 0);
    CHECK(r.grade[0] == 0 && strstr(r.note, "out of the target's range") && strstr(r.note, "1 of 1"),
          "fp64 overflow: grade '%s' note '%s'", r.grade, r.note);
}

static void test_cancellation(void)
{
    /* A = [1 −1; 1 1; 2 0], B = (1, 1)ᵀ: C = (0, 2, 2), |A||B| = (2, 2, 2). */
    struct hand h = {.m = 3, .n = 1, .k = 2, .target = MPB_TARGET_FP64, .a = {1, 1, 2, -1, 1, 0}, .b = {1, 1}};
    hand_reference(&h);
    struct mpb_metrics r = hand_metrics(&h, NULL, 0);
    CHECK(r.err_median_rel == 0 && r.rho_a_max == 0 && strcmp(r.grade, "A") == 0,
          "Ĉ = C = 0 must give 0/0 = 0: median %g rho_a %g grade '%s'", r.err_median_rel, r.rho_a_max, r.grade);

    /* Ĉ = (2^-52, 2 + 2^-51, 2): relative errors (+Inf, 2^-52, 0), so the
     * median is 2^-52 only if the x/0 entry is counted, and the max is 2^-52
     * only if it is not. ρ_A = max(2^-52/(2u), 2^-51/(2u)) = 2. */
    h.c[0] = 0x1p-52;
    h.c[1] = 2 + 0x1p-51;
    r = hand_metrics(&h, NULL, 0);
    CHECK(r.err_median_rel == 0x1p-52, "median %.17g", r.err_median_rel);
    CHECK(r.err_max_rel == 0x1p-52, "max over C != 0 %.17g", r.err_max_rel);
    CHECK(r.rho_a_max == 2, "rho_a %.17g", r.rho_a_max);
    CHECK(close_to(r.err_fro_rel, 0x1p-52 * sqrt(5.0 / 8)), "err_fro %.17g", r.err_fro_rel);

    /* Only the C = 0 entry checked: the max is over an empty set (NaN, an
     * empty CSV cell); ‖Ĉ−C‖_F/‖C‖_F = x/0 = +Inf; ρ_A = 1 still grades A. */
    struct mpb_ref_entry zero = {0, 0};
    r = hand_metrics(&h, &zero, 1);
    CHECK(isnan(r.err_max_rel), "err_max over no C != 0: %g", r.err_max_rel);
    CHECK(isinf(r.err_fro_rel) && isinf(r.err_median_rel), "x/0: fro %g median %g", r.err_fro_rel,
          r.err_median_rel);
    CHECK(r.rho_a_max == 1 && strcmp(r.grade, "A") == 0, "rho_a %g grade '%s'", r.rho_a_max, r.grade);
}

static void test_zero_row(void)
{
    /* Test 1a's shape: row 0 of A is zero, so |A||B| and ‖A(0,:)‖ are 0
     * there. Ĉ(0,0) = 0 is 0/0 = 0 (grade A); Ĉ(0,0) = 2^-60 is x/0 = +Inf in
     * ρ_A and ρ_B while ρ_C = 2^-60/(u·√2·√2) = 2^-8: grade C, Strassen-like. */
    struct hand h = {.m = 2, .n = 1, .k = 2, .target = MPB_TARGET_FP64, .a = {0, 1, 0, 1}, .b = {1, 1}};
    hand_reference(&h);
    struct mpb_metrics r = hand_metrics(&h, NULL, 0);
    CHECK(r.rho_a_max == 0 && r.rho_b_max == 0 && strcmp(r.grade, "A") == 0, "exact zero row: %g %g '%s'",
          r.rho_a_max, r.rho_b_max, r.grade);
    h.c[0] = 0x1p-60;
    r = hand_metrics(&h, NULL, 0);
    CHECK(isinf(r.rho_a_max) && isinf(r.rho_b_max), "x/0: rho_a %g rho_b %g", r.rho_a_max, r.rho_b_max);
    CHECK(close_to(r.rho_c_max, 0x1p-8) && strcmp(r.grade, "C") == 0, "rho_c %.17g grade '%s'", r.rho_c_max,
          r.grade);
    CHECK(r.nonfinite == 0, "nonfinite %lld", (long long)r.nonfinite);
}

static void test_nonfinite_output(void)
{
    struct hand h = {.m = 2, .n = 2, .k = 2, .target = MPB_TARGET_FP64, .a = {1, 3, 2, 4}, .b = {1, 0, 0, 1}};
    hand_reference(&h);
    h.c[0] = NAN;
    struct mpb_metrics r = hand_metrics(&h, NULL, 0);
    CHECK(r.nonfinite == 1 && strcmp(r.grade, "F") == 0, "NaN: nonfinite %lld grade '%s'", (long long)r.nonfinite,
          r.grade);
    CHECK(isinf(r.rho_a_max) && isinf(r.rho_c_max) && isinf(r.err_fro_rel) && isinf(r.err_max_rel),
          "NaN error must be +Inf: %g %g %g %g", r.rho_a_max, r.rho_c_max, r.err_fro_rel, r.err_max_rel);
    h.c[3] = -INFINITY;
    r = hand_metrics(&h, NULL, 0);
    CHECK(r.nonfinite == 2 && r.note[0] == 0, "NaN and -Inf: nonfinite %lld note '%s'", (long long)r.nonfinite,
          r.note);
}

static void test_grade_of(void)
{
    /* k = 2: A and B pass at ρ ≤ 20, C at ρ_C ≤ 10·2^log2(12) = 120, bounds included. */
    double big = 1e300, above20 = nextafter(20, INFINITY), above120 = nextafter(120, INFINITY);
    CHECK(mpb_grade_of(20, big, big, 2, 0) == 'A', "rho_a = 10k");
    CHECK(mpb_grade_of(above20, 20, big, 2, 0) == 'B', "rho_a just above 10k, rho_b = 10k");
    CHECK(mpb_grade_of(above20, above20, 120, 2, 0) == 'C', "rho_c = 10k^log2(12)");
    CHECK(mpb_grade_of(above20, above20, above120, 2, 0) == 'F', "rho_c just above 10k^log2(12)");
    CHECK(mpb_grade_of(0, 0, 0, 2, 1) == 'F', "non-finite output");
    CHECK(mpb_grade_of(NAN, NAN, NAN, 2, 0) == 'F', "NaN rho");
    CHECK(mpb_grade_of(30, big, big, 3, 0) == 'A' && mpb_grade_of(31, 30, big, 3, 0) == 'B', "k = 3");
    /* k = 4: the bound is exactly 10·144 (pow(4, log2(12)) alone gives 143.99999999999997). */
    CHECK(mpb_grade_of(big, big, 1440, 4, 0) == 'C', "rho_c = 10·4^log2(12)");
    /* k = 1000: the C bound computed the other way round, 10·k^log2(12). */
    double c_bound = 10 * pow(1000, log2(12));
    CHECK(mpb_grade_of(big, big, c_bound * (1 - 1e-12), 1000, 0) == 'C', "below C bound %g", c_bound);
    CHECK(mpb_grade_of(big, big, c_bound * (1 + 1e-12), 1000, 0) == 'F', "above C bound %g", c_bound);
}

static void test_grade_cases(void)
{
    /* A = [1 0; 12 12], B = (3, 4)ᵀ, k = 2. Entry (0,0): C = 3, |A||B| = 3,
     * ‖A(0,:)‖‖B‖ = 1·5, ‖A‖_F‖B‖_F = 17·5. Ĉ(0,0) = 3 + δ·u (δ a multiple
     * of 4, the ulp of 3 in units of u) gives ρ_A = δ/3, ρ_B = δ/5,
     * ρ_C = δ/85, stepping over each bound (20, 20, 120). */
    static const struct {
        double delta;
        char grade;
    } steps[] = {{60, 'A'}, {64, 'B'}, {100, 'B'}, {104, 'C'}, {10200, 'C'}, {10204, 'F'}};
    struct hand h = {.m = 2, .n = 1, .k = 2, .target = MPB_TARGET_FP64, .a = {1, 12, 0, 12}, .b = {3, 4}};
    hand_reference(&h);
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        double d = steps[s].delta;
        h.c[0] = 3 + d * U64;
        struct mpb_metrics r = hand_metrics(&h, NULL, 0);
        CHECK(close_to(r.rho_a_max, d / 3) && close_to(r.rho_b_max, d / 5) && close_to(r.rho_c_max, d / 85),
              "delta %g: rho %.17g %.17g %.17g", d, r.rho_a_max, r.rho_b_max, r.rho_c_max);
        CHECK(r.grade[0] == steps[s].grade && r.grade[1] == 0, "delta %g: grade '%s', expected %c", d, r.grade,
              steps[s].grade);
    }
}

static void test_scaled(void)
{
    /* Beyond Test 2's range: big = 1.5·2^512, A = [big big; 2^-500 2^-500],
     * B = [2^-512 2^512; 2^-512 −2^512]. C = [3 0; 2^-1011 0], and
     * (|A||B|)(0,1) = 3·2^1024 overflows to +Inf. A single square big² and
     * ‖B(:,1)‖² overflow double.
     * Ĉ(0,0) = 3 + 12u: ρ_A = ρ_B = 12u/(3u) = 4 (‖A(0,:)‖‖B(:,0)‖ = 3);
     * Ĉ(1,0) one ulp (2^-1063) above 2^-1011: ρ_A = ρ_B = 2;
     * ρ_C = 12u/(u·‖A‖_F‖B‖_F) = 12/(3·2^1024) = 2^-1022. */
    const double big = 1.5 * 0x1p512;
    struct hand h = {.m = 2, .n = 2, .k = 2, .target = MPB_TARGET_FP64,
                     .a = {big, 0x1p-500, big, 0x1p-500}, .b = {0x1p-512, 0x1p-512, 0x1p512, -0x1p512}};
    hand_reference(&h);
    h.c[0] = 3 + 12 * U64;
    h.c[1] = 0x1p-1011 + 0x1p-1063;
    struct mpb_metrics r = hand_metrics(&h, NULL, 0);
    CHECK(r.rho_a_max == 4, "rho_a %.17g", r.rho_a_max);
    CHECK(close_to(r.rho_b_max, 4), "rho_b %.17g (row norms overflowed?)", r.rho_b_max);
    CHECK(close_to(r.rho_c_max, 0x1p-1022), "rho_c %.17g (Frobenius norms overflowed?)", r.rho_c_max);
    CHECK(close_to(r.err_fro_rel, 4 * U64), "err_fro %.17g", r.err_fro_rel);
    CHECK(strcmp(r.grade, "A") == 0 && r.nonfinite == 0, "grade '%s' nonfinite %lld note '%s'", r.grade,
          (long long)r.nonfinite, r.note);

    /* NaN where |A||B| is +Inf: still an infinite error, not Inf/Inf. */
    h.c[2] = NAN;
    r = hand_metrics(&h, NULL, 0);
    CHECK(isinf(r.rho_a_max) && r.nonfinite == 1 && strcmp(r.grade, "F") == 0, "rho_a %g nonfinite %lld grade '%s'",
          r.rho_a_max, (long long)r.nonfinite, r.grade);
}

static void test_fp32(void)
{
    CHECK(mpb_unit_roundoff(MPB_TARGET_FP64) == 0x1p-53, "fp64 u %a", mpb_unit_roundoff(MPB_TARGET_FP64));
    CHECK(mpb_unit_roundoff(MPB_TARGET_FP32) == 0x1p-24, "fp32 u %a", mpb_unit_roundoff(MPB_TARGET_FP32));
    /* (1, 2)·(1, 1) = 3; one float ulp (2^-22) off gives ρ_A = 2^-22/(2^-24·3) = 4/3. */
    struct hand h = {.m = 1, .n = 1, .k = 2, .target = MPB_TARGET_FP32, .a = {1, 2}, .b = {1, 1}};
    hand_reference(&h);
    h.c[0] = 3 + 0x1p-22;
    struct mpb_metrics r = hand_metrics(&h, NULL, 0);
    CHECK(close_to(r.rho_a_max, 4.0 / 3) && strcmp(r.grade, "A") == 0, "fp32 rho_a %.17g grade '%s'",
          r.rho_a_max, r.grade);

    /* 2^100·2^100 = 2^200 is finite but rounds to +Inf in float: outside the
     * verdict, and +Inf is what native fp32 gives. */
    struct hand o = {.m = 1, .n = 1, .k = 1, .target = MPB_TARGET_FP32, .a = {0x1p100}, .b = {0x1p100}};
    hand_reference(&o);
    r = hand_metrics(&o, NULL, 0);
    CHECK(r.grade[0] == 0 && strstr(r.note, "out of the target's range") && strstr(r.note, "1 of 1"),
          "overflow: grade '%s' note '%s'", r.grade, r.note);
    CHECK(r.nonfinite == 0, "overflow is not a non-finite output: %lld", (long long)r.nonfinite);
    o.c[0] = 0x1.fffffep127;
    r = hand_metrics(&o, NULL, 0);
    CHECK(strstr(r.note, "0 of 1") != NULL, "FLT_MAX for +Inf: note '%s'", r.note);
}

static void test_nonfinite_inputs(void)
{
    static const char note[] = "non-finite inputs: outside the A/B/C verdict (grading.md extended family)";
    /* A = [NaN 1; 1 1], B = (1, 1)ᵀ: C = (NaN, 2). */
    struct hand h = {.m = 2, .n = 1, .k = 2, .target = MPB_TARGET_FP64, .a = {NAN, 1, 1, 1}, .b = {1, 1}};
    hand_reference(&h);
    struct mpb_metrics r = hand_metrics(&h, NULL, 0);
    CHECK(r.grade[0] == 0 && strncmp(r.note, note, strlen(note)) == 0 && strstr(r.note, "1 of 1"),
          "NaN propagated: grade '%s' note '%s'", r.grade, r.note);
    CHECK(r.entries == 2 && r.err_fro_rel == 0 && r.rho_a_max == 0 && isnan(r.rho_c_max),
          "errors over the finite entry only: entries %lld fro %g rho_a %g rho_c %g", (long long)r.entries,
          r.err_fro_rel, r.rho_a_max, r.rho_c_max);
    h.c[0] = 5;
    r = hand_metrics(&h, NULL, 0);
    CHECK(strstr(r.note, "0 of 1") != NULL, "finite for NaN: note '%s'", r.note);
    h.c[1] = NAN;
    r = hand_metrics(&h, NULL, 0);
    CHECK(r.nonfinite == 1 && r.grade[0] == 0, "poisoned finite entry: nonfinite %lld grade '%s'",
          (long long)r.nonfinite, r.grade);

    /* The NaN's row is not checked: still non-finite input. */
    h.c[1] = 2;
    struct mpb_ref_entry finite_only = {1, 0};
    r = hand_metrics(&h, &finite_only, 1);
    CHECK(r.grade[0] == 0 && strncmp(r.note, note, strlen(note)) == 0, "unchecked NaN: grade '%s' note '%s'",
          r.grade, r.note);

    /* +Inf·1 + 1·1 = +Inf: the same infinity is like native, the other is not. */
    h.a[0] = INFINITY;
    hand_reference(&h);
    r = hand_metrics(&h, NULL, 0);
    CHECK(strstr(r.note, "1 of 1") != NULL, "+Inf for +Inf: note '%s'", r.note);
    h.c[0] = -INFINITY;
    r = hand_metrics(&h, NULL, 0);
    CHECK(strstr(r.note, "0 of 1") != NULL, "-Inf for +Inf: note '%s'", r.note);
}

static void test_no_entries(void)
{
    struct hand h = {.m = 1, .n = 1, .k = 1, .target = MPB_TARGET_FP64, .a = {1}, .b = {1}};
    hand_reference(&h);
    struct mpb_ref_entry none = {0, 0};
    struct mpb_metrics r = hand_metrics(&h, &none, 0);
    CHECK(r.entries == 0 && r.grade[0] == 0 && isnan(r.err_fro_rel) && strcmp(r.note, "no entries checked") == 0,
          "no entries: grade '%s' fro %g note '%s'", r.grade, r.err_fro_rel, r.note);
    CHECK(r.cr_mismatch == -1, "no entries: cr_mismatch %lld", (long long)r.cr_mismatch);
}

int main(void)
{
    test_exact();
    test_one_ulp();
    test_exact_not_rounded();
    test_far_error();
    test_cancellation();
    test_zero_row();
    test_nonfinite_output();
    test_grade_of();
    test_grade_cases();
    test_scaled();
    test_fp32();
    test_nonfinite_inputs();
    test_no_entries();
    return check_report("test_metrics");
}
