/* The fp16 / bf16 / tf32 roundings of kernels/common/lowp_arith.h against
 * references written differently: the exact value scaled to units of the
 * format's quantum and rounded with nearbyint() in double (round to nearest
 * even under the default rounding mode), then the overflow rule applied; and,
 * where the compiler has it, GCC's _Float16 conversion (libgcc soft-fp).
 * Inputs: every exponent and sign with significands at and around the
 * rounding ties of every shift, plus a sweep of 2^24 patterns spread over all
 * 2^32. */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "common/lowp_arith.h"

#define MAX_REPORTS 20

static float from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* x rounded to a binary format with p significand bits, smallest normal
 * 2^emin and largest finite xmax. */
static double ref_round(float xf, int p, int emin, double xmax)
{
    double x = xf;
    if (x == 0.0 || isinf(x))
        return x;
    int e;
    frexp(x, &e); /* |x| = f·2^e, f in [0.5, 1): leading bit 2^(e−1) */
    int lead = e - 1 < emin ? emin : e - 1;
    double q = ldexp(1.0, lead - (p - 1));
    double r = nearbyint(x / q) * q; /* x/q is exact: a power-of-two scaling */
    return fabs(r) > xmax ? copysign(INFINITY, x) : r;
}

/* A binary16 pattern's value, decoded field by field. */
static double ref_fp16_value(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

static int reports;

static void expect_same(const char *fmt, uint32_t u, double got, double want)
{
    bool ok = isnan(want) ? isnan(got) && signbit(got) == signbit(want)
                          : got == want && signbit(got) == signbit(want);
    if (!ok && reports++ < MAX_REPORTS)
        CHECK(ok, "%s: input 0x%08x (%a): got %a, want %a", fmt, u, (double)from_bits(u), got,
              want);
    else if (!ok)
        check_failures++;
}

static void check_one(uint32_t u)
{
    float x = from_bits(u);
    bool nan_in = isnan(x);
    double want16 = nan_in ? x : ref_round(x, 11, -14, 65504.0);
    double wantbf = nan_in ? x : ref_round(x, 8, -126, ldexp(255.0, 120));
    double want32 = nan_in ? x : ref_round(x, 11, -126, ldexp(2047.0, 117));

    uint16_t h = mpb_fp16_from_f32(x);
    expect_same("fp16", u, ref_fp16_value(h), want16);
    expect_same("fp16_round", u, mpb_fp16_round(x), want16);
    expect_same("bf16", u, from_bits((uint32_t)mpb_bf16_from_f32(x) << 16), wantbf);
    expect_same("bf16_round", u, mpb_bf16_round(x), wantbf);
    expect_same("tf32", u, mpb_tf32_round(x), want32);
    CHECK(nan_in || (mpb_f32_to_bits(mpb_tf32_round(x)) & 0x1FFFu) == 0, "tf32 low bits of 0x%08x",
          u);
#ifdef __FLT16_MANT_DIG__
    /* GCC's _Float16 (ISO/IEC TS 18661-3): conversion rounds to nearest
     * even. NaN payloads may differ; only NaN-ness is compared. */
    _Float16 g = (_Float16)x;
    uint16_t gb;
    memcpy(&gb, &g, sizeof gb);
    bool ok = nan_in ? isnan(ref_fp16_value(h)) : gb == h;
    if (!ok && reports++ < MAX_REPORTS)
        CHECK(ok, "fp16 vs _Float16: input 0x%08x: got 0x%04x, _Float16 0x%04x", u, h, gb);
    else if (!ok)
        check_failures++;
#endif
}

/* Significands at, below and above the tie of every shift 1..24, with even
 * and odd kept bits, and the extremes. */
static void check_structured(void)
{
    uint32_t mants[24 * 6 + 8];
    int n = 0;
    for (int d = 1; d <= 24; d++) {
        uint32_t tie = 1u << (d - 1), odd = tie | (1u << d);
        uint32_t c[] = {tie - 1, tie, tie + 1, odd - 1, odd, odd + 1};
        for (int i = 0; i < 6; i++)
            mants[n++] = c[i] & 0x7FFFFFu;
    }
    uint32_t extremes[] = {0, 1, 2, 3, 0x7FFFFF, 0x7FFFFE, 0x400000, 0x3FFFFF};
    for (int i = 0; i < 8; i++)
        mants[n++] = extremes[i];
    for (uint32_t sign = 0; sign < 2; sign++)
        for (uint32_t e = 0; e < 256; e++)
            for (int i = 0; i < n; i++)
                check_one(sign << 31 | e << 23 | mants[i]);
}

/* All 2^24 high parts, each with scrambled low 8 bits. */
static void check_sweep(void)
{
    for (uint32_t i = 0; i < (1u << 24); i++) {
        uint32_t scramble = (i * 2654435761u) >> 24;
        check_one(i << 8 | scramble);
    }
}

/* Every binary16 pattern: decoding is exact and re-encoding gives it back. */
static void check_fp16_patterns(void)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        float v = mpb_fp16_to_f32((uint16_t)h);
        double want = ref_fp16_value((uint16_t)h);
        expect_same("fp16_to_f32", h, v, want);
        if (!isnan(want))
            CHECK(mpb_fp16_from_f32(v) == h, "fp16 0x%04x does not round-trip", h);
    }
}

int main(void)
{
    CHECK(fegetround() == FE_TONEAREST, "the reference needs round-to-nearest");
    check_fp16_patterns();
    check_structured();
    check_sweep();
    /* Named cases. */
    CHECK(mpb_fp16_from_f32(65504.0f) == 0x7BFF, "largest half");
    CHECK(mpb_fp16_from_f32(65519.996f) == 0x7BFF, "just under the overflow midpoint");
    CHECK(mpb_fp16_from_f32(65520.0f) == 0x7C00, "overflow midpoint ties to Inf");
    CHECK(mpb_fp16_from_f32(-0x1p-25f) == 0x8000, "half the smallest subnormal ties to -0");
    CHECK(mpb_fp16_from_f32(0x1.000002p-25f) == 0x0001, "just above it rounds up");
    CHECK(mpb_fp16_from_f32(0x1.ffcp-15f) == 0x0400,
          "subnormal tie carries into the smallest normal");
    CHECK(mpb_bf16_from_f32(from_bits(0x3F808000u)) == 0x3F80, "bf16 tie to even (down)");
    CHECK(mpb_bf16_from_f32(from_bits(0x3F818000u)) == 0x3F82, "bf16 tie to even (up)");
    CHECK(mpb_bf16_from_f32(FLT_MAX) == 0x7F80, "bf16 overflow");
    CHECK(mpb_bf16_from_f32(from_bits(0x7F800001u)) == 0x7FC0,
          "bf16 keeps a low-payload NaN a NaN");
    CHECK(isnan(mpb_tf32_round(from_bits(0xFF800001u))), "tf32 keeps a low-payload NaN a NaN");
    CHECK(mpb_tf32_round(FLT_MAX) == INFINITY, "tf32 overflow");
    return check_report("test_lowp_arith");
}
