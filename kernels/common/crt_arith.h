/* Chinese-remainder arithmetic on INT8 tensor cores, shared by Ozaki scheme
 * II (kernels/ozaki2) and adp's CRT engine (kernels/adp/adp_crt_arith.h):
 * the moduli, the int8 residues of integer-valued doubles, and the digit
 * w_t of a reconstruction. MPB_HD, so that host models and kernels compute
 * the same bits (kernels/ozaki2/ozaki2_arith.h describes the scheme). */
#ifndef MPB_CRT_ARITH_H
#define MPB_CRT_ARITH_H

#include <math.h>
#include <stdint.h>
#include "mpb_arith.h"
#include "mpb_hd.h"

/* Moduli in the table below: Ozaki-II uses up to MPB_OZ2_MAX_MODULI (the
 * spec's range); adp's CRT engine needs more bits and takes up to all of
 * them. */
#define MPB_CRT_TABLE_MODULI 25

/* The moduli, in the order they are taken: the largest pairwise-coprime
 * integers ≤ 256, so that each INT8 GEMM adds as many bits (log2 m_t ≈ 7.4
 * to 8) to M as an int8 residue allows. 256 = 2^8 has residues in
 * [−128, 127], exactly the int8 range; the odd ones have symmetric residues
 * in [−(m−1)/2, (m−1)/2]. Skipped odd numbers share a factor with an earlier
 * modulus (e.g. 249 = 3·83 with 255 = 3·5·17, 245 = 5·7² with 255).
 * tests/kernels/test_ozaki2.c checks pairwise coprimality. A switch rather
 * than an array: after loop unrolling nvcc sees each modulus as a constant
 * and turns % and division by it into multiplications. */
MPB_HD int mpb_crt_modulus(int t)
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

/* 1.5·2^52: fma(y, s, MAGIC) − MAGIC rounds y·s to the nearest integer (ties
 * to even) for |y·s| < 2^51, and MAGIC + r (|r| < 2^31 an integer) holds r in
 * its low 32 bits, two's complement. Both replace rint, trunc and
 * double<->int conversions, which run at a quarter of the fp64 FMA rate on
 * sm_90 (CUDA Programming Guide, arithmetic instruction throughput): the
 * residues and the CRT digits below are computed billions of times. */
#define MPB_CRT_MAGIC 0x1.8p52

/* (double)c for an int32 c. On the GPU the bits 2^52 + 2^31 + c are built
 * directly and 2^52 + 2^31 subtracted (exact) instead of a conversion. */
MPB_HD double mpb_crt_i32_f64(int32_t c)
{
#ifdef __CUDA_ARCH__
    return __hiloint2double(0x43300000, (int)((unsigned)c ^ 0x80000000u)) - 0x1.00000800p52;
#else
    return (double)c;
#endif
}

/* The low 32 bits of a double's encoding: r for MAGIC + r (see above). */
MPB_HD int32_t mpb_crt_low_word(double x)
{
#ifdef __CUDA_ARCH__
    return __double2loint(x);
#else
    return (int32_t)(uint32_t)mpb_f64_to_bits(x);
#endif
}

/* Symmetric residues of 2^35 and 2^70 modulo the t-th modulus (checked
 * against exact arithmetic in tests/kernels/test_ozaki2.c). */
MPB_HD int mpb_crt_pow2_35_residue(int t)
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

MPB_HD int mpb_crt_pow2_70_residue(int t)
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
 * mpb_crt_residue costs no conversion. */
struct mpb_crt_parts {
    double hi, mid, lo_biased;
};

MPB_HD struct mpb_crt_parts mpb_crt_split_parts(double x)
{
    struct mpb_crt_parts p;
    p.hi = fma(x, 0x1p-70, MPB_CRT_MAGIC) - MPB_CRT_MAGIC;
    double r = fma(-p.hi, 0x1p70, x);
    p.mid = fma(r, 0x1p-35, MPB_CRT_MAGIC) - MPB_CRT_MAGIC;
    p.lo_biased = fma(-p.mid, 0x1p35, r) + MPB_CRT_MAGIC;
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
MPB_HD int8_t mpb_crt_residue(const struct mpb_crt_parts *x, int t)
{
    int m = mpb_crt_modulus(t);
    double v_biased = fma(x->hi, (double)mpb_crt_pow2_70_residue(t),
                          fma(x->mid, (double)mpb_crt_pow2_35_residue(t), x->lo_biased));
    double q_biased = fma(v_biased - MPB_CRT_MAGIC, 1.0 / m, MPB_CRT_MAGIC);
    uint32_t r = (uint32_t)mpb_crt_low_word(v_biased) -
                 (uint32_t)mpb_crt_low_word(q_biased) * (uint32_t)m;
    return (int8_t)(r & 0xFF);
}

/* ---- k split into chunks -------------------------------------------- */

/* An INT8×INT8→INT32 GEMM is exact while k·128² < 2^31 (the residue −128
 * of modulus 256 is the largest in magnitude): k ≤ MPB_CRT_MAX_K. A longer
 * dot product is split along k into chunks of at most MPB_CRT_CHUNK_K (the
 * largest multiple of 32 within the limit, so that chunks start on aligned
 * int8 addresses), one exact INT32 GEMM each, and the chunk sums combined
 * exactly modulo 2·m_t by mpb_crt_fold. */
#define MPB_CRT_MAX_K 131071
#define MPB_CRT_CHUNK_K 131040

/* Chunks of a dot product of length kp (a multiple of `align`) when each
 * may hold at most `most` terms: 1 up to `most`, else the fewest. */
MPB_HD int64_t mpb_crt_chunks(int64_t kp, int64_t most)
{
    return kp <= most ? 1 : (kp + most - 1) / most;
}

/* The length of every chunk but the last (which takes the rest): kp split
 * evenly, rounded up to a multiple of `align` (which divides `most`), so
 * it is at most `most` and the count stays mpb_crt_chunks(kp, most). */
MPB_HD int64_t mpb_crt_chunk_len(int64_t kp, int64_t most, int64_t align)
{
    int64_t c = mpb_crt_chunks(kp, most);
    int64_t len = (kp + c - 1) / c;
    return (len + align - 1) / align * align;
}

/* v mod 2·m_t in [0, 2m_t). Why 2m_t and not m_t: mpb_crt_digit depends
 * on its input c only through c mod m_t for odd m_t, and through c mod 512
 * for m_t = 256 (a tie c·y ≡ 128 mod 256 rounds to the even quotient, whose
 * parity is that of ⌊c·y/256⌋; y is odd), so any c' ≡ c (mod 2m_t) gives
 * the digit of c, bit for bit. A dot product split into chunks therefore
 * reconstructs exactly what one exact INT32 sum would have given, whatever
 * the chunk length (tests/kernels/test_ozaki2.c checks both claims). */
MPB_HD int32_t mpb_crt_reduce(int64_t v, int t)
{
    int64_t m2 = 2 * (int64_t)mpb_crt_modulus(t);
    int64_t r = v % m2;
    return (int32_t)(r < 0 ? r + m2 : r);
}

/* Folds the INT32 GEMM output x of one more chunk into acc: (acc + x) mod
 * 2·m_t in [0, 2m_t) (mpb_crt_reduce), in 32-bit arithmetic (the GPU's
 * integer unit): each operand reduced first, so the sum cannot overflow.
 * Folding chunk sums s_0, s_1, … in any grouping gives (Σ s_c) mod 2m_t. */
MPB_HD int32_t mpb_crt_fold(int32_t acc, int32_t x, int t)
{
    int32_t m2 = 2 * mpb_crt_modulus(t);
    int32_t r = (acc % m2 + x % m2) % m2;
    return r < 0 ? r + m2 : r;
}

/* The CRT digit of the INT32 GEMM output c ≡ X (mod m_t): w = c·y_t mod m_t,
 * symmetric (|w| ≤ m_t/2), with y_t = (M/m_t)^-1 mod m_t and
 * y_over_m = fl(y_t/m_t) from the caller's table. As in mpb_crt_residue:
 * q = the integer nearest c·fl(y_t/m_t), within 2^-21 of c·y_t/m_t (< 2^32):
 * exact for odd m_t, either neighbour of a tie for 256 = 2^8 (y/256 exact);
 * w = c·y_t − q·m_t is small, so it is that difference modulo 2^32 (integer
 * multiply-adds, q from the low word of MAGIC + q). */
MPB_HD double mpb_crt_digit(int32_t c, int t, int y, double y_over_m)
{
    uint32_t m = (uint32_t)mpb_crt_modulus(t);
    double q_biased = fma(mpb_crt_i32_f64(c), y_over_m, MPB_CRT_MAGIC);
    uint32_t w = (uint32_t)c * (uint32_t)y - (uint32_t)mpb_crt_low_word(q_biased) * m;
    return mpb_crt_i32_f64((int32_t)w);
}

#endif
