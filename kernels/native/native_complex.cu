/* CUDA backends of the native complex baselines: one cuBLAS call each on the
 * shared handle, operands interleaved as cuDoubleComplex / cuComplex. */
#include "native/native.h"

#include <stdio.h>
#include <stdlib.h>

#include <cuComplex.h>

#include "common/cublas_util.h"
#include "cuda_check.h"

enum complex_call { CALL_ZGEMM, CALL_CGEMM, CALL_ZGEMM3M, CALL_CGEMM3M };

static const char *const call_api[] = {"cublasZgemm", "cublasCgemm", "cublasZgemm3m", "cublasCgemm3m"};

struct complex_state {
    enum complex_call call;
};

/* The shared handle's settings stated again for every case (a cuBLAS handle
 * keeps them across cases). */
static enum mpb_status complex_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g, enum complex_call call,
                                     void **state)
{
    *state = NULL;
    char why[160];
    if (!mpb_cublas_int_dims(g, call_api[call], why, sizeof why))
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    MPB_CUBLAS_TRY(env, cublasSetPointerMode(mpb_cublas(env), CUBLAS_POINTER_MODE_HOST));
    MPB_CUBLAS_TRY(env, cublasSetMathMode(mpb_cublas(env), CUBLAS_DEFAULT_MATH));
    struct complex_state *s = (struct complex_state *)malloc(sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    s->call = call;
    *state = s;
    return MPB_STATUS_OK;
}

static enum mpb_status complex_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                   struct mpb_phase_clock *clock)
{
    const struct complex_state *s = (const struct complex_state *)state;
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
    const cuComplex onef = make_cuComplex(1, 0), zerof = make_cuComplex(0, 0);
    const cuDoubleComplex *za = (const cuDoubleComplex *)g->a, *zb = (const cuDoubleComplex *)g->b;
    const cuComplex *ca = (const cuComplex *)g->a, *cb = (const cuComplex *)g->b;
    switch (s->call) {
    case CALL_ZGEMM:
        MPB_CUBLAS_TRY(env, cublasZgemm(mpb_cublas(env), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, za, m, zb, k,
                                        &zero, (cuDoubleComplex *)g->c, m));
        break;
    case CALL_CGEMM:
        MPB_CUBLAS_TRY(env, cublasCgemm(mpb_cublas(env), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &onef, ca, m, cb, k,
                                        &zerof, (cuComplex *)g->c, m));
        break;
    case CALL_ZGEMM3M:
        MPB_CUBLAS_TRY(env, cublasZgemm3m(mpb_cublas(env), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, za, m, zb, k,
                                          &zero, (cuDoubleComplex *)g->c, m));
        break;
    case CALL_CGEMM3M:
        MPB_CUBLAS_TRY(env, cublasCgemm3m(mpb_cublas(env), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &onef, ca, m, cb, k,
                                          &zerof, (cuComplex *)g->c, m));
        break;
    }
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return MPB_STATUS_OK;
}

/* settings: the call as made, and the handle's math mode read back. */
static enum mpb_status complex_report(struct mpb_cuda_env *env, void *state, struct mpb_scheme_info *info)
{
    const struct complex_state *s = (const struct complex_state *)state;
    cublasMath_t mode;
    MPB_CUBLAS_TRY(env, cublasGetMathMode(mpb_cublas(env), &mode));
    snprintf(info->settings, sizeof info->settings, "api=%s math_mode=%s", call_api[s->call],
             mpb_cublas_math_mode_name(mode));
    info->fallback = 0;
    mpb_cublas_env_note(info->note, sizeof info->note);
    return MPB_STATUS_OK;
}

static void complex_teardown(struct mpb_cuda_env *env, void *state)
{
    (void)env;
    free(state);
}

#define COMPLEX_SETUP(name, call)                                                                    \
    static enum mpb_status name(struct mpb_cuda_env *env, const struct mpb_gemm *g, const double *params, \
                                void **state)                                                        \
    {                                                                                                \
        (void)params;                                                                                \
        return complex_setup(env, g, call, state);                                                   \
    }
COMPLEX_SETUP(zgemm_setup, CALL_ZGEMM)
COMPLEX_SETUP(cgemm_setup, CALL_CGEMM)
COMPLEX_SETUP(zgemm3m_setup, CALL_ZGEMM3M)
COMPLEX_SETUP(cgemm3m_setup, CALL_CGEMM3M)
#undef COMPLEX_SETUP

extern "C" const struct mpb_scheme_cuda mpb_zgemm_cuda = {zgemm_setup, complex_run, complex_report,
                                                          complex_teardown};
extern "C" const struct mpb_scheme_cuda mpb_cgemm_cuda = {cgemm_setup, complex_run, complex_report,
                                                          complex_teardown};
extern "C" const struct mpb_scheme_cuda mpb_zgemm3m_cuda = {zgemm3m_setup, complex_run, complex_report,
                                                            complex_teardown};
extern "C" const struct mpb_scheme_cuda mpb_cgemm3m_cuda = {cgemm3m_setup, complex_run, complex_report,
                                                            complex_teardown};
