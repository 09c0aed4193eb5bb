/* Ozaki scheme I arithmetic shared by the host model and the CUDA kernels
 * (both slice formats: FP16 digits for DGEMM-TC, Mukunoki et al. 2020, and
 * INT8 digits for ozIMMU, Ootomo, Ozaki, Yokota 2024).
 *
 * Digits. A row of A (column of B) along k gets a power-of-two scale 2^e
 * with max|x| < 2^e. Digit p (p = 1..s) is extracted from the remainder r
 * with the classic error-free step of Ozaki et al. (2012), as in Algorithm 1
 * of Mukunoki et al.: σ = 0.75·2^(ρ+τ), x^(p) = fl((r+σ)−σ), r ← r − x^(p),
 * on r·2^(E−e) (E = MPB_OZAKI1_DIGIT_EXP) so that no σ overflows and no
 * bit of a subnormal x is lost. Here τ is not recomputed from the
 * remainder but steps down by β bits per digit: then digit p of every row
 * has the unit 2^(e−pβ), all slice pairs of equal weight w = p+q share one
 * scale 2^(eA+eB−wβ), and their exact products can be summed exactly before
 * any rounding (Uchino et al.'s grouping; the cost is at most one digit when
 * a remainder happens to be much smaller than its bound). Round to nearest
 * at every digit: |d_1| ≤ 2^β, |d_p| ≤ 2^(β−1) for p ≥ 2.
 *   FP16: β from k so that k·2^(2β) ≤ 2^24: every product-sum of two digit
 *         slices is an integer of at most 24 bits, exact in FP32 whatever
 *         the tensor core's summation order (the paper's choice of ρ).
 *   INT8: β = 7. The scale gets one more bit when max|x| ≥ (255/256)·2^e,
 *         so that |d_1| ≤ 127 fits int8 (the leading digit carries the
 *         sign and 7 bits, as in ozIMMU); later digits lie in [−64, 64].
 *
 * Accumulation. With S_w the exact integer sum of the products of weight w,
 *   C_ij = 2^(eA_i+eB_j) · Σ_w S_w · 2^(−wβ),
 * summed in FP64 from the smallest weight up (dp / int8), or rounded once,
 * correctly, from the exact digit expansion (cr).
 *
 * NaN and ±Inf. A row of A (column of B) holding one gets the scale
 * exponent MPB_OZAKI1_NONFINITE_EXP, zero digits (so that the GEMMs stay
 * finite and exact for every other entry) and the statistics of a zero row;
 * its entries of C are NaN, as in Ozaki scheme II (ozaki2_arith.h): never a
 * finite wrong value, and no entry outside its row/column is changed. */
#ifndef MPB_OZAKI1_ARITH_H
#define MPB_OZAKI1_ARITH_H

#include <stdint.h>
#include <math.h>
#include "mpb_hd.h"

/* The exponent of a zero row: digits of a zero row are zero whatever the
 * scale, and the sum of two such exponents still fits an int. */
#define MPB_OZAKI1_ZERO_EXP (-(1 << 28))

/* The exponent of a row holding NaN or ±Inf: above every finite one, so that
 * the max over a row (host loop, atomicMax, block reduction) marks it. */
#define MPB_OZAKI1_NONFINITE_EXP (1 << 28)

enum mpb_ozaki1_format { MPB_OZAKI1_FP16 = 0, MPB_OZAKI1_INT8 = 1 };

/* Bits per digit. FP16: k·2^β·2^β ≤ 2^⌈log2 k⌉·2^(24−⌈log2 k⌉) = 2^24, and
 * β ≤ 11 so that 2^β is an FP16 integer. Below 1 for k > 2^22: caller. */
MPB_HD int mpb_ozaki1_beta(int format, int64_t k)
{
    if (format == MPB_OZAKI1_INT8)
        return 7;
    int beta = (24 - mpb_ceil_log2(k)) / 2;
    return beta > 11 ? 11 : beta;
}

/* The scale exponent one entry asks for (its row's is the max of these).
 * frexp's exponent of NaN or ±Inf is unspecified: test them first. */
MPB_HD int mpb_ozaki1_need_exp(double x, int format)
{
    if (!isfinite(x))
        return MPB_OZAKI1_NONFINITE_EXP;
    if (x == 0.0)
        return MPB_OZAKI1_ZERO_EXP;
    int e;
    double f = frexp(fabs(x), &e); /* |x| = f·2^e, f in [0.5, 1) */
    if (format == MPB_OZAKI1_INT8 && f >= 255.0 / 256.0)
        e++;
    return e;
}

/* Exponent of the last set bit of a finite x (x = odd·2^lsb); the zero
 * exponent for 0. */
MPB_HD int mpb_ozaki1_lsb_exp(double x)
{
    if (x == 0.0)
        return -MPB_OZAKI1_ZERO_EXP;
    int e;
    double f = frexp(fabs(x), &e);
    int64_t mant = (int64_t)ldexp(f, 53); /* exact: 53-bit integer */
    int tz = 0;
    while (!(mant & 1)) {
        mant >>= 1;
        tz++;
    }
    return e - 53 + tz;
}

/* Digits are taken off x·2^(E−e) with E = MPB_OZAKI1_DIGIT_EXP, |x| < 2^e.
 * x·2^−e drops the bits of x lying more than 1074 bits below 2^e (it is
 * subnormal there): those of a subnormal next to a normal row maximum, which
 * cr must keep. x·2^(E−e) keeps them down to E + 1074 bits below 2^e. Every
 * σ = 0.75·2^(E+53−pβ) stays finite (E + 53 ≤ 1024) and normal, so that
 * ulp(σ) = 2^(E−pβ), for pβ ≤ E + 1074, beyond the 160·11 bits of the most
 * digits. Where x·2^−e is exact both give the same digits. */
#define MPB_OZAKI1_DIGIT_EXP 960

/* One digit: takes digit p (p ≥ 1) off the scaled remainder *r (|*r| <
 * 2^(E−(p−1)β)) and returns it. ulp(σ) = 2^(E−pβ): fl(r+σ) rounds r to a
 * multiple of it and the subtraction is exact (Ozaki et al. 2012). */
MPB_HD int32_t mpb_ozaki1_digit_step(double *r, int p, int beta)
{
    double sigma = 0.75 * ldexp(1.0, MPB_OZAKI1_DIGIT_EXP + 53 - p * beta);
    double hi = (*r + sigma) - sigma;
    *r = *r - hi;
    return (int32_t)ldexp(hi, p * beta - MPB_OZAKI1_DIGIT_EXP);
}

/* The scaled value digit 1 is taken from: x·2^(E−e), or 0 in a row holding
 * NaN/±Inf (its digits are zeros). */
MPB_HD double mpb_ozaki1_scaled(double x, int e)
{
    return e == MPB_OZAKI1_NONFINITE_EXP ? 0.0 : ldexp(x, MPB_OZAKI1_DIGIT_EXP - e);
}

/* Digits d[0..s-1] of x for the scale exponent e: x = Σ d[p−1]·2^(e−pβ) + r,
 * |r| ≤ 2^(e−sβ−1). Returns the remainder scaled by 2^(E−e) (0 when exact). */
MPB_HD double mpb_ozaki1_digits(double x, int e, int beta, int s, int32_t *d)
{
    double r = mpb_ozaki1_scaled(x, e);
    for (int p = 1; p <= s; p++)
        d[p - 1] = mpb_ozaki1_digit_step(&r, p, beta);
    return r;
}

/* Largest |digit| of slice p, for the exactness bounds of the GEMMs. */
MPB_HD int64_t mpb_ozaki1_digit_max(int format, int beta, int p)
{
    if (format == MPB_OZAKI1_INT8)
        return p == 1 ? 127 : 64;
    return p == 1 ? (int64_t)1 << beta : (int64_t)1 << (beta - 1);
}

/* One FP64 accumulation step: acc + v·2^(−wβ) (dp mode and the INT8 sums). */
MPB_HD double mpb_ozaki1_acc_add(double acc, int64_t v, int w, int beta)
{
    return acc + ldexp((double)v, -w * beta);
}

/* The scale exponent of C_ij, eA_i + eB_j, or MPB_OZAKI1_NONFINITE_EXP when
 * row i of A or column j of B holds NaN/±Inf. */
MPB_HD int mpb_ozaki1_escale(int ea, int eb)
{
    if (ea == MPB_OZAKI1_NONFINITE_EXP || eb == MPB_OZAKI1_NONFINITE_EXP)
        return MPB_OZAKI1_NONFINITE_EXP;
    return ea + eb;
}

/* The accumulated sum scaled back: acc·2^escale; NaN for a non-finite scale. */
MPB_HD double mpb_ozaki1_unscale(double acc, int escale)
{
    if (escale == MPB_OZAKI1_NONFINITE_EXP)
        return NAN;
    return acc == 0.0 ? 0.0 : ldexp(acc, escale);
}

/* Correctly rounded value of 2^escale · Σ_{w=1..W} S[w]·2^(−wβ) (S[0]
 * unused) to `prec` bits (53 or 24), round to nearest even. The weights are
 * first carried into base-2^β digits 0 ≤ dig[w] < 2^β under an integer part;
 * a negative sum is negated so that the digits are the binary expansion of
 * the magnitude; then 54+ leading bits and a sticky bit give the rounding.
 * Exact for results in the normal range (a subnormal result is rounded a
 * second time by ldexp); NaN for a non-finite scale. `dig` is scratch of
 * W+1 entries. */
MPB_HD double mpb_ozaki1_round_exact(const int64_t *S, int W, int beta, int escale, int prec,
                                     int32_t *dig)
{
    if (escale == MPB_OZAKI1_NONFINITE_EXP)
        return NAN;
    int64_t R = (int64_t)1 << beta;
    for (int sign = 1; sign >= -1; sign -= 2) {
        int64_t carry = 0;
        for (int w = W; w >= 1; w--) {
            int64_t v = sign * S[w] + carry;
            int64_t d = v & (R - 1);
            dig[w] = (int32_t)d;
            carry = (v - d) / R;
        }
        if (carry < 0)
            continue; /* negative: redo with −S */
        uint64_t hi = (uint64_t)carry;
        int exp = 0, sticky = 0;
        for (int w = 1; w <= W; w++) {
            if (hi < ((uint64_t)1 << (64 - beta))) {
                hi = (hi << beta) | (uint64_t)dig[w];
                exp -= beta;
            } else if (dig[w]) {
                sticky = 1;
            }
        }
        if (hi == 0)
            return 0.0;
        int nb = 64;
        while (!(hi >> (nb - 1)))
            nb--;
        if (nb > prec) {
            int drop = nb - prec;
            uint64_t rem = hi & (((uint64_t)1 << drop) - 1), half = (uint64_t)1 << (drop - 1);
            uint64_t q = hi >> drop;
            if (rem > half || (rem == half && (sticky || (q & 1))))
                q++;
            hi = q;
            exp += drop;
        }
        return sign * ldexp((double)hi, exp + escale);
    }
    return 0.0; /* unreachable: one of ±S has a non-negative integer part */
}

/* Element l of a strided vector of doubles or floats, as a double (exact). */
MPB_HD double mpb_ozaki1_load(const void *x, int64_t i, int is_f32)
{
    return is_f32 ? (double)((const float *)x)[i] : ((const double *)x)[i];
}

/* What the slice counts are decided from, per row of A / column of B:
 * the scale exponent, the lowest set bit, and Σ_l |x_l|·w_l (w NULL: 1). */
struct mpb_ozaki1_vec_stats {
    int e, lsb;
    double wsum;
};

/* The stats of x[0], x[stride], ..., in l order (host and device sum in
 * the same order, so that both decide the same slice counts). Rows and
 * columns holding NaN/±Inf count as zero: their C entries are NaN whatever
 * the digit counts, and must not change the others'. So x with a NaN/±Inf
 * gets a zero vector's stats, and element l is left out when `skip`
 * (NULL: none) has skip[l] = MPB_OZAKI1_NONFINITE_EXP: the scale exponents
 * of the rows (columns) that x's elements belong to. */
MPB_HD struct mpb_ozaki1_vec_stats mpb_ozaki1_stats(const void *x, int64_t len, int64_t stride,
                                                    int is_f32, const double *w, const int *skip,
                                                    int format)
{
    const struct mpb_ozaki1_vec_stats zero = {MPB_OZAKI1_ZERO_EXP, -MPB_OZAKI1_ZERO_EXP, 0.0};
    struct mpb_ozaki1_vec_stats st = zero;
    for (int64_t l = 0; l < len; l++) {
        if (skip && skip[l] == MPB_OZAKI1_NONFINITE_EXP)
            continue;
        double v = mpb_ozaki1_load(x, l * stride, is_f32);
        int e = mpb_ozaki1_need_exp(v, format);
        if (e == MPB_OZAKI1_NONFINITE_EXP)
            return zero;
        int lsb = mpb_ozaki1_lsb_exp(v);
        st.e = e > st.e ? e : st.e;
        st.lsb = lsb < st.lsb ? lsb : st.lsb;
        st.wsum = st.wsum + fabs(v) * (w ? w[l] : 1.0);
    }
    return st;
}

#endif
