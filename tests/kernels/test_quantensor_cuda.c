/* GPU suite for quantensor_int8 (kernels/quantensor/quantensor.cu) through
 * setup, mpb_cuda_time (timed calls and the instrumented call), report and
 * teardown: at every level the output is bitwise the host model's, and so
 * are settings and note (the loss counts and the NaN/Inf rows/columns),
 * with NaN, ±Inf and subnormal inputs, at k below the INT32 limit and split
 * into 2 and 3 chunks. On an sm_90a GPU also gemm=engine (the engine's INT8
 * GEMM, INT32 C) on awkward shapes, k split included: bitwise the host
 * model and gemm=calls; settings name the launches. Exits 77 without a
 * device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_open.h"
#include "cuda_scheme_run.h"
#define TEST_RNG_SEED 0x5851F42D4C957F2Dull
#include "rng.h"
#include "quantensor/quantensor.h"
#include "tc/tc_i8.h"

/* Entries of both signs over ±20 binades, a few subnormal; with `specials`
 * a NaN, a +Inf and a −Inf. */
static float *matrix(int64_t count, bool specials)
{
    float *p = malloc(sizeof *p * (size_t)count);
    for (int64_t i = 0; i < count; i++)
        p[i] = ldexpf((float)((double)(rng_next() >> 11) * 0x1p-52 - 1.0), (int)(rng_next() % 41) - 20);
    p[count / 3] = 0x1p-140f;
    if (specials && count > 2) {
        p[0] = NAN;
        p[count / 2] = INFINITY;
        p[count - 1] = -INFINITY;
    }
    return p;
}

static const char *const gemm_names[] = {"calls", "engine"};

/* Launches of the engine for this level and k: every product of every k
 * chunk, TC_I8_MAX_GEMMS a launch. */
static int engine_launches(int level, int64_t k)
{
    struct mpb_qt_pair pairs[MPB_QT_MAX_PAIRS];
    int64_t chunks, len;
    mpb_qt_chunking(k, &chunks, &len);
    return (int)((mpb_qt_pairs(level, pairs) * chunks + TC_I8_MAX_GEMMS - 1) / TC_I8_MAX_GEMMS);
}

/* With gemm=engine the GPU runs twice, gemm=calls then engine: both
 * outputs bitwise the host model's (so bitwise each other's). */
static void check_case(struct mpb_cuda_env *env, int level, int64_t m, int64_t n, int64_t k, bool specials,
                       enum mpb_qt_gemm gemm)
{
    const size_t bytes_c = sizeof(float) * (size_t)(m * n);
    float *a = matrix(m * k, specials), *b = matrix(k * n, specials);
    float *c = malloc(bytes_c), *h = malloc(bytes_c);
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(mpb_quantensor_params, MPB_QT_N_PARAMS, params);
    params[MPB_QT_LEVELS] = level;
    struct mpb_scheme_info hi = {.slices = -1, .fallback = -1};
    struct mpb_gemm hg = {.m = m, .n = n, .k = k, .target = MPB_TARGET_FP32, .a = a, .b = b, .c = h};
    CHECK(mpb_quantensor_host(&hg, params, &hi) == MPB_STATUS_OK, "host model: %s", hi.note);
    for (int v = MPB_QT_GEMM_CALLS; v <= (int)gemm; v++) {
        params[MPB_QT_GEMM] = v;
        struct mpb_scheme_info gi = {.slices = -1, .fallback = -1};
        double phase[MPB_PHASE_COUNT];
        const bool ok = test_cuda_run(env, &mpb_quantensor_cuda, params, MPB_TARGET_FP32, m, n, k, a, b, c, &gi, phase);
        CHECK(ok, "level %d gemm=%s %lldx%lldx%lld: %s", level, gemm_names[v], (long long)m, (long long)n,
              (long long)k, mpb_cuda_last_error(env));
        if (!ok)
            continue;
        CHECK(memcmp(c, h, bytes_c) == 0, "level %d gemm=%s %lldx%lldx%lld%s: GPU output differs from the host model",
              level, gemm_names[v], (long long)m, (long long)n, (long long)k, specials ? " specials" : "");
        char want[sizeof hi.settings + 64];
        if (v == MPB_QT_GEMM_ENGINE)
            snprintf(want, sizeof want, "%s gemm=engine launches=%d", hi.settings, engine_launches(level, k));
        else
            snprintf(want, sizeof want, "%s", hi.settings);
        CHECK(!strcmp(gi.settings, want) && !strcmp(gi.note, hi.note),
              "level %d gemm=%s %lldx%lldx%lld: GPU [%s] [%s], want [%s] [%s]", level, gemm_names[v], (long long)m,
              (long long)n, (long long)k, gi.settings, gi.note, want, hi.note);
        CHECK(!isnan(phase[MPB_PHASE_SPLIT]) && !isnan(phase[MPB_PHASE_GEMM]) && !isnan(phase[MPB_PHASE_ACCUM]),
              "level %d: phases not all marked", level);
        printf("level %d %-6s %5lld %5lld %7lld %s [%s] [%s]\n", level, gemm_names[v], (long long)m, (long long)n,
               (long long)k, specials ? "specials" : "        ", gi.settings, gi.note);
    }
    free(a), free(b), free(c), free(h);
}

int main(void)
{
    struct mpb_cuda_env *env = test_cuda_open_or_skip();
    static const int64_t shapes[][3] = {{65, 33, 1000}, {257, 129, 4099}, {2, 2, 131073}, {33, 17, 262200}};
    for (int level = 0; level <= MPB_QT_MAX_LEVEL; level++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int sp = 0; sp < 2; sp++)
                check_case(env, level, shapes[i][0], shapes[i][1], shapes[i][2], sp, MPB_QT_GEMM_CALLS);
    /* gemm=engine (sm_90a): edges of the 128×256 tiles and of the 128-byte k
     * blocks, m not a multiple of 4 (padded INT32 planes), k in 2 chunks (18
     * products at level 3: one launch) and in 3 (27: two launches). */
    static const int64_t engine_shapes[][3] = {{1, 1, 1},      {7, 7, 7},        {33, 33, 33},    {127, 127, 127},
                                               {1, 300, 77},   {300, 1, 200},    {129, 257, 1000}, {257, 130, 4099},
                                               {7, 5, 131071}, {2, 3, 131073},   {33, 17, 262200}};
    const struct mpb_device_info *dev = mpb_cuda_device(env);
    for (size_t i = 0; dev->cc_major == 9 && dev->cc_minor == 0 && i < sizeof engine_shapes / sizeof *engine_shapes;
         i++)
        for (int level = 0; level <= MPB_QT_MAX_LEVEL; level++)
            check_case(env, level, engine_shapes[i][0], engine_shapes[i][1], engine_shapes[i][2], level % 2 == 1,
                       MPB_QT_GEMM_ENGINE);
    mpb_cuda_close(env);
    return check_report("test_quantensor_cuda");
}
