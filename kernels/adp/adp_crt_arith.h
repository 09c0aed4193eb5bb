/* The CRT engine of `adp` (engine=crt): the W-bit fixed-point values that
 * the slice engine would cut into digits (adp_arith.h) are instead reduced
 * modulo N pairwise-coprime moduli ≤ 256, one exact INT8→INT32 GEMM per
 * modulus, and the integer product recovered by the Chinese Remainder
 * Theorem: Ozaki scheme II's arithmetic (Ozaki, Uchino, Imamura 2025; the
 * moduli and residues of kernels/common/crt_arith.h) under ADP's
 * guarantee (Schwarz et al. §4–5: W = 53 + ESC bits per row and column).
 *
 * Why: the slice engine needs s(s+1)/2 INT8 products for W = 8s − 1 bits,
 * the CRT engine N with log2(m_1···m_N) ≥ 2W + log2 k + 1: at W = 64
 * (φ = 0.5, n = 16384 on the H200) 45 products against 19, at W = 81
 * (φ = 2) 66 against 23.
 *
 * What differs from Ozaki-II proper: the scaling is ADP's, not a norm
 * bound: x ↦ N = RNE(|x|·2^(W−E))·sign(x) with the row's (column's) scale
 * exponent E (adp_scale_exponent), so |N| < 2^W and the dot product of a
 * row and a column is below k·2^(2W) < M/2; and the reconstruction keeps a
 * relative accuracy of 2^-53 for any |X| down to 2^(bitlen(M)−120) (three
 * parts per constant instead of Ozaki-II's two, whose error is relative to
 * M, a norm-wise error), because ADP's bound is componentwise. Both sides
 * (adp.cu, adp_host.c) run these functions: the same bits. */
#ifndef MPB_ADP_CRT_ARITH_H
#define MPB_ADP_CRT_ARITH_H

#include <math.h>
#include <stdint.h>
#include "adp/adp_arith.h"

/* The W-bit fixed-point integer of x in a row (column) with scale exponent
 * E, as an integer-valued double: RNE(x·2^(W−E)) (ties to even, the value
 * the slice engine's digits hold: adp_slice). |x|·2^−E ≤ 127/128 makes
 * |N| < 2^W ≤ 2^104, exact in fp64 and within mpb_crt_split_parts' range.
 * 0 for an all-zero row (E = ADP_EXP_NONE). */
MPB_HD double adp_crt_value(double x, int E, int bits)
{
    return E == ADP_EXP_NONE ? 0.0 : rint(ldexp(x, bits - E));
}

/* The constants for N moduli (adp_crt_table.c, exact with GMP). With
 * M = m_1···m_N, M_t = M/m_t and y_t = M_t^-1 mod m_t, the integer X with
 * X ≡ c_t (mod m_t) and |X| < M/2 is S − q·M, S = Σ_t w_t·M_t, w_t the
 * symmetric c_t·y_t mod m_t (mpb_crt_digit), q = rint(S/M).
 * Each M_t is cut at two grid points 2^G1 > 2^G2 (G1 = bitlen(M) − 47,
 * G2 = G1 − 40): h1_t a multiple of 2^G1 (≤ 40 significant bits, as
 * M_t < M/128), h2_t a multiple of 2^G2 below 2^G1 (≤ 40 bits), h3_t < 2^G2
 * rounded to fp64; M likewise (m1 ≤ 47 bits, m2 ≤ 40 bits, m3 rounded).
 * |w_t| ≤ 128 and N ≤ 25 keep Σ w_t·h1_t and Σ w_t·h2_t exact (multiples of
 * 2^G1 resp. 2^G2 below 2^(G+53)), and q·m1, q·m2 too (|q| ≤ 13). */
struct adp_crt {
    int n;
    double inv_m; /* ≈ 1/M: finds q, any value within 2^-40 relative works */
    double m1, m2, m3;
    int y[ADP_CRT_MAX_MODULI];
    double y_over_m[ADP_CRT_MAX_MODULI];
    double h1[ADP_CRT_MAX_MODULI], h2[ADP_CRT_MAX_MODULI], h3[ADP_CRT_MAX_MODULI];
};

/* S in its three parts: s1, s2 exact, s3 rounded. */
struct adp_crt_sum {
    double s1, s2, s3;
};

/* Adds modulus t's term for the INT32 GEMM output c ≡ X (mod m_t). */
MPB_HD void adp_crt_add(struct adp_crt_sum *s, int32_t c, int t, const struct adp_crt *tab)
{
    double w = mpb_crt_digit(c, t, tab->y[t], tab->y_over_m[t]);
    s->s1 = fma(w, tab->h1[t], s->s1);
    s->s2 = fma(w, tab->h2[t], s->s2);
    s->s3 = fma(w, tab->h3[t], s->s3);
}

/* X·2^shift from S. q is exact: |X| < 2^L ≤ 0.4946·M and S/M is computed
 * within 2^-45 (|S| ≤ N·M/2). D1 = s1 − q·m1 and D2 = s2 − q·m2 are exact
 * (representable: multiples of 2^G1 below 2^(G1+52), of 2^G2 below
 * 2^(G2+53)), D3 = s3 − q·m3 carries the only rounding of the sum, of order
 * N·2^(G2+8−53) = 2^(bitlen(M)−127). X = D1 + D2 + D3 by TwoSum(D1, D2)
 * and one more addition: |X̂ − X| ≤ 2^-53·|X|·(1 + 2^-52) + 2^(bitlen(M)−120)
 * (tests/kernels/test_adp_crt.c checks this against exact integers). */
MPB_HD double adp_crt_finish(const struct adp_crt_sum *s, const struct adp_crt *tab, int shift)
{
    double q = rint((s->s1 + s->s2 + s->s3) * tab->inv_m);
    double d1 = fma(-q, tab->m1, s->s1);
    double d2 = fma(-q, tab->m2, s->s2);
    double d3 = fma(-q, tab->m3, s->s3);
    double hi = d1 + d2;
    double bp = hi - d1;
    double err = (d1 - (hi - bp)) + (d2 - bp);
    return ldexp(hi + (err + d3), shift);
}

/* One output entry from its residues c_t = c[t·stride], t < tab->n, scaled
 * by 2^(ea + eb − 2W); 0 when row i of A or column j of B is all zero. */
MPB_HD double adp_crt_entry(const int32_t *c, int64_t stride, const struct adp_crt *tab, int ea,
                            int eb, int bits)
{
    if (ea == ADP_EXP_NONE || eb == ADP_EXP_NONE)
        return 0.0;
    struct adp_crt_sum s = {0.0, 0.0, 0.0};
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int t = 0; t < ADP_CRT_MAX_MODULI; t++) {
        if (t >= tab->n)
            break;
        adp_crt_add(&s, c[t * stride], t, tab);
    }
    return adp_crt_finish(&s, tab, ea + eb - 2 * bits);
}

#endif
