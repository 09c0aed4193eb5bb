/* The device side of an intercepted cuBLAS call (hook_cuda.h). */
#include "hook/hook_cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_env.h"
#include "schemes/registry.h"

static bool rt_ok(cudaError_t err, const char *call, char *why, size_t why_len)
{
    if (err == cudaSuccess)
        return true;
    snprintf(why, why_len, "%s: %s", call, cudaGetErrorString(err));
    return false;
}

static bool blas_ok(cublasStatus_t st, const char *call, char *why, size_t why_len)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return true;
    snprintf(why, why_len, "%s: cuBLAS status %d", call, (int)st);
    return false;
}

#define RT(call) rt_ok((call), #call, why, why_len)
#define BLAS(call) blas_ok((call), #call, why, why_len)

void *mpb_hook_cuda_stored(const struct mpb_hook_call *c, char which, int64_t *rows)
{
    bool trans = which == 'A' ? c->transa != 'N' : which == 'B' ? c->transb != 'N' : false;
    int64_t r = which == 'B' ? c->k : c->m, s = which == 'A' ? c->k : c->n;
    int64_t ld = which == 'A' ? c->lda : which == 'B' ? c->ldb : c->ldc;
    const void *src = which == 'A' ? c->a : which == 'B' ? c->b : c->c;
    if (trans) {
        int64_t t = r;
        r = s;
        s = t;
    }
    size_t elem = mpb_elem_size(c->target, c->field);
    void *host = malloc(elem * (size_t)(r * s > 0 ? r * s : 1));
    char why[256];
    size_t why_len = sizeof why;
    if (host && RT(cudaMemcpy2DAsync(host, elem * (size_t)r, src, elem * (size_t)ld, elem * (size_t)r, (size_t)s,
                                     cudaMemcpyDeviceToHost, (cudaStream_t)c->stream)) &&
        RT(cudaStreamSynchronize((cudaStream_t)c->stream))) {
        *rows = r;
        return host;
    }
    if (host)
        mpb_hook_log_once(MPB_HOOK_LOG_DEVICE, "reading a cuBLAS call's operand %c: %s: its operands are not kept",
                          which, why);
    free(host);
    return NULL;
}

bool mpb_hook_cuda_read(void *host, const void *dev, size_t bytes, void *stream)
{
    char why[256];
    size_t why_len = sizeof why;
    if (RT(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)stream)) &&
        RT(cudaStreamSynchronize((cudaStream_t)stream)))
        return true;
    mpb_hook_log_once(MPB_HOOK_LOG_DEVICE, "reading a device alpha or beta: %s: such calls pass through unrecorded",
                      why);
    return false;
}

struct mpb_hook_timer {
    cudaEvent_t start, end;
    cudaStream_t stream;
};

struct mpb_hook_timer *mpb_hook_cuda_timer_start(void *stream)
{
    struct mpb_hook_timer *t = calloc(1, sizeof *t);
    char why[256];
    size_t why_len = sizeof why;
    if (t && RT(cudaEventCreate(&t->start)) && RT(cudaEventCreate(&t->end)) &&
        RT(cudaEventRecord(t->start, (cudaStream_t)stream))) {
        t->stream = (cudaStream_t)stream;
        return t;
    }
    if (t) {
        mpb_hook_log_once(MPB_HOOK_LOG_DEVICE, "timing a cuBLAS call: %s: its time_s is the host's", why);
        if (t->start)
            (void)RT(cudaEventDestroy(t->start));
        if (t->end)
            (void)RT(cudaEventDestroy(t->end));
    }
    free(t);
    return NULL;
}

void mpb_hook_cuda_timer_stop(struct mpb_hook_timer *t, double *seconds)
{
    char why[256];
    size_t why_len = sizeof why;
    float ms = 0;
    if (RT(cudaEventRecord(t->end, t->stream)) && RT(cudaEventSynchronize(t->end)) &&
        RT(cudaEventElapsedTime(&ms, t->start, t->end)))
        *seconds = 1e-3 * (double)ms;
    else
        mpb_hook_log_once(MPB_HOOK_LOG_DEVICE, "timing a cuBLAS call: %s: its time_s is the host's", why);
    (void)RT(cudaEventDestroy(t->start));
    (void)RT(cudaEventDestroy(t->end));
    free(t);
}

/* One mpbench CUDA env per device, opened on first use, and a lock that
 * makes its emulated calls one at a time. */
#define MAX_DEVICES 64
static struct {
    struct mpb_cuda_env *env;
    bool tried;
    char why[256];
} devices[MAX_DEVICES];
static pthread_mutex_t device_lock = PTHREAD_MUTEX_INITIALIZER;

/* X = op(src) packed rows×cols (ld rows) on the env's stream: geam with
 * beta 0, X as its B (in place: ldb = ldc, no transpose). */
static bool geam_op(cublasHandle_t h, const struct mpb_hook_call *c, char op, const void *src, int64_t ld,
                    int64_t rows, int64_t cols, void *x, char *why, size_t why_len)
{
    cublasOperation_t t = op == 'N' ? CUBLAS_OP_N : op == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
    int r = (int)rows, s = (int)cols, l = (int)ld;
    switch (mpb_hook_type(c)) {
    case 'd': {
        const double one = 1, zero = 0;
        return BLAS(cublasDgeam(h, t, CUBLAS_OP_N, r, s, &one, src, l, &zero, x, r, x, r));
    }
    case 's': {
        const float one = 1, zero = 0;
        return BLAS(cublasSgeam(h, t, CUBLAS_OP_N, r, s, &one, src, l, &zero, x, r, x, r));
    }
    case 'z': {
        const cuDoubleComplex one = {1, 0}, zero = {0, 0};
        return BLAS(cublasZgeam(h, t, CUBLAS_OP_N, r, s, &one, src, l, &zero, x, r, x, r));
    }
    default: {
        const cuComplex one = {1, 0}, zero = {0, 0};
        return BLAS(cublasCgeam(h, t, CUBLAS_OP_N, r, s, &one, src, l, &zero, x, r, x, r));
    }
    }
}

/* C = alpha·P + beta·C (P m×n packed). With beta 0, C is not read: P is
 * geam's B then. */
static bool store(cublasHandle_t h, const struct mpb_hook_call *c, const void *p, char *why, size_t why_len)
{
    int m = (int)c->m, n = (int)c->n, ldc = (int)c->ldc;
    bool no_beta = c->beta == 0 && c->beta_im == 0;
    const void *b = no_beta ? p : c->c;
    int ldb = no_beta ? m : ldc;
    switch (mpb_hook_type(c)) {
    case 'd': {
        const double al = c->alpha, be = c->beta;
        return BLAS(cublasDgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &al, p, m, &be, b, ldb, c->c, ldc));
    }
    case 's': {
        const float al = (float)c->alpha, be = (float)c->beta;
        return BLAS(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &al, p, m, &be, b, ldb, c->c, ldc));
    }
    case 'z': {
        const cuDoubleComplex al = {c->alpha, c->alpha_im}, be = {c->beta, c->beta_im};
        return BLAS(cublasZgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &al, p, m, &be, b, ldb, c->c, ldc));
    }
    default: {
        const cuComplex al = {(float)c->alpha, (float)c->alpha_im}, be = {(float)c->beta, (float)c->beta_im};
        return BLAS(cublasCgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &al, p, m, &be, b, ldb, c->c, ldc));
    }
    }
}

/* P = A·B by scheme s's CUDA backend on the env's stream, waited for. */
static bool run_scheme(struct mpb_cuda_env *env, const struct mpb_scheme *s, const double *params,
                       const struct mpb_gemm *g, char *why, size_t why_len)
{
    void *state = NULL;
    bool ok = s->cuda->setup(env, g, params, &state) == MPB_STATUS_OK &&
              s->cuda->run(env, state, g, NULL) == MPB_STATUS_OK && mpb_cuda_sync(env) == MPB_STATUS_OK;
    if (!ok)
        snprintf(why, why_len, "%s on the GPU: %s", s->name, mpb_cuda_last_error(env));
    if (s->cuda->teardown)
        s->cuda->teardown(env, state);
    return ok;
}

/* ‖P − Q‖_F / ‖Q‖_F of two device m×n arrays, downloaded. */
static bool rel_err(struct mpb_cuda_env *env, const struct mpb_hook_call *c, const void *dp, const void *dq,
                    double *err, char *why, size_t why_len)
{
    size_t count = (size_t)(c->m * c->n) * (size_t)mpb_field_parts(c->field);
    size_t bytes = count * mpb_target_size(c->target);
    void *p = malloc(bytes), *q = malloc(bytes);
    bool ok = p && q && mpb_cuda_download(env, p, dp, bytes) == MPB_STATUS_OK &&
              mpb_cuda_download(env, q, dq, bytes) == MPB_STATUS_OK;
    if (ok) {
        double diff = 0, norm = 0;
        for (size_t i = 0; i < count; i++) {
            double x = c->target == MPB_TARGET_FP64 ? ((double *)p)[i] : ((float *)p)[i];
            double y = c->target == MPB_TARGET_FP64 ? ((double *)q)[i] : ((float *)q)[i];
            diff += (x - y) * (x - y);
            norm += y * y;
        }
        *err = norm > 0 ? sqrt(diff / norm) : sqrt(diff);
    } else {
        snprintf(why, why_len, "the sampled check's download: %s", p && q ? mpb_cuda_last_error(env) : "out of memory");
    }
    free(p);
    free(q);
    return ok;
}

/* The emulation on an opened env (the device's lock held). */
static bool emulate_on(struct mpb_cuda_env *env, const struct mpb_hook_emulation *e, const struct mpb_hook_call *c,
                       double *err, char *why, size_t why_len)
{
    const struct mpb_scheme *s = e->scheme;
    size_t elem = mpb_elem_size(c->target, c->field);
    void *da = NULL, *db = NULL, *dp = NULL, *dq = NULL;
    struct mpb_gemm g = {c->m, c->n, c->k, c->target, NULL, NULL, NULL, c->field};
    char what[256] = "";
    if (s->check && !s->check(e->params, &g, mpb_cuda_device(env), what, sizeof what)) {
        snprintf(why, why_len, "%s does not take %lldx%lldx%lld: %s", s->name, (long long)c->m, (long long)c->n,
                 (long long)c->k, what);
        return false;
    }
    cublasHandle_t h = mpb_cuda_cublas(env);
    const struct mpb_scheme *native = mpb_scheme_native(c->target, c->field);
    bool ok = mpb_cuda_alloc(env, &da, elem * (size_t)(c->m * c->k)) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &db, elem * (size_t)(c->k * c->n)) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &dp, elem * (size_t)(c->m * c->n)) == MPB_STATUS_OK &&
              (!err || mpb_cuda_alloc(env, &dq, elem * (size_t)(c->m * c->n)) == MPB_STATUS_OK);
    if (!ok)
        snprintf(why, why_len, "device memory for the packed operands: %s", mpb_cuda_last_error(env));
    /* the caller's queued work (which may write A, B or C) first */
    ok = ok && RT(cudaStreamSynchronize((cudaStream_t)c->stream)) &&
         geam_op(h, c, c->transa, c->a, c->lda, c->m, c->k, da, why, why_len) &&
         geam_op(h, c, c->transb, c->b, c->ldb, c->k, c->n, db, why, why_len);
    g.a = da;
    g.b = db;
    g.c = dp;
    ok = ok && run_scheme(env, s, e->params, &g, why, why_len);
    if (ok && err) {
        struct mpb_gemm q = g;
        q.c = dq;
        double params[MPB_MAX_PARAMS];
        mpb_param_defaults(native->params, native->n_params, params);
        char skip[256];
        /* the check is the hook's own: a failure leaves the row unsampled */
        if (!run_scheme(env, native, params, &q, skip, sizeof skip) || !rel_err(env, c, dp, dq, err, skip, sizeof skip))
            mpb_hook_log_once(MPB_HOOK_LOG_DEVICE, "the sampled check against %s: %s", native->name, skip);
    }
    ok = ok && store(h, c, dp, why, why_len) && mpb_cuda_sync(env) == MPB_STATUS_OK;
    if (!ok && !why[0])
        snprintf(why, why_len, "%s", mpb_cuda_last_error(env));
    mpb_cuda_free(env, da);
    mpb_cuda_free(env, db);
    mpb_cuda_free(env, dp);
    mpb_cuda_free(env, dq);
    return ok;
}

bool mpb_hook_cuda_emulate(const struct mpb_hook_emulation *e, const struct mpb_hook_call *c, double *err,
                           char *why, size_t why_len)
{
    const struct mpb_scheme *s = e->scheme;
    if (s->target != c->target || s->field != c->field) {
        snprintf(why, why_len, "%s computes %s %s products, not this call's %s %s", s->name,
                 mpb_field_name(s->field), mpb_target_name(s->target), mpb_field_name(c->field),
                 mpb_target_name(c->target));
        return false;
    }
    if (!s->cuda) {
        snprintf(why, why_len, "%s has no CUDA backend", s->name);
        return false;
    }
    if (c->m > INT32_MAX || c->n > INT32_MAX || c->k > INT32_MAX) {
        snprintf(why, why_len, "%lldx%lldx%lld: a dimension beyond cuBLAS's int", (long long)c->m,
                 (long long)c->n, (long long)c->k);
        return false;
    }
    int dev = -1;
    if (!RT(cudaGetDevice(&dev)))
        return false;
    if (dev < 0 || dev >= MAX_DEVICES) {
        snprintf(why, why_len, "device %d: the hook emulates on devices 0..%d", dev, MAX_DEVICES - 1);
        return false;
    }
    pthread_mutex_lock(&device_lock);
    if (!devices[dev].tried) {
        devices[dev].tried = true;
        devices[dev].env = mpb_cuda_open(dev, devices[dev].why, sizeof devices[dev].why);
    }
    bool ok = devices[dev].env != NULL;
    if (!ok)
        snprintf(why, why_len, "%s", devices[dev].why);
    else
        ok = emulate_on(devices[dev].env, e, c, err, why, why_len);
    pthread_mutex_unlock(&device_lock);
    return ok;
}
