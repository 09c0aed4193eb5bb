/* Levels and one GEMM under a level (level.h): scheme->run_host on the host
 * backend, scheme->cuda's setup/run/teardown with mpb_cuda_time on the GPU,
 * the same calls the runner makes, on a chain's own operands instead of
 * generated ones. */
#include "tune/level.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpb_size.h"
#include "case/stats.h"

static void level_name(struct mpb_tune_level *l)
{
    const struct mpb_scheme *s = l->scheme;
    double defaults[MPB_MAX_PARAMS];
    mpb_param_defaults(s->params, s->n_params, defaults);
    size_t used = (size_t)snprintf(l->name, sizeof l->name, "%s", s->name);
    for (int p = 0; p < s->n_params && used < sizeof l->name; p++) {
        if (l->params[p] == defaults[p] || (isnan(l->params[p]) && isnan(defaults[p])))
            continue;
        char v[64];
        mpb_param_format(&s->params[p], l->params[p], v, sizeof v);
        used += (size_t)snprintf(l->name + used, sizeof l->name - used, " %s=%s", s->params[p].name, v);
    }
}

void mpb_tune_level_default(const struct mpb_scheme *s, struct mpb_tune_level *out)
{
    memset(out, 0, sizeof *out);
    out->scheme = s;
    mpb_param_defaults(s->params, s->n_params, out->params);
    level_name(out);
}

int mpb_tune_levels_expand(const struct mpb_selection *sel, int n_sel, struct mpb_tune_level *out, int max,
                           char *why, size_t why_len)
{
    int n = 0;
    for (int s = 0; s < n_sel; s++) {
        const struct mpb_scheme *sc = sel[s].scheme;
        if (sc->target != MPB_TARGET_FP32) {
            snprintf(why, why_len, "--levels %s: an FP64 scheme; the chains are FP32 for now (their "
                     "reference is an FP64 run, which cannot judge FP64 levels)", sc->name);
            return -1;
        }
        if (sc->field == MPB_FIELD_COMPLEX) {
            snprintf(why, why_len, "--levels %s: a complex scheme; the chains are real", sc->name);
            return -1;
        }
        int idx[MPB_MAX_PARAMS] = {0};
        for (bool more = true; more;) {
            if (n == max) {
                snprintf(why, why_len, "--levels: more than %d levels", max);
                return -1;
            }
            struct mpb_tune_level *l = &out[n];
            memset(l, 0, sizeof *l);
            l->scheme = sc;
            for (int p = 0; p < sc->n_params; p++)
                l->params[p] = sel[s].values[p][idx[p]];
            level_name(l);
            for (int j = 0; j < n; j++)
                if (!strcmp(out[j].name, l->name)) {
                    snprintf(why, why_len, "--levels: '%s' is given twice", l->name);
                    return -1;
                }
            n++;
            more = false;
            for (int p = sc->n_params - 1; p >= 0 && !more; p--) {
                if (++idx[p] < sel[s].n_values[p])
                    more = true;
                else
                    idx[p] = 0;
            }
        }
    }
    return n;
}

static enum mpb_status gemm_host(const struct mpb_tune_level *level, struct mpb_gemm *g, double *time_ms,
                                 char *why, size_t why_len)
{
    struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
    if (!level->scheme->run_host) {
        snprintf(why, why_len, "%s has no host model", level->name);
        return MPB_STATUS_NOT_SUPPORTED;
    }
    double t0 = mpb_now_ms();
    enum mpb_status st = level->scheme->run_host(g, level->params, &info);
    if (time_ms)
        *time_ms = mpb_now_ms() - t0;
    if (st != MPB_STATUS_OK)
        snprintf(why, why_len, "%s: %s", level->name, info.note[0] ? info.note : mpb_status_name(st));
    return st;
}

/* A kept state: the level's scheme and parameters, the problem (shape and
 * the addresses of A, B and C) it was set up on. */
struct kept_state {
    const struct mpb_scheme *scheme;
    double params[MPB_MAX_PARAMS];
    struct mpb_gemm g;
    void *state;
};

struct mpb_tune_states {
    struct kept_state *kept;
    int n, cap;
};

struct mpb_tune_states *mpb_tune_states_new(void)
{
    return calloc(1, sizeof(struct mpb_tune_states));
}

void mpb_tune_states_release(const struct mpb_tune_exec *x)
{
    struct mpb_tune_states *ks = x->states;
    for (int i = 0; ks && i < ks->n; i++)
        ks->kept[i].scheme->cuda->teardown(x->env, ks->kept[i].state);
    if (ks)
        ks->n = 0;
}

void mpb_tune_states_free(const struct mpb_tune_exec *x)
{
    mpb_tune_states_release(x);
    if (x->states)
        free(x->states->kept);
    free(x->states);
}

static bool same_problem(const struct kept_state *k, const struct mpb_tune_level *level, const struct mpb_gemm *g)
{
    return k->scheme == level->scheme && !memcmp(k->params, level->params, sizeof k->params) && k->g.m == g->m &&
           k->g.n == g->n && k->g.k == g->k && k->g.a == g->a && k->g.b == g->b && k->g.c == g->c;
}

/* The kept state of this level and problem, or NULL. */
static void *kept_state(const struct mpb_tune_exec *x, const struct mpb_tune_level *level, const struct mpb_gemm *g)
{
    struct mpb_tune_states *ks = x->states;
    for (int i = 0; ks && level->scheme->state_reusable && i < ks->n; i++)
        if (same_problem(&ks->kept[i], level, g))
            return ks->kept[i].state;
    return NULL;
}

/* Keep a new state; false (the caller tears it down) when it cannot be kept. */
static bool keep_state(const struct mpb_tune_exec *x, const struct mpb_tune_level *level, const struct mpb_gemm *g,
                       void *state)
{
    struct mpb_tune_states *ks = x->states;
    if (!ks || !level->scheme->state_reusable)
        return false;
    if (ks->n == ks->cap) {
        int cap = ks->cap ? 2 * ks->cap : 32;
        struct kept_state *grown = realloc(ks->kept, sizeof *grown * (size_t)cap);
        if (!grown)
            return false;
        ks->kept = grown;
        ks->cap = cap;
    }
    struct kept_state *k = &ks->kept[ks->n++];
    k->scheme = level->scheme;
    memcpy(k->params, level->params, sizeof k->params);
    k->g = *g;
    k->state = state;
    return true;
}

/* Drop a kept state (its run failed: it is not trusted again). */
static void drop_state(const struct mpb_tune_exec *x, void *state)
{
    struct mpb_tune_states *ks = x->states;
    for (int i = 0; ks && i < ks->n; i++)
        if (ks->kept[i].state == state) {
            ks->kept[i] = ks->kept[--ks->n];
            return;
        }
}

/* Before a new setup: when the free device memory would not hold the
 * scheme's workspace with room to spare, the kept states go (their
 * workspaces are what fills the GPU over many levels and GEMMs). */
static void make_room(const struct mpb_tune_exec *x, const struct mpb_tune_level *level, const struct mpb_gemm *g)
{
    size_t free_bytes = 0, total = 0;
    if (!x->states || !x->states->n || mpb_cuda_mem_info(x->env, &free_bytes, &total) != MPB_STATUS_OK)
        return;
    size_t need = level->scheme->workspace_bytes ? level->scheme->workspace_bytes(level->params, g, true) : 0;
    if (need > free_bytes / 2 || free_bytes < total / 8)
        mpb_tune_states_release(x);
}

/* On the GPU, on device operands: the scheme set up on them (or the state
 * kept from an earlier call on the same operands, for a state_reusable
 * scheme), run once (and synchronised) or timed. A state is kept only for
 * schemes whose setup reads no operand value: the interface lets setup
 * read the operands (the native fp16/bf16 levels convert A and B there)
 * and bind their addresses (fp32split's plan binds C), so any other state
 * holds only for the call it was set up for and is torn down after it. */
static enum mpb_status gemm_cuda(const struct mpb_tune_exec *x, const struct mpb_tune_level *level,
                                 const struct mpb_gemm *g, double *time_ms, char *why, size_t why_len)
{
    const struct mpb_scheme_cuda *ops = level->scheme->cuda;
    if (!ops) {
        snprintf(why, why_len, "%s has no CUDA implementation", level->name);
        return MPB_STATUS_NOT_SUPPORTED;
    }
    double *times = time_ms ? malloc(sizeof *times * (size_t)x->reps) : NULL, phases[MPB_PHASE_COUNT];
    const char *stage = "scheme setup";
    if (time_ms && !times) {
        snprintf(why, why_len, "%s: out of host memory", level->name);
        return MPB_STATUS_ERROR;
    }
    void *state = kept_state(x, level, g);
    bool kept = state != NULL;
    enum mpb_status st = MPB_STATUS_OK;
    if (!kept) {
        make_room(x, level, g);
        st = ops->setup(x->env, g, level->params, &state);
        kept = st == MPB_STATUS_OK && keep_state(x, level, g, state);
    }
    if (st == MPB_STATUS_OK && time_ms) {
        stage = "timed calls";
        st = mpb_cuda_time(x->env, ops, state, g, x->warmup, 0, x->reps, times, phases, NULL);
        if (st == MPB_STATUS_OK)
            *time_ms = mpb_timing_stats(times, x->reps).median;
    } else if (st == MPB_STATUS_OK) {
        stage = "the call";
        st = ops->run(x->env, state, g, NULL);
        if (st == MPB_STATUS_OK)
            st = mpb_cuda_sync(x->env);
    }
    if (st != MPB_STATUS_OK)
        snprintf(why, why_len, "%s: %s: %s", level->name, stage, mpb_cuda_last_error(x->env));
    if (kept && st != MPB_STATUS_OK)
        drop_state(x, state);
    if (state && (!kept || st != MPB_STATUS_OK))
        ops->teardown(x->env, state);
    free(times);
    return st;
}

static enum mpb_status check(const struct mpb_tune_exec *x, const struct mpb_tune_level *level,
                             const struct mpb_gemm *g, char *why, size_t why_len)
{
    char reason[384];
    if (level->scheme->check &&
        !level->scheme->check(level->params, g, x->env ? mpb_cuda_device(x->env) : NULL, reason, sizeof reason)) {
        snprintf(why, why_len, "%s cannot run %lldx%lldx%lld: %s", level->name, (long long)g->m, (long long)g->n,
                 (long long)g->k, reason);
        return MPB_STATUS_NOT_SUPPORTED;
    }
    return MPB_STATUS_OK;
}

enum mpb_status mpb_tune_gemm_resident(const struct mpb_tune_exec *x, const struct mpb_tune_level *level,
                                       int64_t m, int64_t n, int64_t k, const void *a, const void *b, void *c,
                                       double *time_ms, char *why, size_t why_len)
{
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = level->scheme->target, .a = a, .b = b, .c = c};
    enum mpb_status st = check(x, level, &g, why, why_len);
    if (st != MPB_STATUS_OK)
        return st;
    return x->env ? gemm_cuda(x, level, &g, time_ms, why, why_len) : gemm_host(level, &g, time_ms, why, why_len);
}

enum mpb_status mpb_tune_gemm(const struct mpb_tune_exec *x, const struct mpb_tune_level *level, int64_t m,
                              int64_t n, int64_t k, const void *a, const void *b, void *c, char *why,
                              size_t why_len)
{
    if (!x->env)
        return mpb_tune_gemm_resident(x, level, m, n, k, a, b, c, NULL, why, why_len);
    const struct mpb_tune_exec once = {.env = x->env, .warmup = x->warmup, .reps = x->reps}; /* keeps no state */
    size_t es = mpb_target_size(level->scheme->target);
    size_t a_bytes = mpb_size_matrix(m, k, es), b_bytes = mpb_size_matrix(k, n, es);
    size_t c_bytes = mpb_size_matrix(m, n, es);
    void *da = NULL, *db = NULL, *dc = NULL;
    enum mpb_status st = MPB_STATUS_OK;
    if (mpb_cuda_alloc(x->env, &da, a_bytes) || mpb_cuda_alloc(x->env, &db, b_bytes) ||
        mpb_cuda_alloc(x->env, &dc, c_bytes) || mpb_cuda_upload(x->env, da, a, a_bytes) ||
        mpb_cuda_upload(x->env, db, b, b_bytes)) {
        snprintf(why, why_len, "%s: staging A and B: %s", level->name, mpb_cuda_last_error(x->env));
        st = MPB_STATUS_ERROR;
    }
    if (st == MPB_STATUS_OK)
        st = mpb_tune_gemm_resident(&once, level, m, n, k, da, db, dc, NULL, why, why_len);
    if (st == MPB_STATUS_OK && mpb_cuda_download(x->env, c, dc, c_bytes)) {
        snprintf(why, why_len, "%s: downloading C: %s", level->name, mpb_cuda_last_error(x->env));
        st = MPB_STATUS_ERROR;
    }
    mpb_cuda_free(x->env, da);
    mpb_cuda_free(x->env, db);
    mpb_cuda_free(x->env, dc);
    return st;
}
