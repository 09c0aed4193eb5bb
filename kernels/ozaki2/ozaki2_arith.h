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
#include "mpb_arith.h"
#include "mpb_hd.h"

#define MPB_OZ2_MAX_MODULI 20
#define MPB_OZ2_MIN_MODULI 2
/* Moduli in the table below: the scheme uses up to MPB_OZ2_MAX_MODULI (the
 * spec's range); adp's CRT engine (kernels/adp/adp_crt_arith.h) needs more
 * bits and takes up to all of them. */
#define MPB_OZ2_TABLE_MODULI 25

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
    case 19: return 173;
    case 20: return 167;
    case 21: return 163;
    case 22: return 157;
    case 23: return 151;
    default: return 149;
    }
}

/* The constants of the CRT reconstruction for N moduli (ozaki2_table.c
 * computes them exactly with GMP). With M_t = M/m_t and
 * y_t = M_t^-1 mod m_t, X ≡ sum_t w_t·M_t (mod M) where w_t ≡ c_t·y_t (mod m_t),
 * |w_t| ≤ m_t/2.
 * M_t = hi_t + lo_t: hi_t is a multiple of 2^T with at most 40 significant
 * bits, so that w_t·hi_t (|w_t| ≤ 2^7) and the sum of up to 20 of them (< 2^5
 * terms) are multiples of 2^T below 2^(T+53): exact in fp64. lo_t < 2^T
 * is rounded to fp64. Likewise M = m_hi + m_lo with m_hi of at most 48
 * significant bits, so that q·m_hi is exact for the quotient q ≤ 20. */
struct mpb_oz2_crt {
    int n;          /* moduli used */
    int budget;     /* L: sum_l |A'_il||B'_lj| < 2^L guarantees |X| < M/2 with margin */
    int y[MPB_OZ2_MAX_MODULI];
    double y_over_m[MPB_OZ2_MAX_MODULI]; /* fl(y_t/m_t), for the digit's quotient */
    double hi[MPB_OZ2_MAX_MODULI], lo[MPB_OZ2_MAX_MODULI];
    double m_hi, m_lo;
    double inv_m;   /* ≈ 1/M (only used to find the quotient; any nearby value works) */
};

/* |x| as bits: ordered like |x| for every double, NaN above +Inf, so the
 * row maximum is an integer max (order-free, atomicMax on the GPU). */
MPB_HD uint64_t mpb_oz2_abs_bits(double x)
{
    return mpb_f64_to_bits(x) & 0x7FFFFFFFFFFFFFFFull;
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
    (void)frexp(mpb_bits_to_f64(max_bits), &e);
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

/* 1.5·2^52: fma(y, s, MAGIC) − MAGIC rounds y·s to the nearest integer (ties
 * to even) for |y·s| < 2^51, and MAGIC + r (|r| < 2^31 an integer) holds r in
 * its low 32 bits, two's complement. Both replace rint, trunc and
 * double<->int conversions, which run at a quarter of the fp64 FMA rate on
 * sm_90 (CUDA Programming Guide, arithmetic instruction throughput): the
 * residues and the CRT digits below are computed billions of times. */
#define MPB_OZ2_MAGIC 0x1.8p52

/* (double)c for an int32 c. On the GPU the bits 2^52 + 2^31 + c are built
 * directly and 2^52 + 2^31 subtracted (exact) instead of a conversion. */
MPB_HD double mpb_oz2_i32_f64(int32_t c)
{
#ifdef __CUDA_ARCH__
    return __hiloint2double(0x43300000, (int)((unsigned)c ^ 0x80000000u)) - 0x1.00000800p52;
#else
    return (double)c;
#endif
}

/* The low 32 bits of a double's encoding: r for MAGIC + r (see above). */
MPB_HD int32_t mpb_oz2_low_word(double x)
{
#ifdef __CUDA_ARCH__
    return __double2loint(x);
#else
    return (int32_t)(uint32_t)mpb_f64_to_bits(x);
#endif
}

/* Symmetric residues of 2^35 and 2^70 modulo the t-th modulus (checked
 * against exact arithmetic in tests/kernels/test_ozaki2.c). */
MPB_HD int mpb_oz2_pow2_35_residue(int t)
{
    switch (t) {
    case 0: return 0;
    case 1: return 8;
    case 2: return -111;
    case 3: return -20;
    case 4: return -123;
    case 5: return 120;
    case 6: return -76;
    case 7: return 64;
    case 8: return -86;
    case 9: return 46;
    case 10: return 56;
    case 11: return 32;
    case 12: return -14;
    case 13: return -30;
    case 14: return -84;
    case 15: return 92;
    case 16: return 30;
    case 17: return -61;
    case 18: return -66;
    case 19: return 76;
    case 20: return 56;
    case 21: return -15;
    case 22: return -41;
    case 23: return 32;
    default: return -11;
    }
}

MPB_HD int mpb_oz2_pow2_70_residue(int t)
{
    switch (t) {
    case 0: return 0;
    case 1: return 64;
    case 2: return -76;
    case 3: return -102;
    case 4: return 62;
    case 5: return -60;
    case 6: return 40;
    case 7: return -98;
    case 8: return 68;
    case 9: return 73;
    case 10: return 14;
    case 11: return -61;
    case 12: return -15;
    case 13: return -95;
    case 14: return -36;
    case 15: return -28;
    case 16: return -55;
    case 17: return -80;
    case 18: return 60;
    case 19: return 67;
    case 20: return -37;
    case 21: return 62;
    case 22: return -46;
    case 23: return -33;
    default: return -28;
    }
}

/* An integer-valued x, |x| < 2^104, as x = hi·2^70 + mid·2^35 + lo with
 * integers |hi|, |mid|, |lo| ≤ 2^34: each part is the nearest integer of the
 * rest scaled down, and each remainder fma is exact (an integer of at most
 * 53 significant bits: a multiple of ulp(x) below 2^69, resp. below 2^34).
 * lo is kept as MAGIC + lo (exact). Computed once per element, so that
 * mpb_oz2_residue costs no conversion. */
struct mpb_oz2_parts {
    double hi, mid, lo_biased;
};

MPB_HD struct mpb_oz2_parts mpb_oz2_split_parts(double x)
{
    struct mpb_oz2_parts p;
    p.hi = fma(x, 0x1p-70, MPB_OZ2_MAGIC) - MPB_OZ2_MAGIC;
    double r = fma(-p.hi, 0x1p70, x);
    p.mid = fma(r, 0x1p-35, MPB_OZ2_MAGIC) - MPB_OZ2_MAGIC;
    p.lo_biased = fma(-p.mid, 0x1p35, r) + MPB_OZ2_MAGIC;
    return p;
}

/* Symmetric residue of x = hi·2^70 + mid·2^35 + lo modulo the t-th modulus,
 * as int8: [−128, 127] for m = 256 (a tie gives +128, whose int8 is −128),
 * [−(m−1)/2, (m−1)/2] for odd m. v = hi·res(2^70) + mid·res(2^35) + lo ≡ x
 * is an integer below 2^34·255 + 2^34 < 2^42, and MAGIC + v is computed
 * exactly by the two fmas (an integer in [2^52, 2^53)). q = the integer
 * nearest v·fl(1/m): fl(1/m) is within 2^-53 relative, so v·fl(1/m) is
 * within 2^-18 of v/m, whose fraction is a multiple of 1/m, never within
 * 1/(2m) of a half for odd m: q is v/m's nearest integer and r = v − q·m the
 * symmetric residue (for m = 256, 1/m is exact). r is small, so it is
 * v − q·m modulo 2^32, from the low words of MAGIC + v and MAGIC + q: four
 * fp64 operations and one integer multiply-add, no conversion. */
MPB_HD int8_t mpb_oz2_residue(const struct mpb_oz2_parts *x, int t)
{
    int m = mpb_oz2_modulus(t);
    double v_biased = fma(x->hi, (double)mpb_oz2_pow2_70_residue(t),
                          fma(x->mid, (double)mpb_oz2_pow2_35_residue(t), x->lo_biased));
    double q_biased = fma(v_biased - MPB_OZ2_MAGIC, 1.0 / m, MPB_OZ2_MAGIC);
    uint32_t r = (uint32_t)mpb_oz2_low_word(v_biased) -
                 (uint32_t)mpb_oz2_low_word(q_biased) * (uint32_t)m;
    return (int8_t)(r & 0xFF);
}

/* The CRT sum of the digits seen so far (see mpb_oz2_crt_finish). */
struct mpb_oz2_crt_sum {
    double hi, lo;
};

/* Adds modulus t's term for the INT32 GEMM output c ≡ X (mod m_t): the digit
 * w = c·y_t mod m_t, symmetric (|w| ≤ m_t/2), then w·M_t = w·hi_t + w·lo_t.
 * w as in mpb_oz2_residue: q = the integer nearest c·fl(y_t/m_t), within
 * 2^-21 of c·y_t/m_t (< 2^32): exact for odd m_t, either neighbour of a tie
 * for 256 = 2^8 (y/256 exact); w = c·y_t − q·m_t is small, so it is that
 * difference modulo 2^32 (integer multiply-adds, q from the low word of
 * MAGIC + q). w·hi_t is exact and so is the sum (struct mpb_oz2_crt); lo_t's
 * products are rounded (the low part). */
MPB_HD double mpb_oz2_crt_digit(int32_t c, int t, int y, double y_over_m)
{
    uint32_t m = (uint32_t)mpb_oz2_modulus(t);
    double q_biased = fma(mpb_oz2_i32_f64(c), y_over_m, MPB_OZ2_MAGIC);
    uint32_t w = (uint32_t)c * (uint32_t)y - (uint32_t)mpb_oz2_low_word(q_biased) * m;
    return mpb_oz2_i32_f64((int32_t)w);
}

MPB_HD void mpb_oz2_crt_add(struct mpb_oz2_crt_sum *s, int32_t c, int t,
                            const struct mpb_oz2_crt *tab)
{
    double wd = mpb_oz2_crt_digit(c, t, tab->y[t], tab->y_over_m[t]);
    s->hi = fma(wd, tab->hi[t], s->hi);
    s->lo = fma(wd, tab->lo[t], s->lo);
}

/* X from S = sum_t w_t·M_t (|S| < N·M/2), then X·2^-shift. S = s_hi + s_lo
 * with s_hi exact; q = rint(S/M) is exact because |X| < M/2 with a margin
 * far wider than the fp64 error of S/M (ozaki2_table.c), and
 * X = (s_hi − q·m_hi) + (s_lo − q·m_lo) where the first difference is exact
 * (multiples of 2^T below 2^(T+53)). The only roundings are in the low part
 * (relative 2^-53 of N·2^(T+8) ≈ M·2^-80, far below the truncation error)
 * and the final sum and ldexp. */
MPB_HD double mpb_oz2_crt_finish(const struct mpb_oz2_crt_sum *s, const struct mpb_oz2_crt *tab,
                                 int shift)
{
    double q = rint((s->hi + s->lo) * tab->inv_m);
    double d_hi = s->hi - q * tab->m_hi;
    double d_lo = fma(-q, tab->m_lo, s->lo);
    return ldexp(d_hi + d_lo, -shift);
}

/* X·2^-shift from its residues c_t = c[t·stride] (INT32 GEMM outputs). */
MPB_HD double mpb_oz2_reconstruct(const int32_t *c, size_t stride, const struct mpb_oz2_crt *tab,
                                  int shift)
{
    struct mpb_oz2_crt_sum s = {0, 0};
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int t = 0; t < MPB_OZ2_MAX_MODULI; t++) {
        if (t >= tab->n)
            break;
        mpb_oz2_crt_add(&s, c[(size_t)t * stride], t, tab);
    }
    return mpb_oz2_crt_finish(&s, tab, shift);
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
