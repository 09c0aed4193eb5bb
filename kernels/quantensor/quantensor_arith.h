/* QuanTensor-style INT8 quantisation with residual refinement, the
 * arithmetic shared by the host model and the CUDA kernels (MPB_HD), so
 * that both compute the same bits.
 *
 * QuanTensor (Li, Xue et al., CGO 2021) is closed source; this follows the
 * descriptions in MixPert (Lin et al., LCTES'24) §2.2: "quantizes
 * floating-point numbers to INT8 and then refines the results", "nine INT8
 * multiplications with accompanying repetitive scaling and quantization
 * steps", Table 1: 3× INT8; and in moTuner (Mo et al., CF'22) §4: refinement
 * levels that add correction products, (τ1,τ2,τ3) on FP16. What the papers
 * do not say (scales, rounding, accumulation) is chosen here for exactness.
 *
 * Quantisation. Row i of A (column j of B) gets the power-of-two scale
 * 2^(e−7), e from the row's largest |x| (mpb_qt_exponent), so that
 * d_0 = rint(x·2^(7−e)) fits int8 (|d_0| ≤ 127): symmetric INT8
 * quantisation with scale max/127 rounded up to a power of two. The
 * residual x − d_0·2^(e−7) is quantised again with a scale 2^−7 smaller,
 * and once more: slice p holds d_p = rint(r_p·2^(7+7p−e)), |d_p| ≤ 64 for
 * p ≥ 1, and x = 2^(e−7)·Σ_p d_p·2^(−7p) + remainder, |remainder| ≤
 * 2^(e−7s−1) after s slices. Every step is exact in fp64 (an FP32 value
 * times a power of two, rint, the difference with it).
 *
 * Levels (the knob `levels`): which slice products are computed. Level 0
 * is plain INT8 quantisation, A_0·B_0; each refinement level adds the
 * products of the next weight w = p + q (the size of A_p·B_q is 2^(−7w) of
 * A_0·B_0), as moTuner's τ adds A_hi·B_lo and A_lo·B_hi before A_lo·B_lo:
 *   level 0: w ≤ 0, 1 slice per operand, 1 product;
 *   level 1: w ≤ 1, 2 slices, 3 products (A_0B_1, A_1B_0);
 *   level 2: w ≤ 2, 3 slices, 6 products (A_0B_2, A_1B_1, A_2B_0);
 *   level 3: all 9 products of 3 slices (w ≤ 4): QuanTensor's full
 *            resolution, "nine INT8 multiplications" (MixPert §2.2).
 * Each product is one INT8×INT8→INT32 GEMM, exact while k·127² < 2^31
 * (longer k: chunks, each an exact INT32 sum, added in int64).
 *
 * Accumulation, per entry and fixed (mpb_qt_combine): the products of
 * weight w share the unit 2^(e_i+f_j−14−7w), so their sum S_w is taken
 * exactly in int64; then from the smallest weight up, acc = fl32(acc +
 * fl32(S_w)·2^(−7w)) (one FP32 rounding for the conversion, one for the
 * add; the power of two is exact), and C_ij = fl32(acc·2^(e_i+f_j−14))
 * (exact in fp64, so one rounding, which happens only where C_ij is
 * subnormal or overflows).
 *
 * NaN and ±Inf. A row of A (column of B) holding one is flagged
 * (mpb_qt_finite_bits of its maximum), its slices are zero so that the
 * GEMMs stay exact for every other entry, and each entry of its row
 * (column) of C is fixed up from the non-finite products alone
 * (mpb_qt_nonfinite_entry): the value native SGEMM gives there (NaN, +Inf
 * or −Inf), never a finite one. */
#ifndef MPB_QUANTENSOR_ARITH_H
#define MPB_QUANTENSOR_ARITH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include "mpb_arith.h"
#include "mpb_hd.h"

#define MPB_QT_MAX_LEVEL 3
#define MPB_QT_MAX_SLICES 3
#define MPB_QT_MAX_PAIRS 9
#define MPB_QT_MAX_WEIGHT 4
/* Bits per slice: the step between the scales of consecutive slices. */
#define MPB_QT_BETA 7

/* FP32 bit patterns of the fix-up's results (constants: an arithmetic NaN
 * has different bits on x86 and on the GPU, and selftest compares bits). */
#define MPB_QT_NAN_BITS 0x7FC00000u
#define MPB_QT_INF_BITS 0x7F800000u

struct mpb_qt_pair {
    int p, q;
};

/* INT8 slices per operand at `level` (0..3). */
MPB_HD int mpb_qt_slices(int level)
{
    return level < MPB_QT_MAX_SLICES - 1 ? level + 1 : MPB_QT_MAX_SLICES;
}

/* Largest weight p + q computed at `level`. */
MPB_HD int mpb_qt_max_weight(int level)
{
    return level < MPB_QT_MAX_LEVEL ? level : MPB_QT_MAX_WEIGHT;
}

/* The slice pairs of `level` in accumulation order (weight descending, p
 * ascending within a weight), into out[0..MPB_QT_MAX_PAIRS); returns their
 * count: 1, 3, 6, 9. */
MPB_HD int mpb_qt_pairs(int level, struct mpb_qt_pair *out)
{
    int s = mpb_qt_slices(level), n = 0;
    for (int w = mpb_qt_max_weight(level); w >= 0; w--)
        for (int p = 0; p < s; p++)
            if (w - p >= 0 && w - p < s) {
                out[n].p = p;
                out[n].q = w - p;
                n++;
            }
    return n;
}

/* |x| as bits: ordered like |x| for every float, NaN above +Inf, so a row
 * maximum is an integer max (atomicMax on the GPU, order-free). */
MPB_HD uint32_t mpb_qt_abs_bits(float x)
{
    return mpb_f32_to_bits(x) & 0x7FFFFFFFu;
}

MPB_HD bool mpb_qt_finite_bits(uint32_t abs_bits)
{
    return abs_bits < MPB_QT_INF_BITS;
}

/* The scale exponent e of a row (column) whose largest |x| has the bits
 * `max_bits` (finite): max < 2^e and max·2^(7−e) < 127.5, so that every
 * d_0 = rint(x·2^(7−e)) has |d_0| ≤ 127. With max = f·2^e', f in [0.5, 1):
 * e = e' unless f ≥ 255/256, then e' + 1 (max·2^(7−e) < 64). 0 for a zero
 * row, whose slices are zero whatever the scale. */
MPB_HD int mpb_qt_exponent(uint32_t max_bits)
{
    if (max_bits == 0)
        return 0;
    int e;
    double f = frexp((double)mpb_bits_to_f32(max_bits), &e);
    return f >= 255.0 / 256.0 ? e + 1 : e;
}

/* Slices d[0..s−1] of a finite x for the scale exponent e (module comment);
 * returns the remainder in units of the last slice, |r| ≤ 1/2, 0 when the
 * slices hold x exactly. x·2^(7−e) is exact (an FP32 value times a power of
 * two within fp64's normal range), and so are rint, the differences (x's
 * 24 bits minus their leading part) and the products by 2^7. */
MPB_HD double mpb_qt_slice(float x, int e, int s, int8_t *d)
{
    double r = ldexp((double)x, MPB_QT_BETA - e);
    for (int p = 0; p < s; p++) {
        if (p > 0)
            r = r * (double)(1 << MPB_QT_BETA);
        double q = rint(r);
        d[p] = (int8_t)q;
        r = r - q;
    }
    return r;
}

/* C_ij from S[w], w = 0..wmax, the exact sums of the slice products of
 * weight w, and escale = e_i + f_j − 14 (module comment, "Accumulation").
 * |S_w| < 2^63 and at least 1 when not 0, so S_w·2^(−7w) ≥ 2^−28 is an
 * exact FP32 product; acc·2^escale is exact in fp64 (|acc| < 2^64,
 * |escale| < 320), so the cast to float is the only rounding there. */
MPB_HD float mpb_qt_combine(const int64_t *S, int wmax, int escale)
{
    float acc = 0.0f;
    for (int w = wmax; w >= 0; w--)
        acc = acc + (float)S[w] * (float)ldexp(1.0, -MPB_QT_BETA * w);
    return (float)ldexp((double)acc, escale);
}

/* What native SGEMM gives for an entry whose row of A (a, stride
 * a_stride) or column of B (b, contiguous) holds NaN or ±Inf: only the
 * non-finite products decide it (a finite sum cannot cancel them): NaN
 * when one is NaN (a NaN factor, or ±Inf times 0) or when both +Inf and
 * −Inf occur, else ±Inf. Order-free, so host and GPU agree bit for bit. */
MPB_HD float mpb_qt_nonfinite_entry(const float *a, int64_t a_stride, const float *b, int64_t k)
{
    bool pos = false, neg = false;
    for (int64_t l = 0; l < k; l++) {
        float x = a[l * a_stride], y = b[l];
        uint32_t ax = mpb_qt_abs_bits(x), ay = mpb_qt_abs_bits(y);
        if (ax > MPB_QT_INF_BITS || ay > MPB_QT_INF_BITS)
            return mpb_bits_to_f32(MPB_QT_NAN_BITS);
        if (ax < MPB_QT_INF_BITS && ay < MPB_QT_INF_BITS)
            continue;
        if (ax == 0 || ay == 0)
            return mpb_bits_to_f32(MPB_QT_NAN_BITS);
        bool minus = (mpb_f32_to_bits(x) ^ mpb_f32_to_bits(y)) >> 31;
        pos = pos || !minus;
        neg = neg || minus;
    }
    if (pos == neg)
        return mpb_bits_to_f32(MPB_QT_NAN_BITS);
    return mpb_bits_to_f32(MPB_QT_INF_BITS | (neg ? 0x80000000u : 0u));
}

#endif
