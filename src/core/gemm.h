/* The problem a scheme solves: C = A·B, column-major, no transposes,
 * lda = m, ldb = k, ldc = m. Elements are double for an fp64 target and
 * float for an fp32 target. Pointers are device pointers on the CUDA
 * backend and host pointers on the host backend. */
#ifndef MPB_GEMM_H
#define MPB_GEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum mpb_target { MPB_TARGET_FP64 = 0, MPB_TARGET_FP32 = 1 };

static inline size_t mpb_target_size(enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? sizeof(double) : sizeof(float);
}

const char *mpb_target_name(enum mpb_target t);

struct mpb_gemm {
    int64_t m, n, k;
    enum mpb_target target;
    const void *a; /* m×k */
    const void *b; /* k×n */
    void *c;       /* m×n */
};

#ifdef __cplusplus
}
#endif

#endif
