/* MPB_HD marks arithmetic shared by host models and CUDA kernels: the same
 * source line runs on both sides, so a host model computes what the GPU
 * computes (DESIGN.md "Schemes: one registry, two backends").
 * Both sides are compiled without floating-point contraction
 * (-ffp-contract=off, nvcc -fmad=false); write fma() where an FMA is meant. */
#ifndef MPB_HD_H
#define MPB_HD_H

#ifdef __CUDACC__
#define MPB_HD __host__ __device__ static inline
#else
#define MPB_HD static inline
#endif

#endif
