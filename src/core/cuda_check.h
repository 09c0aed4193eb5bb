/* Check macros for .cu files: every CUDA runtime and cuBLAS call goes
 * through one of these (one check macro per API family, an
 * out-of-line reporter naming the call, file and line). */
#ifndef MPB_CUDA_CHECK_H
#define MPB_CUDA_CHECK_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include "cuda_env.h"

enum mpb_status mpb_cuda_fail_rt(struct mpb_cuda_env *env, cudaError_t err, const char *call,
                                 const char *file, int line);
enum mpb_status mpb_cuda_fail_blas(struct mpb_cuda_env *env, cublasStatus_t st, const char *call,
                                   const char *file, int line);

/* Evaluate a CUDA runtime call; on failure record it in env and return MPB_STATUS_ERROR. */
#define MPB_CUDA_TRY(env, call)                                                         \
    do {                                                                                \
        cudaError_t mpb_err_ = (call);                                                  \
        if (mpb_err_ != cudaSuccess)                                                    \
            return mpb_cuda_fail_rt((env), mpb_err_, #call, __FILE__, __LINE__);        \
    } while (0)

#define MPB_CUBLAS_TRY(env, call)                                                       \
    do {                                                                                \
        cublasStatus_t mpb_st_ = (call);                                                \
        if (mpb_st_ != CUBLAS_STATUS_SUCCESS)                                           \
            return mpb_cuda_fail_blas((env), mpb_st_, #call, __FILE__, __LINE__);       \
    } while (0)

/* Companions for code that cannot return a status (frees, teardowns, phase
 * marks): the failure is recorded in env and the caller carries on. */
#define MPB_CUDA_NOTE(env, call)                                                                   \
    do {                                                                                           \
        cudaError_t mpb_err_ = (call);                                                             \
        if (mpb_err_ != cudaSuccess)                                                               \
            (void)mpb_cuda_fail_rt((env), mpb_err_, #call, __FILE__, __LINE__);                    \
    } while (0)

#define MPB_CUBLAS_NOTE(env, call)                                                                 \
    do {                                                                                           \
        cublasStatus_t mpb_st_ = (call);                                                           \
        if (mpb_st_ != CUBLAS_STATUS_SUCCESS)                                                      \
            (void)mpb_cuda_fail_blas((env), mpb_st_, #call, __FILE__, __LINE__);                   \
    } while (0)

/* After a kernel launch: the launch error (configuration) now, execution
 * errors surface at the next synchronising call. */
#define MPB_LAUNCH_CHECK(env) MPB_CUDA_TRY((env), cudaGetLastError())

static inline cudaStream_t mpb_stream(struct mpb_cuda_env *env)
{
    return (cudaStream_t)mpb_cuda_stream(env);
}
static inline cublasHandle_t mpb_cublas(struct mpb_cuda_env *env)
{
    return (cublasHandle_t)mpb_cuda_cublas(env);
}

#endif
