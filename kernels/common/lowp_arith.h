/* Rounding of fp32 values to the low-precision input formats of the tensor
 * cores: fp16 (binary16), bf16 and tf32, round to nearest, ties to even
 * (native's fp16, bf16 and tf32 schemes; ozaki1_fp16's digits).
 * Written on the bit patterns with integer operations only, so that the host
 * model and the CUDA conversion kernel produce the same bits whatever the
 * compiler does with floating point (DESIGN.md "Schemes: one registry, two
 * backends"). Formats: IEEE 754-2008 binary16; bf16 = the upper 16 bits of a
 * binary32; tf32 = binary32 with 10 stored significand bits (NVIDIA A100
 * whitepaper). */
#ifndef MPB_LOWP_ARITH_H
#define MPB_LOWP_ARITH_H

#include <stdint.h>
#include <string.h>
#include "mpb_arith.h"
#include "mpb_hd.h"

/* Drop the low `drop` bits of a binary32 pattern with round to nearest, ties
 * to even. Adding (half − 1 + lsb) and truncating rounds up exactly when the
 * dropped part exceeds half, or equals half with an odd lsb. The carry runs
 * into the exponent field, which is right for every finite input: a
 * subnormal becomes the smallest normal, the largest binade overflows to
 * ±Inf. Only NaN needs care (caller). */
MPB_HD uint32_t mpb_round_bits_rne(uint32_t u, int drop)
{
    uint32_t half_m1 = (1u << (drop - 1)) - 1u;
    uint32_t lsb = (u >> drop) & 1u;
    return (u + half_m1 + lsb) >> drop;
}

MPB_HD int mpb_f32_bits_isnan(uint32_t u)
{
    return (u & 0x7FFFFFFFu) > 0x7F800000u;
}

/* bf16 bits of x, RNE. A NaN stays a NaN of the same sign (quiet bit set, so
 * that dropping a payload held only in the low bits cannot make it ±Inf). */
MPB_HD uint16_t mpb_bf16_from_f32(float x)
{
    uint32_t u = mpb_f32_to_bits(x);
    if (mpb_f32_bits_isnan(u))
        return (uint16_t)((u >> 16) | 0x0040u);
    return (uint16_t)mpb_round_bits_rne(u, 16);
}

MPB_HD float mpb_bf16_to_f32(uint16_t h)
{
    return mpb_bits_to_f32((uint32_t)h << 16);
}

/* x rounded to tf32 (10 stored significand bits, binary32 exponent range),
 * RNE, returned as a binary32 with the 13 low bits zero. */
MPB_HD float mpb_tf32_round(float x)
{
    uint32_t u = mpb_f32_to_bits(x);
    if (mpb_f32_bits_isnan(u))
        return mpb_bits_to_f32((u | 0x00400000u) & 0xFFFFE000u);
    return mpb_bits_to_f32(mpb_round_bits_rne(u, 13) << 13);
}

/* binary16 bits of x, RNE. Cases by |x| (binary32 pattern a):
 *   NaN                      → quiet NaN, sign and top payload bits kept
 *   a ≥ 65520 (0x477FF000)   → ±Inf: 65520 is the midpoint between the largest
 *                              half 65504 (odd significand) and 2^16, so ties
 *                              and everything above overflow
 *   a ≥ 2^-14 (0x38800000)   → normal: rebias the exponent (127 → 15) and
 *                              drop 13 significand bits; a carry may reach the
 *                              next binade, never Inf (a < 65520)
 *   a ≤ 2^-25 (0x33000000)   → ±0: at most half the smallest subnormal 2^-24,
 *                              the tie going to the even 0
 *   otherwise                → subnormal: significand with its hidden bit,
 *                              shifted to units of 2^-24 (14 to 24 places) and
 *                              rounded; a carry to 0x400 is the smallest
 *                              normal, which is again the right encoding. */
MPB_HD uint16_t mpb_fp16_from_f32(float x)
{
    uint32_t u = mpb_f32_to_bits(x);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return (uint16_t)(sign | 0x7E00u | ((a >> 13) & 0x03FFu));
    if (a >= 0x477FF000u)
        return (uint16_t)(sign | 0x7C00u);
    if (a >= 0x38800000u)
        return (uint16_t)(sign | mpb_round_bits_rne(a - ((uint32_t)(127 - 15) << 23), 13));
    if (a <= 0x33000000u)
        return sign;
    uint32_t mant = (a & 0x007FFFFFu) | 0x00800000u;
    int shift = 126 - (int)(a >> 23);
    return (uint16_t)(sign | mpb_round_bits_rne(mant, shift));
}

/* binary16 bits of x rounded toward zero: as mpb_fp16_from_f32 (RNE) with
 * the dropped bits cut off; beyond the largest half, 65504 (IEEE RZ). */
MPB_HD uint16_t mpb_fp16_from_f32_rz(float x)
{
    uint32_t u = mpb_f32_to_bits(x);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return (uint16_t)(sign | 0x7E00u | ((a >> 13) & 0x03FFu));
    if (a == 0x7F800000u)
        return (uint16_t)(sign | 0x7C00u);
    if (a >= 0x47800000u) /* |x| >= 2^16 */
        return (uint16_t)(sign | 0x7BFFu);
    if (a >= 0x38800000u) /* normal: rebias, drop 13 bits */
        return (uint16_t)(sign | ((a - ((uint32_t)(127 - 15) << 23)) >> 13));
    if (a < 0x33800000u) /* below 2^-24 */
        return sign;
    uint32_t mant = (a & 0x007FFFFFu) | 0x00800000u;
    return (uint16_t)(sign | (mant >> (126 - (int)(a >> 23))));
}

/* Exact: every binary16 value is a binary32 value. */
MPB_HD float mpb_fp16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x03FFu;
    if (exp == 0x1Fu)
        return mpb_bits_to_f32(sign | 0x7F800000u | (mant << 13));
    if (exp != 0)
        return mpb_bits_to_f32(sign | ((exp + 127 - 15) << 23) | (mant << 13));
    /* Subnormal or zero: mant · 2^-24, exact in binary32 (2^-24 = 0x33800000). */
    float v = (float)mant * mpb_bits_to_f32(0x33800000u);
    return sign ? -v : v;
}

/* x rounded to fp16 and back: the value a tensor core multiplies. */
MPB_HD float mpb_fp16_round(float x)
{
    return mpb_fp16_to_f32(mpb_fp16_from_f32(x));
}

MPB_HD float mpb_bf16_round(float x)
{
    return mpb_bf16_to_f32(mpb_bf16_from_f32(x));
}

/* APE's split (Ma et al., ICS'22): hi, mid, lo = bf16 RNE of y and of what
 * is left after each; 3 x 8 significand bits hold FP32's 24, so the three
 * sum to y exactly while no plane is subnormal. Each remainder is exact in
 * FP32 (Sterbenz). A non-finite plane (y Inf or NaN) leaves the later ones
 * zero, so that Inf stays Inf in a product instead of becoming NaN. */
MPB_HD void mpb_bf16x3_split(float y, uint16_t out[3])
{
    float left = y;
    out[0] = out[1] = out[2] = 0;
    for (int i = 0; i < 3; i++) {
        out[i] = mpb_bf16_from_f32(left);
        const float plane = mpb_bf16_to_f32(out[i]);
        if ((mpb_f32_to_bits(plane) & 0x7F800000u) == 0x7F800000u)
            break;
        left = left - plane;
    }
}

#endif
