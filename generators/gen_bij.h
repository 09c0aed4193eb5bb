/* Keyed pseudo-random bijections on [0, n), host and device.
 *
 * The generators need random subsets and permutations (test1a zero rows,
 * test1b pairs and splits, test2r shuffled exponents, test3 shuffled
 * scales) without O(n) tables, so that each matrix element stays a pure
 * function of its index. A 4-round Feistel network on the w-bit domain
 * [0, 2^w), 2^w ≥ n the next power of two, is a permutation for any round
 * function (Luby & Rackoff 1988); cycle walking restricts it to [0, n)
 * (Black & Rogaway 2002, "Ciphers with arbitrary finite domains"): apply
 * it again until the value falls in range, ≤ 2 applications on average.
 * The halves may differ by one bit (w odd): each round XORs a keyed hash of
 * one half into the other, which is invertible whatever the sizes. */
#ifndef MPB_GEN_BIJ_H
#define MPB_GEN_BIJ_H

#include <stdint.h>
#include "mpb_hd.h"

#define MPB_BIJ_ROUNDS 4

struct mpb_gen_bij {
    uint64_t n;                      /* domain [0, n), n ≥ 1 */
    uint64_t rk[MPB_BIJ_ROUNDS];     /* round keys */
    uint32_t lo_bits, hi_bits;       /* w = lo_bits + hi_bits */
};

/* SplitMix64 finaliser (Steele, Lea & Flood 2014): a cheap 64-bit mixer
 * with full avalanche, used as the round function and to derive keys. */
MPB_HD uint64_t mpb_mix64(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ULL;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z;
}

MPB_HD struct mpb_gen_bij mpb_bij_make(uint64_t n, uint64_t key)
{
    struct mpb_gen_bij b;
    uint32_t w = 0;
    while (w < 64 && (n - 1) >> w != 0)
        w++;
    b.n = n;
    b.lo_bits = (w + 1) / 2;
    b.hi_bits = w / 2;
    for (int r = 0; r < MPB_BIJ_ROUNDS; r++)
        b.rk[r] = mpb_mix64(key + 0x9e3779b97f4a7c15ULL * (uint64_t)(r + 1));
    return b;
}

MPB_HD uint64_t mpb_bij_mask(uint32_t bits)
{
    return bits == 0 ? 0 : ~0ULL >> (64 - bits);
}

/* One pass of the network over [0, 2^w); forward rounds 0..3, or their
 * inverses in reverse order. */
MPB_HD uint64_t mpb_bij_feistel(const struct mpb_gen_bij *b, uint64_t x, int inverse)
{
    uint64_t lo_mask = mpb_bij_mask(b->lo_bits), hi_mask = mpb_bij_mask(b->hi_bits);
    uint64_t lo = x & lo_mask, hi = (x >> b->lo_bits) & hi_mask;
    for (int i = 0; i < MPB_BIJ_ROUNDS; i++) {
        int r = inverse ? MPB_BIJ_ROUNDS - 1 - i : i;
        if (r % 2 == 0)
            hi ^= mpb_mix64(lo ^ b->rk[r]) & hi_mask;
        else
            lo ^= mpb_mix64(hi ^ b->rk[r]) & lo_mask;
    }
    return (hi << b->lo_bits) | lo;
}

/* π(x) for x < n. */
MPB_HD uint64_t mpb_bij_apply(const struct mpb_gen_bij *b, uint64_t x)
{
    do
        x = mpb_bij_feistel(b, x, 0);
    while (x >= b->n);
    return x;
}

/* π⁻¹(y) for y < n. */
MPB_HD uint64_t mpb_bij_invert(const struct mpb_gen_bij *b, uint64_t y)
{
    do
        y = mpb_bij_feistel(b, y, 1);
    while (y >= b->n);
    return y;
}

#endif
