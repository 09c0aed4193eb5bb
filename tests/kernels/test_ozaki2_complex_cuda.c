/* GPU suite for the complex Ozaki scheme II (kernels/ozaki2/ozaki2_complex.cu)
 * through setup, mpb_cuda_time (timed calls and the instrumented call),
 * report and teardown: the output is bitwise the host model's, for both
 * targets (ozaki2_int8_z, ozaki2_int8_c), both forms (karatsuba,
 * conventional), both modes, gemm=calls and batched, on awkward shapes
 * (k = 0 and k = 1 included), k split into 2 and 3 chunks above the
 * INT32 limit (settings name the split), in output tiles smaller than the matrix
 * (mblock, nblock), in product tiles (n above 4096: the products and the
 * CRT pass column tile by column tile, settings naming product_cols; k = 0
 * too), and with a NaN imaginary
 * part in a row of A and an Inf real part in a column of B. Exits 77
 * without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define TEST_RNG_SEED 0x9E3779B97F4A7C15ull
#include "rng.h"
#include "cuda_env.h"
#include "ozaki2/ozaki2_complex.h"

/* count complex entries, both parts of both signs with exponents spread
 * over ±8 binades. */
static void *cmatrix(int64_t count, bool fp32)
{
    void *p = malloc((fp32 ? sizeof(float) : sizeof(double)) * (size_t)(2 * count) + 1);
    for (int64_t i = 0; i < 2 * count; i++) {
        double x = ldexp((double)(rng_next() >> 11) * 0x1p-52 - 1.0, (int)(rng_next() % 17) - 8);
        if (fp32)
            ((float *)p)[i] = (float)x;
        else
            ((double *)p)[i] = x;
    }
    return p;
}

static void set(void *p, bool fp32, int64_t i, double v)
{
    if (fp32)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = v;
}

struct variant {
    bool fp32, accurate, batched, special;
    int form;
    int64_t mblock, nblock;
};

static void check_case(struct mpb_cuda_env *env, int64_t m, int64_t n, int64_t k, const struct variant *v)
{
    size_t es = 2 * (v->fp32 ? sizeof(float) : sizeof(double));
    void *a = cmatrix(m * k, v->fp32), *b = cmatrix(k * n, v->fp32);
    if (v->special && m > 2 && n > 1 && k > 3) {
        set(a, v->fp32, 2 * (2 + 3 * m) + 1, NAN);
        set(b, v->fp32, 2 * (3 + 1 * k), INFINITY);
    }
    void *c = malloc(es * (size_t)(m * n) + 1), *h = malloc(es * (size_t)(m * n) + 1);
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(v->fp32 ? mpb_ozaki2_int8_c_params : mpb_ozaki2_int8_z_params, MPB_OZ2C_N_PARAMS, params);
    params[MPB_OZ2_MODE] = v->accurate ? MPB_OZ2_ACCURATE : MPB_OZ2_FAST;
    params[MPB_OZ2_GEMM] = v->batched ? MPB_OZ2_GEMM_BATCHED : MPB_OZ2_GEMM_CALLS;
    params[MPB_OZ2C_FORM] = v->form;
    params[MPB_OZ2_MBLOCK] = (double)v->mblock;
    params[MPB_OZ2_NBLOCK] = (double)v->nblock;
    enum mpb_target t = v->fp32 ? MPB_TARGET_FP32 : MPB_TARGET_FP64;
    void *da = NULL, *db = NULL, *dc = NULL, *state = NULL;
    bool ok = mpb_cuda_alloc(env, &da, es * (size_t)(m * k) + 16) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &db, es * (size_t)(k * n) + 16) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &dc, es * (size_t)(m * n) + 16) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, da, a, es * (size_t)(m * k)) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, db, b, es * (size_t)(k * n)) == MPB_STATUS_OK &&
              mpb_cuda_memset(env, dc, 0xFF, es * (size_t)(m * n)) == MPB_STATUS_OK;
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = da, .b = db, .c = dc, .field = MPB_FIELD_COMPLEX};
    struct mpb_scheme_info gi = {.slices = -1, .fallback = -1}, hi = {.slices = -1, .fallback = -1};
    double times[2], phase[MPB_PHASE_COUNT];
    const struct mpb_scheme_cuda *cu = &mpb_ozaki2_complex_cuda;
    ok = ok && cu->setup(env, &g, params, &state) == MPB_STATUS_OK;
    ok = ok && mpb_cuda_time(env, cu, state, &g, 1, 0, 2, times, phase, NULL) == MPB_STATUS_OK;
    ok = ok && cu->report(env, state, &gi) == MPB_STATUS_OK;
    ok = ok && mpb_cuda_download(env, c, dc, es * (size_t)(m * n)) == MPB_STATUS_OK;
    CHECK(ok, "%lldx%lldx%lld: %s", (long long)m, (long long)n, (long long)k, mpb_cuda_last_error(env));
    if (state)
        cu->teardown(env, state);
    mpb_cuda_free(env, da), mpb_cuda_free(env, db), mpb_cuda_free(env, dc);
    if (ok) {
        struct mpb_gemm hg = {.m = m, .n = n, .k = k, .target = t, .a = a, .b = b, .c = h, .field = MPB_FIELD_COMPLEX};
        CHECK(mpb_ozaki2_complex_host(&hg, params, &hi) == MPB_STATUS_OK, "host model: %s", hi.note);
        CHECK(memcmp(c, h, es * (size_t)(m * n)) == 0,
              "%lldx%lldx%lld %s %s %s %s%s mblock=%lld nblock=%lld: GPU output differs from the host model",
              (long long)m, (long long)n, (long long)k, v->fp32 ? "complex fp32" : "complex fp64",
              v->accurate ? "accurate" : "fast", v->form == MPB_OZ2C_KARATSUBA ? "karatsuba" : "conventional",
              v->batched ? "batched" : "calls", v->special ? " NaN/Inf" : "", (long long)v->mblock,
              (long long)v->nblock);
        CHECK(gi.slices == hi.slices, "%lldx%lldx%lld: GPU %d moduli, host model %d", (long long)m, (long long)n,
              (long long)k, gi.slices, hi.slices);
        CHECK((strstr(gi.settings, "kchunks=") != NULL) == (k > MPB_OZ2_MAX_K), "%lldx%lldx%lld: settings [%s]",
              (long long)m, (long long)n, (long long)k, gi.settings);
        CHECK(n <= 4096 || v->nblock || strstr(gi.settings, "product_cols=4096"),
              "%lldx%lldx%lld: settings [%s], want product_cols=4096", (long long)m, (long long)n, (long long)k,
              gi.settings);
        printf("%5lld %5lld %5lld %s%s  [%s]\n", (long long)m, (long long)n, (long long)k,
               v->fp32 ? "c" : "z", v->special ? " NaN/Inf" : "", gi.settings);
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
    static const int64_t shapes[][3] = {{65, 33, 1000}, {1, 1, 1}, {7, 33, 127}, {129, 300, 77},
                                        {33, 1, 7}, {3, 5, 0}, {300, 257, 129}, {2, 2, 131073},
                                        {17, 9, 262200}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int w = 0; w < 16; w++) {
            struct variant v = {.fp32 = w & 1, .accurate = (w >> 1) & 1, .batched = (w >> 2) & 1,
                                .special = i % 2 == 0, .form = (w >> 3) & 1};
            check_case(env, shapes[i][0], shapes[i][1], shapes[i][2], &v);
        }
    /* tiles smaller than the output, ragged at both ends */
    for (int w = 0; w < 4; w++) {
        struct variant v = {.fp32 = w & 1, .batched = (w >> 1) & 1, .form = w & 1, .mblock = 32, .nblock = 20};
        check_case(env, 65, 47, 200, &v);
    }
    /* product tiles: 4096 + 4096 + 9 columns (nblock auto), and k split */
    for (int w = 0; w < 8; w++) {
        struct variant v = {.fp32 = w & 1, .accurate = (w >> 1) & 1, .form = (w >> 2) & 1, .special = w == 0};
        check_case(env, 5, 8201, w < 4 ? 33 : 0, &v);
    }
    mpb_cuda_close(env);
    return check_report("test_ozaki2_complex_cuda");
}
