/* Ozaki scheme II for complex operands: ozaki2_int8_z (complex double,
 * target fp64) and ozaki2_int8_c (complex single, target fp32); the
 * numerics are in ozaki2_complex_arith.h, the host model in
 * ozaki2_complex_host.c, the CUDA path in ozaki2_complex.cu. */
#ifndef MPB_OZAKI2_COMPLEX_H
#define MPB_OZAKI2_COMPLEX_H

#include "ozaki2/ozaki2.h"
#include "ozaki2/ozaki2_complex_arith.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The real scheme's parameters up to gemm at the same indices (so that its
 * tile choices, mpb_oz2_block_cols/rows, read them), moduli without auto
 * (so no tol) and gemm calls|batched, then the form. */
#define MPB_OZ2C_FORM (MPB_OZ2_GEMM + 1)
#define MPB_OZ2C_N_PARAMS (MPB_OZ2C_FORM + 1)

extern const struct mpb_param_spec mpb_ozaki2_int8_z_params[], mpb_ozaki2_int8_c_params[];

/* On a device: cuBLAS's int dimensions (any k: above MPB_OZ2_MAX_K it is
 * split into chunks as the real scheme splits it). */
bool mpb_oz2c_check(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev,
                    char *why, size_t why_len);

/* Row/column-wise bounds with the complex modulus (ozaki2_complex_params.c):
 * |Ĉ−C|_ij ≤ f·‖A(i,:)‖₂‖B(:,j)‖₂. */
double mpb_ozaki2_z_bound(const double *params, int64_t k);
double mpb_ozaki2_c_bound(const double *params, int64_t k);

/* Columns of C whose INT32 products the GPU holds at once: the INT8
 * GEMMs and the CRT pass go tile by tile, so the products take
 * 4·G·N bytes per entry of a tile, not of C. A multiple of the GEMM tile
 * (mpb_oz2_block_cols), at least 4096 columns and at most 48 tiles (each
 * tile marks two phases). */
int64_t mpb_oz2c_product_cols(const double *params, int64_t n);

/* Bytes beyond A, B and C: of the host model (on_device false) or of
 * setup (true). */
size_t mpb_ozaki2_complex_workspace(const double *params, const struct mpb_gemm *g, bool on_device);

enum mpb_status mpb_ozaki2_complex_host(const struct mpb_gemm *g, const double *params,
                                        struct mpb_scheme_info *info);

/* The host model with every product split along k into chunks of at most
 * `chunk` terms (one INT32 sum each, folded modulo 2·m_t as on the GPU),
 * at any k; mpb_ozaki2_complex_host splits only above MPB_OZ2_MAX_K, into
 * MPB_CRT_CHUNK_K. The output does not depend on the split. */
enum mpb_status mpb_ozaki2_complex_host_chunked(const struct mpb_gemm *g, const double *params,
                                                struct mpb_scheme_info *info, int64_t chunk);

extern const struct mpb_scheme_cuda mpb_ozaki2_complex_cuda;

#ifdef __cplusplus
}
#endif

#endif
