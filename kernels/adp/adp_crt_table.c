/* The constants of adp's CRT engine (struct adp_crt in adp_crt_arith.h),
 * computed exactly with GMP in setup and by the host model. */
#include "adp/adp.h"

#include "common/crt_gmp.h"

/* The part of x at and above 2^grid: floor(x / 2^grid)·2^grid (x itself when
 * grid ≤ 0: x is an integer), as an exact double (≤ 53 significant bits by
 * the choice of grids); x keeps the rest. */
static double take_above(mpz_t x, long grid)
{
    mpz_t part;
    mpz_init_set(part, x);
    if (grid > 0) {
        mpz_fdiv_q_2exp(part, part, (mp_bitcnt_t)grid);
        mpz_mul_2exp(part, part, (mp_bitcnt_t)grid);
    }
    mpz_sub(x, x, part);
    double d = mpb_crt_mpz_exact_double(part);
    mpz_clear(part);
    return d;
}

/* v = p1 + p2 + p3: p1 above 2^g1, p2 above 2^g2, p3 the rest, rounded. */
static void split3(const mpz_t v, long g1, long g2, double *p1, double *p2, double *p3)
{
    mpz_t rest;
    mpz_init_set(rest, v);
    *p1 = take_above(rest, g1);
    *p2 = take_above(rest, g2);
    *p3 = mpz_get_d(rest);
    mpz_clear(rest);
}

bool mpb_adp_crt_init(int n, struct adp_crt *tab, int *budget)
{
    if (n < 2 || n > ADP_CRT_MAX_MODULI)
        return false;
    mpz_t big_m, mt;
    mpz_inits(big_m, mt, NULL);
    mpb_crt_moduli_product(n, big_m);
    long g1 = (long)mpz_sizeinbase(big_m, 2) - 47, g2 = g1 - 40;
    *tab = (struct adp_crt){.n = n};
    for (int t = 0; t < n; t++) {
        tab->y[t] = mpb_crt_cofactor(big_m, t, mt);
        tab->y_over_m[t] = (double)tab->y[t] / mpb_crt_modulus(t);
        split3(mt, g1, g2, &tab->h1[t], &tab->h2[t], &tab->h3[t]);
    }
    split3(big_m, g1, g2, &tab->m1, &tab->m2, &tab->m3);
    tab->inv_m = 1.0 / mpz_get_d(big_m);
    *budget = mpb_crt_budget(big_m);
    mpz_clears(big_m, mt, NULL);
    return true;
}
