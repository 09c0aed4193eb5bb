#include "runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash.h"

struct mpb_gemm mpb_case_gemm(const struct mpb_case *c)
{
    struct mpb_gemm g = {.m = c->m, .n = c->n, .k = c->k, .target = c->scheme->target};
    return g;
}

static void result_init(struct mpb_result *res)
{
    memset(res, 0, sizeof *res);
    res->status = MPB_STATUS_OK;
    res->time_ms = (struct mpb_timing_stats){NAN, NAN, NAN, NAN};
    res->tflops = NAN;
    for (int p = 0; p < MPB_PHASE_COUNT; p++)
        res->phase_ms[p] = NAN;
    res->info.slices = -1;
    res->info.fallback = -1;
}

static void summarise_output(struct mpb_result *res, const void *c, int64_t count, enum mpb_target t)
{
    size_t bytes = (size_t)count * mpb_target_size(t);
    res->out_hash = mpb_hash_words(c, bytes);
    res->nonfinite = 0;
    for (int64_t i = 0; i < count; i++) {
        double x = t == MPB_TARGET_FP64 ? ((const double *)c)[i] : ((const float *)c)[i];
        res->nonfinite += !isfinite(x);
    }
    res->have_output = true;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static bool host_alloc(struct mpb_result *res, void **p, int64_t count, enum mpb_target t)
{
    *p = malloc((size_t)count * mpb_target_size(t));
    if (!*p) {
        res->status = MPB_STATUS_ERROR;
        snprintf(res->note, sizeof res->note, "out of host memory (%.3g GiB)",
                 (double)count * (double)mpb_target_size(t) / 1073741824.0);
    }
    return *p != NULL;
}

static void run_host(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res)
{
    struct mpb_gemm g = mpb_case_gemm(c);
    struct mpb_gen_config cfg;
    void *a = NULL, *b = NULL, *out = NULL;
    mpb_gen_config_init(&cfg, c->gen, c->gp, g.target, c->m, c->n, c->k, c->seed);
    if (!host_alloc(res, &a, c->m * c->k, g.target) || !host_alloc(res, &b, c->k * c->n, g.target) ||
        !host_alloc(res, &out, c->m * c->n, g.target))
        goto done;
    mpb_gen_fill_host(&cfg, MPB_OPERAND_A, a);
    mpb_gen_fill_host(&cfg, MPB_OPERAND_B, b);
    g.a = a;
    g.b = b;
    g.c = out;
    memset(out, 0xff, (size_t)(c->m * c->n) * mpb_target_size(g.target)); /* poison: NaN */
    double *times = malloc(sizeof *times * (size_t)r->reps);
    if (!times) {
        res->status = MPB_STATUS_ERROR;
        snprintf(res->note, sizeof res->note, "out of host memory");
        goto done;
    }
    double w0 = now_ms();
    for (int i = 0; (i < r->warmup || now_ms() - w0 < r->warmup_ms) && res->status == MPB_STATUS_OK;
         i++)
        res->status = c->scheme->run_host(&g, c->sp, &res->info);
    for (int i = 0; i < r->reps && res->status == MPB_STATUS_OK; i++) {
        double t0 = now_ms();
        res->status = c->scheme->run_host(&g, c->sp, &res->info);
        times[i] = now_ms() - t0;
    }
    if (res->status == MPB_STATUS_OK) {
        res->time_ms = mpb_timing_stats(times, r->reps);
        summarise_output(res, out, c->m * c->n, g.target);
    } else if (!res->note[0]) {
        snprintf(res->note, sizeof res->note, "%s", res->info.note);
    }
    free(times);
done:
    if (r->keep_data && res->status == MPB_STATUS_OK) {
        res->a = a;
        res->b = b;
        res->c = out;
    } else {
        free(a);
        free(b);
        free(out);
    }
}

/* A CUDA failure: the message the env recorded, and whether it was fatal. */
static void cuda_failure(const struct mpb_runner *r, struct mpb_result *res, const char *stage)
{
    res->status = MPB_STATUS_ERROR;
    snprintf(res->note, sizeof res->note, "%s%s: %s", mpb_cuda_last_was_oom(r->env) ? "out of memory in " : "",
             stage, mpb_cuda_last_error(r->env));
    res->sticky = mpb_cuda_is_sticky(r->env);
}

static bool download_copy(const struct mpb_runner *r, struct mpb_result *res, void **host,
                          const void *dev, int64_t count, enum mpb_target t)
{
    if (!host_alloc(res, host, count, t))
        return false;
    if (mpb_cuda_download(r->env, *host, dev, (size_t)count * mpb_target_size(t)) != MPB_STATUS_OK) {
        cuda_failure(r, res, "download");
        return false;
    }
    return true;
}

static void run_cuda(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res)
{
    struct mpb_cuda_env *env = r->env;
    const struct mpb_scheme_cuda *ops = c->scheme->cuda;
    struct mpb_gemm g = mpb_case_gemm(c);
    size_t es = mpb_target_size(g.target);
    void *a = NULL, *b = NULL, *out = NULL, *state = NULL;
    double *times = NULL;
    bool set_up = false;
    struct mpb_gen_config cfg;
    mpb_gen_config_init(&cfg, c->gen, c->gp, g.target, c->m, c->n, c->k, c->seed);
    if (mpb_cuda_alloc(env, &a, (size_t)(c->m * c->k) * es) || mpb_cuda_alloc(env, &b, (size_t)(c->k * c->n) * es) ||
        mpb_cuda_alloc(env, &out, (size_t)(c->m * c->n) * es)) {
        cuda_failure(r, res, "allocating A, B, C");
        goto done;
    }
    if (mpb_gen_fill_cuda(env, &cfg, MPB_OPERAND_A, a) || mpb_gen_fill_cuda(env, &cfg, MPB_OPERAND_B, b) ||
        mpb_cuda_memset(env, out, 0xff, (size_t)(c->m * c->n) * es)) {
        cuda_failure(r, res, "generating A and B");
        goto done;
    }
    g.a = a;
    g.b = b;
    g.c = out;
    if (ops->setup(env, &g, c->sp, &state) != MPB_STATUS_OK) {
        cuda_failure(r, res, "scheme setup");
        goto done;
    }
    set_up = true;
    times = malloc(sizeof *times * (size_t)r->reps);
    if (!times) {
        res->status = MPB_STATUS_ERROR;
        snprintf(res->note, sizeof res->note, "out of host memory");
        goto done;
    }
    if (mpb_cuda_time(env, ops, state, &g, r->warmup, r->warmup_ms, r->reps, times,
                      res->phase_ms) != MPB_STATUS_OK) {
        cuda_failure(r, res, "timed calls");
        goto done;
    }
    if (ops->report && ops->report(env, state, &res->info) != MPB_STATUS_OK) {
        cuda_failure(r, res, "reading back what the scheme did");
        goto done;
    }
    res->time_ms = mpb_timing_stats(times, r->reps);
    res->tflops = 2.0 * (double)c->m * (double)c->n * (double)c->k / (res->time_ms.median * 1e-3) / 1e12;
    void *hc = NULL;
    if (!download_copy(r, res, &hc, out, c->m * c->n, g.target))
        goto done;
    summarise_output(res, hc, c->m * c->n, g.target);
    if (r->keep_data && download_copy(r, res, &res->a, a, c->m * c->k, g.target) &&
        download_copy(r, res, &res->b, b, c->k * c->n, g.target))
        res->c = hc;
    else
        free(hc);
done:
    free(times);
    if (set_up)
        ops->teardown(env, state);
    mpb_cuda_free(env, a);
    mpb_cuda_free(env, b);
    mpb_cuda_free(env, out);
}

void mpb_run_case(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res)
{
    result_init(res);
    if (!c->gen_ok) {
        res->status = MPB_STATUS_NOT_SUPPORTED;
        snprintf(res->note, sizeof res->note, "generator %s: %s", c->gen->name, c->gen_why);
        return;
    }
    bool cuda = r->impl == MPB_IMPL_CUDA;
    if (cuda ? !c->scheme->cuda : !c->scheme->run_host) {
        res->status = MPB_STATUS_NOT_SUPPORTED;
        snprintf(res->note, sizeof res->note, "%s has no %s", c->scheme->name,
                 cuda ? "CUDA implementation" : "host model");
        return;
    }
    struct mpb_gemm g = mpb_case_gemm(c);
    char why[384];
    if (c->scheme->check &&
        !c->scheme->check(c->sp, &g, cuda ? mpb_cuda_device(r->env) : NULL, why, sizeof why)) {
        res->status = MPB_STATUS_NOT_SUPPORTED;
        snprintf(res->note, sizeof res->note, "%s", why);
        return;
    }
    if (cuda)
        run_cuda(r, c, res);
    else
        run_host(r, c, res);
    if (res->status == MPB_STATUS_OK && res->info.note[0] && !res->note[0])
        snprintf(res->note, sizeof res->note, "%s", res->info.note);
}

void mpb_result_free(struct mpb_result *res)
{
    free(res->a);
    free(res->b);
    free(res->c);
    res->a = res->b = res->c = NULL;
}
