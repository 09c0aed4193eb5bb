/* Arithmetic of the engine's plain INT8 GEMM (tc_i8.h), shared by its
 * kernel's epilogue and its host model (MPB_HD), so that both compute the
 * same bits: the INT32 sum as the tensor cores form it (exact, modulo 2^32)
 * and its residue modulo a small p, the byte that Ozaki-II's CRT reads. */
#ifndef MPB_TC_I8_ARITH_H
#define MPB_TC_I8_ARITH_H

#include <stdint.h>
#include "mpb_hd.h"

/* Moduli of the byte epilogue: the residue fits a byte. */
#define TC_I8_MOD_MIN 2
#define TC_I8_MOD_MAX 255

/* c + x·y modulo 2^32, as the INT32 accumulator of the tensor cores adds
 * each product (exact, wrapping; the unsigned sum keeps C free of overflow). */
MPB_HD int32_t tc_i8_mac(int32_t c, int8_t x, int8_t y)
{
    return (int32_t)((uint32_t)c + (uint32_t)((int32_t)x * (int32_t)y));
}

/* The constants of the reduction modulo p (tc_i8_mod), computed once per GEMM. */
struct tc_i8_modp {
    uint32_t p;     /* the modulus, TC_I8_MOD_MIN..TC_I8_MOD_MAX */
    uint32_t r16;   /* 2^16 mod p */
    uint32_t bias;  /* (−2^31) mod p */
    uint32_t magic; /* ⌈2^32 / p⌉ */
};

MPB_HD struct tc_i8_modp tc_i8_modp_of(int p)
{
    struct tc_i8_modp k;
    k.p = (uint32_t)p;
    k.r16 = (UINT32_C(1) << 16) % k.p;
    k.bias = (k.p - (uint32_t)((UINT64_C(1) << 31) % k.p)) % k.p;
    k.magic = (uint32_t)(((UINT64_C(1) << 32) + k.p - 1) / k.p);
    return k;
}

/* c mod p in [0, p) for any int32 c, in integer operations only (no
 * division): with u = c + 2^31 = hi·2^16 + lo, c ≡ hi·r16 + lo + bias
 * (mod p) =: v, and v ≤ 65535·254 + 65535 + 254 < 2^24. Then
 * q = ⌊v·magic / 2^32⌋ = ⌊v/p + v·e/(p·2^32)⌋ with magic = (2^32 + e)/p,
 * 0 ≤ e < p: the second term is below 2^24/2^32 = 2^-8 ≤ 1/p, less than
 * the gap between v/p's fraction (at most (p−1)/p) and 1, so q = ⌊v/p⌋ and
 * v − q·p is the residue. */
MPB_HD uint8_t tc_i8_mod(int32_t c, struct tc_i8_modp k)
{
    const uint32_t u = (uint32_t)c ^ UINT32_C(0x80000000);
    const uint32_t v = (u >> 16) * k.r16 + (u & UINT32_C(0xFFFF)) + k.bias;
    const uint32_t q = (uint32_t)(((uint64_t)v * k.magic) >> 32);
    return (uint8_t)(v - q * k.p);
}

#endif
