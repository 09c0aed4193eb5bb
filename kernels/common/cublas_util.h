/* Helpers for every scheme that calls cuBLAS. */
#ifndef MPB_CUBLAS_UTIL_H
#define MPB_CUBLAS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cublas_api.h>
#include "gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The 32-bit cuBLAS API takes int dimensions and leading dimensions: true
 * when m, n and k fit, else false with a reason naming `api`. */
bool mpb_cublas_int_dims(const struct mpb_gemm *g, const char *api, char *why, size_t why_len);

/* Environment variables change what cuBLAS computes behind its API (cuBLAS
 * docs §1.5 "Floating Point Emulation"; NVIDIA_TF32_OVERRIDE for TF32 tensor
 * ops). Appends "cuBLAS environment: NAME=value ..." to `note` (NUL-
 * terminated, `len` bytes in all) when any is set, so that a row is never
 * silently something else. */
void mpb_cublas_env_note(char *note, size_t len);

/* "default", "tf32_tensor_op", ... for a math mode read back from a handle;
 * "+disallow_reduced_precision_reduction" appended when that flag is set. */
const char *mpb_cublas_math_mode_name(cublasMath_t mode);

/* Columns of B per INT8→INT32 GEMM call for an n-column product: all of
 * them up to 4096, blocks of 4096 above. On the H200 one "TN" call runs at
 * 1130 TOP/s at n = 16384, 4 blocks at 1334 (1293 and 1405 sustained), and
 * at 8192 blocks edge out one call once the GPU is warm (sustained: 1238
 * one call, 1300 in 2 blocks, 1329 in 4; results/h200/fp64-emulation/lowp-gemm.csv;
 * kernels/common/README.md). The
 * whole Ozaki-II call (15 moduli, results/h200/fp64-emulation/ozaki2-tiles.csv) takes, in
 * blocks of 2048 / 4096 / 8192 / n columns: 14.4 / 13.6–14.2 / 15.2 / 14.9 ms
 * at n = 8192 and 102.1 / 102.1 / 103.5 / 115.5 ms at 16384. */
int64_t mpb_int8_block_cols(int64_t n);

/* C = op(A)·B with op(A) = Aᵀ ("TN", the layout cuBLAS's INT8 kernels run
 * fastest), INT8 inputs, INT32 output, alpha = 1, beta = 0, issued as one
 * cublasGemmEx per block of `nblock` columns of B and C. Returns the first
 * failing status (the caller reports it). */
cublasStatus_t mpb_gemm_int8_tn(cublasHandle_t handle, int m, int n, int k, const int8_t *a,
                                int lda, const int8_t *b, int ldb, int32_t *c, int ldc,
                                int64_t nblock);

#ifdef __cplusplus
}
#endif

#endif
