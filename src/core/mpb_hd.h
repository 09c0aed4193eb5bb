/* MPB_HD marks arithmetic shared by host models and CUDA kernels: the same
 * source line runs on both sides, so a host model computes what the GPU
 * computes (DESIGN.md "Schemes: one registry, two backends").
 * Both sides are compiled without floating-point contraction
 * (-ffp-contract=off, nvcc -fmad=false); write fma() where an FMA is meant. */
#ifndef MPB_HD_H
#define MPB_HD_H

#include <stdint.h>

#ifdef __CUDACC__
#define MPB_HD __host__ __device__ static inline
#else
#define MPB_HD static inline
#endif

/* ⌈log2 k⌉ for k ≥ 1 (digit widths and moduli counts of several families). */
MPB_HD int mpb_ceil_log2(int64_t k)
{
    int b = 0;
    while (((int64_t)1 << b) < k)
        b++;
    return b;
}

#endif
