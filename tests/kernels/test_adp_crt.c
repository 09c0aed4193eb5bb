/* adp's CRT engine (kernels/adp/adp_crt_arith.h) against exact integer
 * arithmetic (GMP): the budget switch equals the budget of the exact
 * constants for every moduli count; the moduli count covers k·2^(2W); the
 * reconstruction of integers anywhere in |X| < 2^L, small ones included, is
 * within 2^-53·|X|·(1 + 2^-52) + 2^(bitlen(M)−120) (the componentwise
 * accuracy the engine's bound needs); the W-bit values are those the slice
 * engine's digits hold; gemm=engine's parameter and check(). Fixed seed;
 * failures print the values. */
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define TEST_RNG_SEED 0x2545F4914F6CDD1Dull
#include "rng.h"
#include "adp/adp.h"

static void test_budget_and_count(void)
{
    for (int n = 2; n <= ADP_CRT_MAX_MODULI; n++) {
        struct adp_crt tab;
        int budget = -1;
        CHECK(mpb_adp_crt_init(n, &tab, &budget), "crt_init(%d)", n);
        CHECK(budget == adp_crt_budget(n), "n=%d: budget %d, switch says %d", n, budget,
              adp_crt_budget(n));
    }
    CHECK(!mpb_adp_crt_init(ADP_CRT_MAX_MODULI + 1, &(struct adp_crt){0}, &(int){0}),
          "crt_init accepts %d moduli", ADP_CRT_MAX_MODULI + 1);
    for (int bits = 7; bits <= 120; bits++)
        for (int64_t k = 1; k <= ADP_MAX_TERMS; k = k * 3 + 1) {
            int n = adp_crt_moduli(bits, k);
            double need = 2.0 * bits + log2((double)k);
            if (n) {
                CHECK(adp_crt_budget(n) >= need, "bits=%d k=%lld: %d moduli, L=%d < %g", bits,
                      (long long)k, n, adp_crt_budget(n), need);
                CHECK(n == 2 || adp_crt_budget(n - 1) < 2 * bits + mpb_ceil_log2(k),
                      "bits=%d k=%lld: %d moduli, %d would do", bits, (long long)k, n, n - 1);
            } else {
                CHECK(adp_crt_budget(ADP_CRT_MAX_MODULI) < 2 * bits + mpb_ceil_log2(k),
                      "bits=%d k=%lld: no count, though 25 moduli cover it", bits, (long long)k);
            }
        }
    /* the H200 cases: W = 64 and 81 at k = 16384 (kernels/adp/README.md) */
    CHECK(adp_crt_moduli(64, 16384) == 19, "W=64: %d moduli", adp_crt_moduli(64, 16384));
    CHECK(adp_crt_moduli(81, 16384) == 23, "W=81: %d moduli", adp_crt_moduli(81, 16384));
    CHECK(adp_crt_moduli(89, 4096) == 25 && adp_crt_moduli(90, 4096) == 0, "W=89/90 at k=4096: %d/%d moduli",
          adp_crt_moduli(89, 4096), adp_crt_moduli(90, 4096));
}

/* Random X with |X| < 2^L: full size, short, and near the limit. */
static void random_x(mpz_t x, gmp_randstate_t gs, int budget, int kind)
{
    if (kind == 0) {
        mpz_urandomb(x, gs, (mp_bitcnt_t)budget);
    } else if (kind == 1) {
        mpz_urandomb(x, gs, 1 + (mp_bitcnt_t)(rng_next() % (uint64_t)budget));
    } else {
        mpz_set_ui(x, 1);
        mpz_mul_2exp(x, x, (mp_bitcnt_t)budget);
        mpz_sub_ui(x, x, 1 + rng_next() % 1000);
    }
    if (rng_next() & 1)
        mpz_neg(x, x);
}

static void test_reconstruction(void)
{
    mpz_t x, bigm, diff;
    mpz_inits(x, bigm, diff, NULL);
    gmp_randstate_t gs;
    gmp_randinit_default(gs);
    gmp_randseed_ui(gs, 2026);
    for (int n = 2; n <= ADP_CRT_MAX_MODULI; n++) {
        struct adp_crt tab;
        int budget;
        mpb_adp_crt_init(n, &tab, &budget);
        mpz_set_ui(bigm, 1);
        for (int t = 0; t < n; t++)
            mpz_mul_ui(bigm, bigm, (unsigned long)mpb_crt_modulus(t));
        int abs_exp = (int)mpz_sizeinbase(bigm, 2) - 120;
        for (int it = 0; it < 4000; it++) {
            random_x(x, gs, budget, it % 3);
            int32_t c[ADP_CRT_MAX_MODULI];
            for (int t = 0; t < n; t++) {
                int m = mpb_crt_modulus(t);
                /* any representative: what an INT32 GEMM may return */
                int64_t wrap = (int64_t)(rng_next() % (2 * (INT32_MAX / m) - 2)) - (INT32_MAX / m - 1);
                c[t] = (int32_t)((long)mpz_fdiv_ui(x, (unsigned long)m) + wrap * m);
            }
            int ea = (int)(rng_next() % 40) - 20, eb = (int)(rng_next() % 40) - 20, bits = 60;
            double got = ldexp(adp_crt_entry(c, 1, &tab, ea, eb, bits), 2 * bits - ea - eb);
            /* |got − X| exactly: got is an integer when |got| ≥ 2^52 */
            mpz_t g;
            mpz_init(g);
            double err;
            if (fabs(got) >= 0x1p52) {
                mpz_set_d(g, got);
                mpz_sub(diff, g, x);
                err = fabs(mpz_get_d(diff));
            } else {
                err = fabs(got - mpz_get_d(x)); /* |X| < 2^53 + slack: both exact */
            }
            mpz_clear(g);
            double tol = ldexp(fabs(got), -53) * (1 + 0x1p-52) + ldexp(1.0, abs_exp);
            CHECK(err <= tol, "n=%d X=%s: reconstructed %a, error %g > %g", n,
                  mpz_get_str(NULL, 10, x), got, err, tol);
        }
    }
    gmp_randclear(gs);
    mpz_clears(x, bigm, diff, NULL);
}

/* adp_crt_value is the W-bit value of the slice engine's digits. */
static void test_value_matches_slices(void)
{
    for (int it = 0; it < 100000; it++) {
        int s = 2 + (int)(rng_next() % 10), bits = 8 * s - 1;
        double max = ldexp(1.0 + (double)(rng_next() >> 12) * 0x1p-52, (int)(rng_next() % 200) - 100);
        double x = max * ((double)(rng_next() >> 11) * 0x1p-53) * (rng_next() & 1 ? 1 : -1);
        uint64_t max_bits = mpb_f64_to_bits(max);
        int E = adp_scale_exponent(max_bits);
        int8_t digits[ADP_MAX_SLICES];
        adp_slice(x, E, s, digits, 1);
        __int128 from_digits = 0; /* |value| < 2^79: exact */
        for (int p = 0; p < s; p++)
            from_digits = from_digits * 256 + digits[p];
        double value = adp_crt_value(x, E, bits);
        CHECK(from_digits == (__int128)value, "x=%a E=%d s=%d: digits %a, value %a", x, E, s,
              (double)from_digits, value);
    }
}

/* gemm=engine: the parameter's values, and check() refusing it where the
 * engine cannot run (not sm_90a, k past one INT32 sum, engine=slices)
 * with the reason, accepting it on sm_90a and on the host (dev NULL). */
static void test_gemm_engine_check(void)
{
    const struct mpb_param_spec *spec = &mpb_adp_params[MPB_ADP_GEMM];
    double v;
    char why[256] = "";
    CHECK(!strcmp(spec->name, "gemm") && !strcmp(spec->def, "auto"), "gemm: %s, default %s", spec->name, spec->def);
    CHECK(mpb_param_parse(spec, "engine", &v, why, sizeof why) && v == MPB_ADP_GEMM_ENGINE, "gemm=engine");
    CHECK(!mpb_param_parse(spec, "batched", &v, why, sizeof why) && strstr(why, "calls|engine"), "gemm=batched: '%s'",
          why);
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(mpb_adp_params, MPB_ADP_N_PARAMS, params);
    params[MPB_ADP_GEMM] = MPB_ADP_GEMM_ENGINE;
    struct mpb_gemm g = {.m = 33, .n = 7, .k = 131071, .target = MPB_TARGET_FP64};
    struct mpb_device_info hopper = {.cc_major = 9, .cc_minor = 0}, ampere = {.cc_major = 8, .cc_minor = 0};
    CHECK(mpb_adp_check(params, &g, &hopper, why, sizeof why), "k=131071 on sm_90: %s", why);
    CHECK(mpb_adp_check(params, &g, NULL, why, sizeof why), "on the host: %s", why);
    why[0] = '\0';
    CHECK(!mpb_adp_check(params, &g, &ampere, why, sizeof why) && strstr(why, "sm_90a"), "sm_80: '%s'", why);
    g.k = 131072;
    why[0] = '\0';
    CHECK(!mpb_adp_check(params, &g, &hopper, why, sizeof why) && strstr(why, "k=131072") && strstr(why, "gemm=calls"),
          "k=131072: '%s'", why);
    g.k = 64;
    params[MPB_ADP_ENGINE] = MPB_ADP_ENGINE_SLICES;
    why[0] = '\0';
    CHECK(!mpb_adp_check(params, &g, &hopper, why, sizeof why) && strstr(why, "engine=crt"), "engine=slices: '%s'",
          why);
    params[MPB_ADP_GEMM] = MPB_ADP_GEMM_CALLS;
    g.k = 262200;
    CHECK(mpb_adp_check(params, &g, &ampere, why, sizeof why), "gemm=calls engine=slices k=262200 on sm_80: %s", why);
}

int main(void)
{
    test_gemm_engine_check();
    test_budget_and_count();
    test_reconstruction();
    test_value_matches_slices();
    return check_report("test_adp_crt");
}
