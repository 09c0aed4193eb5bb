/* Ozaki scheme II arithmetic (kernels/ozaki2/ozaki2_arith.h) against exact
 * integer arithmetic (__int128 and GMP): the moduli, the residues, the CRT
 * constants and the reconstruction for every moduli count. Fixed seed;
 * failures print the values. */
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "rng.h"
#include "ozaki2/ozaki2.h"

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int sym_mod(__int128 x, int m)
{
    int r = (int)(x % m);
    if (r < 0)
        r += m;
    return r > (m - 1) / 2 ? r - m : r;
}

static void test_moduli(void)
{
    for (int s = 0; s < MPB_CRT_TABLE_MODULI; s++) {
        int ms = mpb_crt_modulus(s);
        CHECK(ms <= 256 && ms > 128, "modulus %d = %d", s, ms);
        for (int t = s + 1; t < MPB_CRT_TABLE_MODULI; t++)
            CHECK(gcd(ms, mpb_crt_modulus(t)) == 1, "moduli %d and %d share a factor", ms,
                  mpb_crt_modulus(t));
        CHECK(mpb_crt_pow2_35_residue(s) == sym_mod((__int128)1 << 35, ms), "2^35 mod %d", ms);
        CHECK(mpb_crt_pow2_70_residue(s) == sym_mod((__int128)1 << 70, ms), "2^70 mod %d", ms);
    }
}

/* Residues of integers up to 2^104 in magnitude, both signs, every modulus. */
static void test_residues(void)
{
    for (int it = 0; it < 200000; it++) {
        int bits = 1 + (int)(rng_next() % 104);
        uint64_t hi = rng_next() & (bits > 52 ? ((1ull << (bits - 52)) - 1) : 0);
        uint64_t lo = rng_next() & ((1ull << (bits < 52 ? bits : 52)) - 1);
        /* a double: at most 53 significant bits, so round the integer to them */
        double x = ldexp((double)hi, 52) + (double)lo;
        if (rng_next() & 1)
            x = -x;
        if (fabs(x) >= 0x1p104)
            continue;
        x = trunc(x);
        __int128 xi = (__int128)ldexp(x, 0);
        int t = (int)(rng_next() % MPB_CRT_TABLE_MODULI), m = mpb_crt_modulus(t);
        struct mpb_crt_parts parts = mpb_crt_split_parts(x);
        __int128 back = (__int128)parts.hi * ((__int128)1 << 70) + (__int128)parts.mid * ((__int128)1 << 35) +
                        (__int128)(parts.lo_biased - MPB_CRT_MAGIC);
        CHECK(back == xi && fabs(parts.hi) <= 0x1p34 && fabs(parts.mid) <= 0x1p34 &&
                  fabs(parts.lo_biased - MPB_CRT_MAGIC) <= 0x1p34,
              "parts of %a: %a %a %a", x, parts.hi, parts.mid, parts.lo_biased);
        int r = mpb_crt_residue(&parts, t);
        int want = sym_mod(xi, m);
        CHECK(r == want, "residue(%a, %d) = %d, expected %d", x, m, r, want);
        CHECK(r >= -(m / 2) && r <= (m - 1) / 2, "residue %d outside the symmetric range of %d", r, m);
    }
}

/* For each count: random X with |X| < 2^L (L = tab.budget), small X and X
 * near ±2^L; GEMM outputs c_t ≡ X (mod m_t) anywhere in the int32 range.
 * Documented error: |res − X| ≤ 2^-53|res| + 2^(bitlen(M)−81). */
static void test_crt(void)
{
    mpz_t x, bigm, r, diff, lim;
    mpz_inits(x, bigm, r, diff, lim, NULL);
    gmp_randstate_t gs;
    gmp_randinit_default(gs);
    gmp_randseed_ui(gs, 12345);
    for (int n = MPB_OZ2_MIN_MODULI; n <= MPB_OZ2_MAX_MODULI; n++) {
        struct mpb_oz2_crt tab;
        CHECK(mpb_oz2_crt_init(n, &tab), "crt_init(%d)", n);
        mpz_set_ui(bigm, 1);
        for (int t = 0; t < n; t++)
            mpz_mul_ui(bigm, bigm, (unsigned long)mpb_crt_modulus(t));
        /* the budget: 2^L < M/2 with the margin the quotient needs */
        mpz_set_ui(lim, 1);
        mpz_mul_2exp(lim, lim, (mp_bitcnt_t)tab.budget + 1);
        mpz_mul_ui(lim, lim, 1000);
        mpz_t half;
        mpz_init(half);
        mpz_mul_ui(half, bigm, 989);
        CHECK(mpz_cmp(lim, half) <= 0, "n=%d: 2^(L+1) > 0.989·M (L=%d)", n, tab.budget);
        mpz_clear(half);
        int slack_exp = (int)mpz_sizeinbase(bigm, 2) - 81;
        for (int it = 0; it < 3000; it++) {
            int kind = it % 3;
            if (kind == 0)
                mpz_urandomb(x, gs, (mp_bitcnt_t)tab.budget);
            else if (kind == 1)
                mpz_urandomb(x, gs, 1 + (mp_bitcnt_t)(rng_next() % (tab.budget < 60 ? tab.budget : 60)));
            else {
                mpz_set_ui(x, 1);
                mpz_mul_2exp(x, x, (mp_bitcnt_t)tab.budget);
                mpz_sub_ui(x, x, 1 + rng_next() % 1000);
            }
            if (rng_next() & 1)
                mpz_neg(x, x);
            int32_t c[MPB_OZ2_MAX_MODULI];
            for (int t = 0; t < n; t++) {
                int m = mpb_crt_modulus(t);
                long res = (long)mpz_fdiv_ui(x, (unsigned long)m);
                int64_t wrap = (int64_t)(rng_next() % (2 * (INT32_MAX / m) - 2)) - (INT32_MAX / m - 1);
                c[t] = (int32_t)(res + wrap * m);
            }
            int shift = (int)(rng_next() % 200) - 100;
            double got = mpb_oz2_reconstruct(c, 1, &tab, shift);
            double unscaled = ldexp(got, shift);
            mpz_set_d(r, unscaled); /* exact: |X| ≥ 2^53 makes it an integer; below, compare in double */
            double err;
            if (fabs(unscaled) >= 0x1p53) {
                mpz_sub(diff, r, x);
                err = mpz_get_d(diff);
            } else {
                err = unscaled - mpz_get_d(x);
            }
            double tol = ldexp(fabs(unscaled), -53) + ldexp(1.0, slack_exp > 0 ? slack_exp : 0);
            CHECK(fabs(err) <= tol, "n=%d X=%s: reconstructed %a, error %g > %g", n,
                  mpz_get_str(NULL, 10, x), unscaled, err, tol);
        }
    }
    gmp_randclear(gs);
    mpz_clears(x, bigm, r, diff, lim, NULL);
}

int main(void)
{
    test_moduli();
    test_residues();
    test_crt();
    return check_report("test_ozaki2");
}
