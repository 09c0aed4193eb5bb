/* Deterministic elementary functions for the generators, host and device.
 *
 * Host libm and CUDA's libdevice round the last bits of exp/log/sin/cos
 * differently, so generators must not call them. These use only IEEE
 * +, −, ×, ÷, sqrt and explicit fma() (correctly rounded on both sides, no
 * contraction: -ffp-contract=off, nvcc -fmad=false) and exact power-of-two
 * scaling through the bit pattern, so identical source gives identical bits.
 * Accuracy is a few ulps (tests/generators/test_gen_math.c checks it against
 * MPFR); the aim is reproducibility, not correct rounding.
 * Polynomial coefficients are the Taylor coefficients rounded to nearest
 * (computed with 300-bit arithmetic). */
#ifndef MPB_GEN_MATH_H
#define MPB_GEN_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "mpb_arith.h"
#include "mpb_hd.h"

/* 2^e for a normal exponent, −1022 ≤ e ≤ 1023. */
MPB_HD double mpb_gm_pow2(int e)
{
    return mpb_bits_to_f64((uint64_t)(e + 1023) << 52);
}

/* x·2^e for −1086 ≤ e ≤ 2046: exact while the result is normal; the
 * intermediate stays normal, so a subnormal result is rounded once. */
MPB_HD double mpb_gm_scale2(double x, int e)
{
    if (e < -1022)
        return (x * mpb_gm_pow2(e + 64)) * 0x1p-64;
    if (e > 1023)
        return (x * mpb_gm_pow2(e - 1023)) * 0x1p1023;
    return x * mpb_gm_pow2(e);
}

/* Nearest integer (ties to even) of |x| < 2^51: adding 1.5·2^52 leaves no
 * fraction bits, so the sum is rounded to an integer by the addition. */
MPB_HD double mpb_gm_round(double x)
{
    const double shift = 0x1.8p52;
    return (x + shift) - shift;
}

/* Cody–Waite split of ln 2 (fdlibm): n·LN2_HI is exact for |n| < 2^20. */
#define MPB_GM_LN2_HI 0x1.62e42fee00000p-1
#define MPB_GM_LN2_LO 0x1.a39ef35793c76p-33

/* exp(x): x = n·ln2 + r with |r| ≤ ln2/2 (Cody & Waite 1980 reduction; the
 * scheme of Tang 1989 without the table), exp(r) by its degree-13 Taylor
 * polynomial (truncation < 2^-57 on |r| ≤ 0.347), then an exact 2^n. */
MPB_HD double mpb_gm_exp(double x)
{
    if (x != x)
        return x;
    if (x > 709.782712893384)
        return INFINITY;
    if (x < -745.2)
        return 0.0;
    double n = mpb_gm_round(x * 0x1.71547652b82fep+0);
    double r = fma(-n, MPB_GM_LN2_HI, x);
    r = fma(-n, MPB_GM_LN2_LO, r);
    double p = 0x1.6124613a86d09p-33;   /* 1/13! */
    p = fma(p, r, 0x1.1eed8eff8d898p-29); /* 1/12! */
    p = fma(p, r, 0x1.ae64567f544e4p-26); /* 1/11! */
    p = fma(p, r, 0x1.27e4fb7789f5cp-22); /* 1/10! */
    p = fma(p, r, 0x1.71de3a556c734p-19); /* 1/9! */
    p = fma(p, r, 0x1.a01a01a01a01ap-16); /* 1/8! */
    p = fma(p, r, 0x1.a01a01a01a01ap-13); /* 1/7! */
    p = fma(p, r, 0x1.6c16c16c16c17p-10); /* 1/6! */
    p = fma(p, r, 0x1.1111111111111p-7);  /* 1/5! */
    p = fma(p, r, 0x1.5555555555555p-5);  /* 1/4! */
    p = fma(p, r, 0x1.5555555555555p-3);  /* 1/3! */
    p = fma(p, r, 0.5);
    p = fma(p, r, 1.0);
    p = fma(p, r, 1.0);
    return mpb_gm_scale2(p, (int)n);
}

/* log(x): x = 2^e·f with f in [√½, √2), ln f = 2·atanh(s), s = (f−1)/(f+1),
 * |s| ≤ 0.172, by the odd series s + s³/3 + … + s²³/23 (truncation
 * < 2^-60); s is carried with its rounding error (s + s_lo) so that only
 * the last two additions round, and e·ln2 is added last in one rounding (Muller, "Elementary Functions", 3rd ed., §5.2 / fdlibm e_log). */
MPB_HD double mpb_gm_log(double x)
{
    if (x != x || x < 0.0)
        return NAN;
    if (x == 0.0)
        return -INFINITY;
    if (x == INFINITY)
        return x;
    int e = 0;
    if (x < 0x1p-1022) {
        x *= 0x1p54;
        e = -54;
    }
    uint64_t u = mpb_f64_to_bits(x);
    e += (int)(u >> 52) - 1023;
    double f = mpb_bits_to_f64((u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
    if (f > 0x1.6a09e667f3bcdp+0) {
        f *= 0.5;
        e += 1;
    }
    /* s = (f−1)/(f+1) + s_lo to about 2^-100: f−1 is exact, f+1 = den +
     * den_lo (TwoSum, Knuth), and the division remainder is exact by fma. */
    double num = f - 1.0, den = f + 1.0;
    double bv = den - f;
    double den_lo = (f - (den - bv)) + (1.0 - bv);
    double s = num / den;
    double s_lo = fma(-s, den_lo, fma(-s, den, num)) / den;
    double z = s * s;
    double p = 0x1.642c8590b2164p-5;     /* 1/23 */
    p = fma(p, z, 0x1.8618618618618p-5); /* 1/21 */
    p = fma(p, z, 0x1.af286bca1af28p-5); /* 1/19 */
    p = fma(p, z, 0x1.e1e1e1e1e1e1ep-5); /* 1/17 */
    p = fma(p, z, 0x1.1111111111111p-4); /* 1/15 */
    p = fma(p, z, 0x1.3b13b13b13b14p-4); /* 1/13 */
    p = fma(p, z, 0x1.745d1745d1746p-4); /* 1/11 */
    p = fma(p, z, 0x1.c71c71c71c71cp-4); /* 1/9 */
    p = fma(p, z, 0x1.2492492492492p-3); /* 1/7 */
    p = fma(p, z, 0x1.999999999999ap-3); /* 1/5 */
    p = fma(p, z, 0x1.5555555555555p-2); /* 1/3 */
    double two_s = 2.0 * s;
    double lnf = two_s + fma(two_s, z * p, 2.0 * s_lo);
    double de = (double)e;
    return fma(de, MPB_GM_LN2_HI, fma(de, MPB_GM_LN2_LO, lnf));
}

/* sin(2πu) and cos(2πu) for |u| < 2^48. The reduction is exact because it
 * is done on u, not on 2πu: 4u = q + f with q an integer, |f| ≤ ½, so
 * 2πu = q·π/2 + f·π/2; the quadrant q mod 4 swaps and negates the two
 * polynomials in f, whose coefficients carry the powers of π/2 (no
 * rounded π enters the argument; zeros of sin and cos are exact). */
MPB_HD void mpb_gm_sincos2pi(double u, double *s, double *c)
{
    double t = 4.0 * u;
    double q = mpb_gm_round(t);
    double f = t - q;
    double z = f * f;
    double sp = 0x1.aaec32af93359p-38;     /* (π/2)^17/17! */
    sp = fma(sp, z, -0x1.6fadb9f155744p-31); /* −(π/2)^15/15! */
    sp = fma(sp, z, 0x1.e8f434d018d63p-25);  /* (π/2)^13/13! */
    sp = fma(sp, z, -0x1.e3074fde8871fp-19); /* −(π/2)^11/11! */
    sp = fma(sp, z, 0x1.50783487ee782p-13);  /* (π/2)^9/9! */
    sp = fma(sp, z, -0x1.32d2cce62bd86p-8);  /* −(π/2)^7/7! */
    sp = fma(sp, z, 0x1.466bc6775aae2p-4);   /* (π/2)^5/5! */
    sp = fma(sp, z, -0x1.4abbce625be53p-1);  /* −(π/2)^3/3! */
    sp = fma(sp, z, 0x1.921fb54442d18p+0);   /* π/2 */
    double sf = f * sp;
    double cp = -0x1.2a0c591af8314p-41;     /* −(π/2)^18/18! */
    cp = fma(cp, z, 0x1.20c62c2f2d7f5p-34);  /* (π/2)^16/16! */
    cp = fma(cp, z, -0x1.b6e24f44b128fp-28); /* −(π/2)^14/14! */
    cp = fma(cp, z, 0x1.f9d38a3763cc3p-22);  /* (π/2)^12/12! */
    cp = fma(cp, z, -0x1.a6d1f2a204a8cp-16); /* −(π/2)^10/10! */
    cp = fma(cp, z, 0x1.e1f506891babbp-11);  /* (π/2)^8/8! */
    cp = fma(cp, z, -0x1.55d3c7e3cbffap-6);  /* −(π/2)^6/6! */
    cp = fma(cp, z, 0x1.03c1f081b5ac4p-2);   /* (π/2)^4/4! */
    cp = fma(cp, z, -0x1.3bd3cc9be45dep+0);  /* −(π/2)^2/2! */
    double cf = fma(cp, z, 1.0);
    switch ((int)((int64_t)q & 3)) {
    case 0: *s = sf; *c = cf; break;
    case 1: *s = cf; *c = -sf; break;
    case 2: *s = -sf; *c = -cf; break;
    default: *s = -cf; *c = sf; break;
    }
}

#endif
