/* Ozaki scheme II arithmetic (Ozaki, Uchino, Imamura 2025, arXiv 2504.08009),
 * shared by the host model and the CUDA kernels (MPB_HD), so that both
 * compute the same bits: every step is either integer arithmetic, an exact
 * floating-point operation (power-of-two scaling, trunc, a product or sum
 * proven exact below), or one correctly rounded IEEE operation (fma, +, rint,
 * ldexp) that both sides round identically.
 *
 * The scheme, for C = A·B:
 *   1. scale row i of A by 2^mu_i and column j of B by 2^nu_j and truncate to
 *      integers A', B' such that sum_l |A'_il||B'_lj| < 2^L < M/2, where
 *      M = m_1···m_N is the product of the moduli (ozaki2_table.c picks L);
 *   2. for each modulus m_t: residues of A' and B' in int8, one exact
 *      INT8×INT8→INT32 GEMM, giving (A'B')_ij mod m_t;
 *   3. Chinese Remainder Theorem: the unique X ≡ (A'B')_ij (mod every m_t)
 *      with |X| < M/2 is (A'B')_ij itself; reconstruct it in fp64;
 *   4. C_ij = X·2^-(mu_i+nu_j).
 * The only approximation is the truncation in step 1 (and the final
 * rounding): the error is fixed-point, relative to the row/column norms. */
#ifndef MPB_OZAKI2_ARITH_H
#define MPB_OZAKI2_ARITH_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "../common/mpb_hd.h"

#define MPB_OZ2_MAX_MODULI 20
#define MPB_OZ2_MIN_MODULI 2

/* INT32 GEMMs are exact while k·128² < 2^31: the residue −128 of modulus
 * 256 is the largest in magnitude. */
#define MPB_OZ2_MAX_K 131071

/* Scale of a row/column holding NaN or ±Inf: its outputs are NaN (the scheme
 * has no guardrail to fall back on, and a NaN is better than a finite wrong
 * value; native DGEMM would give NaN or ±Inf there). */
#define MPB_OZ2_NONFINITE INT32_MIN

/* Bits of the leading-bits digits of mode=accurate (a digit is at most 2^6,
 * so it fits int8) and of the integer squares of mode=fast. */
#define MPB_OZ2_BOUND_DIGIT_BITS 6
#define MPB_OZ2_NORM_DIGIT_BITS 15

/* The moduli, in the order they are taken: the largest pairwise-coprime
 * integers ≤ 256, so that each INT8 GEMM adds as many bits (log2 m_t ≈ 7.4
 * to 8) to M as an int8 residue allows. 256 = 2^8 has residues in
 * [−128, 127], exactly the int8 range; the odd ones have symmetric residues
 * in [−(m−1)/2, (m−1)/2]. Skipped odd numbers share a factor with an earlier
 * modulus (e.g. 249 = 3·83 with 255 = 3·5·17, 245 = 5·7² with 255).
 * tests/kernels/test_ozaki2.c checks pairwise coprimality. A switch rather
 * than an array: after loop unrolling nvcc sees each modulus as a constant
 * and turns % and division by it into multiplications. */
MPB_HD int mpb_oz2_modulus(int t)
{
    switch (t) {
    case 0: return 256;
    case 1: return 255;
    case 2: return 253;
    case 3: return 251;
    case 4: return 247;
    case 5: return 241;
    case 6: return 239;
    case 7: return 233;
    case 8: return 229;
    case 9: return 227;
    case 10: return 223;
    case 11: return 217;
    case 12: return 211;
    case 13: return 199;
    case 14: return 197;
    case 15: return 193;
    case 16: return 191;
    case 17: return 181;
    case 18: return 179;
    default: return 173;
    }
}

/* The constants of the CRT reconstruction for N moduli (ozaki2_table.c
 * computes them exactly with GMP). With M_t = M/m_t and
 * y_t = M_t^-1 mod m_t, X ≡ sum_t w_t·M_t (mod M) where w_t = (c_t·y_t) mod m_t.
 * M_t = hi_t + lo_t: hi_t is a multiple of 2^T with at most 40 significant
 * bits, so that w_t·hi_t (w_t < 2^8) and the sum of up to 20 of them (< 2^5
 * terms) are multiples of 2^T below 2^(T+53): exact in fp64. lo_t < 2^T
 * is rounded to fp64. Likewise M = m_hi + m_lo with m_hi of at most 48
 * significant bits, so that q·m_hi is exact for the quotient q ≤ 20. */
struct mpb_oz2_crt {
    int n;          /* moduli used */
    int budget;     /* L: sum_l |A'_il||B'_lj| < 2^L guarantees |X| < M/2 with margin */
    int y[MPB_OZ2_MAX_MODULI];
    double hi[MPB_OZ2_MAX_MODULI], lo[MPB_OZ2_MAX_MODULI];
    double m_hi, m_lo;
    double inv_m;   /* ≈ 1/M (only used to find the quotient; any nearby value works) */
};

MPB_HD uint64_t mpb_oz2_f64_bits(double x)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

MPB_HD double mpb_oz2_bits_f64(uint64_t u)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

/* |x| as bits: ordered like |x| for every double, NaN above +Inf, so the
 * row maximum is an integer max (order-free, atomicMax on the GPU). */
MPB_HD uint64_t mpb_oz2_abs_bits(double x)
{
    return mpb_oz2_f64_bits(x) & 0x7FFFFFFFFFFFFFFFull;
}

MPB_HD int mpb_oz2_abs_bits_finite(uint64_t a)
{
    return a < 0x7FF0000000000000ull;
}

/* e with max < 2^e (max = |largest entry| of a row or column, finite, as
 * abs bits); 0 for an all-zero row, whose scale does not matter. */
MPB_HD int mpb_oz2_exponent(uint64_t max_bits)
{
    int e = 0;
    if (max_bits == 0)
        return 0;
    (void)frexp(mpb_oz2_bits_f64(max_bits), &e);
    return e;
}

/* ceil(|x|·2^(bits−e)), at least 1 for x ≠ 0 (a result rounded to zero in the
 * subnormal range must not make the bound below drop x). With |x| < 2^e it
 * is at most 2^bits. */
MPB_HD int64_t mpb_oz2_digit_up(double x, int e, int bits)
{
    if (x == 0)
        return 0;
    double d = ceil(ldexp(fabs(x), bits - e));
    return d < 1 ? 1 : (int64_t)d;
}

/* Number of bits of a nonnegative integer: v < 2^bitlen(v). */
MPB_HD int mpb_oz2_bitlen(uint64_t v)
{
    int b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

MPB_HD int mpb_oz2_floor_half(int v)
{
    return v >= 0 ? v / 2 : -((1 - v) / 2);
}

/* Scaling exponents. Both modes return mu with, for every j,
 * 2^(mu_i+nu_j)·(|A||B|)_ij < 2^L, when the column side uses the same rule.
 * Capped so that |a·2^mu| < 2^104 (two fp64 limbs in mpb_oz2_residue): the
 * cap truncates below 2^-104 of the row maximum, far below any target's
 * precision, and only when more than 13 moduli are used.
 *
 * mode=fast (Cauchy–Schwarz): (|A||B|)_ij ≤ ‖a_i‖₂‖b_j‖₂, and with
 * S = sum_l ceil(|a_il|·2^(15−e))², ‖a_i‖₂ ≤ 2^(e−15)·√S < 2^(e−15+bitlen(S)/2).
 * mu = floor((L − 2(e−15) − bitlen(S))/2) keeps 2^mu‖a_i‖₂ < 2^(L/2). */
MPB_HD int mpb_oz2_scale_fast(int e, uint64_t sumsq, int budget)
{
    int mu = mpb_oz2_floor_half(budget - 2 * (e - MPB_OZ2_NORM_DIGIT_BITS) - mpb_oz2_bitlen(sumsq));
    return mu < 104 - e ? mu : 104 - e;
}

/* mode=accurate (the paper's extra INT8 GEMM of leading bits): digits
 * ā_il = ceil(|a_il|·2^(6−e_i)), b̄_lj likewise, U = Ā·B̄ exact in INT32, and
 * (|A||B|)_ij ≤ U_ij·2^(e_i−6+f_j−6). With U_ij ≤ umax_i := max_j U_ij and
 * U_ij ≤ max_i U_ij =: umax_j, U_ij < 2^((bitlen(umax_i)+bitlen(umax_j))/2),
 * so mu_i = floor((L − bitlen(umax_i))/2) − (e_i − 6) and the same for nu_j
 * keep 2^(mu_i+nu_j)(|A||B|)_ij < 2^L. Tighter than fast mode by about the
 * gap between |a|·|b| and ‖a‖₂‖b‖₂. */
MPB_HD int mpb_oz2_scale_accurate(int e, uint32_t umax, int budget)
{
    int mu = mpb_oz2_floor_half(budget - mpb_oz2_bitlen(umax)) - (e - MPB_OZ2_BOUND_DIGIT_BITS);
    return mu < 104 - e ? mu : 104 - e;
}

/* trunc(x·2^mu): an integer of magnitude < 2^104, exact in fp64 (ldexp is
 * exact unless the result is subnormal, and then it is < 1 and truncates
 * to 0 either way). */
MPB_HD double mpb_oz2_scaled_int(double x, int mu)
{
    return trunc(ldexp(x, mu));
}

/* The symmetric residue of an integer-valued x, |x| < 2^53, modulo m:
 * [−128, 127] for m = 256, [−(m−1)/2, (m−1)/2] for odd m. q = rint(x/m)
 * computed in fp64 is within 1 of the true nearest quotient (relative error
 * ≤ 2^-52 on a quotient < 2^53/173), and x − q·m is an integer of magnitude
 * < 2m, so the fma computes it exactly; one correction by ±m lands it. */
MPB_HD int mpb_oz2_residue_small(double x, int m)
{
    double q = rint(x * (1.0 / m));
    int r = (int)fma(-q, (double)m, x);
    int hi = (m - 1) / 2, lo = -(m / 2);
    if (r > hi)
        r -= m;
    if (r < lo)
        r += m;
    return r;
}

/* Symmetric residue of 2^52 modulo the t-th modulus (checked against exact
 * arithmetic in tests/kernels/test_ozaki2.c). */
MPB_HD int mpb_oz2_pow2_52_residue(int t)
{
    switch (t) {
    case 0: return 0;
    case 1: return 16;
    case 2: return 26;
    case 3: return 4;
    case 4: return 81;
    case 5: return 16;
    case 6: return 48;
    case 7: return -91;
    case 8: return 104;
    case 9: return -35;
    case 10: return -13;
    case 11: return -89;
    case 12: return 59;
    case 13: return 80;
    case 14: return 85;
    case 15: return -16;
    case 16: return 43;
    case 17: return -79;
    case 18: return -40;
    default: return -41;
    }
}

/* Symmetric residue of an integer-valued x, |x| < 2^104, modulo the t-th
 * modulus: below 2^53 directly; above, x = h·2^52 + l with h = trunc(x/2^52)
 * and l = x − h·2^52 (both exact, |h|, |l| < 2^52), and
 * x ≡ res(h)·res(2^52) + l, an integer below 2^52 + 2^14 < 2^53. */
MPB_HD int mpb_oz2_residue(double x, int t)
{
    int m = mpb_oz2_modulus(t);
    if (fabs(x) < 0x1p53)
        return mpb_oz2_residue_small(x, m);
    double h = trunc(ldexp(x, -52));
    double l = x - ldexp(h, 52);
    double v = (double)(mpb_oz2_residue_small(h, m) * mpb_oz2_pow2_52_residue(t)) + l;
    return mpb_oz2_residue_small(v, m);
}

/* w_t = (c·y_t) mod m_t in [0, m_t) for the INT32 GEMM output c ≡ X mod m_t:
 * c % m is in (−m, m), the product with y < m stays below 2^16. */
MPB_HD int mpb_oz2_crt_digit(int32_t c, int m, int y)
{
    int w = ((c % m) * y) % m;
    return w < 0 ? w + m : w;
}

/* X from its residues c_t = c[t·stride] (INT32 GEMM outputs), then
 * X·2^-shift. S = sum_t w_t·M_t ∈ [0, N·M) is held as s_hi + s_lo with s_hi
 * exact (see struct mpb_oz2_crt); q = rint(S/M) is exact because |X| < M/2
 * with a margin far wider than the fp64 error of S/M (ozaki2_table.c), and
 * X = (s_hi − q·m_hi) + (s_lo − q·m_lo) where the first difference is exact
 * (multiples of 2^T below 2^(T+53)). The only roundings are in the low part
 * (relative 2^-53 of N·2^(T+8) ≈ M·2^-80, far below the truncation error)
 * and the final sum and ldexp. */
MPB_HD double mpb_oz2_reconstruct(const int32_t *c, size_t stride, const struct mpb_oz2_crt *tab,
                                  int shift)
{
    double s_hi = 0, s_lo = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int t = 0; t < MPB_OZ2_MAX_MODULI; t++) {
        if (t >= tab->n)
            break;
        double w = (double)mpb_oz2_crt_digit(c[(size_t)t * stride], mpb_oz2_modulus(t), tab->y[t]);
        s_hi = s_hi + w * tab->hi[t];
        s_lo = fma(w, tab->lo[t], s_lo);
    }
    double q = rint((s_hi + s_lo) * tab->inv_m);
    double d_hi = s_hi - q * tab->m_hi;
    double d_lo = fma(-q, tab->m_lo, s_lo);
    return ldexp(d_hi + d_lo, -shift);
}

/* One output entry: NaN when row i or column j held a non-finite value. */
MPB_HD double mpb_oz2_entry(const int32_t *c, size_t stride, const struct mpb_oz2_crt *tab, int mu,
                            int nu)
{
    if (mu == MPB_OZ2_NONFINITE || nu == MPB_OZ2_NONFINITE)
        return NAN;
    return mpb_oz2_reconstruct(c, stride, tab, mu + nu);
}

#endif
