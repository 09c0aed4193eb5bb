/* Companions of MPB_CUDA_TRY / MPB_CUBLAS_TRY (src/cuda_check.h) for code
 * that cannot return a status: frees, teardowns, phase marks. The failure is
 * recorded in env through the same reporters, and the caller carries on. */
#ifndef MPB_CUDA_NOTE_H
#define MPB_CUDA_NOTE_H

#include "../../src/cuda_check.h"

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

#endif
