/* Ozaki scheme II for complex matrices (ozaki2_int8_z, ozaki2_int8_c):
 * what it adds to ozaki2_arith.h, MPB_HD, shared by the host model
 * (ozaki2_complex_host.c) and the kernels (ozaki2_complex.cu), so both
 * compute the same bits.
 *
 * C = A·B with A = Ar + i·Ai, B = Br + i·Bi, each part of each entry a real
 * dot product of length 2k: Re = [Ar Ai]·[Br; −Bi], Im = [Ar Ai]·[Bi; Br].
 * The real scheme's steps (ozaki2_arith.h 1–4) become:
 *   1. scaling: row i of A by 2^mu_i, column j of B by 2^nu_j, ONE scale
 *      for both parts, from the row [Ar(i,:) Ai(i,:)] and the column
 *      [Br(:,j); Bi(:,j)] as real vectors of length 2k (max, fast mode's
 *      sum of squares over both parts; accurate mode below), so that the
 *      complex product of the scaled, truncated operands is the scaled
 *      complex product, and |Re'_ij|, |Im'_ij| < 2^L < M/2 (both are dot
 *      products of those vectors up to order and sign: Cauchy–Schwarz);
 *   2. residues per modulus m_t of Ar', Ai' (int8, as the real scheme),
 *      and for Karatsuba of Ar' + Ai' formed from them modulo m_t
 *      (mpb_oz2c_sum_residue), back in the symmetric int8 range;
 *   3. per modulus exact INT8 GEMMs of the residues, 3 (Karatsuba:
 *      T1 = Ar·Br, T2 = Ai·Bi, T3 = (Ar+Ai)·(Br+Bi)) or 4 (4m: Ar·Br,
 *      Ai·Bi, Ar·Bi, Ai·Br), combined modulo m_t into the residues of Re'
 *      (T1 − T2) and Im' (T3 − T1 − T2, or Ar·Bi + Ai·Br): mpb_oz2c_combine;
 *   4. CRT per part (mpb_oz2_crt_add / mpb_oz2_crt_finish), unscaled by
 *      2^-(mu_i+nu_j).
 * Everything before step 4 is exact integer arithmetic, so Karatsuba costs
 * 3 INT8 products per modulus instead of 4 and nothing in accuracy: unlike
 * 3M in floating point (Higham, SIMAX 13(3), 1992), T3 is exact modulo m_t.
 * mpb_oz2c_combine returns the canonical residue in [0, m_t), so both forms
 * feed the CRT the same integers: their outputs are bitwise equal. */
#ifndef MPB_OZAKI2_COMPLEX_ARITH_H
#define MPB_OZAKI2_COMPLEX_ARITH_H

#include "ozaki2/ozaki2_arith.h"

enum mpb_oz2c_form { MPB_OZ2C_KARATSUBA = 0, MPB_OZ2C_4M };

/* Residue planes per operand and modulus (Ar, Ai and for Karatsuba Ar+Ai)
 * and INT8 products per modulus. */
MPB_HD int mpb_oz2c_planes(int form)
{
    return form == MPB_OZ2C_KARATSUBA ? 3 : 2;
}

MPB_HD int mpb_oz2c_products(int form)
{
    return form == MPB_OZ2C_KARATSUBA ? 3 : 4;
}

/* Product g of a form multiplies plane mpb_oz2c_plane_a of A by plane
 * mpb_oz2c_plane_b of B (planes 0 = real part, 1 = imaginary, 2 = sum):
 * Karatsuba (0,0) (1,1) (2,2); 4m (0,0) (1,1) (0,1) (1,0). */
MPB_HD int mpb_oz2c_plane_a(int form, int g)
{
    return form == MPB_OZ2C_KARATSUBA || g < 2 ? g : g - 2;
}

MPB_HD int mpb_oz2c_plane_b(int form, int g)
{
    return form == MPB_OZ2C_KARATSUBA || g < 2 ? g : 3 - g;
}

/* Step 2 (Karatsuba): the symmetric residue of x + y modulo m_t from the
 * symmetric residues x, y: |x + y| ≤ 2·128, one correction by m_t brings
 * it back to [−128, 127] (256) or [−(m−1)/2, (m−1)/2] (odd m). So T3's
 * INT32 sum obeys the real scheme's bound, k·128² < 2^31 for k ≤
 * MPB_OZ2_MAX_K, like T1's and T2's (longer k is split into chunks whose
 * sums are folded modulo 2·m_t, as the real scheme's). */
MPB_HD int8_t mpb_oz2c_sum_residue(int8_t x, int8_t y, int t)
{
    int m = mpb_crt_modulus(t);
    int hi = m == 256 ? 127 : (m - 1) / 2, lo = m == 256 ? -128 : -hi;
    int v = (int)x + (int)y;
    v = v > hi ? v - m : v < lo ? v + m : v;
    return (int8_t)v;
}

/* c mod m_t in [0, m_t). */
MPB_HD int32_t mpb_oz2c_mod(int32_t c, int t)
{
    int32_t m = mpb_crt_modulus(t);
    int32_t r = c % m;
    return r < 0 ? r + m : r;
}

/* Step 3's combination: the residues in [0, m_t) of Re' and Im' from one
 * modulus' product sums p0..p3 (INT32 sums, or chunk sums folded into
 * [0, 2m_t): any value ≡ the sum mod m_t will do; p3 unused for Karatsuba): Karatsuba
 * Re ≡ T1 − T2, Im ≡ T3 − T1 − T2; 4m Re ≡ P_rr − P_ii, Im ≡ P_ri + P_ir.
 * Canonical, so the CRT digit (mpb_crt_digit) is the same for both forms,
 * also for modulus 256 whose digit reads c mod 512. */
MPB_HD void mpb_oz2c_combine(int form, int t, int32_t p0, int32_t p1, int32_t p2, int32_t p3, int32_t *re,
                             int32_t *im)
{
    int32_t m = mpb_crt_modulus(t);
    int32_t a = mpb_oz2c_mod(p0, t), b = mpb_oz2c_mod(p1, t), c = mpb_oz2c_mod(p2, t);
    int32_t r = a - b;
    int32_t s = form == MPB_OZ2C_KARATSUBA ? c - a - b : c + mpb_oz2c_mod(p3, t); /* (−2m, m) or [0, 2m) */
    r += r < 0 ? m : 0;
    s += s < 0 ? m : 0;
    s += s < 0 ? m : 0;
    s -= s >= m ? m : 0;
    *re = r;
    *im = s;
}

/* mode=accurate for complex operands: one INT8 digit per complex element,
 * ceil(|xr|·2^(5−e)) + ceil(|xi|·2^(5−e)) ≤ 64 with e of the row/column's
 * largest part (|xr| + |xi| ≤ 2^(e−5)·digit), and U = Ā·B̄ exact
 * (< k·2^12, as the real scheme's). Since both |Re|'s and |Im|'s sums of
 * products are at most Σ(|ar|+|ai|)(|br|+|bi|) ≤ 2^(e_i−5+f_j−5)·U_ij,
 * mu_i = floor((L − bitlen(umax_i))/2) − (e_i − 5) keeps both below 2^L
 * (ozaki2_arith.h's argument with 5-bit digits; one bit fewer than the
 * real scheme's, so that the sum of the two parts' digits fits int8). */
#define MPB_OZ2C_BOUND_DIGIT_BITS 5

MPB_HD int8_t mpb_oz2c_digit(double xr, double xi, int e)
{
    return (int8_t)(mpb_oz2_digit_up(xr, e, MPB_OZ2C_BOUND_DIGIT_BITS) +
                    mpb_oz2_digit_up(xi, e, MPB_OZ2C_BOUND_DIGIT_BITS));
}

MPB_HD int mpb_oz2c_scale_accurate(int e, uint64_t umax, int budget)
{
    int mu = mpb_oz2_floor_half(budget - mpb_oz2_bitlen(umax)) - (e - MPB_OZ2C_BOUND_DIGIT_BITS);
    return mu < 104 - e ? mu : 104 - e;
}

/* Step 4 for one entry from its per-modulus part residues: re[t·stride],
 * im[t·stride] in [0, m_t). NaN in both parts when row i or column j held
 * a non-finite value (the real scheme's rule). */
MPB_HD void mpb_oz2c_entry(const int32_t *re, const int32_t *im, size_t stride, const struct mpb_oz2_crt *tab,
                           int mu, int nu, double *out_re, double *out_im)
{
    if (mu == MPB_OZ2_NONFINITE || nu == MPB_OZ2_NONFINITE) {
        *out_re = *out_im = NAN;
        return;
    }
    *out_re = mpb_oz2_reconstruct(re, stride, tab, mu + nu);
    *out_im = mpb_oz2_reconstruct(im, stride, tab, mu + nu);
}

#endif
