/* GPU suite: the CUDA environment and the cuBLAS-backed schemes on a device.
 *  - every scheme of the registry's native (complex included) and cublas_emu families (at its
 *    defaults, and cublas_fp64emu also fixed 55 bits, performant, dynamic
 *    with at most 8 bits) against its host model, or the native one of its
 *    target when it has none, within twice its bound, through mpb_cuda_time
 *    (times, phase marks);
 *  - the emulation's settings read back and its retained bits / fallback;
 *  - every scheme that says state_reusable: a kept state on new operand
 *    values gives a fresh setup's bits;
 *  - error capture: an int-overflowing shape, an out-of-memory (not sticky,
 *    the env stays usable), then an illegal address (sticky, its message
 *    kept), last because it kills the context.
 * Exits 77 without a device. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "elem.h"
#include "cuda_env.h"
#include "schemes/registry.h"

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

/* |element idx|: the modulus of a complex (interleaved) one. */
static double elem_abs(enum mpb_target t, enum mpb_field f, const void *p, int64_t idx)
{
    if (f != MPB_FIELD_COMPLEX)
        return fabs(elem_get(p, t, idx));
    return hypot(elem_get(p, t, 2 * idx), elem_get(p, t, 2 * idx + 1));
}

/* |x_idx − y_idx|, the modulus of the parts' differences for complex. */
static double elem_dist(enum mpb_target t, enum mpb_field f, const void *x, const void *y, int64_t idx)
{
    if (f != MPB_FIELD_COMPLEX)
        return fabs(elem_get(x, t, idx) - elem_get(y, t, idx));
    return hypot(elem_get(x, t, 2 * idx) - elem_get(y, t, 2 * idx),
                 elem_get(x, t, 2 * idx + 1) - elem_get(y, t, 2 * idx + 1));
}

/* max over entries of |x − y| / (|A||B|)_ij (|·| the complex modulus for complex) */
static double worst_ratio(enum mpb_target t, enum mpb_field f, int64_t m, int64_t n, int64_t k, const void *a,
                          const void *b, const void *x, const void *y)
{
    double worst = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double absab = 0;
            for (int64_t l = 0; l < k; l++)
                absab += elem_abs(t, f, a, i + l * m) * elem_abs(t, f, b, l + j * k);
            double d = elem_dist(t, f, x, y, i + j * m);
            double r = isnan(d) ? INFINITY : d / absab;
            if (r > worst)
                worst = r;
        }
    return worst;
}

/* One scheme of the registry with one parameter setting. */
struct gpu_case {
    char name[64];
    const struct mpb_scheme *scheme;
    double params[MPB_MAX_PARAMS];
    const struct mpb_scheme *model; /* whose host model the GPU is compared with */
};

/* One case through setup, mpb_cuda_time, report and teardown. */
static void run_case(struct mpb_cuda_env *env, const struct gpu_case *gc, int64_t m, int64_t n,
                     int64_t k, struct mpb_scheme_info *info)
{
    enum mpb_target t = gc->scheme->target;
    enum mpb_field fld = gc->scheme->field;
    const struct mpb_scheme_cuda *ops = gc->scheme->cuda;
    size_t es = mpb_elem_size(t, fld);
    int64_t parts = mpb_field_parts(fld);
    void *a = random_matrix(t, m * k * parts), *b = random_matrix(t, k * n * parts);
    void *c = malloc((size_t)(m * n) * es), *h = malloc((size_t)(m * n) * es);
    void *da = NULL, *db = NULL, *dc = NULL, *state = NULL;
    CHECK(mpb_cuda_alloc(env, &da, (size_t)(m * k) * es) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &db, (size_t)(k * n) * es) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &dc, (size_t)(m * n) * es) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, da, a, (size_t)(m * k) * es) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, db, b, (size_t)(k * n) * es) == MPB_STATUS_OK &&
              mpb_cuda_memset(env, dc, 0xFF, (size_t)(m * n) * es) == MPB_STATUS_OK,
          "%s: buffers: %s", gc->name, mpb_cuda_last_error(env));
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = da, .b = db, .c = dc, .field = fld};
    *info = (struct mpb_scheme_info){.slices = -1, .fallback = -1};
    double times[3], phase[MPB_PHASE_COUNT];
    if (ops->setup(env, &g, gc->params, &state) != MPB_STATUS_OK) {
        CHECK(0, "%s: setup: %s", gc->name, mpb_cuda_last_error(env));
        goto out;
    }
    CHECK(mpb_cuda_time(env, ops, state, &g, 1, 0, 3, times, phase, NULL) == MPB_STATUS_OK,
          "%s: timing: %s", gc->name, mpb_cuda_last_error(env));
    CHECK(ops->report(env, state, info) == MPB_STATUS_OK, "%s: report: %s", gc->name,
          mpb_cuda_last_error(env));
    CHECK(mpb_cuda_download(env, c, dc, (size_t)(m * n) * es) == MPB_STATUS_OK, "%s: download: %s",
          gc->name, mpb_cuda_last_error(env));
    ops->teardown(env, state);
    for (int r = 0; r < 3; r++)
        CHECK(times[r] > 0 && isfinite(times[r]), "%s: time %g", gc->name, times[r]);
    CHECK(phase[MPB_PHASE_GEMM] > 0 && isnan(phase[MPB_PHASE_SPLIT]) &&
              isnan(phase[MPB_PHASE_ACCUM]),
          "%s: phases %g %g %g", gc->name, phase[0], phase[1], phase[2]);
    struct mpb_gemm hg = {.m = m, .n = n, .k = k, .target = t, .a = a, .b = b, .c = h, .field = fld};
    struct mpb_scheme_info hinfo = {.slices = -1, .fallback = -1};
    CHECK(gc->model->run_host(&hg, NULL, &hinfo) == MPB_STATUS_OK, "%s: host model", gc->name);
    double f = gc->scheme->bound(gc->params, k), worst = worst_ratio(t, fld, m, n, k, a, b, c, h);
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

/* Parameter settings beyond the defaults, as `-a` would give them. */
static const struct {
    const char *scheme, *label;
    const char *kv[5]; /* key, value, ..., NULL */
} extra_settings[] = {
    {"cublas_fp64emu", "fixed 55", {"mantissa", "fixed", "max_bits", "55", NULL}},
    {"cublas_fp64emu", "performant", {"strategy", "performant", NULL}},
    {"cublas_fp64emu", "dynamic max 8", {"max_bits", "8", NULL}},
};

/* `gc` for scheme s with its defaults, then the values of kv. */
static void make_case(struct gpu_case *gc, const struct mpb_scheme *s, const char *label,
                      const char *const *kv)
{
    snprintf(gc->name, sizeof gc->name, "%s%s%s", s->name, label ? " " : "", label ? label : "");
    gc->scheme = s;
    /* The vendor emulations have no host model: the native one of their target. */
    gc->model = s->run_host ? s : mpb_scheme_find(s->target == MPB_TARGET_FP64 ? "dgemm" : "sgemm");
    mpb_param_defaults(s->params, s->n_params, gc->params);
    for (; kv && kv[0]; kv += 2) {
        char why[256];
        int p = mpb_param_find(s->params, s->n_params, kv[0]);
        CHECK(p >= 0 && mpb_param_parse(&s->params[p], kv[1], &gc->params[p], why, sizeof why),
              "%s: %s=%s", s->name, kv[0], kv[1]);
    }
}

static void check_case(struct mpb_cuda_env *env, const struct gpu_case *gc, const char *label)
{
    static const int64_t shapes[][3] = {{1, 1, 1}, {33, 7, 129}, {257, 129, 300}};
    bool fp64emu = strcmp(gc->scheme->name, "cublas_fp64emu") == 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        struct mpb_scheme_info info;
        run_case(env, gc, shapes[i][0], shapes[i][1], shapes[i][2], &info);
        if (fp64emu) {
            CHECK(strstr(info.settings, "max_bits=") && strstr(info.settings, "workspace_mb="),
                  "settings read back: %s", info.settings);
            CHECK(info.fallback == (info.slices < 0), "fallback %d vs slices %d", info.fallback,
                  info.slices);
        }
        if (fp64emu && label && !strcmp(label, "fixed 55"))
            CHECK(info.slices == 55 || info.slices == -1, "fixed 55 retained %d", info.slices);
        /* FP64 accuracy needs more than 8 bits: dynamic control runs native. */
        if (fp64emu && label && !strcmp(label, "dynamic max 8"))
            CHECK(info.fallback == 1 && info.slices == -1, "max 8: fallback %d slices %d",
                  info.fallback, info.slices);
    }
}

/* The cuBLAS-backed schemes: the registry's native and cublas_emu families,
 * each at its defaults and then with its extra settings. check() is not
 * asked: cublas_bf16x9 runs off compute capability 10.x too, where cuBLAS
 * computes native FP32, within the sgemm bound it is held to. */
static void check_schemes(struct mpb_cuda_env *env)
{
    int walked = 0;
    for (int i = 0; i < mpb_n_schemes; i++) {
        const struct mpb_scheme *s = mpb_schemes[i];
        if (strcmp(s->family, "native") && strcmp(s->family, "cublas_emu"))
            continue;
        CHECK(s->cuda && s->bound, "%s: no CUDA backend or bound", s->name);
        if (!s->cuda || !s->bound)
            continue;
        struct gpu_case gc;
        make_case(&gc, s, NULL, NULL);
        check_case(env, &gc, NULL);
        walked++;
        for (size_t e = 0; e < sizeof extra_settings / sizeof extra_settings[0]; e++)
            if (!strcmp(extra_settings[e].scheme, s->name)) {
                make_case(&gc, s, extra_settings[e].label, extra_settings[e].kv);
                check_case(env, &gc, extra_settings[e].label);
            }
    }
    CHECK(walked >= 7, "only %d cuBLAS-backed schemes in the registry", walked);
}

/* Every scheme that says state_reusable: a state set up on buffers that held
 * (A1, B1), run once, then run again after (A2, B2) were written into the
 * same buffers, gives the bits of a fresh setup on (A2, B2). */
static void check_state_reuse(struct mpb_cuda_env *env)
{
    const int64_t m = 65, n = 33, k = 130;
    int checked = 0;
    for (int i = 0; i < mpb_n_schemes; i++) {
        const struct mpb_scheme *s = mpb_schemes[i];
        if (!s->state_reusable || !s->cuda)
            continue;
        double params[MPB_MAX_PARAMS];
        mpb_param_defaults(s->params, s->n_params, params);
        const size_t es = mpb_elem_size(s->target, s->field);
        const int64_t parts = mpb_field_parts(s->field);
        const size_t ba = es * (size_t)(m * k), bb = es * (size_t)(k * n), bc = es * (size_t)(m * n);
        void *a1 = random_matrix(s->target, m * k * parts), *b1 = random_matrix(s->target, k * n * parts);
        void *a2 = random_matrix(s->target, m * k * parts), *b2 = random_matrix(s->target, k * n * parts);
        void *kept = malloc(bc), *fresh = malloc(bc), *da = NULL, *db = NULL, *dc = NULL, *state = NULL;
        const struct mpb_gemm g0 = {.m = m, .n = n, .k = k, .target = s->target, .field = s->field};
        char why[256];
        if (s->check && !s->check(params, &g0, mpb_cuda_device(env), why, sizeof why)) {
            printf("  state reuse: %s not supported here (%s)\n", s->name, why);
            free(a1), free(b1), free(a2), free(b2), free(kept), free(fresh);
            continue;
        }
        bool ok = !mpb_cuda_alloc(env, &da, ba) && !mpb_cuda_alloc(env, &db, bb) && !mpb_cuda_alloc(env, &dc, bc);
        struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = s->target, .a = da, .b = db, .c = dc,
                             .field = s->field};
        ok = ok && !mpb_cuda_upload(env, da, a1, ba) && !mpb_cuda_upload(env, db, b1, bb) &&
             !s->cuda->setup(env, &g, params, &state) && !s->cuda->run(env, state, &g, NULL) &&
             !mpb_cuda_upload(env, da, a2, ba) && !mpb_cuda_upload(env, db, b2, bb) &&
             !s->cuda->run(env, state, &g, NULL) && !mpb_cuda_download(env, kept, dc, bc);
        if (state)
            s->cuda->teardown(env, state);
        state = NULL;
        ok = ok && !mpb_cuda_memset(env, dc, 0xFF, bc) && !s->cuda->setup(env, &g, params, &state) &&
             !s->cuda->run(env, state, &g, NULL) && !mpb_cuda_download(env, fresh, dc, bc);
        if (state)
            s->cuda->teardown(env, state);
        CHECK(ok, "state reuse %s: %s", s->name, mpb_cuda_last_error(env));
        CHECK(!ok || memcmp(kept, fresh, bc) == 0, "%s says state_reusable, but a kept state's output on new "
              "operands differs from a fresh setup's", s->name);
        checked += ok;
        mpb_cuda_free(env, da), mpb_cuda_free(env, db), mpb_cuda_free(env, dc);
        free(a1), free(b1), free(a2), free(b2), free(kept), free(fresh);
    }
    printf("  state reuse: %d schemes give a fresh setup's bits with a kept state\n", checked);
    CHECK(checked > 0, "no scheme checked for state reuse");
}

static void check_errors(struct mpb_cuda_env *env)
{
    const struct mpb_scheme_cuda *dgemm = mpb_scheme_find("dgemm")->cuda;
    struct mpb_gemm huge = {.m = 1ll << 31, .n = 1, .k = 1, .target = MPB_TARGET_FP64};
    void *state, *p;
    CHECK(dgemm->setup(env, &huge, NULL, &state) == MPB_STATUS_ERROR &&
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
    CHECK(dgemm->setup(env, &wild, NULL, &state) == MPB_STATUS_OK, "setup");
    CHECK(dgemm->run(env, state, &wild, NULL) == MPB_STATUS_OK, "enqueue");
    CHECK(mpb_cuda_sync(env) == MPB_STATUS_ERROR && mpb_cuda_is_sticky(env) &&
              !mpb_cuda_last_was_oom(env),
          "illegal address not sticky: %s", mpb_cuda_last_error(env));
    char first[512];
    snprintf(first, sizeof first, "%s", mpb_cuda_last_error(env));
    printf("sticky: %s\n", first);
    CHECK(mpb_cuda_alloc(env, &p, 1024) == MPB_STATUS_ERROR, "alloc after a sticky error");
    CHECK(strcmp(first, mpb_cuda_last_error(env)) == 0, "sticky message replaced by %s",
          mpb_cuda_last_error(env));
    dgemm->teardown(env, state);
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
    check_state_reuse(env);
    check_errors(env);
    mpb_cuda_close(env);
    return check_report("test_kernels_cuda");
}
