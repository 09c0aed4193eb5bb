/* mixpert's arithmetic (mixpert_arith.h) and host model (mixpert_host.c):
 * the packer's integers hold every FP32 value to within half a unit of
 * the group's 21st bit, subnormals and carries included; the recipes have
 * the paper's products and level weights; the host model meets its bound
 * against a long-double reference on awkward shapes for every
 * configuration, group size and fallback, align=tile errs more than
 * align=row on rows of very different scale, fallback=on recovers the bits
 * the alignment shift loses (and changes nothing where every group is
 * safe), and rows or columns with NaN/Inf give non-finite entries exactly
 * there, with or without the fallback. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mixpert/mixpert.h"
#include "rng.h"

static double uniform(void)
{
    return (double)(rng_next() >> 11) * 0x1p-53;
}

/* A random float over many binades, subnormals included now and then. */
static float wide_value(void)
{
    const double u = uniform();
    const int e = (int)(uniform() * 300.0) - 150;
    const float x = (float)ldexp(1.0 + u, e);
    return uniform() < 0.5 ? -x : x;
}

static void test_quantize(void)
{
    for (int t = 0; t < 200000; t++) {
        float x = wide_value(), top = fabsf(x) * (float)(1.0 + 64.0 * uniform());
        if (!isfinite(top) || top == 0.0f)
            continue;
        const int e = mp_group_exp(mp_abs_bits_finite(top));
        const int32_t n = mp_quantize(x, e);
        CHECK(abs(n) < 1 << 21, "|N| = %d for x = %a, E = %d", n, (double)x, e);
        const double err = fabs((double)x - ldexp((double)n, e - MP_FRAC_BITS));
        CHECK(err <= ldexp(1.0, e - MP_FRAC_BITS - 1), "x = %a: |x - N 2^(E-20)| = %a", (double)x, err);
        int32_t back = 0;
        for (int s = 0; s < 3; s++) {
            const int8_t seg = mp_segment(n, s);
            CHECK(seg != -128, "segment %d = -128", s);
            CHECK(seg == 0 || (seg < 0) == (n < 0), "segment %d = %d has not N's sign (%d)", s, seg, n);
            back = back * 128 + seg;
        }
        CHECK(back == n, "segments of %d recombine to %d", n, back);
    }
    /* Rounding the largest value to 21 bits carries: E goes up by one. */
    CHECK(mp_group_exp(mp_abs_bits_finite(0x1.fffffep0f)) == 1, "carry of 2 - 2^-23");
    CHECK(mp_group_exp(mp_abs_bits_finite(0x1.fffff0p0f)) == 0, "no carry below the halfway point");
    CHECK(mp_group_exp(mp_abs_bits_finite(0x1.fffffcp-127f)) == -126, "carry of a subnormal");
    CHECK(mp_group_exp(0) == MP_ZERO_GROUP, "empty group");
    CHECK(mp_quantize(0x1p-149f, -149) == 1 << 20, "the smallest subnormal, its own group");
    CHECK(mp_quantize(0x1p-30f, 0) == 0, "2^-30 under a group of exponent 0 is below half a unit");
    CHECK(mp_quantize(0x1.4p-19f, 0) == 2, "2.5 units of 2^-20 round to even: 2");
    CHECK(mp_pow2(-149) == 0x1p-149f && mp_pow2(-126) == 0x1p-126f && mp_pow2(0) == 1.0f, "powers of two");
    CHECK(mp_pow2(-150) == 0.0f, "below the subnormals");
    CHECK(mp_beyond_safe_range(mp_abs_bits_finite(33.0f), mp_abs_bits_finite(1.0f)), "33 > 32 x 1");
    CHECK(!mp_beyond_safe_range(mp_abs_bits_finite(32.0f), mp_abs_bits_finite(1.0f)), "32 = 32 x 1 is safe");
}

static void test_recipes(void)
{
    static const int products[] = {4, 6, 6, 8}, levels[] = {3, 4, 4, 4};
    for (int c = 0; c < 4; c++) {
        const double params[MPB_MIXPERT_N_PARAMS] = {c, 0, 64};
        struct mp_recipe r;
        mp_recipe_of(params, &r);
        CHECK(r.n_pairs == products[c], "config %d: %d products", c + 1, r.n_pairs);
        CHECK(r.n_levels == levels[c], "config %d: %d levels", c + 1, r.n_levels);
        for (int L = 0, q = 0; L < r.n_levels; L++) {
            CHECK(r.level_weight[L] == ldexpf(1.0f, -12 - 7 * L), "config %d level %d weight", c + 1, L);
            for (; q < r.level_end[L]; q++) {
                CHECK(r.pairs[q].a + r.pairs[q].b == L, "config %d: pair %d is not on level %d", c + 1, q, L);
                CHECK(!(r.pairs[q].a == 2 && r.pairs[q].b == 2), "s2*t2 kept");
            }
        }
    }
}

/* Host model against a long-double reference (products exact in double,
 * k <= 300 of them: the reference errs by far less than the bound). */
static void test_host_bound(void)
{
    static const int64_t shapes[][3] = {{1, 1, 1}, {7, 33, 127}, {127, 7, 33}, {33, 127, 300}, {5, 3, 129}};
    static const int kgroups[] = {32, 64, 128};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
        const int64_t m = shapes[sh][0], n = shapes[sh][1], k = shapes[sh][2];
        float *a = malloc(sizeof *a * (size_t)(m * k)), *b = malloc(sizeof *b * (size_t)(k * n));
        float *c = malloc(sizeof *c * (size_t)(m * n));
        for (int64_t e = 0; e < m * k; e++)
            a[e] = (float)((uniform() - 0.5) * exp2((uniform() - 0.5) * 16));
        for (int64_t e = 0; e < k * n; e++)
            b[e] = (float)((uniform() - 0.5) * exp2((uniform() - 0.5) * 16));
        const struct mpb_gemm g = {m, n, k, MPB_TARGET_FP32, a, b, c, MPB_FIELD_REAL};
        for (int cfg = 0; cfg < 4; cfg++)
            for (int kg = 0; kg < 6; kg++) {
                const double params[MPB_MIXPERT_N_PARAMS] = {cfg, 0, kgroups[kg % 3], kg / 3};
                char why[128];
                if (!mpb_mixpert_check(params, &g, NULL, why, sizeof why))
                    continue;
                struct mpb_scheme_info info;
                CHECK(mpb_mixpert_host(&g, params, &info) == MPB_STATUS_OK, "host model failed");
                const double f = mpb_mixpert_bound(params, k);
                for (int64_t j = 0; j < n; j++)
                    for (int64_t i = 0; i < m; i++) {
                        long double exact = 0, na = 0, nb = 0;
                        for (int64_t l = 0; l < k; l++) {
                            exact += (long double)((double)a[i + l * m] * (double)b[l + j * k]);
                            na += (long double)a[i + l * m] * a[i + l * m];
                            nb += (long double)b[l + j * k] * b[l + j * k];
                        }
                        const double err = fabs((double)((long double)c[j * m + i] - exact));
                        const double lim = f * (double)(sqrtl(na) * sqrtl(nb));
                        CHECK(err <= lim,
                              "%lldx%lldx%lld config %d kgroup %d fallback %d (%lld,%lld): error %.3g > bound %.3g",
                              (long long)m, (long long)n, (long long)k, cfg + 1, kgroups[kg % 3], kg / 3,
                              (long long)i, (long long)j, err, lim);
                    }
            }
        free(a);
        free(b);
        free(c);
    }
}

/* Rows of A scaled by 2^0 and 2^-24 alternately: with align=tile a small
 * row shares its exponent with a large one and loses its bits. */
static void test_alignment(void)
{
    const int64_t m = 32, n = 8, k = 64;
    float *a = malloc(sizeof *a * m * k), *b = malloc(sizeof *b * k * n), *c = malloc(sizeof *c * m * n);
    for (int64_t l = 0; l < k; l++)
        for (int64_t i = 0; i < m; i++)
            a[i + l * m] = (float)(uniform() + 0.5) * (i % 2 ? 0x1p-24f : 1.0f);
    for (int64_t e = 0; e < k * n; e++)
        b[e] = (float)(uniform() + 0.5);
    const struct mpb_gemm g = {m, n, k, MPB_TARGET_FP32, a, b, c, MPB_FIELD_REAL};
    double worst[2] = {0, 0};
    for (int align = 0; align < 2; align++) {
        const double params[MPB_MIXPERT_N_PARAMS] = {3, align, 32};
        struct mpb_scheme_info info;
        CHECK(mpb_mixpert_host(&g, params, &info) == MPB_STATUS_OK, "host model failed");
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 1; i < m; i += 2) {
                double exact = 0;
                for (int64_t l = 0; l < k; l++)
                    exact += (double)a[i + l * m] * (double)b[l + j * k];
                worst[align] = fmax(worst[align], fabs(c[j * m + i] - exact) / exact);
            }
    }
    CHECK(worst[0] < 0x1p-19, "align=row on small rows: relative error %.3g", worst[0]);
    CHECK(worst[1] > 1e-3, "align=tile keeps small rows' bits (relative error %.3g)", worst[1]);
    free(a);
    free(b);
    free(c);
}

/* Largest relative error of C against a double reference (k <= 64 exact
 * products of floats, all positive, summed in double with error far below
 * FP32's). */
static double worst_relative(const float *a, const float *b, const float *c, int64_t m, int64_t n, int64_t k)
{
    double worst = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double exact = 0;
            for (int64_t l = 0; l < k; l++)
                exact += (double)a[i + l * m] * (double)b[l + j * k];
            worst = fmax(worst, fabs(c[j * m + i] - exact) / fabs(exact));
        }
    return worst;
}

/* A's first group of k holds one value near 1 (l = 0) and the rest near
 * 2^-12 (beyond the safe range: the shift keeps 8 of their bits), B's a
 * value near 2^-24 at l = 0 among values near 1, so that C is the sum of
 * the small products: fallback=on computes every product that touches such
 * a group in BF16x3 and is far more accurate. With every group safe
 * (values in [1, 2)) fallback=on launches nothing and gives off's bits. */
static void test_fallback(void)
{
    const int64_t m = 24, n = 10, k = 64;
    float *a = malloc(sizeof *a * m * k), *b = malloc(sizeof *b * k * n);
    float *off = malloc(sizeof *off * m * n), *on = malloc(sizeof *on * m * n);
    for (int spread = 1; spread >= 0; spread--) {
        for (int64_t l = 0; l < k; l++)
            for (int64_t i = 0; i < m; i++)
                a[i + l * m] = (float)(1.0 + uniform()) * (spread && l ? 0x1p-12f : 1.0f);
        for (int64_t e = 0; e < k * n; e++)
            b[e] = (float)(1.0 + uniform()) * (spread && e % k == 0 ? 0x1p-24f : 1.0f);
        for (int align = 0; align < 2; align++) {
            struct mpb_scheme_info info_off, info_on;
            const double p_off[MPB_MIXPERT_N_PARAMS] = {3, align, 32, 0}, p_on[MPB_MIXPERT_N_PARAMS] = {3, align, 32, 1};
            struct mpb_gemm g = {m, n, k, MPB_TARGET_FP32, a, b, off, MPB_FIELD_REAL};
            CHECK(mpb_mixpert_host(&g, p_off, &info_off) == MPB_STATUS_OK, "host model failed");
            g.c = on;
            CHECK(mpb_mixpert_host(&g, p_on, &info_on) == MPB_STATUS_OK, "host model failed");
            const double e_off = worst_relative(a, b, off, m, n, k), e_on = worst_relative(a, b, on, m, n, k);
            if (spread) {
                CHECK(info_on.fallback == 1 && info_off.fallback == 0, "align %d: fallback %d / %d", align,
                      info_on.fallback, info_off.fallback);
                CHECK(e_on < 0x1p-21 && e_off > 64 * e_on, "align %d: relative error off %.3g, on %.3g", align,
                      e_off, e_on);
                CHECK(strstr(info_on.note, "fell back to BF16x3") && !strstr(info_off.note, "fell back"),
                      "notes: [%s] [%s]", info_on.note, info_off.note);
                CHECK(strstr(info_on.settings, "fallback=on"), "settings: %s", info_on.settings);
            } else {
                CHECK(info_on.fallback == 0 && !memcmp(on, off, sizeof *on * m * n),
                      "align %d: every group safe, yet fallback=on differs from off", align);
                CHECK(info_on.note[0] == '\0', "note without unsafe groups: %s", info_on.note);
            }
        }
    }
    free(a);
    free(b);
    free(off);
    free(on);
}

/* NaN in a row of A, Inf in a column of B: exactly those rows and columns
 * are non-finite, the note counts them, the rest matches the clean run. */
static void test_special(void)
{
    const int64_t m = 9, n = 7, k = 40;
    float *a = malloc(sizeof *a * m * k), *b = malloc(sizeof *b * k * n), *c = malloc(sizeof *c * m * n);
    for (int64_t e = 0; e < m * k; e++)
        a[e] = (float)(uniform() - 0.5);
    for (int64_t e = 0; e < k * n; e++)
        b[e] = (float)(uniform() - 0.5);
    a[3 + 5 * m] = NAN;
    b[7 + 2 * k] = INFINITY;
    const struct mpb_gemm g = {m, n, k, MPB_TARGET_FP32, a, b, c, MPB_FIELD_REAL};
    for (int fallback = 0; fallback < 2; fallback++) {
        const double params[MPB_MIXPERT_N_PARAMS] = {3, 0, 64, fallback};
        struct mpb_scheme_info info;
        CHECK(mpb_mixpert_host(&g, params, &info) == MPB_STATUS_OK, "host model failed");
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                const bool special = i == 3 || j == 2;
                CHECK(special != (bool)isfinite(c[j * m + i]), "fallback %d: entry (%lld,%lld) = %g", fallback,
                      (long long)i, (long long)j, (double)c[j * m + i]);
            }
        CHECK(strstr(info.note, "A: 1 rows with NaN/Inf") && strstr(info.note, "B: 1 columns with NaN/Inf"),
              "note: %s", info.note);
    }
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    test_quantize();
    test_recipes();
    test_host_bound();
    test_alignment();
    test_fallback();
    test_special();
    return check_report("test_mixpert");
}
