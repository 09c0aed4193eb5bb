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
#include "common/crt_arith.h"

#define MPB_OZ2_MAX_MODULI 20
#define MPB_OZ2_MIN_MODULI 2

/* INT32 GEMMs are exact while k·128² < 2^31: the residue −128 of modulus
 * 256 is the largest in magnitude. Longer k is split into chunks of at most
 * MPB_CRT_CHUNK_K, one INT32 GEMM per modulus and chunk, and the chunk sums
 * folded modulo 2·m_t (common/crt_arith.h): the same bits as one exact sum.
 * Up to MPB_OZ2_MAX_K nothing is split. */
#define MPB_OZ2_MAX_K MPB_CRT_MAX_K

/* Scale of a row/column holding NaN or ±Inf: its outputs are NaN (the scheme
 * has no guardrail to fall back on, and a NaN is better than a finite wrong
 * value; native DGEMM would give NaN or ±Inf there). */
#define MPB_OZ2_NONFINITE INT32_MIN

/* Bits of the leading-bits digits of mode=accurate (a digit is at most 2^6,
 * so it fits int8) and of the integer squares of mode=fast. */
#define MPB_OZ2_BOUND_DIGIT_BITS 6
#define MPB_OZ2_NORM_DIGIT_BITS 15

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
 * Capped so that |a·2^mu| < 2^104 (two fp64 limbs in mpb_crt_residue): the
 * cap truncates below 2^-104 of the row maximum, far below any target's
 * precision, and only when more than 13 moduli are used.
 *
 * mode=fast (Cauchy–Schwarz): (|A||B|)_ij ≤ ‖a_i‖₂‖b_j‖₂, and with
 * S = sum_l ceil(|a_il|·2^(15−e))², ‖a_i‖₂ ≤ 2^(e−15)·√S < 2^(e−15+bitlen(S)/2).
 * mu = floor((L − 2(e−15) − bitlen(S))/2) keeps 2^mu‖a_i‖₂ < 2^(L/2). */
MPB_HD int mpb_oz2_scale_fast_bits(int e, int sumsq_bits, int budget)
{
    int mu = mpb_oz2_floor_half(budget - 2 * (e - MPB_OZ2_NORM_DIGIT_BITS) - sumsq_bits);
    return mu < 104 - e ? mu : 104 - e;
}

MPB_HD int mpb_oz2_scale_fast(int e, uint64_t sumsq, int budget)
{
    return mpb_oz2_scale_fast_bits(e, mpb_oz2_bitlen(sumsq), budget);
}

/* mode=accurate (the paper's extra INT8 GEMM of leading bits): digits
 * ā_il = ceil(|a_il|·2^(6−e_i)), b̄_lj likewise, U = Ā·B̄ exact (< k·2^12: one
 * INT32 GEMM up to MPB_OZ2_MAX_K, chunk sums added in 64 bits above), and
 * (|A||B|)_ij ≤ U_ij·2^(e_i−6+f_j−6). With U_ij ≤ umax_i := max_j U_ij and
 * U_ij ≤ max_i U_ij =: umax_j, U_ij < 2^((bitlen(umax_i)+bitlen(umax_j))/2),
 * so mu_i = floor((L − bitlen(umax_i))/2) − (e_i − 6) and the same for nu_j
 * keep 2^(mu_i+nu_j)(|A||B|)_ij < 2^L. Tighter than fast mode by about the
 * gap between |a|·|b| and ‖a‖₂‖b‖₂. */
MPB_HD int mpb_oz2_scale_accurate_bits(int e, int umax_bits, int budget)
{
    int mu = mpb_oz2_floor_half(budget - umax_bits) - (e - MPB_OZ2_BOUND_DIGIT_BITS);
    return mu < 104 - e ? mu : 104 - e;
}

MPB_HD int mpb_oz2_scale_accurate(int e, uint64_t umax, int budget)
{
    return mpb_oz2_scale_accurate_bits(e, mpb_oz2_bitlen(umax), budget);
}

/* ---- moduli=auto's statistics (ozaki2_auto.c decides from them) ----
 * Per row of A / column of B: the sum of its digits ceil(|x|·2^(15−e))
 * (mpb_oz2_digit_up, as in fast mode's sum of squares), so that
 * ‖a_i‖₁ ≤ 2^(e−15)·Σ digits. Per index l of k: over the finite rows of A,
 * Σ_i floor(|a_il|·2^(31−E)) and Σ_i floor(|a_il|·2^(16−E))², E the
 * largest exponent of a finite, nonzero row (every |a_il| of a finite row
 * is below 2^E: mpb_oz2_e_ref), and the same over the columns
 * of B: lower bounds of Σ_i |a_il| and Σ_i a_il², integers, so that the
 * GPU's atomic sums are exact and equal the host's. */
#define MPB_OZ2_SUM_DIGIT_BITS 31
#define MPB_OZ2_SQ_DIGIT_BITS 16

/* floor(|x|·2^(bits−e)) for |x| < 2^e: below 2^bits. ldexp is exact unless
 * the result is subnormal, and then it is below 1 either way. */
MPB_HD uint64_t mpb_oz2_digit_down(double x, int e, int bits)
{
    return (uint64_t)trunc(ldexp(fabs(x), bits - e));
}

/* trunc(x·2^mu): an integer of magnitude < 2^104, exact in fp64 (ldexp is
 * exact unless the result is subnormal, and then it is < 1 and truncates
 * to 0 either way). */
MPB_HD double mpb_oz2_scaled_int(double x, int mu)
{
    return trunc(ldexp(x, mu));
}

/* The CRT sum of the digits seen so far (see mpb_oz2_crt_finish). */
struct mpb_oz2_crt_sum {
    double hi, lo;
};

/* Adds modulus t's term for the INT32 GEMM output c ≡ X (mod m_t): the
 * digit w (mpb_crt_digit), then w·M_t = w·hi_t + w·lo_t. w·hi_t is exact and
 * so is the sum (struct mpb_oz2_crt); lo_t's products are rounded (the low
 * part). */
MPB_HD void mpb_oz2_crt_add(struct mpb_oz2_crt_sum *s, int32_t c, int t,
                            const struct mpb_oz2_crt *tab)
{
    double wd = mpb_crt_digit(c, t, tab->y[t], tab->y_over_m[t]);
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
