/* Exact CRT quantities with GMP (crt_gmp.h). */
#include "common/crt_gmp.h"

#include <math.h>

#include "common/crt_arith.h"

void mpb_crt_moduli_product(int n, mpz_t m)
{
    mpz_set_ui(m, 1);
    for (int t = 0; t < n; t++)
        mpz_mul_ui(m, m, (unsigned long)mpb_crt_modulus(t));
}

int mpb_crt_cofactor(const mpz_t m, int t, mpz_t mt)
{
    mpz_t mod, inv;
    mpz_init_set_ui(mod, (unsigned long)mpb_crt_modulus(t));
    mpz_init(inv);
    mpz_divexact(mt, m, mod);
    mpz_invert(inv, mt, mod);
    int y = (int)mpz_get_ui(inv);
    mpz_clears(mod, inv, NULL);
    return y;
}

int mpb_crt_budget(const mpz_t m)
{
    long e;
    double frac = mpz_get_d_2exp(&e, m);
    return (int)floor((double)e + log2(frac) - 1.0 - 1.0 / 64);
}

double mpb_crt_mpz_exact_double(const mpz_t x)
{
    long e;
    double d = mpz_get_d_2exp(&e, x);
    return ldexp(d, (int)e);
}
