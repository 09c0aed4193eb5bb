/* MixPert's arithmetic (Lin et al., LCTES'24, §3.2-3.3), shared by
 * the packer kernels (mixpert.cu) and the host model (mixpert_host.c).
 *
 * A group of values (kgroup values of k in one row of A or column of B, or
 * with align=tile the same k of 16 rows of A or 8 columns of B: the paper's
 * m16n8k32 tiles) shares an exponent E, that of its largest magnitude
 * rounded to 21 significant bits. Each value x becomes the integer
 *     N = round_to_nearest_even(x * 2^(20 - E)),  |N| < 2^21,
 * (the paper's "round to nearest at the 21st bit"; values far below the
 * group's largest keep fewer bits: the alignment shift, §3.3.3), cut into
 * three sign-magnitude INT8 segments of 7, 7 and 7 bits (Eq. 2):
 *     x ~ 2^E (s0 2^-6 + s1 2^-13 + s2 2^-20),  |s_i| <= 127,
 * s0 holding the implicit one and 6 fraction bits. A product of segments
 * s_i of A and t_j of B weighs 2^(Ea + Eb - 12 - 7(i + j)) (Eq. 4): the
 * products with the same i + j form one level, summed exactly in INT32 by
 * the tensor cores. Everything here is exact integer and bit work. */
#ifndef MPB_MIXPERT_ARITH_H
#define MPB_MIXPERT_ARITH_H

#include <stdint.h>

#include "common/lowp_arith.h"
#include "mpb_arith.h"
#include "mpb_hd.h"

#define MP_SEG_BITS 7
#define MP_FRAC_BITS 20   /* N carries 21 bits: the leading one and 20 below it */
#define MP_ZERO_GROUP (-1000) /* exponent of a group with no nonzero finite value */

/* |x| as FP32 bits, 0 for NaN and Inf (their rows and columns are recomputed). */
MPB_HD uint32_t mp_abs_bits_finite(float x)
{
    uint32_t b = mpb_f32_to_bits(x) & 0x7FFFFFFFu;
    return b >= 0x7F800000u ? 0u : b;
}

MPB_HD int mp_is_finite(float x)
{
    return (mpb_f32_to_bits(x) & 0x7F800000u) != 0x7F800000u;
}

/* Exponent of the leading bit of the nonzero finite magnitude `bits`. */
MPB_HD int mp_leading_exp(uint32_t bits)
{
    const uint32_t ef = bits >> 23, mant = bits & 0x7FFFFFu;
    if (ef)
        return (int)ef - 127;
    int p = 22; /* subnormal: value = mant * 2^-149 */
    while (!((mant >> p) & 1u))
        p--;
    return p - 149;
}

/* N = round_to_nearest_even(x * 2^(20 - E)) for a finite x of a group with
 * exponent E (|x| < 2^(E+1)), by shifting x's integer significand: exact
 * over FP32's whole range, subnormals included. */
MPB_HD int32_t mp_quantize(float x, int E)
{
    const uint32_t bits = mpb_f32_to_bits(x), mag = bits & 0x7FFFFFFFu;
    if (mag == 0 || E == MP_ZERO_GROUP)
        return 0;
    const uint32_t ef = mag >> 23;
    const uint32_t sig = ef ? (mag & 0x7FFFFFu) | 0x800000u : mag;
    const int ex = ef ? (int)ef - 150 : -149; /* x = sig * 2^ex */
    const int d = E - MP_FRAC_BITS - ex;     /* N = sig * 2^-d */
    uint32_t n;
    if (d <= 0)
        n = sig << -d; /* only a subnormal group: |N| < 2^21 still */
    else if (d >= 26)
        n = 0; /* sig < 2^24 <= 2^(d-2): below half of N's last unit */
    else {
        const uint32_t q = sig >> d, r = sig & ((1u << d) - 1u), halfway = 1u << (d - 1);
        n = q + (r > halfway || (r == halfway && (q & 1u)));
    }
    return (bits >> 31) ? -(int32_t)n : (int32_t)n;
}

/* E of a group whose largest magnitude has bits `max_bits`: its leading-bit
 * exponent, one more when rounding it to 21 significant bits carries into a
 * new bit (so that every |N| of the group stays below 2^21). */
MPB_HD int mp_group_exp(uint32_t max_bits)
{
    if (max_bits == 0)
        return MP_ZERO_GROUP;
    const int e = mp_leading_exp(max_bits);
    return mp_quantize(mpb_bits_to_f32(max_bits), e) >> (MP_FRAC_BITS + 1) ? e + 1 : e;
}

/* Segment i (0, 1, 2) of N: bits 20-14, 13-7, 6-0 of |N| with N's sign. */
MPB_HD int8_t mp_segment(int32_t n, int i)
{
    const uint32_t mag = (uint32_t)(n < 0 ? -n : n);
    const int32_t s = (int32_t)((mag >> (MP_SEG_BITS * (2 - i))) & 127u);
    return (int8_t)(n < 0 ? -s : s);
}

/* 2^d as a float: exact for d in [-149, 127], 0 below (and d <= 127 always
 * here: scales are relative to a row's or column's largest group). */
MPB_HD float mp_pow2(int d)
{
    if (d < -149)
        return 0.0f;
    return mpb_bits_to_f32(d >= -126 ? (uint32_t)(d + 127) << 23 : 1u << (d + 149));
}

/* Does a group whose largest and smallest nonzero magnitudes have bits
 * max_bits, min_bits leave the paper's safe range (largest > 2^5 smallest)?
 * In double, where 2^5 * min is exact. */
MPB_HD int mp_beyond_safe_range(uint32_t max_bits, uint32_t min_bits)
{
    return max_bits != 0 && (double)mpb_bits_to_f32(max_bits) > 0x1p5 * (double)mpb_bits_to_f32(min_bits);
}

/* fallback=on (mixpert.h): what value y of a group goes into the INT8
 * planes (0 when the group fell back; NaN and Inf always 0, as their rows
 * and columns are recomputed), and its BF16x3 planes in the two halves of
 * the fallback's k: A's first half holds A_u, its second A_s; B's first
 * half holds all of B, its second B_u. */
MPB_HD float mp_int8_input(float y, int fell_back)
{
    return mp_is_finite(y) && !fell_back ? y : 0.0f;
}

MPB_HD void mp_fb_halves(int operand, int fell_back, float y, uint16_t first[3], uint16_t second[3])
{
    uint16_t p[3];
    mpb_bf16x3_split(mp_is_finite(y) ? y : 0.0f, p);
    const int in_first = operand == 1 || fell_back, in_second = operand == 0 ? !fell_back : fell_back;
    for (int i = 0; i < 3; i++) {
        first[i] = in_first ? p[i] : 0;
        second[i] = in_second ? p[i] : 0;
    }
}

#endif
