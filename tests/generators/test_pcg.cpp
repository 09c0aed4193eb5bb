// PCG32 (generators/pcg32.h) against the reference C++ implementation
// (libpcg-cpp's pcg32 = setseq_xsh_rr_64_32): same outputs for several
// (seed, stream) pairs, jump-ahead equal to stepping, and element addressing
// (draw d of a stream is the d-th output of a fresh generator).
#include <pcg_random.hpp>

#include <cstdint>
#include <cstdio>

#include "pcg32.h"

static int failures = 0;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            std::printf("FAIL %s:%d: ", __FILE__, __LINE__);               \
            std::printf(__VA_ARGS__);                                      \
            std::printf("\n");                                             \
            failures++;                                                    \
        }                                                                  \
    } while (0)

struct seed_stream {
    uint64_t seed, stream;
};

static const seed_stream cases[] = {
    {42u, 54u}, {0u, 0u}, {1u, 1u}, {0xdeadbeefcafef00dULL, 0x7fffffffffffffffULL},
    {UINT64_MAX, 12345u}, {20240601u, 6u},
};

// Known answer from the PCG C library's pcg32-demo (seed 42, stream 54),
// independent of libpcg-cpp.
static void check_known_answer()
{
    const uint32_t want[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                              0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
    mpb_pcg32 g = mpb_pcg32_seed(42u, 54u);
    for (int i = 0; i < 6; i++) {
        uint32_t got = mpb_pcg32_next(&g);
        CHECK(got == want[i], "seed 42 stream 54 output %d: got 0x%08x want 0x%08x", i, got,
              want[i]);
    }
}

static void check_outputs(const seed_stream &c)
{
    pcg32 ref(c.seed, c.stream);
    mpb_pcg32 g = mpb_pcg32_seed(c.seed, c.stream);
    for (int i = 0; i < 4096; i++) {
        uint32_t want = ref(), got = mpb_pcg32_next(&g);
        if (got != want) {
            CHECK(false, "seed %llu stream %llu output %d: got 0x%08x want 0x%08x",
                  (unsigned long long)c.seed, (unsigned long long)c.stream, i, got, want);
            return;
        }
    }
}

// advance(N) equals N single steps (small N) and the reference's advance
// (large N, where stepping is too slow); advance(0) is the identity.
static void check_advance(const seed_stream &c)
{
    const uint64_t small[] = {0, 1, 2, 3, 7, 64, 1000, 12345};
    for (uint64_t n : small) {
        mpb_pcg32 a = mpb_pcg32_seed(c.seed, c.stream), b = a;
        mpb_pcg32_advance(&a, n);
        for (uint64_t i = 0; i < n; i++)
            mpb_pcg32_step(&b);
        CHECK(a.state == b.state, "seed %llu stream %llu: advance(%llu) != %llu steps",
              (unsigned long long)c.seed, (unsigned long long)c.stream, (unsigned long long)n,
              (unsigned long long)n);
    }
    const uint64_t large[] = {(1ULL << 40) + 17, 0x123456789abcdefULL, UINT64_MAX};
    for (uint64_t n : large) {
        pcg32 ref(c.seed, c.stream);
        ref.advance(n);
        mpb_pcg32 a = mpb_pcg32_seed(c.seed, c.stream);
        mpb_pcg32_advance(&a, n);
        for (int i = 0; i < 8; i++) {
            uint32_t want = ref(), got = mpb_pcg32_next(&a);
            CHECK(got == want, "seed %llu stream %llu: output %d after advance(%llu) differs",
                  (unsigned long long)c.seed, (unsigned long long)c.stream, i,
                  (unsigned long long)n);
        }
    }
    // Going round the full period 2^64 returns to the start.
    mpb_pcg32 a = mpb_pcg32_seed(c.seed, c.stream), b = a;
    mpb_pcg32_advance(&a, UINT64_MAX);
    mpb_pcg32_step(&a);
    CHECK(a.state == b.state, "seed %llu stream %llu: period is not 2^64",
          (unsigned long long)c.seed, (unsigned long long)c.stream);
}

// Element e with D draws per element: mpb_pcg32_at(seed, stream, e*D) gives
// the reference's outputs e*D .. e*D+D-1.
static void check_elements(const seed_stream &c)
{
    const uint64_t draws = 8;
    pcg32 ref(c.seed, c.stream);
    for (uint64_t e = 0; e < 300; e++) {
        mpb_pcg32 g = mpb_pcg32_at(c.seed, c.stream, e * draws);
        for (uint64_t d = 0; d < draws; d++) {
            uint32_t want = ref(), got = mpb_pcg32_next(&g);
            if (got != want) {
                CHECK(false, "seed %llu stream %llu element %llu draw %llu: got 0x%08x want 0x%08x",
                      (unsigned long long)c.seed, (unsigned long long)c.stream,
                      (unsigned long long)e, (unsigned long long)d, got, want);
                return;
            }
        }
    }
}

int main()
{
    check_known_answer();
    for (const seed_stream &c : cases) {
        check_outputs(c);
        check_advance(c);
        check_elements(c);
    }
    // Different streams of one seed differ.
    mpb_pcg32 s0 = mpb_pcg32_seed(7, 0), s1 = mpb_pcg32_seed(7, 1);
    int same = 0;
    for (int i = 0; i < 64; i++)
        same += mpb_pcg32_next(&s0) == mpb_pcg32_next(&s1);
    CHECK(same < 4, "streams 0 and 1 of seed 7 agree on %d of 64 outputs", same);
    if (failures)
        std::printf("test_pcg: %d failure(s)\n", failures);
    else
        std::printf("test_pcg: ok\n");
    return failures ? 1 : 0;
}
