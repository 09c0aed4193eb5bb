/* The FP32 split family's arithmetic, shared by the split kernels
 * (fp32split.cu) and the host models (fp32split_host.c): each FP32 value,
 * scaled by a power of two, becomes two or three low-precision planes whose
 * sum it is (exactly, or to the split's last bit).
 *
 *   round16  hi = fp16_rn(y), lo = fp16_rn(y - hi): EGEMM-TC's round-split
 *            (Feng et al., PPoPP'21 §3.2, Fig. 4b, read as round to nearest:
 *            its ties-up rounding gives the same hi + lo), also moTuner's
 *            refinement levels. |y - hi - lo| <= 2^-22 |y| in FP16's normal range.
 *   trunc16  hi = fp16_rz(y) (truncation), lo = fp16_rn(y - hi): the split
 *            Markidis et al. (2018) use; one bit less (2^-21 |y|).
 *   tf32     big = tf32_rn(y), small = tf32_rn(y - big): CUTLASS 3xTF32;
 *            |y - big - small| <= 2^-23 |y| (FP32's exponent range).
 *   bf16x3   hi, mid, lo = bf16_rn of y and of what is left: APE (Ma et al.,
 *            ICS'22); 3 x 8 significand bits hold FP32's 24 exactly.
 * Each difference y - plane is exact in FP32 (Sterbenz: the plane is within
 * a factor 2 of what it rounds). Planes are returned as the bits the tensor
 * cores read (FP16/BF16 in 16 bits, TF32 as an FP32 word). A non-finite
 * leading plane (Inf, NaN, or a finite y that overflows the format) zeroes
 * the others, so that Inf propagates as in SGEMM instead of becoming NaN. */
#ifndef MPB_FP32SPLIT_ARITH_H
#define MPB_FP32SPLIT_ARITH_H

#include <math.h>
#include <stdint.h>

#include "common/lowp_arith.h"
#include "mpb_arith.h"
#include "mpb_hd.h"

enum fs_split { FS_ROUND16 = 0, FS_TRUNC16, FS_TF32, FS_BF16X3 };

/* What a split lost, for the note: a value whose leading plane overflowed,
 * or whose planes hold it less closely than the split promises in the
 * format's normal range (bits lost to subnormal planes). */
enum fs_loss { FS_LOST_OVERFLOW = 1, FS_LOST_UNDERFLOW = 2 };

MPB_HD int fs_planes(enum fs_split k)
{
    return k == FS_BF16X3 ? 3 : 2;
}

/* |y - sum of planes| <= fs_remainder_bound * |y| when no plane is subnormal. */
MPB_HD double fs_remainder_bound(enum fs_split k)
{
    switch (k) {
    case FS_ROUND16: return 0x1p-22;
    case FS_TRUNC16: return 0x1p-21;
    case FS_TF32: return 0x1p-22;
    case FS_BF16X3: return 0.0;
    }
    return 0.0;
}

/* x * 2^s: one multiplication by an exact power of two where 2^s is a normal
 * float (correctly rounded, as ldexpf), ldexpf beyond (tiny rows, s > 127). */
MPB_HD float fs_scale_value(float x, int s)
{
    return s >= -126 && s <= 127 ? x * mpb_bits_to_f32((uint32_t)(s + 127) << 23) : ldexpf(x, s);
}

/* |y| in [fs_safe_min, fs_safe_max) loses nothing, so the loss check can
 * be skipped there (it would return 0):
 *   round16, |y| >= 2^-3: hi is normal, |y - hi| <= 2^-11 |y|; lo keeps 11
 *     bits of it, or if subnormal errs by at most 2^-25 <= 2^-22 |y|;
 *   trunc16, |y| >= 2^-4: |y - hi| < 2^-10 |y|; the same with 2^-25 <= 2^-21 |y|;
 *   tf32 and bf16x3, |y| >= 2^-100: every remainder is a multiple of ulp(y)
 *     >= 2^-123, which TF32's and BF16's grids (down to 2^-136, 2^-133) hold
 *     to the bound (tf32) or exactly (bf16x3's third plane);
 *   below the top (2^15 for FP16's 65504, 2^127 for FP32's range) the
 *     leading plane is finite. */
MPB_HD float fs_safe_min(enum fs_split k)
{
    return k == FS_ROUND16 ? 0x1p-3f : k == FS_TRUNC16 ? 0x1p-4f : 0x1p-100f;
}
MPB_HD float fs_safe_max(enum fs_split k)
{
    return k == FS_ROUND16 || k == FS_TRUNC16 ? 0x1p15f : 0x1p127f;
}

/* Split x * 2^s into fs_planes(kind) planes (out[p] holds the bits);
 * returns the fs_loss flags of this value. */
MPB_HD unsigned fs_split(enum fs_split kind, float x, int s, uint32_t out[3])
{
    const float y = fs_scale_value(x, s);
    float value[3] = {0.0f, 0.0f, 0.0f}; /* the planes as numbers */
    out[0] = out[1] = out[2] = 0;
    switch (kind) {
    case FS_ROUND16:
    case FS_TRUNC16: {
        uint16_t hi = kind == FS_ROUND16 ? mpb_fp16_from_f32(y) : mpb_fp16_from_f32_rz(y);
        value[0] = mpb_fp16_to_f32(hi);
        out[0] = hi;
        if (isfinite(value[0])) {
            out[1] = mpb_fp16_from_f32(y - value[0]);
            value[1] = mpb_fp16_to_f32((uint16_t)out[1]);
        }
        break;
    }
    case FS_TF32: {
        value[0] = mpb_tf32_round(y);
        out[0] = mpb_f32_to_bits(value[0]);
        if (isfinite(value[0])) {
            value[1] = mpb_tf32_round(y - value[0]);
            out[1] = mpb_f32_to_bits(value[1]);
        }
        break;
    }
    case FS_BF16X3: {
        uint16_t p[3];
        mpb_bf16x3_split(y, p);
        for (int i = 0; i < 3; i++) {
            out[i] = p[i];
            value[i] = mpb_bf16_to_f32(p[i]);
        }
        break;
    }
    }
    const float a = fabsf(y);
    if ((a >= fs_safe_min(kind) && a < fs_safe_max(kind)) || !isfinite(x))
        return 0; /* Inf and NaN are carried by the leading plane, as in SGEMM */
    const double sum = (double)value[0] + (double)value[1] + (double)value[2];
    if (!isfinite(sum))
        return FS_LOST_OVERFLOW;
    /* The planes are few binary fractions: their sum and y - sum are exact in double. */
    return fabs((double)y - sum) > fs_remainder_bound(kind) * (double)a ? FS_LOST_UNDERFLOW : 0;
}

/* The scale exponent of a row of A or column of B whose largest finite
 * |value| has FP32 bits `max_bits` (0: none): 2^s puts that value in
 * [2^14, 2^15), the top binade below FP16's largest (65504), so that every
 * value of the row keeps the split's 21-22 bits over the ~24 binades down to
 * FP16's smallest normal (kernels/fp32split/README.md, knob `scale`: the
 * exponent range EGEMM-TC leaves open). */
MPB_HD int fs_scale_exp(uint32_t max_bits)
{
    if (max_bits == 0 || max_bits >= 0x7F800000u)
        return 0;
    int e;
    if (max_bits >= 0x00800000u) {
        e = (int)(max_bits >> 23) - 127;
    } else { /* subnormal maximum: exponent of its leading bit */
        e = -127;
        for (uint32_t m = max_bits; m < 0x00800000u; m <<= 1)
            e--;
        e++;
    }
    return 14 - e;
}

/* |x| as FP32 bits when finite, else 0: what the row/column maxima take. */
MPB_HD uint32_t fs_abs_bits_finite(float x)
{
    uint32_t a = mpb_f32_to_bits(x) & 0x7FFFFFFFu;
    return a < 0x7F800000u ? a : 0u;
}

#endif
