/* gen_math.h against correctly rounded MPFR values: exp, log and
 * sin/cos(2πu) within a few ulps over random and edge arguments, exact
 * where the answer is exact, and IEEE special cases. MPFR rather than libm
 * as the reference: libm's sin(2*M_PI*u) carries the rounding of 2π·u,
 * which near the zeros is far larger than the error being measured.
 * On failure the argument is printed as a hex float (rerun with it). */
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>

#include "gen_math.h"
#include "pcg32.h"

/* Max ulps allowed: on these sets exp and log stay below 1 ulp, sin and cos
 * below 1.5 (the sum of the two polynomial halves rounds twice). */
#define TOL_ULPS 2.0

static int failures = 0;

struct tally {
    const char *name;
    double worst;
    double worst_arg;
    long count;
};

/* |got − exact| in units of ulp(exact) (2^-1074 below the normal range). */
static double ulp_error(double got, const mpfr_t exact)
{
    if (mpfr_zero_p(exact))
        return got == 0.0 ? 0.0 : INFINITY;
    long e = mpfr_get_exp(exact) - 53; /* exact in [2^(E−1), 2^E): ulp 2^(E−53) */
    if (e < -1074)
        e = -1074;
    mpfr_t d;
    mpfr_init2(d, 256);
    mpfr_set_d(d, got, MPFR_RNDN);
    mpfr_sub(d, d, exact, MPFR_RNDN);
    mpfr_abs(d, d, MPFR_RNDN);
    mpfr_mul_2si(d, d, -e, MPFR_RNDN);
    double r = mpfr_get_d(d, MPFR_RNDU);
    mpfr_clear(d);
    return r;
}

static void record(struct tally *t, double arg, double got, const mpfr_t exact)
{
    double err = ulp_error(got, exact);
    t->count++;
    if (!(err <= t->worst)) {
        t->worst = err;
        t->worst_arg = arg;
    }
}

static void report(const struct tally *t)
{
    printf("%-10s %8ld args, max error %.3f ulp at %a\n", t->name, t->count, t->worst,
           t->worst_arg);
    if (!(t->worst <= TOL_ULPS)) {
        printf("FAIL %s: %.3f ulp > %.1f at argument %a\n", t->name, t->worst, TOL_ULPS,
               t->worst_arg);
        failures++;
    }
}

static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

static void check_exp_at(struct tally *t, double x)
{
    mpfr_t y;
    mpfr_init2(y, 200);
    mpfr_set_d(y, x, MPFR_RNDN);
    mpfr_exp(y, y, MPFR_RNDN);
    record(t, x, mpb_gm_exp(x), y);
    mpfr_clear(y);
}

static void check_log_at(struct tally *t, double x)
{
    mpfr_t y;
    mpfr_init2(y, 200);
    mpfr_set_d(y, x, MPFR_RNDN);
    mpfr_log(y, y, MPFR_RNDN);
    record(t, x, mpb_gm_log(x), y);
    mpfr_clear(y);
}

static void check_sincos_at(struct tally *ts, struct tally *tc, double u)
{
    mpfr_t x, y;
    mpfr_inits2(200, x, y, (mpfr_ptr)0);
    mpfr_set_d(x, u, MPFR_RNDN);
    mpfr_mul_2ui(x, x, 1, MPFR_RNDN); /* sin(2πu) = sinpi(2u), exact argument */
    double s, c;
    mpb_gm_sincos2pi(u, &s, &c);
    mpfr_sinpi(y, x, MPFR_RNDN);
    record(ts, u, s, y);
    mpfr_cospi(y, x, MPFR_RNDN);
    record(tc, u, c, y);
    mpfr_clears(x, y, (mpfr_ptr)0);
}

static double u53(struct mpb_pcg32 *g)
{
    uint64_t a = mpb_pcg32_next(g) >> 5, b = mpb_pcg32_next(g) >> 6;
    return (double)((a << 26) | b) * 0x1p-53;
}

static void test_exp(struct mpb_pcg32 *g)
{
    struct tally t = {.name = "exp"};
    for (int i = 0; i < 200000; i++)
        check_exp_at(&t, -745.0 + 1454.78 * u53(g)); /* whole finite range, subnormal results too */
    for (int i = 0; i < 100000; i++)
        check_exp_at(&t, 2.0 * u53(g) - 1.0);
    for (int e = -1074; e <= 0; e++) {
        check_exp_at(&t, ldexp(1.0, e));
        check_exp_at(&t, -ldexp(1.0, e));
    }
    for (int n = -1080; n <= 1030; n++) /* around each reduction boundary n·ln2 ± ln2/2 */
        for (int d = -2; d <= 2; d++) {
            double x = nextafter((n + 0.5) * 0x1.62e42fefa39efp-1, d * INFINITY);
            if (x > -745.1 && x < 709.78)
                check_exp_at(&t, x);
        }
    check_exp_at(&t, 709.782712893383);
    check_exp_at(&t, -708.39641853226408);
    check_exp_at(&t, -745.13321910194110);
    report(&t);
    expect(mpb_gm_exp(0.0) == 1.0 && mpb_gm_exp(-0.0) == 1.0, "exp(±0) == 1");
    expect(mpb_gm_exp(710.0) == INFINITY && mpb_gm_exp(INFINITY) == INFINITY, "exp overflows to +Inf");
    expect(mpb_gm_exp(-746.0) == 0.0 && mpb_gm_exp(-INFINITY) == 0.0, "exp underflows to 0");
    expect(isnan(mpb_gm_exp(NAN)), "exp(NaN) is NaN");
}

static void test_log(struct mpb_pcg32 *g)
{
    struct tally t = {.name = "log"};
    for (int i = 0; i < 200000; i++) { /* random bit patterns: every binade, subnormals too */
        uint64_t bits = ((uint64_t)mpb_pcg32_next(g) << 32 | mpb_pcg32_next(g)) & 0x7fefffffffffffffULL;
        if (bits != 0)
            check_log_at(&t, mpb_bits_to_f64(bits));
    }
    for (int i = 0; i < 100000; i++) /* Box–Muller's domain (0, 1] */
        check_log_at(&t, 1.0 - u53(g));
    for (int j = 1; j < 2000; j++) {
        check_log_at(&t, 1.0 + j * 0x1p-52);
        check_log_at(&t, 1.0 - j * 0x1p-53);
    }
    check_log_at(&t, 0x1.6a09e667f3bcdp+0);
    check_log_at(&t, 0x1.6a09e667f3bccp+0);
    check_log_at(&t, 0x1.6a09e667f3bcep+0);
    check_log_at(&t, 0x1p-1074);
    check_log_at(&t, 0x1.fffffffffffffp+1023);
    for (int e = -1074; e <= 1023; e++)
        check_log_at(&t, ldexp(1.0, e));
    report(&t);
    expect(mpb_gm_log(1.0) == 0.0, "log(1) == 0");
    expect(mpb_gm_log(0.0) == -INFINITY && mpb_gm_log(-0.0) == -INFINITY, "log(±0) == -Inf");
    expect(isnan(mpb_gm_log(-1.0)) && isnan(mpb_gm_log(NAN)), "log(<0), log(NaN) are NaN");
    expect(mpb_gm_log(INFINITY) == INFINITY, "log(+Inf) == +Inf");
}

static void test_sincos(struct mpb_pcg32 *g)
{
    struct tally ts = {.name = "sin2pi"}, tc = {.name = "cos2pi"};
    for (int i = 0; i < 200000; i++)
        check_sincos_at(&ts, &tc, u53(g));
    for (int i = 0; i < 20000; i++) /* other periods and negative u */
        check_sincos_at(&ts, &tc, 2000.0 * u53(g) - 1000.0);
    for (int q = 0; q <= 8; q++) /* near the octant points, where one of them is tiny */
        for (int j = -300; j <= 300; j++)
            check_sincos_at(&ts, &tc, q * 0.125 + j * 0x1p-53);
    for (int e = -1074; e < -2; e++)
        check_sincos_at(&ts, &tc, ldexp(1.0, e));
    report(&ts);
    report(&tc);
    double s, c;
    int exact = 1;
    mpb_gm_sincos2pi(0.0, &s, &c);
    exact &= s == 0.0 && c == 1.0;
    mpb_gm_sincos2pi(0.25, &s, &c);
    exact &= s == 1.0 && c == 0.0;
    mpb_gm_sincos2pi(0.5, &s, &c);
    exact &= s == 0.0 && c == -1.0;
    mpb_gm_sincos2pi(0.75, &s, &c);
    exact &= s == -1.0 && c == 0.0;
    expect(exact, "sin/cos(2πu) exact at u = 0, 1/4, 1/2, 3/4");
}

int main(void)
{
    struct mpb_pcg32 g = mpb_pcg32_seed(20240601u, 99u);
    test_exp(&g);
    test_log(&g);
    test_sincos(&g);
    if (failures)
        printf("test_gen_math: %d failure(s) (seed 20240601, stream 99)\n", failures);
    else
        printf("test_gen_math: ok\n");
    return failures ? 1 : 0;
}
