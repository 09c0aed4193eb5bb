/* GPU suite for mixpert (kernels/mixpert/mixpert.cu) through setup,
 * mpb_cuda_time, report and teardown, against the host model bit for bit:
 * C, the fallback flag, the note (unsafe, fallen-back and underflowed
 * groups, NaN/Inf rows and columns) and the recipe in settings, for every
 * configuration with fallback=on and align=row/tile, and a fallback=off
 * check of the default, on awkward shapes (k not a multiple of the group),
 * on data whose groups are all safe (the BF16x3 launch skipped), data over
 * many binades (most groups fall back) and data with NaN/Inf. Exits 77
 * without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_open.h"
#include "cuda_scheme_run.h"
#define TEST_RNG_SEED 0x9E3779B97F4A7C15ull
#include "rng.h"
#include "mixpert/mixpert.h"

enum data { SAFE, WIDE, SPECIAL };
static const char *const data_names[] = {"safe", "wide", "special"};

/* SAFE: values in ±[1, 2); WIDE: over ±2^±12, a subnormal; SPECIAL: WIDE
 * with a NaN, +Inf and -Inf. */
static float *matrix(int64_t count, enum data d)
{
    float *p = malloc(sizeof *p * (size_t)count);
    for (int64_t i = 0; i < count; i++) {
        const float u = (float)((double)(rng_next() >> 11) * 0x1p-53);
        const float sign = rng_next() & 1 ? -1.0f : 1.0f;
        p[i] = d == SAFE ? sign * (1.0f + u) : sign * ldexpf(1.0f + u, (int)(rng_next() % 25) - 12);
    }
    if (d != SAFE)
        p[count / 3] = 0x1p-140f;
    if (d == SPECIAL && count > 2) {
        p[0] = NAN;
        p[count / 2] = INFINITY;
        p[count - 1] = -INFINITY;
    }
    return p;
}

static void check_case(struct mpb_cuda_env *env, const double *params, int64_t m, int64_t n, int64_t k, enum data d)
{
    const size_t bytes_c = sizeof(float) * (size_t)(m * n);
    float *a = matrix(m * k, d), *b = matrix(k * n, d);
    float *c = malloc(bytes_c), *h = malloc(bytes_c);
    struct mpb_scheme_info gi = {.slices = -1, .fallback = -1}, hi = {.slices = -1, .fallback = -1};
    double phase[MPB_PHASE_COUNT];
    char recipe[160];
    struct mp_recipe r;
    mp_recipe_of(params, &r);
    mp_describe(&r, recipe, sizeof recipe);
    const bool ok = test_cuda_run(env, &mpb_mixpert_cuda, params, MPB_TARGET_FP32, m, n, k, a, b, c, &gi, phase);
    CHECK(ok, "%s %lldx%lldx%lld: %s", recipe, (long long)m, (long long)n, (long long)k, mpb_cuda_last_error(env));
    if (ok) {
        struct mpb_gemm hg = {.m = m, .n = n, .k = k, .target = MPB_TARGET_FP32, .a = a, .b = b, .c = h};
        CHECK(mpb_mixpert_host(&hg, params, &hi) == MPB_STATUS_OK, "host model: %s", hi.note);
        CHECK(memcmp(c, h, bytes_c) == 0, "%s %lldx%lldx%lld %s: GPU output differs from the host model", recipe,
              (long long)m, (long long)n, (long long)k, data_names[d]);
        CHECK(gi.fallback == hi.fallback && !strcmp(gi.note, hi.note) &&
                  !strncmp(gi.settings, hi.settings, strlen(hi.settings)),
              "%s %lldx%lldx%lld: GPU fallback %d [%s] [%s], host %d [%s] [%s]", recipe, (long long)m, (long long)n,
              (long long)k, gi.fallback, gi.settings, gi.note, hi.fallback, hi.settings, hi.note);
        /* wide data leaves the safe range wherever a group holds two values */
        const bool unsafe = strstr(hi.note, "beyond the safe range") != NULL;
        CHECK(unsafe == (d != SAFE && k > 1), "%s %s: note [%s]", recipe, data_names[d], hi.note);
        CHECK(gi.fallback == (r.fallback && unsafe), "%s %s: fallback = %d", recipe, data_names[d], gi.fallback);
        CHECK(!isnan(phase[MPB_PHASE_SPLIT]) && !isnan(phase[MPB_PHASE_GEMM]), "%s: phases not marked", recipe);
        printf("%-60s %5lld %5lld %6lld %-7s fallback=%d [%s]\n", recipe, (long long)m, (long long)n, (long long)k,
               data_names[d], gi.fallback, gi.note);
    }
    free(a), free(b), free(c), free(h);
}

int main(void)
{
    struct mpb_cuda_env *env = test_cuda_open_or_skip();
    static const int64_t shapes[][3] = {{1, 1, 1}, {7, 33, 127}, {127, 7, 33}, {65, 33, 1000}, {96, 65, 1030}};
    /* config (index), kgroup, fallback */
    static const int variants[][3] = {{0, 64, 1}, {0, 128, 1}, {1, 64, 1}, {1, 128, 1}, {2, 64, 1}, {2, 128, 0},
                                      {3, 64, 1}, {3, 32, 1}, {3, 64, 0}, {3, 128, 1}, {3, 128, 0}};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
        for (int align = 0; align < 2; align++)
            for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
                for (int d = SAFE; d <= SPECIAL; d++) {
                    double params[MPB_MIXPERT_N_PARAMS];
                    mpb_param_defaults(mpb_mixpert_params, MPB_MIXPERT_N_PARAMS, params);
                    params[MP_PARAM_CONFIG] = variants[v][0];
                    params[MP_PARAM_KGROUP] = variants[v][1];
                    params[MP_PARAM_FALLBACK] = variants[v][2];
                    params[MP_PARAM_ALIGN] = align;
                    check_case(env, params, shapes[sh][0], shapes[sh][1], shapes[sh][2], (enum data)d);
                }
    mpb_cuda_close(env);
    return check_report("test_mixpert_cuda");
}
