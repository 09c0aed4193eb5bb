#include "case/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case/accuracy.h"
#include "case/hash.h"
#include "mpb_size.h"
#include "case/multi.h"
#include "reference.h"
#include "schemes/registry.h"
#include "case/stats.h"

struct mpb_gemm mpb_case_gemm(const struct mpb_case *c)
{
    struct mpb_gemm g = {.m = c->m, .n = c->n, .k = c->k, .target = c->scheme->target, .field = c->scheme->field};
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
    res->max_abs_vs_native = NAN;
    res->power_w = res->joules_per_call = NAN;
}

/* ---- the memory a case needs ------------------------------------------ */

/* Entries the MPFR reference evaluates (accuracy.c, ref_select.c): every
 * one up to MPB_REF_FULL_LIMIT products, else the samples plus the
 * designated entries, counted generously as 4096 + 2(m + n). */
static size_t ref_entries(const struct mpb_case *c)
{
    size_t mn = mpb_size_mul(mpb_size_count(c->m), mpb_size_count(c->n));
    if ((double)c->m * (double)c->n * (double)c->k <= (double)MPB_REF_FULL_LIMIT)
        return mn;
    size_t sampled = mpb_size_add(4096, mpb_size_mul(2, mpb_size_count(c->m + c->n)));
    return sampled < mn ? sampled : mn;
}

/* Host bytes of the reference that follows a run (src/case/accuracy.c):
 * the entries and their values (one per part); per MPFR thread one row and
 * column and their exact products (ref_mpfr.c's ref_work: 112 bytes per
 * term); with --ref dd every entry's three outputs and values, a complex
 * product's two real problems (ref_dd_complex.h: A twice, B once), and on
 * the host backend A transposed (ref_dd_host.c). */
static size_t ref_host_bytes(const struct mpb_runner *r, const struct mpb_case *c)
{
    if (!r->keep_data)
        return 0;
    const size_t parts = (size_t)mpb_field_parts(c->scheme->field);
    size_t per_entry = sizeof(struct mpb_ref_entry) + parts * sizeof(struct mpb_ref_value);
    size_t entries = ref_entries(c);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cpus < 1 ? 1 : (size_t)cpus;
    threads = threads < entries ? threads : entries ? entries : 1;
    size_t bytes = mpb_size_add(mpb_size_mul(entries, per_entry),
                                mpb_size_mul3(threads, mpb_size_count(c->k + 1), 112));
    if (!r->ref_dd)
        return bytes;
    size_t mn = mpb_size_matrix(c->m, c->n, 1);
    bytes = mpb_size_add(bytes, mpb_size_mul(mn, per_entry + 3 * sizeof(double)));
    if (parts == 2) {
        size_t es = mpb_elem_size(c->scheme->target, c->scheme->field);
        bytes = mpb_size_add(bytes, mpb_size_add(mpb_size_matrix(c->m, c->k, 2 * es), mpb_size_matrix(c->k, c->n, es)));
    }
    if (r->impl == MPB_IMPL_HOST)
        bytes = mpb_size_add(bytes, mpb_size_matrix(c->m, c->k, parts * sizeof(double)));
    return bytes;
}

void mpb_case_memory(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_case_memory *mem)
{
    const struct mpb_scheme *s = c->scheme;
    struct mpb_gemm g = mpb_case_gemm(c);
    size_t es = mpb_elem_size(g.target, g.field);
    size_t a = mpb_size_matrix(c->m, c->k, es), b = mpb_size_matrix(c->k, c->n, es);
    size_t out = mpb_size_matrix(c->m, c->n, es);
    bool cuda = r->impl == MPB_IMPL_CUDA;
    memset(mem, 0, sizeof *mem);
    mem->matrices = mpb_size_add(mpb_size_add(a, b), out);
    if (s->workspace_bytes)
        mem->workspace = s->workspace_bytes(c->sp, &g, cuda);
    else if (!cuda)
        mem->workspace = mem->matrices;
    mem->reference = ref_host_bytes(r, c);
    if (r->vs_native) /* --vs-native: the native GEMM's C (on the GPU, and its download on the host) */
        mem->workspace = mpb_size_add(mem->workspace, out);
    if (cuda) {
        mem->device = mpb_size_add(mem->matrices, mem->workspace);
        /* --ref dd on the GPU: A, B and three m×n double arrays, after the
         * scheme's buffers are freed */
        size_t dd = mpb_size_add(mpb_size_add(a, b), mpb_size_matrix(c->m, c->n, 3 * sizeof(double)));
        if (r->ref_dd && dd > mem->device)
            mem->device = dd;
        /* host: C downloaded, A and B too when kept for the reference */
        mem->host = mpb_size_add(r->keep_data ? mem->matrices : out, mem->reference);
        if (r->vs_native)
            mem->host = mpb_size_add(mem->host, out);
    } else {
        mem->host = mpb_size_add(mpb_size_add(mem->matrices, mem->workspace), mem->reference);
    }
}

void mpb_format_bytes(char *buf, size_t len, size_t bytes, bool exact)
{
    if (bytes == SIZE_MAX)
        snprintf(buf, len, "2^64 bytes or more");
    else if (exact)
        snprintf(buf, len, "%.3g GB (%zu bytes)", (double)bytes * 1e-9, bytes);
    else
        snprintf(buf, len, "%.3g GB", (double)bytes * 1e-9);
}

/* not_supported, with a note naming what is needed and what is there, when
 * the case cannot fit; decided before anything is allocated. */
static bool fits(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res)
{
    struct mpb_case_memory mem;
    mpb_case_memory(r, c, &mem);
    char need[64], have[64], parts[224];
    size_t avail_host = mpb_host_memory_available(), avail_dev = SIZE_MAX, total_dev = 0;
    if (r->impl == MPB_IMPL_CUDA && mpb_cuda_mem_info(r->env, &avail_dev, &total_dev) != MPB_STATUS_OK)
        avail_dev = SIZE_MAX; /* cannot tell: cudaMalloc decides */
    const char *where = NULL, *avail_what = NULL;
    size_t needed = 0, avail = 0;
    if (r->impl == MPB_IMPL_CUDA && mem.device > avail_dev) {
        where = "device";
        needed = mem.device;
        avail = avail_dev;
        avail_what = "free (cudaMemGetInfo)";
    } else if (mem.host > avail_host) {
        where = "host";
        needed = mem.host;
        avail = avail_host;
        avail_what = "available (MemAvailable)";
    }
    if (!where)
        return true;
    char m_txt[48], w_txt[48], r_txt[48];
    mpb_format_bytes(m_txt, sizeof m_txt, mem.matrices, false);
    mpb_format_bytes(w_txt, sizeof w_txt, mem.workspace, false);
    mpb_format_bytes(r_txt, sizeof r_txt, mem.reference, false);
    snprintf(parts, sizeof parts, "A, B, C %s; %s workspace %s; reference %s", m_txt,
             c->scheme->name, w_txt, r_txt);
    mpb_format_bytes(need, sizeof need, needed, true);
    mpb_format_bytes(have, sizeof have, avail, true);
    res->status = MPB_STATUS_NOT_SUPPORTED;
    snprintf(res->note, sizeof res->note, "too large for this machine: needs %s of %s memory (%s), %s %s",
             need, where, parts, have, avail_what);
    return false;
}

/* `count` scalars of the target: two per complex element. */
static bool host_alloc(struct mpb_result *res, void **p, int64_t count, enum mpb_target t)
{
    size_t bytes = mpb_size_matrix(count, 1, mpb_target_size(t));
    *p = bytes == SIZE_MAX ? NULL : malloc(bytes);
    if (!*p) {
        res->status = MPB_STATUS_ERROR;
        snprintf(res->note, sizeof res->note, "out of host memory (%.3g GiB)",
                 (double)count * (double)mpb_target_size(t) / 1073741824.0);
    }
    return *p != NULL;
}

/* ---- --vs-native: EGEMM-TC's metric (Feng et al., PPoPP 2021, Eq. 10) ---- */

/* The scalars of an m×n C: two per complex entry. */
static int64_t c_scalars(const struct mpb_case *c, const struct mpb_gemm *g)
{
    return c->m * c->n * mpb_field_parts(g->field);
}

/* max |x - y| over `count` scalars (each part of a complex entry): 0 where both are the same non-finite
 * value (or both NaN), +Inf where only one is finite or they differ so. */
static double max_abs_diff(const void *x, const void *y, int64_t count, enum mpb_target t)
{
    double worst = 0;
    for (int64_t i = 0; i < count; i++) {
        double p = t == MPB_TARGET_FP64 ? ((const double *)x)[i] : ((const float *)x)[i];
        double q = t == MPB_TARGET_FP64 ? ((const double *)y)[i] : ((const float *)y)[i];
        if ((isnan(p) && isnan(q)) || p == q)
            continue;
        double d = isfinite(p) && isfinite(q) ? fabs(p - q) : INFINITY;
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* The target's native host model on the same A and B, against C. */
static void vs_native_host(const struct mpb_case *c, const struct mpb_gemm *g, struct mpb_result *res)
{
    const struct mpb_scheme *nat = mpb_scheme_native(g->target, g->field);
    if (nat == c->scheme) {
        res->max_abs_vs_native = 0;
        return;
    }
    struct mpb_gemm n = *g;
    double params[MPB_MAX_PARAMS] = {0};
    struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
    void *out = malloc(mpb_size_matrix(c->m, c->n, mpb_elem_size(g->target, g->field)));
    n.c = out;
    if (out && nat->run_host(&n, params, &info) == MPB_STATUS_OK)
        res->max_abs_vs_native = max_abs_diff(g->c, out, c_scalars(c, g), g->target);
    free(out);
}

static void run_host(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res)
{
    struct mpb_gemm g = mpb_case_gemm(c);
    struct mpb_gen_config cfg;
    void *a = NULL, *b = NULL, *out = NULL;
    int64_t parts = mpb_field_parts(g.field);
    mpb_gen_config_init_field(&cfg, c->gen, c->gp, g.target, g.field, c->m, c->n, c->k, c->seed);
    cfg.files = c->files;
    if (!host_alloc(res, &a, c->m * c->k * parts, g.target) || !host_alloc(res, &b, c->k * c->n * parts, g.target) ||
        !host_alloc(res, &out, c_scalars(c, &g), g.target))
        goto done;
    mpb_gen_fill_host(&cfg, MPB_OPERAND_A, a);
    mpb_gen_fill_host(&cfg, MPB_OPERAND_B, b);
    g.a = a;
    g.b = b;
    g.c = out;
    memset(out, 0xff, mpb_size_matrix(c->m, c->n, mpb_elem_size(g.target, g.field))); /* poison: NaN */
    double *times = malloc(sizeof *times * (size_t)r->reps);
    if (!times) {
        res->status = MPB_STATUS_ERROR;
        snprintf(res->note, sizeof res->note, "out of host memory");
        goto done;
    }
    double w0 = mpb_now_ms();
    for (int i = 0; (i < r->warmup || mpb_now_ms() - w0 < r->warmup_ms) && res->status == MPB_STATUS_OK;
         i++)
        res->status = c->scheme->run_host(&g, c->sp, &res->info);
    for (int i = 0; i < r->reps && res->status == MPB_STATUS_OK; i++) {
        double t0 = mpb_now_ms();
        res->status = c->scheme->run_host(&g, c->sp, &res->info);
        times[i] = mpb_now_ms() - t0;
    }
    if (res->status == MPB_STATUS_OK) {
        res->time_ms = mpb_timing_stats(times, r->reps);
        mpb_result_summarise(res, out, c->m * c->n, g.target, g.field);
        if (r->vs_native)
            vs_native_host(c, &g, res);
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
    if (mpb_cuda_download(r->env, *host, dev, mpb_size_matrix(count, 1, mpb_target_size(t))) != MPB_STATUS_OK) {
        cuda_failure(r, res, "download");
        return false;
    }
    return true;
}

/* The target's native GEMM (cuBLAS) on the same device A and B into a second
 * C, downloaded and compared with `hc`, the scheme's C. false after a CUDA
 * failure (recorded in res). */
static bool vs_native_cuda(const struct mpb_runner *r, const struct mpb_case *c, const struct mpb_gemm *g,
                           const void *hc, struct mpb_result *res)
{
    const struct mpb_scheme *nat = mpb_scheme_native(g->target, g->field);
    if (nat == c->scheme) {
        res->max_abs_vs_native = 0;
        return true;
    }
    char why[256];
    if (nat->check && !nat->check(NULL, g, mpb_cuda_device(r->env), why, sizeof why))
        return true; /* the native GEMM cannot run this shape: the metric stays empty */
    const size_t bytes = mpb_size_matrix(c->m, c->n, mpb_elem_size(g->target, g->field));
    struct mpb_gemm n = *g;
    double params[MPB_MAX_PARAMS] = {0};
    void *dev = NULL, *state = NULL, *host = NULL;
    bool ok = mpb_cuda_alloc(r->env, &dev, bytes) == MPB_STATUS_OK;
    n.c = dev;
    ok = ok && nat->cuda->setup(r->env, &n, params, &state) == MPB_STATUS_OK;
    ok = ok && nat->cuda->run(r->env, state, &n, NULL) == MPB_STATUS_OK && mpb_cuda_sync(r->env) == MPB_STATUS_OK;
    if (state)
        nat->cuda->teardown(r->env, state);
    ok = ok && download_copy(r, res, &host, dev, c_scalars(c, g), g->target);
    if (ok)
        res->max_abs_vs_native = max_abs_diff(hc, host, c_scalars(c, g), g->target);
    else if (res->status == MPB_STATUS_OK)
        cuda_failure(r, res, "--vs-native's native GEMM");
    free(host);
    mpb_cuda_free(r->env, dev);
    return ok;
}

static void run_cuda(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res)
{
    struct mpb_cuda_env *env = r->env;
    const struct mpb_scheme_cuda *ops = c->scheme->cuda;
    struct mpb_gemm g = mpb_case_gemm(c);
    size_t es = mpb_elem_size(g.target, g.field);
    int64_t parts = mpb_field_parts(g.field);
    void *a = NULL, *b = NULL, *out = NULL, *state = NULL;
    double *times = NULL;
    bool set_up = false;
    struct mpb_gen_config cfg;
    mpb_gen_config_init_field(&cfg, c->gen, c->gp, g.target, g.field, c->m, c->n, c->k, c->seed);
    cfg.files = c->files;
    if (mpb_cuda_alloc(env, &a, mpb_size_matrix(c->m, c->k, es)) ||
        mpb_cuda_alloc(env, &b, mpb_size_matrix(c->k, c->n, es)) ||
        mpb_cuda_alloc(env, &out, mpb_size_matrix(c->m, c->n, es))) {
        cuda_failure(r, res, "allocating A, B, C");
        goto done;
    }
    if (mpb_gen_fill_cuda(env, &cfg, MPB_OPERAND_A, a) || mpb_gen_fill_cuda(env, &cfg, MPB_OPERAND_B, b) ||
        mpb_cuda_memset(env, out, 0xff, mpb_size_matrix(c->m, c->n, es))) {
        cuda_failure(r, res, "generating A and B");
        goto done;
    }
    g.a = a;
    g.b = b;
    g.c = out;
    enum mpb_status setup = ops->setup(env, &g, c->sp, &state);
    if (setup == MPB_STATUS_NOT_SUPPORTED) {
        res->status = MPB_STATUS_NOT_SUPPORTED;
        snprintf(res->note, sizeof res->note, "%s", mpb_cuda_last_error(env));
        goto done;
    }
    if (setup != MPB_STATUS_OK) {
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
    struct mpb_energy energy = {.min_ms = r->energy_min_ms, .extend = r->energy_extend};
    if (mpb_cuda_time(env, ops, state, &g, r->warmup, r->warmup_ms, r->reps, times,
                      res->phase_ms, r->energy ? &energy : NULL) != MPB_STATUS_OK) {
        cuda_failure(r, res, "timed calls");
        goto done;
    }
    if (ops->report && ops->report(env, state, &res->info) != MPB_STATUS_OK) {
        cuda_failure(r, res, "reading back what the scheme did");
        goto done;
    }
    res->time_ms = mpb_timing_stats(times, r->reps);
    res->tflops = mpb_gemm_flops(c->m, c->n, c->k, c->scheme->field) / (res->time_ms.median * 1e-3) / 1e12;
    if (r->energy)
        mpb_result_set_energy(res, &energy);
    void *hc = NULL;
    if (!download_copy(r, res, &hc, out, c_scalars(c, &g), g.target))
        goto done;
    mpb_result_summarise(res, hc, c->m * c->n, g.target, g.field);
    if (r->vs_native && !vs_native_cuda(r, c, &g, hc, res)) {
        free(hc);
        goto done;
    }
    if (r->keep_data && download_copy(r, res, &res->a, a, c->m * c->k * parts, g.target) &&
        download_copy(r, res, &res->b, b, c->k * c->n * parts, g.target))
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
    const struct mpb_scheme_multi *multi = c->scheme->multi;
    bool has_backend = multi ? (cuda ? multi->setup != NULL : multi->run_host != NULL)
                             : (cuda ? c->scheme->cuda != NULL : c->scheme->run_host != NULL);
    /* A scheme over several GPUs lacks its GPU side in a build without its
     * library: its check() says so, naming what to do. */
    struct mpb_gemm g = mpb_case_gemm(c);
    char why[384];
    if (has_backend || multi) {
        if (c->scheme->check &&
            !c->scheme->check(c->sp, &g, cuda ? mpb_cuda_device(r->env) : NULL, why, sizeof why)) {
            res->status = MPB_STATUS_NOT_SUPPORTED;
            snprintf(res->note, sizeof res->note, "%s", why);
            return;
        }
    }
    if (!has_backend) {
        res->status = MPB_STATUS_NOT_SUPPORTED;
        snprintf(res->note, sizeof res->note, "%s has no %s", c->scheme->name,
                 cuda ? "CUDA implementation" : "host model");
        return;
    }
    if (multi)
        mpb_run_multi(r, c, res);
    else if (!fits(r, c, res))
        return;
    else if (cuda)
        run_cuda(r, c, res);
    else
        run_host(r, c, res);
    if (res->status == MPB_STATUS_OK && res->info.note[0] && !res->note[0])
        snprintf(res->note, sizeof res->note, "%s", res->info.note);
}
