/* Exact CRT quantities (GMP) behind the fp64 constants of Ozaki scheme II
 * (ozaki2_table.c) and of adp's CRT engine (kernels/adp/adp_crt_table.c),
 * for the first n moduli of mpb_oz2_modulus. Host-only: nvcc never sees
 * GMP. */
#ifndef MPB_OZAKI2_CRT_GMP_H
#define MPB_OZAKI2_CRT_GMP_H

#include <gmp.h>

/* m = M = m_0···m_{n−1} (m initialised by the caller). */
void mpb_oz2_moduli_product(int n, mpz_t m);

/* mt = M/m_t (initialised by the caller); returns y_t = (M/m_t)^-1 mod m_t. */
int mpb_oz2_cofactor(const mpz_t m, int t, mpz_t mt);

/* L = floor(log2(M) − 1 − 1/64): |X| < 2^L ≤ 0.4946·M keeps X/M at least
 * 0.005 from ±1/2, the margin the fp64 quotient of a reconstruction needs. */
int mpb_oz2_budget(const mpz_t m);

/* The fp64 value of x, exact when x has at most 53 significant bits. */
double mpb_oz2_mpz_exact_double(const mpz_t x);

#endif
