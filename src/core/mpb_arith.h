/* Arithmetic helpers that several layers need, written once (MPB_HD: host
 * models, generators and kernels run the same lines): the bit patterns of
 * binary64 and binary32 values, and Higham's γ_k. */
#ifndef MPB_ARITH_H
#define MPB_ARITH_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "mpb_hd.h"

MPB_HD uint64_t mpb_f64_to_bits(double x)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

MPB_HD double mpb_bits_to_f64(uint64_t u)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

MPB_HD uint32_t mpb_f32_to_bits(float x)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(x);
#else
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

MPB_HD float mpb_bits_to_f32(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

/* γ_k = k·u/(1 − k·u), the factor of k roundings with unit roundoff u
 * (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed. 2002,
 * §3.1, Lemma 3.1); +Inf once k·u ≥ 1, where no bound holds. */
MPB_HD double mpb_gamma_k(int64_t k, double u)
{
    double ku = (double)k * u;
    return ku < 1.0 ? ku / (1.0 - ku) : INFINITY;
}

#endif
