/* Helpers for every scheme that calls cuBLAS. */
#ifndef MPB_CUBLAS_UTIL_H
#define MPB_CUBLAS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <cublas_api.h>
#include "../../src/gemm.h"

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

#ifdef __cplusplus
}
#endif

#endif
