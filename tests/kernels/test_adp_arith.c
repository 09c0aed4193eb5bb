/* adp's shared arithmetic (kernels/adp/adp_arith.h):
 *  - unsigned slice encoding: digits in [−128, 127], the value they spell is
 *    RNE(x·2^(W−E)) (checked exactly with MPFR), and an x whose bits fit
 *    round-trips exactly, for 1..32 slices;
 *  - the coarsened ESC never lies below the exact (brute-force) ESC, on
 *    random data with zeros and wide exponent spreads and on Test 2 data,
 *    for several block lengths; block = 1 gives the exact ESC; the paper's
 *    rule with zeros left out of the block minimum would not be safe;
 *  - the decision rule, the slice engine's crossover, and decision=auto's
 *    time model of the CRT engine against the H200 times it was fitted to. */
#include <math.h>
#include <mpfr.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "rng.h"
#include "adp/adp_arith.h"

static double rng_unit(void) /* [1, 2) with 52 random fraction bits */
{
    return 1.0 + (double)(rng_next() >> 12) * 0x1p-52;
}

static int rng_int(int lo, int hi)
{
    return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* Σ_p d_p·2^(W−7−8p) (an integer) exactly, and RNE(|x|·2^(W−E))·sign. */
static void check_digits(double x, int E, int s)
{
    int8_t d[ADP_MAX_SLICES];
    adp_slice(x, E, s, d, 1);
    int W = 8 * s - 1;
    mpfr_t sum, want;
    mpfr_inits2(400, sum, want, (mpfr_ptr)0);
    mpfr_set_zero(sum, 1);
    for (int p = 0; p < s; p++) {
        CHECK(d[p] >= -128 && d[p] <= 127, "digit %d out of range", p);
        mpfr_t t;
        mpfr_init2(t, 64);
        mpfr_set_si_2exp(t, d[p], W - 7 - 8 * p, MPFR_RNDN);
        mpfr_add(sum, sum, t, MPFR_RNDN);
        mpfr_clear(t);
    }
    mpfr_set_d(want, x, MPFR_RNDN);
    mpfr_mul_2si(want, want, W - E, MPFR_RNDN);
    mpfr_rint(want, want, MPFR_RNDN);
    CHECK(mpfr_equal_p(sum, want), "x=%a E=%d s=%d: digits do not spell RNE(x*2^(W-E))", x, E, s);
    mpfr_clears(sum, want, (mpfr_ptr)0);
}

static void test_slices(void)
{
    for (int s = 1; s <= ADP_MAX_SLICES; s++)
        for (int t = 0; t < 400; t++) {
            double x = rng_unit() * ldexp(1.0, rng_int(-40, 40)) * (rng_next() & 1 ? -1 : 1);
            double rowmax = fabs(x) * (t % 4 == 0 ? 1.0 : ldexp(rng_unit(), rng_int(0, 60)));
            if (t % 7 == 0)
                rowmax = 0x1.FFFFFFFFFFFFFp0 * ldexp(1.0, adp_exponent(x)); /* forces the bump */
            int E = adp_scale_exponent(mpb_f64_to_bits(rowmax));
            check_digits(x, E, s);
            check_digits(0.0, E, s);
            /* |x|·2^−E ≤ 127/128 keeps the leading digit (carry included) in range. */
            CHECK(fabs(x) * ldexp(1.0, -E) <= 127.0 / 128.0, "scale exponent too small");
            /* Exact round trip when the slices hold all of x's bits. */
            if (8 * s - 1 >= E - adp_exponent(x) + 53) {
                int8_t d[ADP_MAX_SLICES];
                adp_slice(x, E, s, d, 1);
                long double back = 0;
                for (int p = s - 1; p >= 0; p--)
                    back += ldexpl((long double)d[p], E - 7 - 8 * p);
                CHECK(back == (long double)x, "x=%a E=%d s=%d: round trip gives %La", x, E, s, back);
            }
        }
    /* The paper's example (§3): 123·256 + 200 is stored as 124·256 − 56. */
    int8_t d[2];
    adp_slice((123.0 * 256 + 200) * 0x1p-15, 0, 2, d, 1);
    CHECK(d[0] == 124 && d[1] == -56, "123*256+200 gives (%d, %d), expected (124, -56)", d[0], d[1]);
}

/* Exact ESC of x·y (brute force); 0 when unconstrained, -1 when no nonzero
 * product exists while both vectors are nonzero (C is then exactly 0). */
static int exact_esc(const double *x, const double *y, int k)
{
    int ex = ADP_EXP_NONE, ey = ADP_EXP_NONE, z = INT32_MIN;
    for (int l = 0; l < k; l++) {
        ex = adp_imax(ex, adp_exponent(x[l]));
        ey = adp_imax(ey, adp_exponent(y[l]));
        if (x[l] != 0 && y[l] != 0)
            z = adp_imax(z, adp_exponent(x[l]) + adp_exponent(y[l]));
    }
    if (ex == ADP_EXP_NONE || ey == ADP_EXP_NONE)
        return 0;
    return z == INT32_MIN ? -1 : adp_esc_of(ex, ey, z);
}

static int coarse_esc(const double *x, const double *y, int k, int block)
{
    int ex = ADP_EXP_NONE, ey = ADP_EXP_NONE, z = 2 * ADP_EXP_NONE;
    for (int b0 = 0; b0 < k; b0 += block) {
        int xmax = ADP_EXP_NONE, xmin = ADP_EXP_TOP, ymax = ADP_EXP_NONE, ymin = ADP_EXP_TOP;
        for (int l = b0; l < k && l < b0 + block; l++) {
            adp_block_add(&xmax, &xmin, x[l]);
            adp_block_add(&ymax, &ymin, y[l]);
        }
        ex = adp_imax(ex, xmax);
        ey = adp_imax(ey, ymax);
        z = adp_imax(z, adp_block_estimate(xmax, xmin, ymax, ymin));
    }
    return adp_esc_of(ex, ey, z);
}

static void check_esc(const double *x, const double *y, int k, const char *what)
{
    static const int blocks[] = {1, 2, 3, 7, 16, 64, 1000};
    int exact = exact_esc(x, y, k);
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        int coarse = coarse_esc(x, y, k, blocks[b]);
        if (exact >= 0)
            CHECK(coarse >= exact, "%s k=%d block=%d: coarse ESC %d below exact %d", what, k,
                  blocks[b], coarse, exact);
        if (blocks[b] == 1 && exact >= 0)
            CHECK(coarse == exact, "%s k=%d: block 1 gives %d, exact %d", what, k, coarse, exact);
    }
}

static void test_esc_random(void)
{
    double x[300], y[300];
    for (int t = 0; t < 3000; t++) {
        int k = rng_int(1, 300), span = rng_int(0, 200), zeros = rng_int(0, 3);
        for (int l = 0; l < k; l++) {
            x[l] = rng_unit() * ldexp(1.0, rng_int(-span, span)) * (rng_next() & 1 ? -1 : 1);
            y[l] = rng_unit() * ldexp(1.0, rng_int(-span, span));
            if (zeros && rng_int(0, 9) < zeros)
                x[l] = 0;
            if (zeros && rng_int(0, 9) < zeros)
                y[l] = 0;
        }
        check_esc(x, y, k, "random");
    }
}

/* Demmel et al.'s Test 2 (README "Generators", test2): row r of A and column c of B, cyclic shifts of
 * y_i = x_i·2^j_i and z_i = x_i·2^−j_i. */
static void test_esc_test2(void)
{
    static const int sizes[] = {7, 64, 129, 256};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int n = sizes[si];
        double *xs = malloc(sizeof *xs * (size_t)n), *row = malloc(sizeof *row * (size_t)n),
               *col = malloc(sizeof *col * (size_t)n);
        for (int b = 0; b <= 60; b += 12) {
            for (int i = 0; i < n; i++)
                xs[i] = rng_unit();
            for (int r = 0; r < n; r += 1 + n / 8)
                for (int c = 0; c < n; c += 1 + n / 8) {
                    for (int l = 0; l < n; l++) {
                        int ir = (r + l) % n, ic = (l + c) % n;
                        int jr = n > 1 ? -b + (int)lround(2.0 * b * ir / (n - 1)) : 0;
                        int jc = n > 1 ? -b + (int)lround(2.0 * b * ic / (n - 1)) : 0;
                        row[l] = ldexp(xs[ir], jr);
                        col[l] = ldexp(xs[ic], -jc);
                    }
                    check_esc(row, col, n, "test2");
                }
        }
        free(xs);
        free(row);
        free(col);
    }
}

/* Why zeros count as −∞ in the block minimum: with them left out, this block
 * would estimate the largest product at 2^0 while it is 2^−60. */
static void test_esc_zero_counterexample(void)
{
    double x[2] = {1.0, 0x1p-60}, y[2] = {0.0, 1.0};
    int exact = exact_esc(x, y, 2), coarse = coarse_esc(x, y, 2, 2);
    CHECK(exact == 61, "exact ESC %d, expected 61", exact);
    CHECK(coarse >= 61, "coarse ESC %d below 61", coarse);
}

static void test_decision(void)
{
    struct adp_config c = {.max_bits = 200, .fixed_bits = 0, .fallback = 1, .auto_mode = 0,
                           .block = 64, .m = 4096, .n = 4096, .k = 4096};
    struct adp_decision d = adp_decide(&c, 1, 3);
    CHECK(d.native && d.reason == ADP_NATIVE_SPECIAL, "special input must go native");
    d = adp_decide(&c, 0, 3);
    CHECK(!d.native && d.bits == 56 && d.slices == 8, "ESC 3: bits %d slices %d", d.bits, d.slices);
    d = adp_decide(&c, 0, 2);
    CHECK(!d.native && d.bits == 55 && d.slices == 7, "ESC 2: 55 bits in 7 slices (got %d, %d)",
          d.bits, d.slices);
    d = adp_decide(&c, 0, 148);
    CHECK(d.native && d.reason == ADP_NATIVE_BITS, "201 bits > max_bits must fall back");
    c.fallback = 0;
    d = adp_decide(&c, 0, 148);
    CHECK(!d.native && d.bits == 200 && d.slices == 26, "fallback=off caps at max_bits");
    c.fixed_bits = 55;
    d = adp_decide(&c, 0, 148);
    CHECK(!d.native && d.bits == 55 && d.slices == 7, "fixed_bits=55, fallback=off");
    c.fallback = 1;
    d = adp_decide(&c, 0, 3);
    CHECK(d.native && d.reason == ADP_NATIVE_BITS, "fixed_bits=55 with 56 needed falls back");
    d = adp_decide(&c, 0, 2);
    CHECK(!d.native && d.bits == 55, "fixed_bits=55 with 55 needed emulates");
    /* The slice engine's crossover (engine=slices) on an H200: 28 INT8
     * GEMMs (7 slices, the fewest) never pay against DGEMM. */
    c.fixed_bits = 0;
    c.auto_mode = 1;
    c.crt = 0;
    for (int64_t n = 1024; n <= 16384; n *= 2) {
        c.m = c.n = c.k = n;
        CHECK(!adp_emulation_pays(&c, 54), "n=%lld: 7 slices predicted faster than DGEMM",
              (long long)n);
        CHECK(adp_native_by_shape(&c), "n=%lld: slices: auto must decide native by shape",
              (long long)n);
    }
    c.m = c.n = c.k = 8192;
    CHECK(adp_bits_seconds(&c, 64) > adp_bits_seconds(&c, 54),
          "predicted time must grow with the slices");
}

/* The CRT engine's model against the H200 times it was fitted to
 * (results/h200/fp64-emulation/fp64-emulation.csv, build e267b3f: adp
 * decision=eager engine=crt and dgemm, median of 5; the W that eager's ESC
 * chose): the prediction (guardrails + engine) within 15% of the measured
 * time, and auto's choice the faster one on every case. */
static void test_crt_model(void)
{
    static const struct {
        int64_t n;
        int bits;
        double eager_ms, dgemm_ms;
    } measured[] = {
        {4096, 64, 2.786, 2.239},    {4096, 81, 3.265, 2.242},
        {8192, 64, 18.444, 19.449},  {8192, 81, 20.981, 18.436},
        {16384, 65, 136.676, 159.400}, {16384, 82, 170.014, 165.538},
    };
    struct adp_config c = {.max_bits = 200, .fallback = 1, .auto_mode = 1, .block = 64, .crt = 1};
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++) {
        c.m = c.n = c.k = measured[i].n;
        double predicted = 1e3 * (adp_guard_seconds(&c) + adp_bits_seconds(&c, measured[i].bits));
        double ratio = predicted / measured[i].eager_ms;
        CHECK(ratio > 0.85 && ratio < 1.15, "n=%lld W=%d: predicted %.2f ms, measured %.2f",
              (long long)c.m, measured[i].bits, predicted, measured[i].eager_ms);
        double native = 1e3 * adp_native_seconds(c.m, c.n, c.k);
        CHECK(fabs(native / measured[i].dgemm_ms - 1.0) < 0.1, "n=%lld: DGEMM predicted %.2f ms, "
              "measured %.2f", (long long)c.m, native, measured[i].dgemm_ms);
        struct adp_decision d = adp_decide(&c, 0, measured[i].bits - 53);
        bool emulation_faster = measured[i].eager_ms < measured[i].dgemm_ms;
        if (!adp_native_by_shape(&c))
            CHECK(d.native != emulation_faster, "n=%lld W=%d: auto chose %s, the slower",
                  (long long)c.m, measured[i].bits, d.native ? "native" : "emulation");
        else
            CHECK(!emulation_faster, "n=%lld: native by shape, but emulation measured faster",
                  (long long)c.m);
    }
    /* Where the shape decides: 4096 and below native without guardrails,
     * 8192 and 16384 worth the guardrails (the fewest moduli beat DGEMM). */
    for (int64_t n = 1024; n <= 16384; n *= 2) {
        c.m = c.n = c.k = n;
        CHECK(adp_native_by_shape(&c) == (n <= 4096), "n=%lld: native by shape is %d",
              (long long)n, adp_native_by_shape(&c));
    }
    /* Few k: the reconstruction's passes over C outweigh the products. */
    c.m = c.n = 16384;
    c.k = 256;
    CHECK(adp_native_by_shape(&c), "k=256: the passes over C must decide native");
}

int main(void)
{
    test_slices();
    test_esc_random();
    test_esc_test2();
    test_esc_zero_counterexample();
    test_decision();
    test_crt_model();
    return check_report("test_adp_arith");
}
