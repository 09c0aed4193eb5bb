/* GPU suite for ozaki1_int8 (kernels/ozaki1/ozaki1.cu) through setup,
 * mpb_cuda_time (timed calls and the instrumented call), report and
 * teardown: with gemm=calls and, on an sm_90a GPU, gemm=engine (the
 * engine's INT8 GEMM on the same concatenated calls, INT32 C), the output is
 * bitwise the host model's (so each other's) on awkward shapes (1, 7, 33,
 * 127, non-square, k not a multiple of 128), with accum=exact and fp64,
 * fast=1 and 0, 3 to 20 slices (up to 210 pairs in 20 concatenated products), a NaN
 * row of A and an Inf column of B, and at k = 270000, where the pairs of
 * the leading digits are blocked along k (calls of three lengths); the
 * engine's settings name its launches. Exits 77 without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_open.h"
#include "cuda_scheme_run.h"
#define TEST_RNG_SEED 0x13198A2E03707344ull
#include "rng.h"
#include "ozaki1/ozaki1.h"

static const char *const gemm_names[] = {"calls", "engine"};

/* Entries of both signs over ±8 binades; with `specials` row 0 of A NaN
 * (a = m×k) or column 1 of B +Inf (b = k×n), set by the caller. */
static double *matrix(int64_t count)
{
    double *p = malloc(sizeof *p * (size_t)count + 1);
    for (int64_t i = 0; i < count; i++)
        p[i] = ldexp((double)(rng_next() >> 11) * 0x1p-52 - 1.0, (int)(rng_next() % 17) - 8);
    return p;
}

struct variant {
    int slices, fast, accum;
};

static void check_case(struct mpb_cuda_env *env, int64_t m, int64_t n, int64_t k, struct variant v, bool specials,
                       bool engine)
{
    const size_t bytes_c = sizeof(double) * (size_t)(m * n);
    double *a = matrix(m * k), *b = matrix(k * n);
    if (specials && m > 0 && n > 1 && k > 0)
        a[0] = NAN, b[k] = INFINITY;
    double *c = malloc(bytes_c + 1), *h = malloc(bytes_c + 1);
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(mpb_ozaki1_int8_params, MPB_OZ8_N_PARAMS, params);
    params[MPB_OZ8_SLICES] = v.slices;
    params[MPB_OZ8_FAST] = v.fast;
    params[MPB_OZ8_ACCUM] = v.accum;
    double *h0 = malloc(bytes_c + 1);
    for (int gemm = MPB_OZ8_GEMM_CALLS; gemm <= (engine ? MPB_OZ8_GEMM_ENGINE : MPB_OZ8_GEMM_CALLS); gemm++) {
        params[MPB_OZ8_GEMM] = gemm;
        /* the host model plans as the GPU does, and both give the same bits */
        struct mpb_scheme_info hi = {.slices = -1, .fallback = -1};
        struct mpb_gemm hg = {.m = m, .n = n, .k = k, .target = MPB_TARGET_FP64, .a = a, .b = b, .c = h};
        CHECK(mpb_ozaki1_int8_host(&hg, params, &hi) == MPB_STATUS_OK, "host model: %s", hi.note);
        if (gemm == MPB_OZ8_GEMM_CALLS)
            memcpy(h0, h, bytes_c);
        CHECK(memcmp(h0, h, bytes_c) == 0, "%lldx%lldx%lld: the host model's gemm=engine plan changes the bits",
              (long long)m, (long long)n, (long long)k);
        struct mpb_scheme_info gi = {.slices = -1, .fallback = -1};
        double phase[MPB_PHASE_COUNT];
        const bool ok = test_cuda_run(env, &mpb_ozaki1_int8_cuda, params, MPB_TARGET_FP64, m, n, k, a, b, c, &gi, phase);
        CHECK(ok, "gemm=%s %lldx%lldx%lld slices=%d: %s", gemm_names[gemm], (long long)m, (long long)n, (long long)k,
              v.slices, mpb_cuda_last_error(env));
        if (!ok)
            continue;
        CHECK(memcmp(c, h, bytes_c) == 0,
              "gemm=%s %lldx%lldx%lld slices=%d fast=%d accum=%s%s: GPU output differs from the host model",
              gemm_names[gemm], (long long)m, (long long)n, (long long)k, v.slices, v.fast,
              v.accum == MPB_OZ8_ACC_EXACT ? "exact" : "fp64", specials ? " specials" : "");
        /* the host model plans the same calls: settings agree up to the
         * GPU's memory chunks and the engine's launches */
        CHECK(!strncmp(gi.settings, hi.settings, strlen(hi.settings)) &&
                  (gemm == MPB_OZ8_GEMM_CALLS) == (strstr(gi.settings, "gemm=engine launches=") == NULL),
              "gemm=%s %lldx%lldx%lld: GPU [%s], host [%s]", gemm_names[gemm], (long long)m, (long long)n,
              (long long)k, gi.settings, hi.settings);
        CHECK(!isnan(phase[MPB_PHASE_SPLIT]) && !isnan(phase[MPB_PHASE_GEMM]) && !isnan(phase[MPB_PHASE_ACCUM]),
              "gemm=%s: phases not all marked", gemm_names[gemm]);
        printf("%-6s %4lld %4lld %6lld %s [%s]\n", gemm_names[gemm], (long long)m, (long long)n, (long long)k,
               specials ? "specials" : "        ", gi.settings);
    }
    free(a), free(b), free(c), free(h), free(h0);
}

int main(void)
{
    struct mpb_cuda_env *env = test_cuda_open_or_skip();
    const struct mpb_device_info *dev = mpb_cuda_device(env);
    const bool engine = dev->cc_major == 9 && dev->cc_minor == 0;
    static const struct variant variants[] = {
        {8, 1, MPB_OZ8_ACC_EXACT}, /* the defaults: 36 pairs in 8 concatenated products */
        {8, 0, MPB_OZ8_ACC_EXACT}, /* 64 pairs: 15 */
        {3, 1, MPB_OZ8_ACC_FP64},
        {20, 1, MPB_OZ8_ACC_EXACT}, /* 210 pairs: 20 */
    };
    static const int64_t small[][3] = {{1, 1, 1}, {7, 7, 7}, {33, 33, 33}, {1, 40, 77}, {40, 1, 200}};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
            check_case(env, small[i][0], small[i][1], small[i][2], variants[v], v == 1, engine);
    static const int64_t larger[][3] = {{127, 127, 127}, {129, 257, 1000}, {65, 33, 4099}};
    for (size_t i = 0; i < sizeof larger / sizeof larger[0]; i++)
        for (size_t v = 0; v < 3; v++)
            check_case(env, larger[i][0], larger[i][1], larger[i][2], variants[v], v == 2, engine);
    /* k = 270000: pairs (1, 1) in blocks of 133136 and (1, 2), (2, 1) of
     * 264208 (their INT32 sums would overflow), the rest over all of k */
    check_case(env, 2, 3, 270000, (struct variant){3, 1, MPB_OZ8_ACC_EXACT}, false, engine);
    check_case(env, 5, 2, 270000, (struct variant){3, 0, MPB_OZ8_ACC_FP64}, true, engine);
    mpb_cuda_close(env);
    return check_report("test_ozaki1_cuda");
}
