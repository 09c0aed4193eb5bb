/* The problem a scheme solves: C = A·B, column-major, no transposes,
 * lda = m, ldb = k, ldc = m. Elements are double for an fp64 target and
 * float for an fp32 target; complex elements (field MPB_FIELD_COMPLEX) are
 * two of them, real part first (cuDoubleComplex, cuComplex), the target
 * naming the precision of each part. Pointers are device pointers on the
 * CUDA backend and host pointers on the host backend. */
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

/* Real or complex elements: a scheme's, hence its cases'. */
enum mpb_field { MPB_FIELD_REAL = 0, MPB_FIELD_COMPLEX = 1 };

static inline int mpb_field_parts(enum mpb_field f)
{
    return f == MPB_FIELD_COMPLEX ? 2 : 1;
}

/* Bytes of one element: mpb_target_size per part. */
static inline size_t mpb_elem_size(enum mpb_target t, enum mpb_field f)
{
    return mpb_target_size(t) * (size_t)mpb_field_parts(f);
}

/* "real", "complex": the CSV's field column. */
const char *mpb_field_name(enum mpb_field f);

/* Real floating-point operations of C = A·B, the numerator of TFLOP/s and
 * GFLOP/s per watt: 2mnk, and 8mnk for complex (a complex multiply-add is
 * 4 real multiplies and 4 real adds, LAPACK Working Note 41's count, the one
 * cuBLAS's and the emulation papers' complex figures use), so that a complex
 * rate compares with the real one of the same precision. */
static inline double mpb_gemm_flops(int64_t m, int64_t n, int64_t k, enum mpb_field f)
{
    return (f == MPB_FIELD_COMPLEX ? 8.0 : 2.0) * (double)m * (double)n * (double)k;
}

struct mpb_gemm {
    int64_t m, n, k;
    enum mpb_target target;
    const void *a; /* m×k */
    const void *b; /* k×n */
    void *c;       /* m×n */
    enum mpb_field field; /* last: positional initializers of real problems leave it REAL */
};

#ifdef __cplusplus
}
#endif

#endif
