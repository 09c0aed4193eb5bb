/* Element i of a matrix held in the target's type (double for fp64, float
 * for fp32), read as double or written from one: the tests' one accessor. */
#ifndef MPB_TEST_ELEM_H
#define MPB_TEST_ELEM_H

#include <stdint.h>

#include "gemm.h"

static inline double elem_get(const void *x, enum mpb_target t, int64_t i)
{
    return t == MPB_TARGET_FP64 ? ((const double *)x)[i] : (double)((const float *)x)[i];
}

static inline void elem_set(void *x, enum mpb_target t, int64_t i, double v)
{
    if (t == MPB_TARGET_FP64)
        ((double *)x)[i] = v;
    else
        ((float *)x)[i] = (float)v;
}

#endif
