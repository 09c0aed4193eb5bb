/* PCG32 (pcg_setseq_64_xsh_rr_32) for host and device: a 64-bit LCG with a
 * per-stream odd increment and the XSH-RR output permutation of the state
 * before the step (O'Neill 2014, "PCG: A Family of Simple Fast
 * Space-Efficient Statistically Good Algorithms for Random Number
 * Generation", §6.3.1). Seeding matches the reference pcg32_srandom_r and
 * the C++ pcg32(seed, stream) engine, so outputs are checked against
 * libpcg-cpp (tests/generators/test_pcg.cpp).
 *
 * Jump-ahead is Brown's O(log n) LCG advance (Brown 1994, "Random number
 * generation with arbitrary strides"): it makes draw number d of a stream a
 * pure function of (seed, stream, d), which is what lets every GPU thread
 * start at its own element. */
#ifndef MPB_PCG32_H
#define MPB_PCG32_H

#include <stdint.h>
#include "mpb_hd.h"

#define MPB_PCG32_MULT 6364136223846793005ULL

struct mpb_pcg32 {
    uint64_t state;
    uint64_t inc; /* odd: stream << 1 | 1 */
};

MPB_HD void mpb_pcg32_step(struct mpb_pcg32 *g)
{
    g->state = g->state * MPB_PCG32_MULT + g->inc;
}

/* Same as pcg32_srandom_r(rng, seed, stream). */
MPB_HD struct mpb_pcg32 mpb_pcg32_seed(uint64_t seed, uint64_t stream)
{
    struct mpb_pcg32 g;
    g.state = 0;
    g.inc = (stream << 1) | 1u;
    mpb_pcg32_step(&g);
    g.state += seed;
    mpb_pcg32_step(&g);
    return g;
}

MPB_HD uint32_t mpb_pcg32_next(struct mpb_pcg32 *g)
{
    uint64_t old = g->state;
    mpb_pcg32_step(g);
    uint32_t xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
    uint32_t rot = (uint32_t)(old >> 59);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

/* Brown's advance by squaring, with the squarings tabulated: d steps map
 * x to M^d·x + inc·S_d, S_d = Σ_{t<d} M^t (Brown 1994, §3), and row b of
 * the table is (M^(2^b), S_(2^b)). Composing the rows of the set bits of
 * delta costs two multiplies per set bit instead of four per bit. On the
 * device the table sits in constant memory: every thread walks the bits in
 * the same order, so a warp's loads of row b are one broadcast. */
#define MPB_PCG32_JUMP_ROWS { \
    {0x5851f42d4c957f2dULL, 0x0000000000000001ULL}, \
    {0x685f98a2018fade9ULL, 0x5851f42d4c957f2eULL}, \
    {0xfb4d3ae39272be11ULL, 0xcbb5f646404a560cULL}, \
    {0xb59dda5f38413d21ULL, 0x9a8b7f78da6ef4d8ULL}, \
    {0x8d5e2ddc895abe41ULL, 0xfd8341fcddebfcb0ULL}, \
    {0x96481983e5188c81ULL, 0x375216576241c560ULL}, \
    {0x4425ebbf6f4d5901ULL, 0xb5eb8df53e56bac0ULL}, \
    {0x8980d00b878bb201ULL, 0x76e04ee60f5a3580ULL}, \
    {0x02078e0dd6db6401ULL, 0x41f7c92a64676b00ULL}, \
    {0x659acb4fecc6c801ULL, 0x3950e877b79ad600ULL}, \
    {0xaa1421b9d5cd9001ULL, 0xfe942169ea65ac00ULL}, \
    {0x88f21a239c9b2001ULL, 0x20706e33c18b5800ULL}, \
    {0x469c6146fd364001ULL, 0x5eeb75973616b000ULL}, \
    {0x1dd8088d0a6c8001ULL, 0x7c7aad6d382d6000ULL}, \
    {0x7fa1b91654d90001ULL, 0x19ef4fd5a05ac000ULL}, \
    {0x52ae921da9b20001ULL, 0x151dd39800b58000ULL}, \
    {0x902da3ff53640001ULL, 0x39f376e3016b0000ULL}, \
    {0xb4bd470ea6c80001ULL, 0x089e2c9202d60000ULL}, \
    {0x04028a5d4d900001ULL, 0x12d9545405ac0000ULL}, \
    {0xba2505ba9b200001ULL, 0xa22695680b580000ULL}, \
    {0x7cc9cf7536400001ULL, 0xe61cddd016b00000ULL}, \
    {0x1b92aeea6c800001ULL, 0xd37887a02d600000ULL}, \
    {0xbf219dd4d9000001ULL, 0xc3ec3f405ac00000ULL}, \
    {0x9e343ba9b2000001ULL, 0xfbc53e80b5800000ULL}, \
    {0xbc2c775364000001ULL, 0xc73d7d016b000000ULL}, \
    {0x7768eea6c8000001ULL, 0xcd46fa02d6000000ULL}, \
    {0xeb11dd4d90000001ULL, 0x95bdf405ac000000ULL}, \
    {0xc723ba9b20000001ULL, 0x183be80b58000000ULL}, \
    {0x5247753640000001ULL, 0xe377d016b0000000ULL}, \
    {0xb48eea6c80000001ULL, 0x92efa02d60000000ULL}, \
    {0xa91dd4d900000001ULL, 0x55df405ac0000000ULL}, \
    {0x523ba9b200000001ULL, 0x6bbe80b580000000ULL}, \
    {0xa477536400000001ULL, 0xd77d016b00000000ULL}, \
    {0x48eea6c800000001ULL, 0xaefa02d600000000ULL}, \
    {0x91dd4d9000000001ULL, 0x5df405ac00000000ULL}, \
    {0x23ba9b2000000001ULL, 0xbbe80b5800000000ULL}, \
    {0x4775364000000001ULL, 0x77d016b000000000ULL}, \
    {0x8eea6c8000000001ULL, 0xefa02d6000000000ULL}, \
    {0x1dd4d90000000001ULL, 0xdf405ac000000000ULL}, \
    {0x3ba9b20000000001ULL, 0xbe80b58000000000ULL}, \
    {0x7753640000000001ULL, 0x7d016b0000000000ULL}, \
    {0xeea6c80000000001ULL, 0xfa02d60000000000ULL}, \
    {0xdd4d900000000001ULL, 0xf405ac0000000000ULL}, \
    {0xba9b200000000001ULL, 0xe80b580000000000ULL}, \
    {0x7536400000000001ULL, 0xd016b00000000000ULL}, \
    {0xea6c800000000001ULL, 0xa02d600000000000ULL}, \
    {0xd4d9000000000001ULL, 0x405ac00000000000ULL}, \
    {0xa9b2000000000001ULL, 0x80b5800000000000ULL}, \
    {0x5364000000000001ULL, 0x016b000000000000ULL}, \
    {0xa6c8000000000001ULL, 0x02d6000000000000ULL}, \
    {0x4d90000000000001ULL, 0x05ac000000000000ULL}, \
    {0x9b20000000000001ULL, 0x0b58000000000000ULL}, \
    {0x3640000000000001ULL, 0x16b0000000000000ULL}, \
    {0x6c80000000000001ULL, 0x2d60000000000000ULL}, \
    {0xd900000000000001ULL, 0x5ac0000000000000ULL}, \
    {0xb200000000000001ULL, 0xb580000000000000ULL}, \
    {0x6400000000000001ULL, 0x6b00000000000000ULL}, \
    {0xc800000000000001ULL, 0xd600000000000000ULL}, \
    {0x9000000000000001ULL, 0xac00000000000000ULL}, \
    {0x2000000000000001ULL, 0x5800000000000000ULL}, \
    {0x4000000000000001ULL, 0xb000000000000000ULL}, \
    {0x8000000000000001ULL, 0x6000000000000000ULL}, \
    {0x0000000000000001ULL, 0xc000000000000000ULL}, \
    {0x0000000000000001ULL, 0x8000000000000000ULL}, \
}

#ifdef __CUDACC__
static __constant__ uint64_t mpb_pcg32_jump_dev[64][2] = MPB_PCG32_JUMP_ROWS;
#endif
static const uint64_t mpb_pcg32_jump_host[64][2] = MPB_PCG32_JUMP_ROWS;

MPB_HD void mpb_pcg32_advance(struct mpb_pcg32 *g, uint64_t delta)
{
#ifdef __CUDA_ARCH__
    const uint64_t(*jump)[2] = mpb_pcg32_jump_dev;
#else
    const uint64_t(*jump)[2] = mpb_pcg32_jump_host;
#endif
    uint64_t acc_mult = 1, acc_sum = 0;
    for (int b = 0; delta != 0; b++, delta >>= 1) {
        if (delta & 1u) {
            acc_mult *= jump[b][0];
            acc_sum = acc_sum * jump[b][0] + jump[b][1];
        }
    }
    g->state = acc_mult * g->state + acc_sum * g->inc;
}

/* The generator positioned at draw `draw` of (seed, stream): the next output
 * is the draw-th output (from 0) of a freshly seeded generator. */
MPB_HD struct mpb_pcg32 mpb_pcg32_at(uint64_t seed, uint64_t stream, uint64_t draw)
{
    struct mpb_pcg32 g = mpb_pcg32_seed(seed, stream);
    mpb_pcg32_advance(&g, draw);
    return g;
}

#endif
