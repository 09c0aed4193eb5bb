/* GPU suite for quantensor_int8 (kernels/quantensor/quantensor.cu) through
 * setup, mpb_cuda_time (timed calls and the instrumented call), report and
 * teardown: at every level the output is bitwise the host model's, and so
 * are settings and note (the loss counts and the NaN/Inf rows/columns),
 * with NaN, ±Inf and subnormal inputs, at k below the INT32 limit and split
 * into 2 and 3 chunks. Exits 77 without a device. */
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

static void check_case(struct mpb_cuda_env *env, int level, int64_t m, int64_t n, int64_t k, bool specials)
{
    const size_t bytes_c = sizeof(float) * (size_t)(m * n);
    float *a = matrix(m * k, specials), *b = matrix(k * n, specials);
    float *c = malloc(bytes_c), *h = malloc(bytes_c);
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(mpb_quantensor_params, MPB_QT_N_PARAMS, params);
    params[MPB_QT_LEVELS] = level;
    struct mpb_scheme_info gi = {.slices = -1, .fallback = -1}, hi = {.slices = -1, .fallback = -1};
    double phase[MPB_PHASE_COUNT];
    const bool ok = test_cuda_run(env, &mpb_quantensor_cuda, params, MPB_TARGET_FP32, m, n, k, a, b, c, &gi, phase);
    CHECK(ok, "level %d %lldx%lldx%lld: %s", level, (long long)m, (long long)n, (long long)k, mpb_cuda_last_error(env));
    if (ok) {
        struct mpb_gemm hg = {.m = m, .n = n, .k = k, .target = MPB_TARGET_FP32, .a = a, .b = b, .c = h};
        CHECK(mpb_quantensor_host(&hg, params, &hi) == MPB_STATUS_OK, "host model: %s", hi.note);
        CHECK(memcmp(c, h, bytes_c) == 0, "level %d %lldx%lldx%lld%s: GPU output differs from the host model",
              level, (long long)m, (long long)n, (long long)k, specials ? " specials" : "");
        CHECK(!strcmp(gi.settings, hi.settings) && !strcmp(gi.note, hi.note),
              "level %d %lldx%lldx%lld: GPU [%s] [%s], host [%s] [%s]", level, (long long)m, (long long)n,
              (long long)k, gi.settings, gi.note, hi.settings, hi.note);
        CHECK(!isnan(phase[MPB_PHASE_SPLIT]) && !isnan(phase[MPB_PHASE_GEMM]) && !isnan(phase[MPB_PHASE_ACCUM]),
              "level %d: phases not all marked", level);
        printf("level %d %5lld %5lld %7lld %s [%s] [%s]\n", level, (long long)m, (long long)n, (long long)k,
               specials ? "specials" : "        ", gi.settings, gi.note);
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
                check_case(env, level, shapes[i][0], shapes[i][1], shapes[i][2], sp);
    mpb_cuda_close(env);
    return check_report("test_quantensor_cuda");
}
