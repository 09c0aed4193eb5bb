/* Exact CRT quantities (GMP) behind the fp64 constants of Ozaki scheme II
 * (kernels/ozaki2/ozaki2_table.c) and of adp's CRT engine
 * (kernels/adp/adp_crt_table.c), for the first n moduli of mpb_crt_modulus.
 * Host-only: nvcc never sees GMP. */
#ifndef MPB_CRT_GMP_H
#define MPB_CRT_GMP_H

#include <gmp.h>

/* m = M = m_0···m_{n−1} (m initialised by the caller). */
void mpb_crt_moduli_product(int n, mpz_t m);

/* mt = M/m_t (initialised by the caller); returns y_t = (M/m_t)^-1 mod m_t. */
int mpb_crt_cofactor(const mpz_t m, int t, mpz_t mt);

/* L = floor(log2(M) − 1 − 1/64): |X| < 2^L ≤ 0.4946·M keeps X/M at least
 * 0.005 from ±1/2, the margin the fp64 quotient of a reconstruction needs. */
int mpb_crt_budget(const mpz_t m);

/* The fp64 value of x, exact when x has at most 53 significant bits. */
double mpb_crt_mpz_exact_double(const mpz_t x);

#endif
