/* GPU suite: the CUDA environment and the cuBLAS-backed schemes on a device.
 *  - every native scheme and cuBLAS's FP64 emulation against the host models
 *    within twice the bound, through mpb_cuda_time (times, phase marks);
 *  - the emulation's settings read back and its retained bits / fallback;
 *  - error capture: an int-overflowing shape, an out-of-memory (not sticky,
 *    the env stays usable), then an illegal address (sticky, its message
 *    kept), last because it kills the context.
 * Exits 77 without a device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "elem.h"
#include "cublas_emu/cublas_emu.h"
#include "cuda_env.h"
#include "native/native.h"

typedef enum mpb_status (*host_fn)(const struct mpb_gemm *, const double *,
                                   struct mpb_scheme_info *);

static uint64_t rng_state = 0x2545F4914F6CDD1Du;

static double rng_uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1Du) >> 11) * 0x1p-52 - 1.0;
}

static void *random_matrix(enum mpb_target t, int64_t count)
{
    void *p = malloc((size_t)count * mpb_target_size(t));
    for (int64_t i = 0; i < count; i++) {
        double v = rng_uniform();
        if (t == MPB_TARGET_FP64)
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
    return p;
}

/* max over entries of |x − y| / (|A||B|)_ij */
static double worst_ratio(enum mpb_target t, int64_t m, int64_t n, int64_t k, const void *a,
                          const void *b, const void *x, const void *y)
{
    double worst = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double absab = 0;
            for (int64_t l = 0; l < k; l++)
                absab += fabs(elem_get(a, t, i + l * m) * elem_get(b, t, l + j * k));
            double d = fabs(elem_get(x, t, i + j * m) - elem_get(y, t, i + j * m));
            double r = isnan(d) ? INFINITY : d / absab;
            if (r > worst)
                worst = r;
        }
    return worst;
}

struct gpu_case {
    const char *name;
    const struct mpb_scheme_cuda *ops;
    enum mpb_target target;
    const double *params;
    host_fn host; /* model compared against */
    double (*bound)(const double *, int64_t);
};

/* One case through setup, mpb_cuda_time, report and teardown. */
static void run_case(struct mpb_cuda_env *env, const struct gpu_case *gc, int64_t m, int64_t n,
                     int64_t k, struct mpb_scheme_info *info)
{
    enum mpb_target t = gc->target;
    size_t es = mpb_target_size(t);
    void *a = random_matrix(t, m * k), *b = random_matrix(t, k * n);
    void *c = malloc((size_t)(m * n) * es), *h = malloc((size_t)(m * n) * es);
    void *da = NULL, *db = NULL, *dc = NULL, *state = NULL;
    CHECK(mpb_cuda_alloc(env, &da, (size_t)(m * k) * es) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &db, (size_t)(k * n) * es) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &dc, (size_t)(m * n) * es) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, da, a, (size_t)(m * k) * es) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, db, b, (size_t)(k * n) * es) == MPB_STATUS_OK &&
              mpb_cuda_memset(env, dc, 0xFF, (size_t)(m * n) * es) == MPB_STATUS_OK,
          "%s: buffers: %s", gc->name, mpb_cuda_last_error(env));
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = da, .b = db, .c = dc};
    *info = (struct mpb_scheme_info){.slices = -1, .fallback = -1};
    double times[3], phase[MPB_PHASE_COUNT];
    if (gc->ops->setup(env, &g, gc->params, &state) != MPB_STATUS_OK) {
        CHECK(0, "%s: setup: %s", gc->name, mpb_cuda_last_error(env));
        goto out;
    }
    CHECK(mpb_cuda_time(env, gc->ops, state, &g, 1, 0, 3, times, phase) == MPB_STATUS_OK,
          "%s: timing: %s", gc->name, mpb_cuda_last_error(env));
    CHECK(gc->ops->report(env, state, info) == MPB_STATUS_OK, "%s: report: %s", gc->name,
          mpb_cuda_last_error(env));
    CHECK(mpb_cuda_download(env, c, dc, (size_t)(m * n) * es) == MPB_STATUS_OK, "%s: download: %s",
          gc->name, mpb_cuda_last_error(env));
    gc->ops->teardown(env, state);
    for (int r = 0; r < 3; r++)
        CHECK(times[r] > 0 && isfinite(times[r]), "%s: time %g", gc->name, times[r]);
    CHECK(phase[MPB_PHASE_GEMM] > 0 && isnan(phase[MPB_PHASE_SPLIT]) &&
              isnan(phase[MPB_PHASE_ACCUM]),
          "%s: phases %g %g %g", gc->name, phase[0], phase[1], phase[2]);
    struct mpb_gemm hg = {.m = m, .n = n, .k = k, .target = t, .a = a, .b = b, .c = h};
    struct mpb_scheme_info hinfo = {.slices = -1, .fallback = -1};
    CHECK(gc->host(&hg, NULL, &hinfo) == MPB_STATUS_OK, "%s: host model", gc->name);
    double f = gc->bound(gc->params, k), worst = worst_ratio(t, m, n, k, a, b, c, h);
    CHECK(worst <= 2 * f, "%s %lldx%lldx%lld: |gpu − host| reaches %g·|A||B| > 2·%g", gc->name,
          (long long)m, (long long)n, (long long)k, worst, f);
    printf("%-28s %5lld %5lld %5lld  %8.3f ms  err/bound %.3g  slices %d fallback %d  [%s] %s\n",
           gc->name, (long long)m, (long long)n, (long long)k, times[1], worst / f, info->slices,
           info->fallback, info->settings, info->note);
out:
    mpb_cuda_free(env, da);
    mpb_cuda_free(env, db);
    mpb_cuda_free(env, dc);
    free(a), free(b), free(c), free(h);
}

static void check_schemes(struct mpb_cuda_env *env)
{
    static const double emu_default[] = {MPB_FP64EMU_EAGER, MPB_FP64EMU_DYNAMIC, 0, 0};
    static const double emu_fixed55[] = {MPB_FP64EMU_EAGER, MPB_FP64EMU_FIXED, 55, 0};
    static const double emu_performant[] = {MPB_FP64EMU_PERFORMANT, MPB_FP64EMU_DYNAMIC, 0, 0};
    static const double emu_capped[] = {MPB_FP64EMU_EAGER, MPB_FP64EMU_DYNAMIC, 8, 0};
    const struct gpu_case cases[] = {
        {"dgemm", &mpb_dgemm_cuda, MPB_TARGET_FP64, NULL, mpb_dgemm_host, mpb_dgemm_bound},
        {"sgemm", &mpb_sgemm_cuda, MPB_TARGET_FP32, NULL, mpb_sgemm_host, mpb_sgemm_bound},
        {"tf32", &mpb_tf32_cuda, MPB_TARGET_FP32, NULL, mpb_tf32_host, mpb_tf32_bound},
        {"fp16", &mpb_fp16_cuda, MPB_TARGET_FP32, NULL, mpb_fp16_host, mpb_fp16_bound},
        {"bf16", &mpb_bf16_cuda, MPB_TARGET_FP32, NULL, mpb_bf16_host, mpb_bf16_bound},
        {"cublas_fp64emu eager", &mpb_cublas_fp64emu_cuda, MPB_TARGET_FP64, emu_default,
         mpb_dgemm_host, mpb_dgemm_bound},
        {"cublas_fp64emu fixed 55", &mpb_cublas_fp64emu_cuda, MPB_TARGET_FP64, emu_fixed55,
         mpb_dgemm_host, mpb_dgemm_bound},
        {"cublas_fp64emu performant", &mpb_cublas_fp64emu_cuda, MPB_TARGET_FP64, emu_performant,
         mpb_dgemm_host, mpb_dgemm_bound},
        {"cublas_fp64emu dynamic max 8", &mpb_cublas_fp64emu_cuda, MPB_TARGET_FP64, emu_capped,
         mpb_dgemm_host, mpb_dgemm_bound},
        {"cublas_bf16x9", &mpb_cublas_bf16x9_cuda, MPB_TARGET_FP32, NULL, mpb_sgemm_host,
         mpb_sgemm_bound},
    };
    static const int64_t shapes[][3] = {{1, 1, 1}, {33, 7, 129}, {257, 129, 300}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            struct mpb_scheme_info info;
            run_case(env, &cases[i], shapes[s][0], shapes[s][1], shapes[s][2], &info);
            if (cases[i].ops == &mpb_cublas_fp64emu_cuda) {
                CHECK(strstr(info.settings, "max_bits=") && strstr(info.settings, "workspace_mb="),
                      "settings read back: %s", info.settings);
                CHECK(info.fallback == (info.slices < 0), "fallback %d vs slices %d", info.fallback,
                      info.slices);
            }
            if (cases[i].params == emu_fixed55)
                CHECK(info.slices == 55 || info.slices == -1, "fixed 55 retained %d", info.slices);
            /* FP64 accuracy needs more than 8 bits: dynamic control runs native. */
            if (cases[i].params == emu_capped)
                CHECK(info.fallback == 1 && info.slices == -1, "max 8: fallback %d slices %d",
                      info.fallback, info.slices);
        }
}

static void check_errors(struct mpb_cuda_env *env)
{
    struct mpb_gemm huge = {.m = 1ll << 31, .n = 1, .k = 1, .target = MPB_TARGET_FP64};
    void *state, *p;
    CHECK(mpb_dgemm_cuda.setup(env, &huge, NULL, &state) == MPB_STATUS_ERROR &&
              strstr(mpb_cuda_last_error(env), "INT_MAX"),
          "int dimensions: %s", mpb_cuda_last_error(env));
    CHECK(mpb_cuda_alloc(env, &p, (size_t)1 << 50) == MPB_STATUS_ERROR && p == NULL,
          "1 PiB allocated?");
    CHECK(mpb_cuda_last_was_oom(env) && !mpb_cuda_is_sticky(env), "oom: %s",
          mpb_cuda_last_error(env));
    printf("out of memory: %s\n", mpb_cuda_last_error(env));
    CHECK(mpb_cuda_alloc(env, &p, 1024) == MPB_STATUS_OK && mpb_cuda_sync(env) == MPB_STATUS_OK,
          "env unusable after an out-of-memory: %s", mpb_cuda_last_error(env));
    mpb_cuda_free(env, p);
    /* A GEMM on a wild pointer faults in the kernel: sticky at the sync. */
    struct mpb_gemm wild = {.m = 64,
                            .n = 64,
                            .k = 64,
                            .target = MPB_TARGET_FP64,
                            .a = (void *)0x10,
                            .b = (void *)0x10,
                            .c = (void *)0x10};
    CHECK(mpb_dgemm_cuda.setup(env, &wild, NULL, &state) == MPB_STATUS_OK, "setup");
    CHECK(mpb_dgemm_cuda.run(env, state, &wild, NULL) == MPB_STATUS_OK, "enqueue");
    CHECK(mpb_cuda_sync(env) == MPB_STATUS_ERROR && mpb_cuda_is_sticky(env) &&
              !mpb_cuda_last_was_oom(env),
          "illegal address not sticky: %s", mpb_cuda_last_error(env));
    char first[512];
    snprintf(first, sizeof first, "%s", mpb_cuda_last_error(env));
    printf("sticky: %s\n", first);
    CHECK(mpb_cuda_alloc(env, &p, 1024) == MPB_STATUS_ERROR, "alloc after a sticky error");
    CHECK(strcmp(first, mpb_cuda_last_error(env)) == 0, "sticky message replaced by %s",
          mpb_cuda_last_error(env));
    mpb_dgemm_cuda.teardown(env, state);
}

int main(void)
{
    char why[256];
    struct mpb_cuda_env *env = mpb_cuda_open(0, why, sizeof why);
    if (!env) {
        printf("skipped: %s\n", why);
        return 77;
    }
    const struct mpb_device_info *d = mpb_cuda_device(env);
    printf(
        "%s cc %d.%d, %d SMs, %.1f GiB, L2 %d MiB, clocks %d/%d MHz, bus %d bit, driver %d (%s), "
        "runtime %d, cuBLAS %d, %s\n",
        d->name, d->cc_major, d->cc_minor, d->sm_count, (double)d->total_mem / 1073741824.0,
        d->l2_bytes >> 20, d->clock_khz / 1000, d->mem_clock_khz / 1000, d->mem_bus_width,
        d->driver_version, d->driver_string, d->runtime_version, d->cublas_version, d->uuid);
    CHECK(d->cc_major > 0 && d->sm_count > 0 && d->total_mem > 0 && d->cublas_version > 0 &&
              strncmp(d->uuid, "GPU-", 4) == 0,
          "device info");
    check_schemes(env);
    check_errors(env);
    mpb_cuda_close(env);
    return check_report("test_kernels_cuda");
}
