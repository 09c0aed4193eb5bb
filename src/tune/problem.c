/* A chain at one seed as a tuning problem (problem.h). */
#include "tune/problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpb_size.h"
#include "schemes/registry.h"

const char *const mpb_tune_metric_names[] = {"fro_rel", "abs", NULL};

double mpb_tune_error_of_sums(enum mpb_tune_metric metric, const struct mpb_tune_error_sums *s)
{
    if (s->nonfinite > 0)
        return INFINITY;
    if (metric == MPB_TUNE_ABS)
        return s->worst;
    return s->diff2 == 0 ? 0 : s->ref2 == 0 ? INFINITY : sqrt(s->diff2 / s->ref2);
}

double mpb_tune_error(enum mpb_tune_metric metric, const float *x, const double *ref, int64_t count)
{
    struct mpb_tune_error_sums s = {0, 0, 0, 0};
    for (int64_t i = 0; i < count; i++) {
        double d = (double)x[i] - ref[i];
        if (!isfinite(d)) {
            s.nonfinite = 1; /* the error is +Inf whatever the rest holds */
            break;
        }
        s.diff2 += d * d;
        s.ref2 += ref[i] * ref[i];
        s.worst = fmax(s.worst, fabs(d));
    }
    return mpb_tune_error_of_sums(metric, &s);
}

static int64_t entries(const struct mpb_tune_chain *c, int buf)
{
    return c->buffers[buf].rows * c->buffers[buf].cols;
}

/* BIAS and BIAS_RELU in the precision of T: out = a + bias per column, and
 * ReLU as x < 0 ? 0 : x, which keeps a NaN. */
#define ELEMENTWISE(T, st, c, dst, a, bias)                                         \
    do {                                                                            \
        int64_t rows = (c)->buffers[(st)->out].rows, cols = (c)->buffers[(st)->out].cols; \
        for (int64_t j = 0; j < cols; j++)                                          \
            for (int64_t i = 0; i < rows; i++) {                                    \
                T v = (a)[i + j * rows] + (bias)[j];                                \
                (dst)[i + j * rows] = (st)->kind == MPB_TUNE_BIAS_RELU && v < 0 ? 0 : v; \
            }                                                                       \
    } while (0)

/* A buffer of the FP32 chain (f) or of the FP64 one (d) as the factor steps
 * read and write it: they compute in double and store in its precision. */
struct view {
    float *f;
    double *d;
};

static double get(struct view v, int64_t i)
{
    return v.f ? (double)v.f[i] : v.d[i];
}

static void put(struct view v, int64_t i, double x)
{
    if (v.f)
        v.f[i] = (float)x;
    else
        v.d[i] = x;
}

/* l = the Cholesky factor of a's leading nb x nb block (lda its rows),
 * column by column (Cholesky-Crout); NaN throughout where a pivot is not
 * positive, so that the chain's error says the factorisation broke down.
 * Column j's sums build up in col (double, nb entries) so that the inner
 * loops run down contiguous columns; each entry still subtracts its terms
 * in the order p = 0, 1, ... */
static void potrf(struct view l, struct view a, int64_t lda, int64_t nb, double *col)
{
    for (int64_t j = 0; j < nb; j++) {
        for (int64_t i = j; i < nb; i++)
            col[i] = get(a, i + j * lda);
        for (int64_t p = 0; p < j; p++) {
            double ljp = get(l, j + p * nb);
            for (int64_t i = j; i < nb; i++)
                col[i] -= get(l, i + p * nb) * ljp;
        }
        if (!(col[j] > 0)) {
            for (int64_t i = 0; i < nb * nb; i++)
                put(l, i, NAN);
            return;
        }
        for (int64_t i = 0; i < j; i++)
            put(l, i + j * nb, 0);
        put(l, j + j * nb, sqrt(col[j]));
        double ljj = get(l, j + j * nb);
        for (int64_t i = j + 1; i < nb; i++)
            put(l, i + j * nb, col[i] / ljj);
    }
}

/* x (m x nb) = a's rows below its first lda - m, first nb columns, times
 * l⁻ᵀ: x Lᵀ = A21, forward substitution a column at a time (its sums in
 * col, m doubles, as potrf's). */
static void trsm(struct view x, int64_t m, struct view a, int64_t lda, struct view l, int64_t nb, double *col)
{
    int64_t off = lda - m;
    for (int64_t j = 0; j < nb; j++) {
        for (int64_t i = 0; i < m; i++)
            col[i] = get(a, off + i + j * lda);
        for (int64_t p = 0; p < j; p++) {
            double ljp = get(l, j + p * nb);
            for (int64_t i = 0; i < m; i++)
                col[i] -= get(x, i + p * m) * ljp;
        }
        double ljj = get(l, j + j * nb);
        for (int64_t i = 0; i < m; i++)
            put(x, i + j * m, col[i] / ljj);
    }
}

/* One of the steps other than GEMM, on the FP32 chain's buffers (f) or the
 * FP64 chain's (d); col: room for a column of the largest buffer. */
static void host_step(const struct mpb_tune_chain *c, const struct mpb_tune_step *st, float *const *f,
                      double *const *d, double *col)
{
    int64_t rows = c->buffers[st->out].rows, cols = c->buffers[st->out].cols, lda = c->buffers[st->a].rows;
    struct view out = {f ? f[st->out] : NULL, d ? d[st->out] : NULL}, a = {f ? f[st->a] : NULL, d ? d[st->a] : NULL},
                b = {f ? f[st->b] : NULL, d ? d[st->b] : NULL};
    if (st->kind == MPB_TUNE_BIAS || st->kind == MPB_TUNE_BIAS_RELU) {
        if (f)
            ELEMENTWISE(float, st, c, f[st->out], f[st->a], f[st->b]);
        else
            ELEMENTWISE(double, st, c, d[st->out], d[st->a], d[st->b]);
    } else if (st->kind == MPB_TUNE_POTRF) {
        potrf(out, a, lda, cols, col);
    } else if (st->kind == MPB_TUNE_TRSM) {
        trsm(out, rows, a, lda, b, cols, col);
    } else if (st->kind == MPB_TUNE_TRANSPOSE) {
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++)
                put(out, i + j * rows, get(a, j + i * lda));
    } else if (st->kind == MPB_TUNE_SCHUR) {
        int64_t off = lda - rows;
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++)
                put(out, i + j * rows, get(a, off + i + (off + j) * lda) - get(b, i + j * rows));
    }
}

static struct mpb_tune_level dgemm_level(void)
{
    struct mpb_tune_level l;
    mpb_tune_level_default(mpb_scheme_find("dgemm"), &l);
    return l;
}

/* dgemm of the FP32 inputs, exactly widened. */
static bool reference_gemm(const struct mpb_tune_exec *x, int64_t m, int64_t n, int64_t k, const double *a,
                           const double *b, double *c, char *why, size_t why_len)
{
    struct mpb_tune_level dgemm = dgemm_level();
    return mpb_tune_gemm(x, &dgemm, m, n, k, a, b, c, why, why_len) == MPB_STATUS_OK;
}

static bool run_reference(struct mpb_tune_chain_run *r, char *why, size_t why_len)
{
    const struct mpb_tune_chain *c = r->chain;
    for (int s = 0; s < c->n_steps; s++) {
        const struct mpb_tune_step *st = &c->steps[s];
        if (st->kind == MPB_TUNE_GEMM) {
            if (!reference_gemm(r->exec, c->buffers[st->out].rows, c->buffers[st->out].cols,
                                c->buffers[st->a].cols, r->ref[st->a], r->ref[st->b], r->ref[st->out], why,
                                why_len))
                return false;
        } else {
            host_step(c, st, NULL, r->ref, r->column);
        }
    }
    return true;
}

/* What a GEMM under `level` allocates beyond its operands, as the runner
 * counts it: the scheme's own count, or on the host, without one, as much
 * as A, B and C. */
static size_t level_workspace(const struct mpb_tune_level *level, const struct mpb_gemm *g, bool on_device)
{
    const struct mpb_scheme *s = level->scheme;
    if (s->workspace_bytes)
        return s->workspace_bytes(level->params, g, on_device);
    size_t es = mpb_target_size(g->target);
    return on_device ? 0
                     : mpb_size_add(mpb_size_add(mpb_size_matrix(g->m, g->k, es), mpb_size_matrix(g->k, g->n, es)),
                                    mpb_size_matrix(g->m, g->n, es));
}

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

void mpb_tune_chain_memory(const struct mpb_tune_chain *c, const struct mpb_tune_level *levels, int n_levels,
                           bool on_device, size_t *host, size_t *device)
{
    /* Per chain run (problem.h): each buffer in FP32 and FP64 on the host,
     * on the device its copy and its reference's; the factorisation's column
     * and the refined solve's two vectors; per op its operands alone. */
    size_t run_host = 0, run_dev = 0, transient_host = 0, transient_dev = 0, workspace = 0;
    int64_t rows = 1, most_c = 0;
    for (int b = 0; b < c->n_buffers; b++) {
        size_t both = mpb_size_matrix(c->buffers[b].rows, c->buffers[b].cols, sizeof(float) + sizeof(double));
        run_host = mpb_size_add(run_host, both);
        run_dev = mpb_size_add(run_dev, both);
        rows = c->buffers[b].rows > rows ? c->buffers[b].rows : rows;
    }
    run_host = mpb_size_add(mpb_size_add(run_host, mpb_size_matrix(rows, 1, sizeof(double))),
                            mpb_size_matrix(c->size, 2, sizeof(double)));
    struct mpb_tune_level dgemm = dgemm_level(), sgemm;
    mpb_tune_level_default(mpb_scheme_find("sgemm"), &sgemm);
    for (int i = 0; i < c->n_ops; i++) {
        const struct mpb_tune_step *st = &c->steps[c->gemm_step[i]];
        int64_t m = c->buffers[st->out].rows, n = c->buffers[st->out].cols, k = c->buffers[st->a].cols;
        /* alone: A and B in FP32, dgemm's C in FP64, kept on both sides */
        size_t alone = mpb_size_add(mpb_size_matrix(m, k, sizeof(float)), mpb_size_matrix(k, n, sizeof(float)));
        alone = mpb_size_add(alone, mpb_size_matrix(m, n, sizeof(double)));
        run_host = mpb_size_add(run_host, alone);
        run_dev = mpb_size_add(run_dev, alone);
        most_c = m * n > most_c ? m * n : most_c;
        /* made once: A and B widened on the host; the reference's staging on the GPU */
        size_t wide = mpb_size_add(mpb_size_matrix(m, k, sizeof(double)), mpb_size_matrix(k, n, sizeof(double)));
        transient_host = max_size(transient_host, wide);
        transient_dev = max_size(transient_dev, mpb_size_add(wide, mpb_size_matrix(m, n, sizeof(double))));
        for (int l = -2; l < n_levels; l++) {
            const struct mpb_tune_level *level = l == -2 ? &dgemm : l == -1 ? &sgemm : &levels[l];
            struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = level->scheme->target};
            workspace = max_size(workspace, level_workspace(level, &g, on_device));
        }
    }
    size_t alone_c = mpb_size_matrix(most_c, 1, sizeof(float));
    run_host = mpb_size_add(run_host, alone_c);
    run_dev = mpb_size_add(mpb_size_add(run_dev, alone_c), mpb_tune_device_sums_scratch_bytes());
    *host = mpb_size_add(mpb_size_mul(2, run_host), transient_host);
    *device = 0;
    if (on_device)
        *device = mpb_size_add(mpb_size_add(mpb_size_mul(2, run_dev), transient_dev), workspace);
    else
        *host = mpb_size_add(*host, workspace);
}

/* A failed CUDA call of the chain's own copies, as a sentence. */
static bool cuda_failed(const struct mpb_tune_chain_run *r, const char *what, char *why, size_t why_len)
{
    snprintf(why, why_len, "%s at %lld: %s: %s", r->chain->name, (long long)r->chain->size, what,
             mpb_cuda_last_error(r->exec->env));
    return false;
}

/* `count` floats of `host` into their device copy *dev, allocated at the
 * first call; nothing on the host backend. */
static bool upload(struct mpb_tune_chain_run *r, void **dev, const float *host, int64_t count, char *why,
                   size_t why_len)
{
    struct mpb_cuda_env *env = r->exec->env;
    size_t bytes = mpb_size_matrix(count, 1, sizeof(float));
    if (!env)
        return true;
    if (!*dev && mpb_cuda_alloc(env, dev, bytes) != MPB_STATUS_OK)
        return cuda_failed(r, "allocating the chain on the device", why, why_len);
    if (host && mpb_cuda_upload(env, *dev, host, bytes) != MPB_STATUS_OK)
        return cuda_failed(r, "uploading an operand", why, why_len);
    return true;
}

/* Buffer `buf`'s host mirror, downloaded when a GEMM has rewritten it. */
static bool host_view(struct mpb_tune_chain_run *r, int buf, char *why, size_t why_len)
{
    if (r->stale[buf] && mpb_cuda_download(r->exec->env, r->run[buf], r->dev[buf],
                                           mpb_size_matrix(entries(r->chain, buf), 1, sizeof(float))) != MPB_STATUS_OK)
        return cuda_failed(r, "downloading a GEMM's output", why, why_len);
    r->stale[buf] = false;
    return true;
}

/* Where a GEMM reads or writes buffer `buf`: its device copy on the GPU. */
static void *operand(const struct mpb_tune_chain_run *r, int buf)
{
    return r->dev[buf] ? r->dev[buf] : r->run[buf];
}

bool mpb_tune_chain_run_open(struct mpb_tune_chain_run *r, const struct mpb_tune_chain *chain,
                             const struct mpb_tune_level *levels, const struct mpb_tune_exec *exec,
                             enum mpb_tune_metric metric, uint64_t seed, char *why, size_t why_len)
{
    memset(r, 0, sizeof *r);
    r->chain = chain;
    r->levels = levels;
    r->exec = exec;
    r->metric = metric;
    int64_t rows = 1;
    for (int b = 0; b < chain->n_buffers; b++)
        rows = chain->buffers[b].rows > rows ? chain->buffers[b].rows : rows;
    r->column = malloc(sizeof(double) * (size_t)rows);
    if (!r->column) {
        snprintf(why, why_len, "%s at %lld: out of host memory", chain->name, (long long)chain->size);
        return false;
    }
    for (int b = 0; b < chain->n_buffers; b++) {
        int64_t n = entries(chain, b);
        r->run[b] = malloc(sizeof(float) * (size_t)n);
        r->ref[b] = malloc(sizeof(double) * (size_t)n);
        if (!r->run[b] || !r->ref[b]) {
            snprintf(why, why_len, "%s at %lld: out of host memory", chain->name, (long long)chain->size);
            return false;
        }
        if (chain->buffers[b].input) {
            mpb_tune_chain_fill(chain, b, seed, r->run[b]);
            for (int64_t i = 0; i < n; i++)
                r->ref[b][i] = r->run[b][i];
        }
        if (!upload(r, &r->dev[b], chain->buffers[b].input ? r->run[b] : NULL, n, why, why_len))
            return false;
    }
    /* The steps on the inputs alone run once: no level changes them. */
    for (int s = 0; s < chain->n_steps && chain->steps[s].op < 0; s++) {
        const struct mpb_tune_step *st = &chain->steps[s];
        host_step(chain, st, r->run, NULL, r->column);
        if (!upload(r, &r->dev[st->out], r->run[st->out], entries(chain, st->out), why, why_len))
            return false;
    }
    return run_reference(r, why, why_len);
}

void mpb_tune_chain_run_close(struct mpb_tune_chain_run *r)
{
    struct mpb_cuda_env *env = r->exec ? r->exec->env : NULL;
    for (int b = 0; b < MPB_TUNE_MAX_BUFFERS; b++) {
        free(r->run[b]);
        free(r->ref[b]);
        if (env) {
            mpb_cuda_free(env, r->dev[b]);
            mpb_cuda_free(env, r->ref_dev[b]);
        }
    }
    for (int i = 0; i < MPB_TUNE_MAX_OPS; i++) {
        free(r->alone_a[i]);
        free(r->alone_b[i]);
        free(r->alone_ref[i]);
        if (env) {
            mpb_cuda_free(env, r->alone_dev_a[i]);
            mpb_cuda_free(env, r->alone_dev_b[i]);
            mpb_cuda_free(env, r->alone_ref_dev[i]);
        }
    }
    free(r->alone_c);
    free(r->column);
    if (env) {
        mpb_cuda_free(env, r->alone_dev_c);
        mpb_cuda_free(env, r->sums_scratch);
    }
    memset(r, 0, sizeof *r);
}

/* The FP32 chain through op `last` (and its epilogue) with op i under
 * per_op[i]. A GEMM runs again only when its level or an input changed,
 * unless `ms` asks for every GEMM timed (their sum). GEMMs and the bias
 * steps run where the chain's buffers are; the factorisation's steps run on
 * the host mirrors and send their output back. */
static bool run_steps(struct mpb_tune_chain_run *r, const struct mpb_tune_level *const *per_op, int last,
                      double *ms, int *gemms, char *why, size_t why_len)
{
    const struct mpb_tune_chain *c = r->chain;
    bool changed[MPB_TUNE_MAX_BUFFERS] = {false};
    *gemms = 0;
    if (ms)
        *ms = 0;
    for (int s = 0; s < c->n_steps && c->steps[s].op <= last; s++) {
        const struct mpb_tune_step *st = &c->steps[s];
        bool stale = changed[st->a] || changed[st->b];
        if (st->kind != MPB_TUNE_GEMM) {
            if (stale && r->dev[st->out] && (st->kind == MPB_TUNE_BIAS || st->kind == MPB_TUNE_BIAS_RELU)) {
                if (mpb_tune_device_bias(r->exec->env, st->kind == MPB_TUNE_BIAS_RELU, r->dev[st->out], r->dev[st->a],
                                         r->dev[st->b], c->buffers[st->out].rows,
                                         c->buffers[st->out].cols) != MPB_STATUS_OK)
                    return cuda_failed(r, "the bias step", why, why_len);
                r->stale[st->out] = true;
            } else if (stale) {
                if (!host_view(r, st->a, why, why_len) || !host_view(r, st->b, why, why_len))
                    return false;
                host_step(c, st, r->run, NULL, r->column);
                if (!upload(r, &r->dev[st->out], r->run[st->out], entries(c, st->out), why, why_len))
                    return false;
            }
            changed[st->out] = stale;
            continue;
        }
        if (!stale && !ms && r->cached[st->op] == per_op[st->op])
            continue;
        double t = 0;
        r->cached[st->op] = NULL;
        if (mpb_tune_gemm_resident(r->exec, per_op[st->op], c->buffers[st->out].rows, c->buffers[st->out].cols,
                                   c->buffers[st->a].cols, operand(r, st->a), operand(r, st->b),
                                   operand(r, st->out), ms ? &t : NULL, why, why_len) != MPB_STATUS_OK)
            return false;
        r->cached[st->op] = per_op[st->op];
        r->stale[st->out] = r->dev[st->out] != NULL;
        changed[st->out] = true;
        ++*gemms;
        if (ms)
            *ms += t;
    }
    /* What ran changed the inputs of the ops after `last`. */
    if (*gemms)
        for (int i = last + 1; i < c->n_ops; i++)
            r->cached[i] = NULL;
    return true;
}

/* The error of `count` floats at device `x` against the reference `ref`,
 * whose device copy *ref_dev is made at the first check. */
static bool device_error(struct mpb_tune_chain_run *r, const void *x, const double *ref, void **ref_dev,
                         int64_t count, double *err, char *why, size_t why_len)
{
    struct mpb_cuda_env *env = r->exec->env;
    size_t bytes = mpb_size_matrix(count, 1, sizeof(double));
    struct mpb_tune_error_sums sums;
    if (!r->sums_scratch &&
        mpb_cuda_alloc(env, &r->sums_scratch, mpb_tune_device_sums_scratch_bytes()) != MPB_STATUS_OK)
        return cuda_failed(r, "allocating the error check's scratch", why, why_len);
    if (!*ref_dev && (mpb_cuda_alloc(env, ref_dev, bytes) != MPB_STATUS_OK ||
                      mpb_cuda_upload(env, *ref_dev, ref, bytes) != MPB_STATUS_OK)) {
        cuda_failed(r, "uploading a reference for the error check", why, why_len);
        mpb_cuda_free(env, *ref_dev); /* not a copy to trust at the next check */
        *ref_dev = NULL;
        return false;
    }
    if (mpb_tune_device_error_sums(env, x, *ref_dev, count, r->sums_scratch, &sums) != MPB_STATUS_OK)
        return cuda_failed(r, "the error check", why, why_len);
    *err = mpb_tune_error_of_sums(r->metric, &sums);
    return true;
}

/* The error of buffer `buf` against the FP64 chain's: on the GPU where the
 * chain is there (no output comes back), else on the host. */
static bool buffer_error(struct mpb_tune_chain_run *r, int buf, double *err, char *why, size_t why_len)
{
    int64_t count = entries(r->chain, buf);
    if (r->dev[buf])
        return device_error(r, r->dev[buf], r->ref[buf], &r->ref_dev[buf], count, err, why, why_len);
    *err = mpb_tune_error(r->metric, r->run[buf], r->ref[buf], count);
    return true;
}

bool mpb_tune_chain_run_evaluate(void *ctx, const int *levels, int last, double *op_err, double *out_err,
                                 int *gemms, char *why, size_t why_len)
{
    struct mpb_tune_chain_run *r = ctx;
    const struct mpb_tune_chain *c = r->chain;
    const struct mpb_tune_level *per_op[MPB_TUNE_MAX_OPS] = {NULL};
    for (int i = 0; i <= last; i++)
        per_op[i] = &r->levels[levels[i]];
    if (!run_steps(r, per_op, last, NULL, gemms, why, why_len))
        return false;
    for (int i = 0; i <= last; i++)
        if (!buffer_error(r, c->steps[c->gemm_step[i]].out, &op_err[i], why, why_len))
            return false;
    return !out_err || buffer_error(r, c->output, out_err, why, why_len);
}

bool mpb_tune_chain_run_time(struct mpb_tune_chain_run *r, const struct mpb_tune_level *const *per_op, double *ms,
                             double *err, char *why, size_t why_len)
{
    int gemms;
    return run_steps(r, per_op, r->chain->n_ops - 1, ms, &gemms, why, why_len) &&
           buffer_error(r, r->chain->output, err, why, why_len);
}

/* Op `op`'s inputs as the FP64 chain has them, rounded to FP32 (on the
 * GPU, their device copies too), and dgemm's product of them; made once. */
static bool alone_inputs(struct mpb_tune_chain_run *r, int op, char *why, size_t why_len)
{
    const struct mpb_tune_chain *c = r->chain;
    const struct mpb_tune_step *st = &c->steps[c->gemm_step[op]];
    if (r->alone_ref[op])
        return true;
    int64_t na = entries(c, st->a), nb = entries(c, st->b), nc = entries(c, st->out);
    double *wa = malloc(sizeof(double) * (size_t)na), *wb = malloc(sizeof(double) * (size_t)nb);
    float *fa = malloc(sizeof(float) * (size_t)na), *fb = malloc(sizeof(float) * (size_t)nb);
    double *ref = malloc(sizeof(double) * (size_t)nc);
    int64_t most = 0; /* alone_c serves every op: the largest output */
    for (int i = 0; i < c->n_ops; i++)
        most = entries(c, c->steps[c->gemm_step[i]].out) > most ? entries(c, c->steps[c->gemm_step[i]].out) : most;
    if (!r->alone_c)
        r->alone_c = malloc(sizeof(float) * (size_t)most);
    bool ok = wa && wb && fa && fb && ref && r->alone_c;
    if (!ok)
        snprintf(why, why_len, "%s: out of host memory", c->name);
    for (int64_t i = 0; ok && i < na; i++)
        wa[i] = fa[i] = (float)r->ref[st->a][i];
    for (int64_t i = 0; ok && i < nb; i++)
        wb[i] = fb[i] = (float)r->ref[st->b][i];
    ok = ok && reference_gemm(r->exec, c->buffers[st->out].rows, c->buffers[st->out].cols, c->buffers[st->a].cols,
                              wa, wb, ref, why, why_len) &&
         upload(r, &r->alone_dev_a[op], fa, na, why, why_len) && upload(r, &r->alone_dev_b[op], fb, nb, why, why_len) &&
         upload(r, &r->alone_dev_c, NULL, most, why, why_len);
    free(wa);
    free(wb);
    if (ok) {
        r->alone_a[op] = fa;
        r->alone_b[op] = fb;
        r->alone_ref[op] = ref;
    } else {
        free(fa);
        free(fb);
        free(ref);
    }
    return ok;
}

static bool alone(struct mpb_tune_chain_run *r, const struct mpb_tune_level *level, int op, double *ms,
                  double *err, char *why, size_t why_len)
{
    const struct mpb_tune_chain *c = r->chain;
    const struct mpb_tune_step *st = &c->steps[c->gemm_step[op]];
    struct mpb_cuda_env *env = r->exec->env;
    if (!alone_inputs(r, op, why, why_len) ||
        mpb_tune_gemm_resident(r->exec, level, c->buffers[st->out].rows, c->buffers[st->out].cols,
                               c->buffers[st->a].cols, env ? r->alone_dev_a[op] : r->alone_a[op],
                               env ? r->alone_dev_b[op] : r->alone_b[op], env ? r->alone_dev_c : r->alone_c, ms,
                               why, why_len) != MPB_STATUS_OK)
        return false;
    if (!err)
        return true;
    if (env)
        return device_error(r, r->alone_dev_c, r->alone_ref[op], &r->alone_ref_dev[op], entries(c, st->out), err,
                            why, why_len);
    *err = mpb_tune_error(r->metric, r->alone_c, r->alone_ref[op], entries(c, st->out));
    return true;
}

bool mpb_tune_chain_run_standalone(void *ctx, int op, int level, double *err, char *why, size_t why_len)
{
    struct mpb_tune_chain_run *r = ctx;
    return alone(r, &r->levels[level], op, NULL, err, why, why_len);
}

bool mpb_tune_chain_run_profile(struct mpb_tune_chain_run *r, const struct mpb_tune_level *level, int op,
                                double *ms, char *why, size_t why_len)
{
    return alone(r, level, op, ms, NULL, why, why_len);
}

/* y := (L Lᵀ)⁻¹ y in double with the factor's blocks: the FP64 chain's, or
 * the FP32 chain's (host mirrors, current: host_view). */
static void factor_solve(const struct mpb_tune_chain_run *r, bool fp64, double *y)
{
    const struct mpb_tune_factor *f = &r->chain->factor;
    int64_t n = r->chain->size, nb = n / f->blocks;
    for (int k = 0; k < f->blocks; k++) { /* L y' = y */
        struct view l = {fp64 ? NULL : r->run[f->diag[k]], fp64 ? r->ref[f->diag[k]] : NULL};
        double *yk = y + k * nb;
        for (int64_t j = 0; j < nb; j++) {
            for (int64_t p = 0; p < j; p++)
                yk[j] -= get(l, j + p * nb) * yk[p];
            yk[j] /= get(l, j + j * nb);
        }
        if (f->panel[k] < 0)
            continue;
        struct view pk = {fp64 ? NULL : r->run[f->panel[k]], fp64 ? r->ref[f->panel[k]] : NULL};
        int64_t rest = n - (k + 1) * nb;
        for (int64_t p = 0; p < nb; p++)
            for (int64_t i = 0; i < rest; i++)
                yk[nb + i] -= get(pk, i + p * rest) * yk[p];
    }
    for (int k = f->blocks - 1; k >= 0; k--) { /* Lᵀ x = y' */
        struct view l = {fp64 ? NULL : r->run[f->diag[k]], fp64 ? r->ref[f->diag[k]] : NULL};
        double *yk = y + k * nb;
        if (f->panel[k] >= 0) {
            struct view pk = {fp64 ? NULL : r->run[f->panel[k]], fp64 ? r->ref[f->panel[k]] : NULL};
            int64_t rest = n - (k + 1) * nb;
            for (int64_t p = 0; p < nb; p++)
                for (int64_t i = 0; i < rest; i++)
                    yk[p] -= get(pk, i + p * rest) * yk[nb + i];
        }
        for (int64_t j = nb - 1; j >= 0; j--) {
            for (int64_t p = j + 1; p < nb; p++)
                yk[j] -= get(l, p + j * nb) * yk[p];
            yk[j] /= get(l, j + j * nb);
        }
    }
}

/* res = b - A x in double, and the backward error ‖res‖∞ / (‖A‖∞ ‖x‖∞ +
 * ‖b‖∞) (HPL-AI's residual, without its n·ε scaling); +Inf when not finite. */
static double backward_error(const double *a, const double *x, const double *b, int64_t n, double *res)
{
    double rnorm = 0, anorm = 0, xnorm = 0, bnorm = 0;
    for (int64_t i = 0; i < n; i++)
        res[i] = b[i];
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            res[i] -= a[i + j * n] * x[j];
    for (int64_t i = 0; i < n; i++) {
        double row = 0;
        for (int64_t j = 0; j < n; j++)
            row += fabs(a[i + j * n]);
        anorm = fmax(anorm, row);
        rnorm = fmax(rnorm, fabs(res[i]));
        xnorm = fmax(xnorm, fabs(x[i]));
        bnorm = fmax(bnorm, fabs(b[i]));
    }
    double e = rnorm / (anorm * xnorm + bnorm);
    return isfinite(e) ? e : INFINITY;
}

bool mpb_tune_chain_run_refine(struct mpb_tune_chain_run *r, struct mpb_tune_refinement *out, char *why,
                               size_t why_len)
{
    const struct mpb_tune_chain *c = r->chain;
    const struct mpb_tune_factor *f = &c->factor;
    int64_t n = c->size;
    for (int k = 0; k < f->blocks; k++)
        if (!host_view(r, f->diag[k], why, why_len) || (f->panel[k] >= 0 && !host_view(r, f->panel[k], why, why_len)))
            return false;
    double *x = malloc(sizeof *x * (size_t)n), *res = malloc(sizeof *res * (size_t)n);
    const double *a = r->ref[f->matrix], *b = r->ref[f->rhs];
    if (!x || !res) {
        free(x);
        free(res);
        snprintf(why, why_len, "%s: out of host memory", c->name);
        return false;
    }
    memcpy(x, b, sizeof *x * (size_t)n);
    factor_solve(r, true, x);
    out->fp64_backward_err = backward_error(a, x, b, n, res);
    memcpy(x, b, sizeof *x * (size_t)n);
    factor_solve(r, false, x);
    out->tolerance = MPB_TUNE_IR_SCALED_LIMIT * (double)n * 0x1p-53;
    out->iterations = 0;
    out->backward_err = backward_error(a, x, b, n, res);
    while (out->backward_err > out->tolerance && isfinite(out->backward_err) && out->iterations < MPB_TUNE_IR_MAX) {
        factor_solve(r, false, res);
        for (int64_t i = 0; i < n; i++)
            x[i] += res[i];
        out->iterations++;
        out->backward_err = backward_error(a, x, b, n, res);
    }
    free(x);
    free(res);
    return true;
}
