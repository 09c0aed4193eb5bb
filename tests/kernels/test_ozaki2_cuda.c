/* GPU suite for Ozaki scheme II (kernels/ozaki2/ozaki2.cu) with k split
 * into INT32-exact chunks, through setup, mpb_cuda_time (timed calls and
 * the instrumented call), report and teardown: the output is bitwise the
 * host model's (both fold the chunk sums modulo 2·m_t, which gives the bits
 * of one exact sum), in fast and accurate mode, fp64 and fp32 targets, one
 * cuBLAS call per modulus or one batched call, at k just above 131071, at
 * 2 and 3 chunks, and at one k below the limit for comparison; settings
 * name the split. On an sm_90 GPU also gemm=engine (the engine's INT8 GEMM
 * with residues stored as bytes) on awkward shapes up to k = 131040, in the
 * same modes and targets: bitwise the host model, so bitwise gemm=calls.
 * moduli=auto (its statistics kernels, the download and the host's choice;
 * unverified on a GPU when written) on the same paths, with a NaN row of A
 * and an Inf column of B on some, and with tol= (unverified on a GPU when
 * written): the same count, note and bits as the host model. Exits 77
 * without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define TEST_RNG_SEED 0xDA942042E4DD58B5ull
#include "rng.h"
#include "cuda_env.h"
#include "ozaki2/ozaki2.h"

/* Entries of both signs with exponents spread over ±8 binades. */
static void *matrix(int64_t count, bool fp32)
{
    void *p = malloc((fp32 ? sizeof(float) : sizeof(double)) * (size_t)count);
    for (int64_t i = 0; i < count; i++) {
        double x = ldexp((double)(rng_next() >> 11) * 0x1p-52 - 1.0, (int)(rng_next() % 17) - 8);
        if (fp32)
            ((float *)p)[i] = (float)x;
        else
            ((double *)p)[i] = x;
    }
    return p;
}

static const char *const gemm_names[] = {"calls", "batched", "engine"};

/* moduli=auto: 0 no, 1 yes, 2 yes with row 0 of A NaN and column 1 of B +Inf,
 * 3 yes with tol=1e-8 (fp64) or 1e-4 (fp32). */
static void check_case(struct mpb_cuda_env *env, int64_t m, int64_t n, int64_t k, bool fp32,
                       bool accurate, enum mpb_oz2_gemm gemm, int autom)
{
    size_t es = fp32 ? sizeof(float) : sizeof(double);
    void *a = matrix(m * k, fp32), *b = matrix(k * n, fp32);
    if (autom == 2 && m > 0 && n > 1 && k > 0) {
        if (fp32)
            ((float *)a)[0] = NAN, ((float *)b)[k] = INFINITY;
        else
            ((double *)a)[0] = NAN, ((double *)b)[k] = INFINITY;
    }
    void *c = malloc(es * (size_t)(m * n)), *h = malloc(es * (size_t)(m * n));
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(fp32 ? mpb_ozaki2_int8_sp_params : mpb_ozaki2_int8_params, MPB_OZ2_N_PARAMS, params);
    params[MPB_OZ2_MODE] = accurate ? MPB_OZ2_ACCURATE : MPB_OZ2_FAST;
    params[MPB_OZ2_GEMM] = gemm;
    if (autom)
        params[MPB_OZ2_MODULI] = NAN;
    if (autom == 3)
        params[MPB_OZ2_TOL] = fp32 ? 1e-4 : 1e-8;
    enum mpb_target t = fp32 ? MPB_TARGET_FP32 : MPB_TARGET_FP64;
    void *da = NULL, *db = NULL, *dc = NULL, *state = NULL;
    bool ok = mpb_cuda_alloc(env, &da, es * (size_t)(m * k)) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &db, es * (size_t)(k * n)) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &dc, es * (size_t)(m * n)) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, da, a, es * (size_t)(m * k)) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, db, b, es * (size_t)(k * n)) == MPB_STATUS_OK &&
              mpb_cuda_memset(env, dc, 0xFF, es * (size_t)(m * n)) == MPB_STATUS_OK;
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = da, .b = db, .c = dc};
    struct mpb_scheme_info gi = {.slices = -1, .fallback = -1}, hi = {.slices = -1, .fallback = -1};
    double times[2], phase[MPB_PHASE_COUNT];
    ok = ok && mpb_ozaki2_cuda.setup(env, &g, params, &state) == MPB_STATUS_OK;
    ok = ok && mpb_cuda_time(env, &mpb_ozaki2_cuda, state, &g, 1, 0, 2, times, phase, NULL) == MPB_STATUS_OK;
    ok = ok && mpb_ozaki2_cuda.report(env, state, &gi) == MPB_STATUS_OK;
    ok = ok && mpb_cuda_download(env, c, dc, es * (size_t)(m * n)) == MPB_STATUS_OK;
    CHECK(ok, "%lldx%lldx%lld: %s", (long long)m, (long long)n, (long long)k, mpb_cuda_last_error(env));
    if (state)
        mpb_ozaki2_cuda.teardown(env, state);
    mpb_cuda_free(env, da), mpb_cuda_free(env, db), mpb_cuda_free(env, dc);
    if (ok) {
        struct mpb_gemm hg = {.m = m, .n = n, .k = k, .target = t, .a = a, .b = b, .c = h};
        CHECK(mpb_ozaki2_host(&hg, params, &hi) == MPB_STATUS_OK, "host model: %s", hi.note);
        bool split = k > MPB_OZ2_MAX_K;
        CHECK((strstr(gi.settings, "kchunks=") != NULL) == split, "%lldx%lldx%lld: settings [%s]",
              (long long)m, (long long)n, (long long)k, gi.settings);
        CHECK(memcmp(c, h, es * (size_t)(m * n)) == 0,
              "%lldx%lldx%lld %s %s %s%s: GPU output differs from the host model", (long long)m, (long long)n,
              (long long)k, fp32 ? "fp32" : "fp64", accurate ? "accurate" : "fast", gemm_names[gemm],
              autom ? " moduli=auto" : "");
        CHECK(gi.slices == hi.slices && strcmp(gi.note, hi.note) == 0 && (autom != 3 || strstr(gi.note, " tol ")),
              "%lldx%lldx%lld: GPU %d moduli [%s], host model %d [%s]", (long long)m, (long long)n, (long long)k,
              gi.slices, gi.note, hi.slices, hi.note);
        printf("%5lld %5lld %7lld %s %-8s %-7s  [%s] %s\n", (long long)m, (long long)n, (long long)k,
               fp32 ? "fp32" : "fp64", accurate ? "accurate" : "fast", gemm_names[gemm], gi.settings, gi.note);
    }
    free(a), free(b), free(c), free(h);
}

int main(void)
{
    char why[256];
    struct mpb_cuda_env *env = mpb_cuda_open(0, why, sizeof why);
    if (!env) {
        printf("skipped: %s\n", why);
        return 77;
    }
    static const int64_t shapes[][3] = {{65, 33, 1000}, {3, 5, 131072}, {2, 2, 131073},
                                        {33, 17, 262200}, {16, 8, 300000}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int v = 0; v < 4; v++)
            check_case(env, shapes[i][0], shapes[i][1], shapes[i][2], v == 3, v == 1,
                       v == 2 ? MPB_OZ2_GEMM_BATCHED : MPB_OZ2_GEMM_CALLS, 0);
    static const int64_t auto_shapes[][3] = {{65, 33, 1000}, {0, 4, 9}, {300, 257, 129}, {33, 17, 262200}};
    for (size_t i = 0; i < sizeof auto_shapes / sizeof auto_shapes[0]; i++)
        for (int v = 0; v < 4; v++)
            check_case(env, auto_shapes[i][0], auto_shapes[i][1], auto_shapes[i][2], v >= 2, v % 2 == 1,
                       MPB_OZ2_GEMM_CALLS, 1 + v % 2);
    for (int v = 0; v < 2; v++)
        check_case(env, 65, 33, 1000, v == 1, false, MPB_OZ2_GEMM_CALLS, 3);
    const struct mpb_device_info *dev = mpb_cuda_device(env);
    static const int64_t engine_shapes[][3] = {{65, 33, 1000}, {1, 1, 1},        {129, 300, 77},
                                               {300, 257, 2048}, {400, 333, 600},  {7, 5, 131040}};
    for (size_t i = 0; dev->cc_major == 9 && dev->cc_minor == 0 && i < sizeof engine_shapes / sizeof *engine_shapes;
         i++)
        for (int v = 0; v < 5; v++)
            check_case(env, engine_shapes[i][0], engine_shapes[i][1], engine_shapes[i][2], v % 3 == 2, v % 3 == 1,
                       MPB_OZ2_GEMM_ENGINE, v / 3 + (v == 4));
    mpb_cuda_close(env);
    return check_report("test_ozaki2_cuda");
}
