/* The FP32 split family's splits (kernels/fp32split/fp32split_arith.h):
 * the remainder bound each one promises, FP16 truncation against a
 * reference computed in double, the scale exponents, and what happens at
 * the edges of the formats. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "rng.h"

/* Uniform in [0, 1) with 53 random bits. */
static double uniform(void)
{
    return (double)(rng_next() >> 11) * 0x1p-53;
}
#include "fp32split/fp32split_arith.h"

/* The planes' value as the tensor cores read them. */
static double planes_sum(enum fs_split kind, const uint32_t *v)
{
    double s = 0;
    for (int p = 0; p < fs_planes(kind); p++) {
        switch (kind) {
        case FS_ROUND16:
        case FS_TRUNC16: s += mpb_fp16_to_f32((uint16_t)v[p]); break;
        case FS_TF32: s += mpb_bits_to_f32(v[p]); break;
        case FS_BF16X3: s += mpb_bf16_to_f32((uint16_t)v[p]); break;
        }
    }
    return s;
}

/* FP16 truncation by the definition: the largest |h| <= |x| on FP16's grid. */
static double fp16_rz_reference(double x)
{
    double a = fabs(x);
    if (a >= 65504.0)
        return copysign(65504.0, x);
    int e = a < 0x1p-14 ? -14 : (int)floor(log2(a));
    double q = ldexp(1.0, e - 10);
    return copysign(floor(a / q) * q, x);
}

static void remainder_bounds(void)
{
    /* Where the splits keep every bit: FP16 from 2^-2 (below, lo goes
     * subnormal) to the top binade that rowcol scaling
     * fills; TF32 and BF16 over most of FP32's range. */
    static const struct {
        enum fs_split kind;
        double bound;
        int emin, emax;
        const char *name;
    } splits[] = {{FS_ROUND16, 0x1p-22, -2, 14, "round16"}, {FS_TRUNC16, 0x1p-21, -2, 14, "trunc16"},
                  {FS_TF32, 0x1p-22, -100, 100, "tf32"}, {FS_BF16X3, 0.0, -100, 100, "bf16x3"}};
    for (int k = 0; k < 4; k++) {
        double worst = 0;
        for (int i = 0; i < 200000; i++) {
            int e = splits[k].emin + (int)(uniform() * (splits[k].emax - splits[k].emin + 1));
            float x = (float)ldexp(1.0 + uniform(), e);
            if (uniform() < 0.5)
                x = -x;
            uint32_t v[3];
            unsigned lost = fs_split(splits[k].kind, x, 0, v);
            CHECK(lost == 0, "%s: %a lost range", splits[k].name, (double)x);
            double r = fabs((double)x - planes_sum(splits[k].kind, v)) / fabs((double)x);
            worst = r > worst ? r : worst;
        }
        CHECK(worst <= splits[k].bound, "%s: remainder %a of |x| exceeds %a", splits[k].name, worst,
              splits[k].bound);
    }
}

static void fp16_truncation(void)
{
    /* Every FP32 significand pattern's top bits over FP16's range, subnormals included. */
    for (int i = 0; i < 300000; i++) {
        float x = (float)ldexp(1.0 + uniform(), (int)(uniform() * 44) - 28);
        if (i % 2)
            x = -x;
        double got = mpb_fp16_to_f32(mpb_fp16_from_f32_rz(x)), want = fp16_rz_reference(x);
        CHECK(got == want, "mpb_fp16_from_f32_rz(%a) = %a, expected %a", (double)x, got, want);
    }
    CHECK(mpb_fp16_to_f32(mpb_fp16_from_f32_rz(70000.0f)) == 65504.0f, "RZ clamps beyond the largest half");
    CHECK(isinf(mpb_fp16_to_f32(mpb_fp16_from_f32_rz(INFINITY))), "Inf stays Inf");
    CHECK(mpb_fp16_to_f32(mpb_fp16_from_f32_rz(0x1p-25f)) == 0.0f, "below 2^-24 truncates to 0");
}

static void edges(void)
{
    uint32_t v[3];
    /* Inf: the leading plane carries it, the others are zero (no Inf - Inf). */
    CHECK(fs_split(FS_ROUND16, INFINITY, 0, v) == 0 && isinf(mpb_fp16_to_f32((uint16_t)v[0])) && v[1] == 0,
          "Inf splits into (Inf, 0) and is not a loss");
    /* A finite value beyond FP16: the split says so. */
    CHECK(fs_split(FS_ROUND16, 70000.0f, 0, v) & FS_LOST_OVERFLOW, "70000 overflows the round split");
    /* The truncation split holds it: 65504 + 4496. */
    CHECK(fs_split(FS_TRUNC16, 70000.0f, 0, v) == 0 && planes_sum(FS_TRUNC16, v) == 70000.0,
          "the truncation split holds 70000 as 65504 + 4496");
    /* 2^-20 keeps its bits only in FP16's subnormals: flagged. */
    CHECK(fs_split(FS_ROUND16, 0x1.234567p-20f, 0, v) & FS_LOST_UNDERFLOW, "2^-20 loses bits to FP16 subnormals");
    /* Scaled by 2^34 it is back in range. */
    CHECK(fs_split(FS_ROUND16, 0x1.234567p-20f, 34, v) == 0, "2^-20 * 2^34 splits in range");
    /* BF16 near FP32's top: rounding up overflows; flagged. */
    CHECK(fs_split(FS_BF16X3, 0x1.fffffep127f, 0, v) & FS_LOST_OVERFLOW, "FLT_MAX rounds up to BF16 Inf");
}

/* The loss flags by their definition, on every value (fs_split skips the
 * check where fs_safe_min/max say nothing can be lost). */
static unsigned loss_by_definition(enum fs_split kind, float x, int s)
{
    uint32_t v[3];
    (void)fs_split(kind, x, s, v);
    if (!isfinite(x))
        return 0;
    double y = fs_scale_value(x, s), sum = planes_sum(kind, v);
    if (!isfinite(sum))
        return FS_LOST_OVERFLOW;
    return fabs(y - sum) > fs_remainder_bound(kind) * fabs(y) ? FS_LOST_UNDERFLOW : 0;
}

static void safe_window(void)
{
    static const enum fs_split kinds[] = {FS_ROUND16, FS_TRUNC16, FS_TF32, FS_BF16X3};
    for (int k = 0; k < 4; k++) {
        int differ = 0;
        for (int i = 0; i < 400000; i++) {
            /* every binade of FP32, the window's edges often */
            int e = i % 4 ? (int)(uniform() * 280) - 150 : (int)(uniform() * 8) + (i % 8 < 4 ? -6 : 12);
            float x = (float)ldexp(1.0 + uniform(), e);
            uint32_t v[3];
            unsigned got = fs_split(kinds[k], x, 0, v), want = loss_by_definition(kinds[k], x, 0);
            if (got != want && differ++ < 3)
                CHECK(got == want, "kind %d: x = %a: fs_split says %u, the definition %u", k, (double)x, got, want);
        }
        CHECK(differ == 0, "kind %d: %d values where the safe window changes the loss flags", k, differ);
    }
    /* fs_scale_value is ldexpf where 2^s is a normal float, and beyond. */
    CHECK(fs_scale_value(0x1.8p-140f, 150) == ldexpf(0x1.8p-140f, 150), "scale beyond 2^127");
    CHECK(fs_scale_value(3.0f, -130) == ldexpf(3.0f, -130), "scale below 2^-126");
    CHECK(fs_scale_value(0x1.234568p-100f, -40) == ldexpf(0x1.234568p-100f, -40), "a subnormal result rounds alike");
}

static void scales(void)
{
    /* The maximum lands in [2^14, 2^15) for normal and subnormal maxima. */
    float maxima[] = {1.0f, 3.0f, 65504.0f, 0x1p-100f, 0x1p-140f, 0x1.fffffep127f, 1e-3f};
    for (size_t i = 0; i < sizeof maxima / sizeof *maxima; i++) {
        int s = fs_scale_exp(fs_abs_bits_finite(maxima[i]));
        double y = ldexp(maxima[i], s);
        CHECK(y >= 0x1p14 && y < 0x1p15, "max %a scaled by 2^%d is %a", (double)maxima[i], s, y);
    }
    CHECK(fs_scale_exp(0) == 0, "an all-zero vector is not scaled");
    CHECK(fs_abs_bits_finite(NAN) == 0 && fs_abs_bits_finite(-INFINITY) == 0, "NaN and Inf do not set the maximum");
}

int main(void)
{
    remainder_bounds();
    fp16_truncation();
    edges();
    safe_window();
    scales();
    return check_report("test_fp32split_arith");
}
