/* The probe's test battery and model fit (tc_probe_battery.h). Every
 * constructed test puts a known exact sum in front of one hypothesis; the
 * comments say which; tc_probe_fit.c fits the model to the results. p below is the format's stored fraction bits (FP16
 * and TF32 10, BF16 7); "ulp" is FP32's at 1, 2^-23. */
#include "tc/tc_probe_battery.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int frac_bits_of(enum tc_input fmt)
{
    return fmt == TC_IN_BF16 ? 7 : 10;
}

/* splitmix64 (Steele, Lea, Flood 2014): a self-contained stream for the
 * random tests, so that a seed names the same battery on every machine. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int uniform_int(uint64_t *s, int lo, int hi)
{
    return lo + (int)(next_u64(s) % (uint64_t)(hi - lo + 1));
}

/* A random value of the format with exponent e (clamped to its normal
 * range), random sign and significand. */
static float random_value(uint64_t *s, enum tc_input fmt, int e)
{
    const int p = frac_bits_of(fmt), emin = tc_input_emin(fmt), emax = fmt == TC_IN_FP16 ? 15 : 127;
    e = e < emin ? emin : e > emax ? emax : e;
    double sig = 1.0 + ldexp((double)(next_u64(s) % ((uint64_t)1 << p)), -p);
    double v = ldexp(sig, e);
    return (float)((next_u64(s) & 1) ? -v : v);
}

/* A random FP32 accumulator value (24 significant bits) with exponent e. */
static float random_fp32(uint64_t *s, int e)
{
    double sig = 1.0 + ldexp((double)(next_u64(s) % ((uint64_t)1 << 23)), -23);
    double v = ldexp(sig, e);
    return (float)((next_u64(s) & 1) ? -v : v);
}

struct builder {
    struct tc_fbattery *b;
    int cap;
};

static struct tc_ftest *add(struct builder *bl, const char *name, float c)
{
    if (bl->b->n == bl->cap) {
        int cap = bl->cap ? 2 * bl->cap : 256;
        struct tc_ftest *t = realloc(bl->b->t, sizeof *t * (size_t)cap);
        if (!t)
            return NULL;
        bl->b->t = t;
        bl->cap = cap;
    }
    struct tc_ftest *t = &bl->b->t[bl->b->n++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->c = c;
    return t;
}

/* x = a*b with both factors in the format's normal range where possible. */
static void factor(int e, float sign, float *a, float *b)
{
    int ea = e / 2, eb = e - ea;
    *a = sign * ldexpf(1.0f, ea);
    *b = ldexpf(1.0f, eb);
}

static bool constructed(struct builder *bl, enum tc_input fmt)
{
    const int k = tc_input_k(fmt), p = frac_bits_of(fmt);
    const float one_ulp = 1.0f + ldexpf(1.0f, -23);
    struct tc_ftest *t;
#define ADD(name, c)                                                                               \
    do {                                                                                           \
        if (!(t = add(bl, (name), (c))))                                                           \
            return false;                                                                          \
    } while (0)

    /* Products exact: (1+2^-p)^2 needs 2p+1 bits, more than the inputs hold. */
    ADD("product exact: (1+2^-p)^2", 0.0f);
    t->a[0] = t->b[0] = 1.0f + ldexpf(1.0f, -p);

    /* Final rounding: 1 + 0.75 ulp is 1 toward zero, 1 + ulp to nearest; the
     * negative case separates toward zero from toward -inf. */
    ADD("rounding: 1 + 0.75 ulp", 1.0f);
    t->a[0] = ldexpf(1.0f, -12), t->b[0] = ldexpf(1.5f, -12);
    ADD("rounding: -1 - 0.75 ulp", -1.0f);
    t->a[0] = -ldexpf(1.0f, -12), t->b[0] = ldexpf(1.5f, -12);
    ADD("rounding: 1 + 1.5 ulp", 1.0f);
    t->a[0] = ldexpf(1.0f, -12), t->b[0] = ldexpf(1.5f, -11);
    ADD("rounding: -1 - 1.5 ulp", -1.0f);
    t->a[0] = -ldexpf(1.0f, -12), t->b[0] = ldexpf(1.5f, -11);
    ADD("rounding: 1 + 0.5 ulp (tie)", 1.0f);
    t->a[0] = ldexpf(1.0f, -12), t->b[0] = ldexpf(1.0f, -12);

    /* Alignment against the accumulator: (1 + ulp) - 2^-j is 1 toward zero
     * while the small addend survives alignment (j <= kept bits), else 1 + ulp. */
    static const char *const acc_names[] = {
        "align to c: (1+ulp) - 2^-24", "align to c: (1+ulp) - 2^-25", "align to c: (1+ulp) - 2^-26",
        "align to c: (1+ulp) - 2^-27", "align to c: (1+ulp) - 2^-28", "align to c: (1+ulp) - 2^-29",
        "align to c: (1+ulp) - 2^-30", "align to c: (1+ulp) - 2^-32", "align to c: (1+ulp) - 2^-36"};
    static const int acc_j[] = {24, 25, 26, 27, 28, 29, 30, 32, 36};
    for (int i = 0; i < 9; i++) {
        if (fmt == TC_IN_FP16 && acc_j[i] > 28)
            continue; /* below FP16's normal range for both factors */
        ADD(acc_names[i], one_ulp);
        factor(-acc_j[i], -1.0f, &t->a[0], &t->b[0]);
    }
    /* The same with the large value a product: is c aligned to the largest product? */
    static const char *const prod_names[] = {"align to product: 1 + 2^-23 - 2^-24 (c)",
                                             "align to product: 1 + 2^-23 - 2^-25 (c)",
                                             "align to product: 1 + 2^-23 - 2^-26 (c)",
                                             "align to product: 1 + 2^-23 - 2^-27 (c)",
                                             "align to product: 1 + 2^-23 - 2^-30 (c)"};
    static const int prod_j[] = {24, 25, 26, 27, 30};
    for (int i = 0; i < 5; i++) {
        ADD(prod_names[i], -ldexpf(1.0f, -prod_j[i]));
        t->a[0] = t->b[0] = 1.0f;
        factor(-23, 1.0f, &t->a[1], &t->b[1]);
    }
    /* Alignment among products only (c = 0). */
    for (int i = 0; i < 5; i++) {
        ADD("align among products: 1 + 2^-23 - 2^-j", 0.0f);
        t->a[0] = t->b[0] = 1.0f;
        factor(-23, 1.0f, &t->a[1], &t->b[1]);
        factor(-prod_j[i], -1.0f, &t->a[2], &t->b[2]);
    }
    /* Positive addends accumulate: 1 + (k-1) * 2^-j shows j's survival by value. */
    for (int j = 24; j <= 27; j++) {
        ADD("align: 1 + (k-1) * 2^-j", 1.0f);
        for (int l = 1; l < k; l++)
            factor(-j, 1.0f, &t->a[l], &t->b[l]);
    }
    /* One fused sum per instruction or several: 1 at position 0 and 2^-24 at
     * positions 1 and q. Together they make 1 + ulp; a part boundary between
     * 0 and q cuts the 2^-24 that sits alone with the 1. */
    for (int q = 2; q < k; q++) {
        ADD("split: 1 @0, 2^-24 @1 and @q", 0.0f);
        t->a[0] = t->b[0] = 1.0f;
        factor(-24, 1.0f, &t->a[1], &t->b[1]);
        factor(-24, 1.0f, &t->a[q], &t->b[q]);
    }
    for (int q = 1; q < k - 1; q++) {
        ADD("split: 1 @0, 2^-24 @q and @q+1", 0.0f);
        t->a[0] = t->b[0] = 1.0f;
        factor(-24, 1.0f, &t->a[q], &t->b[q]);
        factor(-24, 1.0f, &t->a[q + 1], &t->b[q + 1]);
    }

    /* Subnormals. */
    if (fmt == TC_IN_FP16) {
        ADD("subnormal input: 2^-24 * 1", 0.0f);
        t->a[0] = ldexpf(1.0f, -24), t->b[0] = 1.0f;
        ADD("subnormal input: 3*2^-24 * 2^-10", 0.0f);
        t->a[0] = ldexpf(3.0f, -24), t->b[0] = ldexpf(1.0f, -10);
    } else {
        ADD("subnormal input: 2^-130 * 1", 0.0f);
        t->a[0] = ldexpf(1.0f, -130), t->b[0] = 1.0f;
        ADD("subnormal output: 2^-70 * 2^-70", 0.0f);
        t->a[0] = ldexpf(1.0f, -70), t->b[0] = ldexpf(1.0f, -70);
        ADD("subnormal output: 2^-126 - 1.5*2^-127", ldexpf(1.0f, -126));
        t->a[0] = -ldexpf(1.5f, -64), t->b[0] = ldexpf(1.0f, -63);
        ADD("overflow: 1.5*2^127 * 2", 0.0f);
        t->a[0] = ldexpf(1.5f, 127), t->b[0] = 2.0f;
    }
    ADD("subnormal c, no products: 3*2^-149", ldexpf(3.0f, -149));
    ADD("subnormal c + 2^-24 * 2^-24 (fp16 range)", ldexpf(3.0f, -149));
    t->a[0] = t->b[0] = ldexpf(1.0f, fmt == TC_IN_FP16 ? -14 : -70);

    /* Zeros and special values. */
    ADD("zero: c = -0, no products", -0.0f);
    ADD("zero: 1 - 1", 1.0f);
    t->a[0] = -1.0f, t->b[0] = 1.0f;
    ADD("zero: -1 + 1", -1.0f);
    t->a[0] = 1.0f, t->b[0] = 1.0f;
    ADD("zero: c = -0, product -0", -0.0f);
    t->a[0] = -0.0f, t->b[0] = 1.0f;
    const float inf = INFINITY;
    ADD("special: inf * 1", 0.0f);
    t->a[0] = inf, t->b[0] = 1.0f;
    ADD("special: inf * 0", 0.0f);
    t->a[0] = inf, t->b[0] = 0.0f;
    ADD("special: inf - inf", 0.0f);
    t->a[0] = inf, t->b[0] = 1.0f, t->a[1] = -inf, t->b[1] = 1.0f;
    ADD("special: c = inf, product -inf", inf);
    t->a[0] = -inf, t->b[0] = 1.0f;
    ADD("special: c = nan", NAN);
    t->a[0] = 1.0f, t->b[0] = 1.0f;
    ADD("special: nan * 1", 0.0f);
    t->a[0] = NAN, t->b[0] = 1.0f;

    if (fmt == TC_IN_TF32) {
        /* How the instruction reads FP32 words: 1 + 0.75*2^-10 is 1 if the
         * low 13 bits are dropped, 1 + 2^-10 if rounded. */
        ADD("tf32 operand: 1 + 0.75*2^-10 (not tf32)", 0.0f);
        t->a[0] = 1.0f + ldexpf(3.0f, -12), t->b[0] = 1.0f;
        t->raw = true;
    }
#undef ADD
    return true;
}

static bool randoms(struct builder *bl, enum tc_input fmt, int n, uint64_t seed)
{
    const int k = tc_input_k(fmt);
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        /* A third each: moderate spread, wide spread, and near-cancelling pairs. */
        int kind = i % 3, spread = kind == 1 ? (fmt == TC_IN_FP16 ? 10 : 24) : 6;
        int base = uniform_int(&s, -6, 6);
        struct tc_ftest *t = add(bl, kind == 2 ? "random: cancelling pairs" : kind == 1 ? "random: wide" : "random", 0.0f);
        if (!t)
            return false;
        if (next_u64(&s) & 1)
            t->c = random_fp32(&s, 2 * base + uniform_int(&s, -spread, 3));
        for (int l = 0; l < k; l++) {
            if (next_u64(&s) % 10 == 0)
                continue; /* a zero product now and then */
            if (kind == 2 && l % 2 == 1) {
                /* -a(l-1) with its last bit flipped now and then: a near cancellation */
                float prev = t->a[l - 1];
                t->a[l] = -prev;
                t->b[l] = t->b[l - 1];
                if (next_u64(&s) & 1)
                    t->b[l] = random_value(&s, fmt, base + uniform_int(&s, -spread, spread));
                continue;
            }
            t->a[l] = random_value(&s, fmt, base + uniform_int(&s, -spread, spread));
            t->b[l] = random_value(&s, fmt, base + uniform_int(&s, -spread, spread));
        }
    }
    return true;
}

bool tc_battery_build(struct tc_fbattery *b, enum tc_input fmt, int n_random, uint64_t seed)
{
    memset(b, 0, sizeof *b);
    b->fmt = fmt;
    struct builder bl = {b, 0};
    if (constructed(&bl, fmt) && randoms(&bl, fmt, n_random, seed))
        return true;
    tc_battery_free(b);
    return false;
}

void tc_battery_free(struct tc_fbattery *b)
{
    free(b->t);
    memset(b, 0, sizeof *b);
}

bool tc_ibattery_build(struct tc_ibattery *b, int n_random, uint64_t seed)
{
    const int fixed = 5;
    memset(b, 0, sizeof *b);
    b->t = calloc((size_t)(fixed + n_random), sizeof *b->t);
    if (!b->t)
        return false;
    struct tc_itest *t = b->t;
    t[0].name = "int8 exact: 32 * 127*127";
    t[1].name = "int8 exact: 32 * (-128)*(-128)";
    t[2].name = "overflow: (2^31 - 101) + 32 * (-128)^2";
    t[2].c = INT32_MAX - 100;
    t[3].name = "overflow: (-2^31 + 100) + 32 * (-128)*127";
    t[3].c = INT32_MIN + 100;
    t[4].name = "overflow: (2^31 - 1) + 1*1";
    t[4].c = INT32_MAX;
    t[4].a[0] = t[4].b[0] = 1;
    for (int l = 0; l < 32; l++) {
        t[0].a[l] = t[0].b[l] = 127;
        t[1].a[l] = t[1].b[l] = -128;
        t[2].a[l] = t[2].b[l] = -128;
        t[3].a[l] = -128;
        t[3].b[l] = 127;
    }
    uint64_t s = seed;
    for (int i = 0; i < n_random; i++) {
        struct tc_itest *r = &t[fixed + i];
        r->name = "random";
        r->c = (int32_t)(next_u64(&s) % (1u << 31)) - (1 << 30);
        for (int l = 0; l < 32; l++) {
            r->a[l] = (int8_t)(next_u64(&s) & 0xFF);
            r->b[l] = (int8_t)(next_u64(&s) & 0xFF);
        }
    }
    b->n = fixed + n_random;
    return true;
}

void tc_ibattery_free(struct tc_ibattery *b)
{
    free(b->t);
    memset(b, 0, sizeof *b);
}
