/* The CRT constants of Ozaki scheme II, computed exactly with GMP once per
 * setup (see struct mpb_oz2_crt in ozaki2_arith.h for what each is). */
#include "ozaki2/ozaki2.h"

#include <math.h>

#include "common/crt_gmp.h"

/* hi = x rounded down to a multiple of 2^(bitlen(ref) − keep), lo = x − hi. */
static void split(const mpz_t x, size_t ref_bits, int keep, double *hi, double *lo)
{
    mpz_t h, l;
    mpz_inits(h, l, NULL);
    unsigned long shift = ref_bits > (size_t)keep ? (unsigned long)(ref_bits - (size_t)keep) : 0;
    mpz_fdiv_q_2exp(h, x, shift);
    mpz_mul_2exp(h, h, shift);
    mpz_sub(l, x, h);
    *hi = mpb_crt_mpz_exact_double(h);
    *lo = mpz_get_d(l); /* < 2^shift, truncated to 53 bits: the low part's rounding */
    mpz_clears(h, l, NULL);
}

bool mpb_oz2_crt_init(int n, struct mpb_oz2_crt *tab)
{
    if (n < MPB_OZ2_MIN_MODULI || n > MPB_OZ2_MAX_MODULI)
        return false;
    mpz_t big_m, mt;
    mpz_inits(big_m, mt, NULL);
    mpb_crt_moduli_product(n, big_m);
    /* One 2^T for all hi_t: every M_t = M/m_t ≤ M/173 < 2^(bitlen(M)−7). */
    size_t mt_bits = mpz_sizeinbase(big_m, 2) - 7;
    tab->n = n;
    for (int t = 0; t < n; t++) {
        tab->y[t] = mpb_crt_cofactor(big_m, t, mt);
        tab->y_over_m[t] = (double)tab->y[t] / mpb_crt_modulus(t);
        split(mt, mt_bits, 40, &tab->hi[t], &tab->lo[t]);
    }
    for (int t = n; t < MPB_OZ2_MAX_MODULI; t++) {
        tab->y[t] = 0;
        tab->y_over_m[t] = 0;
        tab->hi[t] = tab->lo[t] = 0;
    }
    split(big_m, mpz_sizeinbase(big_m, 2), 48, &tab->m_hi, &tab->m_lo);
    tab->inv_m = 1.0 / mpz_get_d(big_m);
    /* the fp64 error of S/M is below 2^-45, far inside the budget's margin */
    tab->budget = mpb_crt_budget(big_m);
    mpz_clears(big_m, mt, NULL);
    return true;
}
