/* The tests' pseudo-random numbers: xorshift64* (S. Vigna, "An experimental
 * exploration of Marsaglia's xorshift generators, scrambled", ACM TOMS
 * 2016), one fixed stream per test program, independent of generators/
 * (which has its own tests). A program picks its stream by defining
 * TEST_RNG_SEED before including this header. */
#ifndef MPB_TEST_RNG_H
#define MPB_TEST_RNG_H

#include <stdint.h>

#ifndef TEST_RNG_SEED
#define TEST_RNG_SEED 0x9E3779B97F4A7C15ull
#endif

static uint64_t rng_state = TEST_RNG_SEED;

static inline uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

#endif
