/* Native baselines (kernels/native/README.md): plain
 * cuBLAS GEMMs in fp64, fp32, tf32, fp16 and bf16, the complex ones (4M:
 * zgemm, cgemm; 3M: zgemm3m, cgemm3m), their host models and their error
 * bounds. These are the floor and the reference point the
 * emulation schemes are measured against. */
#ifndef MPB_NATIVE_H
#define MPB_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gemm.h"
#include "scheme.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CUDA backends (native.cu; the complex ones native_complex.cu). */
extern const struct mpb_scheme_cuda mpb_dgemm_cuda, mpb_sgemm_cuda, mpb_tf32_cuda, mpb_fp16_cuda,
    mpb_bf16_cuda;
extern const struct mpb_scheme_cuda mpb_zgemm_cuda, mpb_cgemm_cuda, mpb_zgemm3m_cuda, mpb_cgemm3m_cuda;

/* Host models (native_host.c): C = A·B with the inputs rounded as the GPU
 * rounds them and products accumulated in l order with one rounding per
 * step. `params` is unused (no parameters). */
enum mpb_status mpb_dgemm_host(const struct mpb_gemm *g, const double *params,
                               struct mpb_scheme_info *info);
enum mpb_status mpb_sgemm_host(const struct mpb_gemm *g, const double *params,
                               struct mpb_scheme_info *info);
enum mpb_status mpb_tf32_host(const struct mpb_gemm *g, const double *params,
                              struct mpb_scheme_info *info);
enum mpb_status mpb_fp16_host(const struct mpb_gemm *g, const double *params,
                              struct mpb_scheme_info *info);
enum mpb_status mpb_bf16_host(const struct mpb_gemm *g, const double *params,
                              struct mpb_scheme_info *info);

/* Complex host models (native_complex_host.c, complex_arith.h): 4M, each
 * part an fma chain in l order; 3M, three fma-chain products combined. */
enum mpb_status mpb_zgemm_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info);
enum mpb_status mpb_cgemm_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info);
enum mpb_status mpb_zgemm3m_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info);
enum mpb_status mpb_cgemm3m_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info);

/* Memory beyond A, B and C (the descriptor's workspace_bytes): none for
 * dgemm and sgemm; the rounded fp32 copies of A and B on the host for tf32,
 * fp16 and bf16, and the 16-bit copies on the device for fp16 and bf16. */
size_t mpb_native_plain_workspace(const double *params, const struct mpb_gemm *g, bool on_device);
size_t mpb_native_tf32_workspace(const double *params, const struct mpb_gemm *g, bool on_device);
size_t mpb_native_half_workspace(const double *params, const struct mpb_gemm *g, bool on_device);

/* Componentwise bound factors f(k): |Ĉ − C|_ij ≤ f·(|A||B|)_ij for any
 * summation order (native_host.c has the derivation). */
double mpb_dgemm_bound(const double *params, int64_t k);
double mpb_sgemm_bound(const double *params, int64_t k);
double mpb_tf32_bound(const double *params, int64_t k);
double mpb_fp16_bound(const double *params, int64_t k);
double mpb_bf16_bound(const double *params, int64_t k);
/* Complex: |Ĉ − C|_ij ≤ f·(|A||B|)_ij with |·| the complex modulus
 * (native_complex_host.c has the derivations). */
double mpb_zgemm_bound(const double *params, int64_t k);
double mpb_cgemm_bound(const double *params, int64_t k);
double mpb_zgemm3m_bound(const double *params, int64_t k);
double mpb_cgemm3m_bound(const double *params, int64_t k);

#ifdef __cplusplus
}
#endif

#endif
