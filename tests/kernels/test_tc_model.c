/* The tensor-core MMA model (kernels/tc/tc_mma_model.h) on constructed
 * cases worked out by hand, and the probe's fit (tc_probe_fit.c): given
 * results that a known model produced, it must recover that model, and its
 * answers must say what that model does. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tc/tc_probe_fit.h"

static const struct tc_mma_model sm90 = TC_MMA_MODEL_SM90;

/* c + sum of up to three products a_i*b_i, through one FP16 instruction. */
static float mma3(const struct tc_mma_model *m, float c, float a0, float b0, float a1, float b1, float a2,
                  float b2)
{
    float a[16] = {a0, a1, a2}, b[16] = {b0, b1, b2};
    return tc_mma_entry(m, TC_IN_FP16, c, a, b);
}

static void constructed_cases(void)
{
    const float ulp = 0x1p-23f;
    /* (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 needs 21 bits: products are exact. */
    CHECK(mma3(&sm90, 0, 1 + 0x1p-10f, 1 + 0x1p-10f, 0, 0, 0, 0) == 1 + 0x1p-9f + 0x1p-20f, "a product needing 21 bits is exact");
    /* Round toward zero: 1 + 0.75 ulp is 1, -1 - 1.5 ulp is -(1 + ulp). */
    CHECK(mma3(&sm90, 1, 0x1p-12f, 0x1.8p-12f, 0, 0, 0, 0) == 1.0f, "1 + 0.75 ulp truncates to 1");
    CHECK(mma3(&sm90, -1, -0x1p-12f, 0x1.8p-11f, 0, 0, 0, 0) == -(1 + ulp), "-1 - 1.5 ulp truncates toward zero");
    struct tc_mma_model rn = sm90;
    rn.round_rn = 1;
    CHECK(mma3(&rn, 1, 0x1p-12f, 0x1.8p-12f, 0, 0, 0, 0) == 1 + ulp, "to nearest, 1 + 0.75 ulp is 1 + ulp");
    /* 25 bits kept below the largest addend (here c = 1 + ulp): 2^-25 is
     * subtracted (the result truncates to 1), 2^-26 is cut away. */
    CHECK(mma3(&sm90, 1 + ulp, -0x1p-12f, 0x1p-13f, 0, 0, 0, 0) == 1.0f, "2^-25 below c survives the alignment");
    CHECK(mma3(&sm90, 1 + ulp, -0x1p-13f, 0x1p-13f, 0, 0, 0, 0) == 1 + ulp, "2^-26 below c is cut away");
    /* One fused sum: two 2^-24 next to a 1 make 1 + ulp; two sums would lose both. */
    CHECK(mma3(&sm90, 0, 1, 1, 0x1p-12f, 0x1p-12f, 0x1p-12f, 0x1p-12f) == 1 + ulp, "two 2^-24 next to 1 add up in one fused sum");
    struct tc_mma_model halves = sm90;
    halves.split = 2;
    float a[16] = {1}, b[16] = {1};
    a[8] = b[8] = a[1] = b[1] = 0x1p-12f; /* one 2^-24 in each half */
    CHECK(tc_mma_entry(&sm90, TC_IN_FP16, 0, a, b) == 1 + ulp, "one fused sum keeps both halves' 2^-24");
    CHECK(tc_mma_entry(&halves, TC_IN_FP16, 0, a, b) == 1.0f, "two fused sums lose the 2^-24 that sits with the 1");
    /* The addend exponent is e(a) + e(b): 1.5*1.5 = 2.25 sits on the grid of
     * exponent 0, so 2^-25 survives next to it and -2.25 cancels it away. */
    CHECK(mma3(&sm90, 0, 1.5f, 1.5f, -1.5f, 1.5f, 0x1p-12f, 0x1p-13f) == 0x1p-25f, "e(a)+e(b) grid keeps 2^-25 next to 2.25");
    struct tc_mma_model own = sm90;
    own.product_exp = 1;
    CHECK(mma3(&own, 0, 1.5f, 1.5f, -1.5f, 1.5f, 0x1p-12f, 0x1p-13f) == 0.0f, "the product's own exponent cuts 2^-25");
    /* Overflow is Inf even under truncation; -0 plus nothing is +0. */
    float ab[16] = {0x1.8p127f}, bb[16] = {2};
    CHECK(isinf(tc_mma_entry(&sm90, TC_IN_BF16, 0, ab, bb)), "overflow gives Inf");
    float z[16] = {0};
    float r = tc_mma_entry(&sm90, TC_IN_FP16, -0.0f, z, z);
    CHECK(r == 0 && !signbit(r), "-0 plus nothing is +0");
    /* Special values: Inf*0 is NaN with the tensor cores' bits. */
    float inf[16] = {INFINITY};
    r = tc_mma_entry(&sm90, TC_IN_FP16, 0, inf, z);
    CHECK(isnan(r), "Inf*0 is NaN");
    uint32_t bits;
    memcpy(&bits, &r, sizeof bits);
    CHECK(bits == 0x7FFFFFFFu, "the NaN has the tensor cores' bits 0x7FFFFFFF");
}

/* Results made by `truth` must give back a model with no mismatch, and
 * `truth` itself must have none; the answers must name its rounding. */
static void fit_recovers(struct tc_mma_model truth, enum tc_input fmt)
{
    struct tc_fbattery b;
    CHECK(tc_battery_build(&b, fmt, 600, 7), "battery built");
    float d[2048];
    CHECK(b.n <= 2048, "battery fits the result array");
    for (int i = 0; i < b.n; i++)
        d[i] = tc_mma_entry(&truth, fmt, b.t[i].c, b.t[i].a, b.t[i].b);
    struct tc_fit fit;
    tc_fit(&b, d, &fit);
    int first;
    CHECK(fit.mismatches == 0, "a model fits every test");
    CHECK(tc_model_mismatches(&truth, &b, d, &first) == 0, "the generating model fits");
    CHECK(fit.best.frac_bits == truth.frac_bits && fit.best.round_rn == truth.round_rn &&
              fit.best.split == truth.split && fit.best.acc_in_sum == truth.acc_in_sum,
          "the fit recovers frac_bits %d round_rn %d split %d acc_in_sum %d (got %d %d %d %d)", truth.frac_bits,
          truth.round_rn, truth.split, truth.acc_in_sum, fit.best.frac_bits, fit.best.round_rn, fit.best.split,
          fit.best.acc_in_sum);
    CHECK(fit.runner_up_mismatches > 0, "the battery separates the next best model");
    struct tc_answer ans[16];
    int n = tc_answers(&b, d, &fit, ans, 16);
    bool said = false;
    for (int i = 0; i < n; i++)
        if (!strcmp(ans[i].question, "final rounding"))
            said = strstr(ans[i].answer, truth.round_rn ? "nearest" : "toward zero") != NULL;
    CHECK(said, "the rounding answer names the generating model's rounding");
    tc_battery_free(&b);
}

static void int8_answers(void)
{
    struct tc_ibattery b;
    CHECK(tc_ibattery_build(&b, 50, 3), "int8 battery built");
    int32_t d[64];
    for (int i = 0; i < b.n; i++) {
        int64_t s = b.t[i].c;
        for (int l = 0; l < 32; l++)
            s += (int64_t)b.t[i].a[l] * b.t[i].b[l];
        d[i] = (int32_t)(uint32_t)(uint64_t)s; /* wraps */
    }
    struct tc_answer ans[4];
    int n = tc_int8_answers(&b, d, ans, 4);
    CHECK(n == 2, "two int8 answers");
    CHECK(strstr(ans[0].answer, "yes") != NULL, "exact int8 results are called exact");
    CHECK(strstr(ans[1].answer, "wraps") != NULL, "wrapping overflow is called wrapping");
    d[0]++; /* one wrong exact sum */
    tc_int8_answers(&b, d, ans, 4);
    CHECK(strstr(ans[0].answer, "no") != NULL, "one wrong result makes the answer no");
    tc_ibattery_free(&b);
}

static float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The INT8 path's fast conversion (tc_s8_scale_is_fast and the engine's
 * add_level): which scales take it, and that for them the float whose bits
 * are those of m = 1.5 * 2^23 * ra plus v, minus m, is v * ra exactly over
 * the engine's whole range of v (|v| <= 2^22), at both ends of ra's range. */
static void s8_fast_conversion(void)
{
    static const float fast[] = {0x1p-126f, 0x1p-33f, 1.0f, 0x1p103f};
    static const float slow[] = {0x1p-127f, 0x1p-149f, 0x1p104f, 0x1.8p0f, -1.0f, 0.0f, INFINITY};
    for (size_t i = 0; i < sizeof fast / sizeof *fast; i++)
        CHECK(tc_s8_scale_is_fast(fast[i]), "%a takes the fast conversion", (double)fast[i]);
    for (size_t i = 0; i < sizeof slow / sizeof *slow; i++)
        CHECK(!tc_s8_scale_is_fast(slow[i]), "%a does not take the fast conversion", (double)slow[i]);
    CHECK(!tc_s8_scale_is_fast(nanf("")), "NaN does not take the fast conversion");
    static const int32_t vs[] = {-(1 << 22), -(1 << 22) + 1, -12345, -1, 0, 1, 777777, (1 << 22) - 1, 1 << 22};
    for (size_t i = 0; i < sizeof fast / sizeof *fast; i++) {
        uint32_t ra_bits;
        memcpy(&ra_bits, &fast[i], sizeof ra_bits);
        const uint32_t magic = ra_bits + (23u << 23) + 0x400000u;
        for (size_t j = 0; j < sizeof vs / sizeof *vs; j++) {
            const float t = bits_to_float(magic + (uint32_t)vs[j]) - bits_to_float(magic);
            CHECK(t == (float)vs[j] * fast[i] && (double)t == (double)vs[j] * (double)fast[i],
                  "v = %d, ra = %a: the magic-number conversion gives %a", (int)vs[j], (double)fast[i], (double)t);
        }
    }
}

int main(void)
{
    constructed_cases();
    s8_fast_conversion();
    fit_recovers(sm90, TC_IN_FP16);
    fit_recovers((struct tc_mma_model){24, 2, 1, 1, 0, 0}, TC_IN_BF16);
    fit_recovers((struct tc_mma_model){27, 1, 0, 0, 1, 1}, TC_IN_TF32);
    int8_answers();
    return check_report("test_tc_model");
}
