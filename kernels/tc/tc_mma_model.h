/* What one tensor-core MMA computes, as a parameterised model shared by the
 * host models of the tensor-core schemes and by `mpbench probe`, which fits
 * its parameters to the GPU bit for bit.
 *
 * One instruction computes d = c + sum_l a_l*b_l over its k products (k = 16
 * for FP16/BF16, 8 for TF32). The family of models (Fasi, Higham, Mikaitis,
 * Pranesh 2021, "Numerical behavior of NVIDIA tensor cores", PeerJ CS 7:e330;
 * EGEMM-TC §3.1; the bit-accurate Hopper models of arXiv 2512.07004 and
 * MMA-Sim): every product is exact; the addends (the products and, when
 * `acc_in_sum`, c) are aligned to the largest exponent among them and each is
 * cut to `frac_bits` bits below that exponent's leading bit (toward zero, or
 * toward -inf when `trunc_floor`); the cut addends are added exactly and the
 * sum is rounded once to FP32 (toward zero, or to nearest when `round_rn`).
 * `split` > 1 does this on k/split products at a time, each result feeding
 * the next as c. An addend's exponent is that of its inputs added
 * (`product_exp` 0: e(a) + e(b), the product's significand in [1, 4)) or the
 * exact product's own (`product_exp` 1).
 *
 * Inputs are held as floats whose values the input format represents
 * exactly (the caller rounds); special values follow IEEE on the exact sum. */
#ifndef MPB_TC_MMA_MODEL_H
#define MPB_TC_MMA_MODEL_H

#include <math.h>
#include <stdint.h>

#include "mpb_hd.h"

/* TC_IN_S8: the engine's block-scaled INT8 path (tc_s8_args); INT8 MMAs are
 * exact integer sums (`mpbench probe`), so no model parameter applies. */
enum tc_input { TC_IN_FP16 = 0, TC_IN_BF16 = 1, TC_IN_TF32 = 2, TC_IN_S8 = 3 };

struct tc_mma_model {
    int frac_bits;   /* bits kept below the largest addend's leading bit */
    int split;       /* fused sums per instruction (1: all k products at once) */
    int acc_in_sum;  /* 1: c is aligned with the products; 0: added after their sum is rounded */
    int round_rn;    /* final rounding: 1 nearest even, 0 toward zero */
    int trunc_floor; /* addend cut: 1 toward -inf, 0 toward zero */
    int product_exp; /* addend exponent: 0 e(a)+e(b), 1 the exact product's */
};

/* The model `mpbench probe` fitted on the H200, bit for bit on every test of
 * mma.sync and wgmma with FP16, BF16 and TF32 inputs (results/h200/probe/probe.csv):
 * one fused sum per instruction, c among the addends, each addend cut toward
 * zero to 25 bits below the largest exponent e(a)+e(b), the sum rounded
 * toward zero. */
#define TC_MMA_MODEL_SM90 {25, 1, 1, 0, 0, 0}

/* The engine's block-scaled INT8 path adds a level's INT32 sum v to the FP32
 * sum of its entry as fmaf(v * ra, sb, acc), with ra = a_scale * weight, when
 * ra is a positive normal power of two no larger than 2^103: then v * ra is
 * exact (|v| <= 2^22), and the GPU gets it with one integer add and one exact
 * subtraction from the float 1.5 * 2^23 * ra, whose last bit is worth ra.
 * Other ra take fmaf((float)v, ra * sb, acc). Both are RN(v*ra*sb + acc)
 * whenever ra * sb is a normal float. */
MPB_HD int tc_s8_scale_is_fast(float ra)
{
    union {
        float f;
        uint32_t u;
    } x = {ra};
    const uint32_t biased = x.u >> 23; /* sign bit included: negative ra fail */
    return (x.u & 0x7FFFFFu) == 0 && biased >= 1 && biased <= 127 + 103;
}

/* Products per instruction for each input format (wgmma m64nNk16 / k8). */
MPB_HD int tc_input_k(enum tc_input fmt)
{
    return fmt == TC_IN_TF32 ? 8 : fmt == TC_IN_S8 ? 32 : 16;
}

/* Error bound of the engine's accumulation (tc_engine.h), componentwise:
 * one MMA of n addends (k_inst products and c) cuts each addend by less
 * than 2^-25 of the largest and rounds the sum toward zero (the model
 * below), an error below (n 2^-25 + 2^-23) times the sum of the addends'
 * magnitudes, which never exceeds the sum of |plane products| seen so far,
 * itself at most (1 + 2^-9) (|A||B|)_ij for planes that split A and B.
 * Over P pairs and ceil(k / k_inst) k-steps the errors add up:
 *     P ceil(k / k_inst) (n 2^-25 + 2^-23) (1 + 2^-9).
 * accum=rn only replaces truncations by round-to-nearest adds: the same. */
MPB_HD double tc_accum_bound(enum tc_input fmt, int n_pairs, int64_t k)
{
    const int ki = tc_input_k(fmt);
    const double steps = (double)((k + ki - 1) / ki);
    return n_pairs * steps * ((ki + 1) * 0x1p-25 + 0x1p-23) * (1.0 + 0x1p-9);
}

/* Smallest normal exponent: FP16 -14, BF16/TF32 -126 (as FP32). */
MPB_HD int tc_input_emin(enum tc_input fmt)
{
    return fmt == TC_IN_FP16 ? -14 : -126;
}

/* Exponent of the leading bit of a nonzero finite x, subnormals at `emin`. */
MPB_HD int tc_exponent(double x, int emin)
{
    int e;
    (void)frexp(x, &e);
    return e - 1 < emin ? emin : e - 1;
}

/* FP32 rounding of an exact double, subnormals included. A sum at or above
 * 2^128 is ±Inf under either rounding: the tensor cores do not clamp an
 * overflow to FLT_MAX as IEEE round-toward-zero would (`mpbench probe`,
 * "overflow" on the H200). */
MPB_HD float tc_round_fp32(double x, int round_rn)
{
    if (fabs(x) >= 0x1p128)
        return (float)(x * 2.0); /* ±Inf */
    float f = (float)x;
    if (!round_rn && fabs((double)f) > fabs(x))
        f = nextafterf(f, 0.0f);
    return f;
}

/* The quiet NaN the tensor cores write (0x7FFFFFFF, as measured by
 * `mpbench probe` on the H200; MMA-Sim reports the same). */
MPB_HD float tc_nan(void)
{
    union {
        uint32_t u;
        float f;
    } v = {0x7FFFFFFFu};
    return v.f;
}

/* One fused sum: c + sum of n products, as the model describes. */
MPB_HD float tc_fused_sum(const struct tc_mma_model *m, enum tc_input fmt, float c, const float *a,
                          const float *b, int n)
{
    const int emin = tc_input_emin(fmt);
    double exact = 0.0;
    int special = !isfinite(c);
    for (int l = 0; l < n; l++) {
        double p = (double)a[l] * (double)b[l];
        special |= !isfinite(p);
        exact += p;
    }
    if (special) {
        double s = exact + (double)c;
        return isnan(s) ? tc_nan() : (float)s;
    }
    int emax = INT32_MIN;
    for (int l = 0; l < n; l++) {
        if (a[l] == 0.0f || b[l] == 0.0f)
            continue;
        int e = m->product_exp ? tc_exponent((double)a[l] * (double)b[l], -300)
                               : tc_exponent(a[l], emin) + tc_exponent(b[l], emin);
        emax = e > emax ? e : emax;
    }
    int c_term = m->acc_in_sum && c != 0.0f;
    if (c_term) {
        int e = tc_exponent(c, -126);
        emax = e > emax ? e : emax;
    }
    if (emax == INT32_MIN) /* no nonzero addend: c passes, but a zero sum is +0 (-0 too) */
        return c == 0.0f ? 0.0f : c;
    const int shift = m->frac_bits - emax;
    int64_t sum = 0;
    for (int l = 0; l < n; l++) {
        double q = ldexp((double)a[l] * (double)b[l], shift);
        sum += (int64_t)(m->trunc_floor ? floor(q) : trunc(q));
    }
    if (c_term) {
        double q = ldexp((double)c, shift);
        sum += (int64_t)(m->trunc_floor ? floor(q) : trunc(q));
    }
    float r = tc_round_fp32(ldexp((double)sum, -shift), m->round_rn); /* exact cancellation: +0 */
    if (!m->acc_in_sum)
        r = tc_round_fp32((double)c + (double)r, m->round_rn);
    return r;
}

/* One MMA instruction on one output entry: k = tc_input_k(fmt) products of
 * a[0..k) and b[0..k) added to c, in `split` fused sums. */
MPB_HD float tc_mma_entry(const struct tc_mma_model *m, enum tc_input fmt, float c, const float *a,
                          const float *b)
{
    const int k = tc_input_k(fmt), part = k / m->split;
    for (int s = 0; s < m->split; s++)
        c = tc_fused_sum(m, fmt, c, a + s * part, b + s * part, part);
    return c;
}

#endif
