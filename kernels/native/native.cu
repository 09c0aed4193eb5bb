/* CUDA backends of the native baselines: one cuBLAS call each, on the shared
 * handle (cuda_env). The fp16 and bf16 baselines model a user who already
 * holds fp16/bf16 data, as a plain GemmEx timing does: the inputs are
 * converted once in setup, untimed, with the same MPB_HD rounding as the
 * host model. */
#include "native/native.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/cublas_util.h"
#include "cuda_check.h"
#include "common/lowp_arith.h"

/* What one native baseline calls; its settings are reported from this. */
struct mpb_native_kind {
    const char *api;        /* cuBLAS entry point */
    const char *inputs;     /* format the GEMM reads */
    const char *compute;    /* compute type passed, or "" for the typed API */
    cudaDataType_t in_type; /* CUDA_R_16F / CUDA_R_16BF: A and B converted in setup */
};

static const struct mpb_native_kind kind_dgemm = {"cublasDgemm", "fp64", "", CUDA_R_64F};
static const struct mpb_native_kind kind_sgemm = {"cublasSgemm", "fp32", "", CUDA_R_32F};
static const struct mpb_native_kind kind_tf32 = {"cublasGemmEx", "fp32",
                                                 "CUBLAS_COMPUTE_32F_FAST_TF32", CUDA_R_32F};
static const struct mpb_native_kind kind_fp16 = {"cublasGemmEx", "fp16", "CUBLAS_COMPUTE_32F",
                                                 CUDA_R_16F};
static const struct mpb_native_kind kind_bf16 = {"cublasGemmEx", "bf16", "CUBLAS_COMPUTE_32F",
                                                 CUDA_R_16BF};

static bool kind_converts(const struct mpb_native_kind *kind)
{
    return kind->in_type == CUDA_R_16F || kind->in_type == CUDA_R_16BF;
}

struct mpb_native_state {
    const struct mpb_native_kind *kind;
    uint16_t *a16, *b16; /* fp16/bf16 copies of A and B (lowp kinds only) */
};

static enum mpb_status check_int_dims(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                      const char *api)
{
    char why[160];
    if (mpb_cublas_int_dims(g, api, why, sizeof why))
        return MPB_STATUS_OK;
    return mpb_cuda_fail(env, why, __FILE__, __LINE__);
}

/* Round n fp32 values to fp16 or bf16 bits. Setup runs after A and B are
 * filled (runner.c), so the copies hold the case's data. */
static __global__ void native_convert(const float *x, uint16_t *y, size_t n, bool to_bf16)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = to_bf16 ? mpb_bf16_from_f32(x[i]) : mpb_fp16_from_f32(x[i]);
}

static enum mpb_status convert(struct mpb_cuda_env *env, const float *x, uint16_t **y, size_t n,
                               bool to_bf16)
{
    enum mpb_status st = mpb_cuda_alloc(env, (void **)y, n * sizeof **y);
    if (st != MPB_STATUS_OK || n == 0)
        return st;
    const unsigned threads = 256;
    size_t blocks = (n + threads - 1) / threads;
    native_convert<<<(unsigned)(blocks < 65535 ? blocks : 65535), threads, 0, mpb_stream(env)>>>(
        x, *y, n, to_bf16);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

static void native_teardown(struct mpb_cuda_env *env, void *state)
{
    struct mpb_native_state *s = (struct mpb_native_state *)state;
    if (!s)
        return;
    mpb_cuda_free(env, s->a16);
    mpb_cuda_free(env, s->b16);
    free(s);
}

/* Every case states the shared handle's settings again instead of trusting
 * what an earlier case left (a cuBLAS handle keeps them across cases). */
static enum mpb_status prepare(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                               struct mpb_native_state *s)
{
    const struct mpb_native_kind *kind = s->kind;
    enum mpb_status st = check_int_dims(env, g, kind->api);
    if (st != MPB_STATUS_OK)
        return st;
    MPB_CUBLAS_TRY(env, cublasSetPointerMode(mpb_cublas(env), CUBLAS_POINTER_MODE_HOST));
    MPB_CUBLAS_TRY(env, cublasSetMathMode(mpb_cublas(env), CUBLAS_DEFAULT_MATH));
    if (!kind_converts(kind))
        return MPB_STATUS_OK;
    bool to_bf16 = kind->in_type == CUDA_R_16BF;
    st = convert(env, (const float *)g->a, &s->a16, (size_t)(g->m * g->k), to_bf16);
    if (st == MPB_STATUS_OK)
        st = convert(env, (const float *)g->b, &s->b16, (size_t)(g->k * g->n), to_bf16);
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_sync(env);
    return st;
}

static enum mpb_status native_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                    const struct mpb_native_kind *kind, void **state)
{
    *state = NULL;
    struct mpb_native_state *s = (struct mpb_native_state *)calloc(1, sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    s->kind = kind;
    enum mpb_status st = prepare(env, g, s);
    if (st != MPB_STATUS_OK) {
        native_teardown(env, s);
        return st;
    }
    *state = s;
    return MPB_STATUS_OK;
}

/* settings: the call as made, and the handle's math mode read back. */
static enum mpb_status native_report(struct mpb_cuda_env *env, void *state,
                                     struct mpb_scheme_info *info)
{
    const struct mpb_native_kind *kind = ((const struct mpb_native_state *)state)->kind;
    cublasMath_t mode;
    MPB_CUBLAS_TRY(env, cublasGetMathMode(mpb_cublas(env), &mode));
    snprintf(info->settings, sizeof info->settings, "api=%s inputs=%s%s%s math_mode=%s", kind->api,
             kind->inputs, kind->compute[0] ? " compute=" : "", kind->compute,
             mpb_cublas_math_mode_name(mode));
    info->fallback = 0;
    mpb_cublas_env_note(info->note, sizeof info->note);
    return MPB_STATUS_OK;
}

static const double one = 1.0, zero = 0.0;
static const float onef = 1.0f, zerof = 0.0f;

static enum mpb_status dgemm_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                 struct mpb_phase_clock *clock)
{
    (void)state;
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    MPB_CUBLAS_TRY(env, cublasDgemm(mpb_cublas(env), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one,
                                    (const double *)g->a, m, (const double *)g->b, k, &zero,
                                    (double *)g->c, m));
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return MPB_STATUS_OK;
}

static enum mpb_status sgemm_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                 struct mpb_phase_clock *clock)
{
    (void)state;
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    MPB_CUBLAS_TRY(env, cublasSgemm(mpb_cublas(env), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &onef,
                                    (const float *)g->a, m, (const float *)g->b, k, &zerof,
                                    (float *)g->c, m));
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return MPB_STATUS_OK;
}

static enum mpb_status tf32_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                struct mpb_phase_clock *clock)
{
    (void)state;
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    MPB_CUBLAS_TRY(env,
                   cublasGemmEx(mpb_cublas(env), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &onef, g->a,
                                CUDA_R_32F, m, g->b, CUDA_R_32F, k, &zerof, g->c, CUDA_R_32F, m,
                                CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return MPB_STATUS_OK;
}

/* fp16/bf16 × fp16/bf16 → fp32 with fp32 accumulation (CUBLAS_COMPUTE_32F). */
static enum mpb_status lowp_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                struct mpb_phase_clock *clock)
{
    const struct mpb_native_state *s = (const struct mpb_native_state *)state;
    cudaDataType_t t = s->kind->in_type;
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    MPB_CUBLAS_TRY(env, cublasGemmEx(mpb_cublas(env), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &onef,
                                     s->a16, t, m, s->b16, t, k, &zerof, g->c, CUDA_R_32F, m,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return MPB_STATUS_OK;
}

static enum mpb_status dgemm_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                   const double *params, void **state)
{
    (void)params;
    return native_setup(env, g, &kind_dgemm, state);
}

static enum mpb_status sgemm_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                   const double *params, void **state)
{
    (void)params;
    return native_setup(env, g, &kind_sgemm, state);
}

static enum mpb_status tf32_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                  const double *params, void **state)
{
    (void)params;
    return native_setup(env, g, &kind_tf32, state);
}

static enum mpb_status fp16_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                  const double *params, void **state)
{
    (void)params;
    return native_setup(env, g, &kind_fp16, state);
}

static enum mpb_status bf16_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                  const double *params, void **state)
{
    (void)params;
    return native_setup(env, g, &kind_bf16, state);
}

extern "C" const struct mpb_scheme_cuda mpb_dgemm_cuda = {dgemm_setup, dgemm_run, native_report,
                                                          native_teardown};
extern "C" const struct mpb_scheme_cuda mpb_sgemm_cuda = {sgemm_setup, sgemm_run, native_report,
                                                          native_teardown};
extern "C" const struct mpb_scheme_cuda mpb_tf32_cuda = {tf32_setup, tf32_run, native_report,
                                                         native_teardown};
extern "C" const struct mpb_scheme_cuda mpb_fp16_cuda = {fp16_setup, lowp_run, native_report,
                                                         native_teardown};
extern "C" const struct mpb_scheme_cuda mpb_bf16_cuda = {bf16_setup, lowp_run, native_report,
                                                         native_teardown};
