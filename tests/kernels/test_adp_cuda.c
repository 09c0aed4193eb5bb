/* GPU suite for adp (kernels/adp/adp.cu), through setup, mpb_cuda_time
 * (timed graph launches and the instrumented call), report and teardown:
 *  - emulated path (decision=eager), both engines: output bitwise equal to
 *    the host model, and the same slices or moduli and ESC (settings) on both
 *    sides, at awkward shapes, with chunked diagonals (k > ADP_MAX_TERMS/s),
 *    with k above ADP_MAX_TERMS (k split into chunks: per pair and chunk on
 *    the slice engine, folded per modulus on the CRT engine), and with
 *    engine=crt on data whose bits exceed its 25 moduli (the slice engine
 *    runs);
 *  - fixed_bits=55 fallback=off on wide-range data: still bitwise;
 *  - NaN/Inf in A, and decision=auto: fallback 1 and bitwise cublasDgemm's
 *    output (the native scheme on the same data); the note counts the 2
 *    special entries;
 *  - 53 + ESC past max_bits in one row: decided on the sampled rows' ESC
 *    when the row is one of them, on the whole ESC otherwise; the settings
 *    the host model's, the output cublasDgemm's;
 *  - decision=auto at 8192, where its guardrails run: bitwise eager's output
 *    on narrow-range data (emulated), cublasDgemm's on wide-range data (the
 *    time model's fallback);
 *  - on an sm_90a GPU, gemm=engine (the CRT products in one launch of the
 *    engine's INT8 GEMM per count of moduli): bitwise the host model and
 *    gemm=calls on awkward shapes up to k = 131071, at 25 moduli (two
 *    launches), with the slice engine taking over where the moduli do not
 *    suffice, and with NaN/Inf (native).
 * Exits 77 without a device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "adp/adp.h"
#include "cuda_env.h"
#include "cuda_scheme_run.h"
#include "native/native.h"

static uint64_t rng_state = 0x5851F42D4C957F2Du;

static double rng_uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1Du) >> 11) * 0x1p-52 - 1.0;
}

/* Entries (u − 0.5)-like with exponents spread over ±spread. */
static double *matrix(int64_t count, int spread)
{
    double *p = malloc(sizeof *p * (size_t)count);
    for (int64_t i = 0; i < count; i++)
        p[i] = ldexp(rng_uniform(), spread ? (int)(rng_uniform() * spread) : 0);
    return p;
}

/* Runs `ops` on (a, b) on the GPU; C and the report come back. */
static bool run_gpu(struct mpb_cuda_env *env, const struct mpb_scheme_cuda *ops,
                    const double *params, int64_t m, int64_t n, int64_t k, const double *a,
                    const double *b, double *c, struct mpb_scheme_info *info)
{
    double phase[MPB_PHASE_COUNT];
    *info = (struct mpb_scheme_info){.slices = -1, .fallback = -1};
    const bool ok = test_cuda_run(env, ops, params, MPB_TARGET_FP64, m, n, k, a, b, c, info, phase);
    CHECK(ok, "%lldx%lldx%lld: %s", (long long)m, (long long)n, (long long)k,
          mpb_cuda_last_error(env));
    return ok;
}

static void params_of(double *p, int decision, int fallback, int fixed_bits, int engine)
{
    mpb_param_defaults(mpb_adp_params, MPB_ADP_N_PARAMS, p);
    p[MPB_ADP_GEMM] = MPB_ADP_GEMM_CALLS;
    p[MPB_ADP_DECISION] = decision;
    p[MPB_ADP_FALLBACK] = fallback;
    p[MPB_ADP_FIXED_BITS] = fixed_bits;
    p[MPB_ADP_ENGINE] = engine;
}

/* GPU against the host model, bit for bit, with the same decision; `crt`:
 * whether the CRT engine must have run. With gemm=engine, also against
 * gemm=calls on the GPU. */
static void check_emulated(struct mpb_cuda_env *env, int64_t m, int64_t n, int64_t k, int spread,
                           const double *params, bool crt)
{
    double *a = matrix(m * k, spread), *b = matrix(k * n, spread);
    double *c = malloc(sizeof *c * (size_t)(m * n)), *h = malloc(sizeof *h * (size_t)(m * n));
    struct mpb_scheme_info gi, hi = {.slices = -1, .fallback = -1};
    bool ok = run_gpu(env, &mpb_adp_cuda, params, m, n, k, a, b, c, &gi);
    if (ok && params[MPB_ADP_GEMM] == MPB_ADP_GEMM_ENGINE) {
        double calls[MPB_MAX_PARAMS];
        memcpy(calls, params, sizeof calls);
        calls[MPB_ADP_GEMM] = MPB_ADP_GEMM_CALLS;
        double *cc = malloc(sizeof *cc * (size_t)(m * n));
        struct mpb_scheme_info ci;
        if (run_gpu(env, &mpb_adp_cuda, calls, m, n, k, a, b, cc, &ci))
            CHECK(memcmp(c, cc, sizeof *c * (size_t)(m * n)) == 0,
                  "%lldx%lldx%lld spread %d: gemm=engine differs from gemm=calls on the GPU", (long long)m,
                  (long long)n, (long long)k, spread);
        free(cc);
    }
    if (ok) {
        struct mpb_gemm hg = {.m = m, .n = n, .k = k, .target = MPB_TARGET_FP64, .a = a, .b = b, .c = h};
        CHECK(mpb_adp_host(&hg, params, &hi) == MPB_STATUS_OK, "host model");
        CHECK(gi.fallback == 0 && gi.slices == hi.slices && !strcmp(gi.settings, hi.settings),
              "%lldx%lldx%lld: gpu [%s] slices %d fallback %d, host [%s] slices %d",
              (long long)m, (long long)n, (long long)k, gi.settings, gi.slices, gi.fallback,
              hi.settings, hi.slices);
        CHECK((strstr(gi.note, "CRT") != NULL) == crt, "%lldx%lldx%lld: engine not %s: %s",
              (long long)m, (long long)n, (long long)k, crt ? "crt" : "slices", gi.note);
        CHECK(memcmp(c, h, sizeof *c * (size_t)(m * n)) == 0,
              "%lldx%lldx%lld spread %d: GPU output differs from the host model", (long long)m,
              (long long)n, (long long)k, spread);
        printf("emulated %5lld %5lld %6lld spread %3d  slices %2d  [%s]\n", (long long)m,
               (long long)n, (long long)k, spread, gi.slices, gi.settings);
    }
    free(a), free(b), free(c), free(h);
}

/* adp against cublasDgemm on the same data: the same bits. */
static void check_native(struct mpb_cuda_env *env, int64_t nn, bool with_nan, const double *params)
{
    double *a = matrix(nn * nn, 4), *b = matrix(nn * nn, 4);
    if (with_nan) {
        a[3] = NAN;
        b[nn + 1] = INFINITY;
    }
    double *c = malloc(sizeof *c * (size_t)(nn * nn)), *r = malloc(sizeof *r * (size_t)(nn * nn));
    struct mpb_scheme_info ai, di;
    if (run_gpu(env, &mpb_adp_cuda, params, nn, nn, nn, a, b, c, &ai) &&
        run_gpu(env, &mpb_dgemm_cuda, NULL, nn, nn, nn, a, b, r, &di)) {
        CHECK(ai.fallback == 1, "n=%lld nan=%d: fallback %d (%s)", (long long)nn, with_nan,
              ai.fallback, ai.note);
        CHECK(!with_nan || strstr(ai.note, "(2 of the ") != NULL, "n=%lld: special entries not counted: %s",
              (long long)nn, ai.note);
        CHECK(memcmp(c, r, sizeof *c * (size_t)(nn * nn)) == 0,
              "n=%lld nan=%d: native path differs from cublasDgemm", (long long)nn, with_nan);
        printf("native   %5lld  nan %d  [%s] %s\n", (long long)nn, with_nan, ai.settings, ai.note);
    }
    free(a), free(b), free(c), free(r);
}

/* A row of A with 2^150 against columns of B with 2^150 two places on: 53 +
 * ESC past max_bits in that row alone. In a sampled row (the first
 * ADP_ESC_SAMPLE_ROWS) the sampled ESC decides (esc>=), past them the whole
 * ESC does; either way native, the settings the host model's, the output
 * cublasDgemm's. */
static void check_wide_row(struct mpb_cuda_env *env, int64_t wide_row, const double *params)
{
    const int64_t m = 300, n = 9, k = 130;
    double *a = matrix(m * k, 0), *b = matrix(k * n, 0);
    a[wide_row] = 0x1p150;
    for (int64_t j = 0; j < n; j++)
        b[2 + j * k] = 0x1p150;
    double *c = malloc(sizeof *c * (size_t)(m * n)), *r = malloc(sizeof *r * (size_t)(m * n));
    double *h = malloc(sizeof *h * (size_t)(m * n));
    struct mpb_scheme_info gi, di, hi = {.slices = -1, .fallback = -1};
    struct mpb_gemm hg = {.m = m, .n = n, .k = k, .target = MPB_TARGET_FP64, .a = a, .b = b, .c = h};
    if (run_gpu(env, &mpb_adp_cuda, params, m, n, k, a, b, c, &gi) &&
        run_gpu(env, &mpb_dgemm_cuda, NULL, m, n, k, a, b, r, &di) &&
        mpb_adp_host(&hg, params, &hi) == MPB_STATUS_OK) {
        const bool sampled = wide_row < ADP_ESC_SAMPLE_ROWS;
        CHECK(gi.fallback == 1 && !strcmp(gi.settings, hi.settings) &&
                  (strstr(gi.settings, "esc>=") != NULL) == sampled,
              "wide row %lld: GPU [%s] %s, host [%s]", (long long)wide_row, gi.settings, gi.note,
              hi.settings);
        CHECK(memcmp(c, r, sizeof *c * (size_t)(m * n)) == 0,
              "wide row %lld: output differs from cublasDgemm", (long long)wide_row);
        printf("wide row %3lld  [%s] %s\n", (long long)wide_row, gi.settings, gi.note);
    }
    free(a), free(b), free(c), free(r), free(h);
}

/* decision=auto at a size where the guardrails run (not native by shape on
 * an H200: mpb_adp_shape_decision): on narrow-range data it emulates with
 * eager's bits, on wide-range data its time model picks cublasDgemm. */
static void check_auto(struct mpb_cuda_env *env, int64_t nn, const double *automatic,
                       const double *eager)
{
    if (mpb_adp_shape_decision(automatic, &(struct mpb_gemm){.m = nn, .n = nn, .k = nn}) != ADP_EMULATED) {
        printf("auto     %5lld  native by shape: nothing to check at this size\n", (long long)nn);
        return;
    }
    const int64_t count = nn * nn;
    for (int spread = 0; spread <= 20; spread += 20) {
        double *a = matrix(count, spread), *b = matrix(count, spread);
        double *c = malloc(sizeof *c * (size_t)count), *r = malloc(sizeof *r * (size_t)count);
        struct mpb_scheme_info ai, ri;
        const bool wide = spread > 0;
        if (run_gpu(env, &mpb_adp_cuda, automatic, nn, nn, nn, a, b, c, &ai) &&
            run_gpu(env, wide ? &mpb_dgemm_cuda : &mpb_adp_cuda, wide ? NULL : eager, nn, nn, nn, a,
                    b, r, &ri)) {
            CHECK(ai.fallback == wide, "auto n=%lld spread %d: fallback %d (%s)", (long long)nn,
                  spread, ai.fallback, ai.note);
            CHECK(!wide || strstr(ai.note, "predicts native faster") != NULL,
                  "auto n=%lld spread %d: not the time model's fallback: %s", (long long)nn, spread,
                  ai.note);
            CHECK(memcmp(c, r, sizeof *c * (size_t)count) == 0,
                  "auto n=%lld spread %d: output differs from %s", (long long)nn, spread,
                  wide ? "cublasDgemm" : "decision=eager");
            printf("auto     %5lld  spread %2d  [%s] %s\n", (long long)nn, spread, ai.settings,
                   ai.note);
        }
        free(a), free(b), free(c), free(r);
    }
}

int main(void)
{
    char why[256];
    struct mpb_cuda_env *env = mpb_cuda_open(0, why, sizeof why);
    if (!env) {
        printf("skipped: %s\n", why);
        return 77;
    }
    double crt[MPB_MAX_PARAMS], slices[MPB_MAX_PARAMS], fixed55[MPB_MAX_PARAMS],
        automatic[MPB_MAX_PARAMS];
    params_of(crt, MPB_ADP_EAGER, MPB_ADP_FALLBACK_ON, 0, MPB_ADP_ENGINE_CRT);
    params_of(slices, MPB_ADP_EAGER, MPB_ADP_FALLBACK_ON, 0, MPB_ADP_ENGINE_SLICES);
    params_of(fixed55, MPB_ADP_EAGER, MPB_ADP_FALLBACK_OFF, 55, MPB_ADP_ENGINE_SLICES);
    params_of(automatic, MPB_ADP_AUTO, MPB_ADP_FALLBACK_ON, 0, MPB_ADP_ENGINE_CRT);
    static const int64_t shapes[][3] = {{1, 1, 1},       {7, 7, 7},        {33, 31, 129},
                                        {129, 127, 65},  {300, 200, 1000}, {64, 64, 20000},
                                        {3, 5, 131072},  {2, 2, 131073},   {17, 9, 262200}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        check_emulated(env, shapes[i][0], shapes[i][1], shapes[i][2], 8, slices, false);
        check_emulated(env, shapes[i][0], shapes[i][1], shapes[i][2], 8, crt, true);
    }
    check_emulated(env, 256, 256, 256, 0, slices, false);
    check_emulated(env, 256, 256, 256, 0, crt, true);
    check_emulated(env, 130, 70, 300, 60, fixed55, false);
    fixed55[MPB_ADP_ENGINE] = MPB_ADP_ENGINE_CRT;
    check_emulated(env, 130, 70, 300, 60, fixed55, true);
    check_emulated(env, 130, 70, 300, 60, crt, false); /* 53 + ESC > 88 bits: slices */
    check_emulated(env, 5, 3, 140000, 60, crt, false); /* the same above ADP_MAX_TERMS */
    check_native(env, 200, true, crt);
    check_native(env, 512, false, automatic);
    check_auto(env, 8192, automatic, crt);
    check_wide_row(env, 5, crt);
    check_wide_row(env, 200, crt);
    const struct mpb_device_info *dev = mpb_cuda_device(env);
    if (dev->cc_major == 9 && dev->cc_minor == 0) {
        static const int64_t engine_shapes[][3] = {{1, 1, 1},       {7, 7, 7},     {33, 31, 129}, {127, 127, 127},
                                                   {1, 300, 77},    {300, 1, 200}, {129, 127, 65}, {300, 200, 1000},
                                                   {64, 64, 20000}, {3, 5, 131071}};
        crt[MPB_ADP_GEMM] = MPB_ADP_GEMM_ENGINE;
        for (size_t i = 0; i < sizeof engine_shapes / sizeof engine_shapes[0]; i++)
            check_emulated(env, engine_shapes[i][0], engine_shapes[i][1], engine_shapes[i][2], 8, crt, true);
        check_emulated(env, 256, 256, 256, 0, crt, true);
        check_emulated(env, 130, 70, 300, 60, crt, false); /* 53 + ESC > 88 bits: slices, through cuBLAS */
        fixed55[MPB_ADP_GEMM] = MPB_ADP_GEMM_ENGINE;
        check_emulated(env, 130, 70, 300, 60, fixed55, true);
        fixed55[MPB_ADP_FIXED_BITS] = 90; /* 2·90 + 9 bits: all 25 moduli, two launches */
        check_emulated(env, 130, 70, 300, 8, fixed55, true);
        check_native(env, 200, true, crt);
    }
    mpb_cuda_close(env);
    return check_report("test_adp_cuda");
}
