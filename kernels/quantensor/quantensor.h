/* quantensor_int8: FP32 GEMM on INT8 tensor cores by QuanTensor-style
 * quantisation and residual refinement (kernels/quantensor/README.md;
 * QuanTensor, Li, Xue et al., CGO 2021, is closed source: this is built
 * from its descriptions in MixPert §2.2 and moTuner §4).
 * Arithmetic in quantensor_arith.h (levels, slices, accumulation order);
 * parameters, check(), bound and notes in quantensor_params.c; the host
 * model in quantensor_host.c; the CUDA backend in quantensor.cu.
 *
 * What a row reports (kernels/quantensor/README.md): slices = INT8 slices per row of A / column
 * of B (1, 2, 3, 3 at levels 0..3), fallback = 0; settings = levels, slices,
 * products (INT8 GEMMs per k chunk), the k split when there is one and, on
 * the GPU with gemm=engine, "gemm=engine launches=L"; note
 * = values the slices did not hold exactly, those lost entirely, and rows /
 * columns whose NaN/±Inf were fixed up. */
#ifndef MPB_QUANTENSOR_H
#define MPB_QUANTENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cuda_env.h"
#include "gemm.h"
#include "param.h"
#include "scheme.h"
#include "quantensor/quantensor_arith.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mpb_qt_param { MPB_QT_LEVELS = 0, MPB_QT_GEMM, MPB_QT_N_PARAMS };
/* gemm: one cublasGemmEx per slice pair and k chunk, or every product in
 * as few launches of the engine's INT8 GEMM as it takes (kernels/tc/tc_i8.h;
 * sm_90a; INT32 C, so the same exact sums), or auto
 * (common/int8_gemm_auto.h). */
enum mpb_qt_gemm { MPB_QT_GEMM_CALLS = 0, MPB_QT_GEMM_ENGINE, MPB_QT_GEMM_AUTO };

extern const struct mpb_param_spec mpb_quantensor_params[MPB_QT_N_PARAMS];

/* k padded with zeros to a multiple of 32: aligned int8 leading dimensions. */
int64_t mpb_qt_padded_k(int64_t k);

/* The slices' leading dimension: the padded k, or on the engine chunks ×
 * chunk length (zeros past k), so that every product of the batch has one
 * k, as the engine's launch requires. */
int64_t mpb_qt_slice_ld(bool engine, int64_t k);

/* The INT32 planes' leading dimension: m, or on the engine m up to a
 * multiple of 4 (the engine's rule for INT32 C). */
int64_t mpb_qt_plane_ld(bool engine, int64_t m);

/* Whether a case's products run on the engine: gemm=engine, or gemm=auto
 * where the shape wants the engine and it can run the case on dev (never
 * without a device). */
bool mpb_qt_gemm_engine_used(const double *params, const struct mpb_gemm *g,
                             const struct mpb_device_info *dev);

/* The split of the padded k into INT32-exact chunks (common/crt_arith.h's
 * limit k·128² < 2^31 covers |d| ≤ 127): their count and the length of all
 * but the last. */
void mpb_qt_chunking(int64_t k, int64_t *chunks, int64_t *len);

/* What one call lost (per operand, 0 = A, 1 = B): finite nonzero values the
 * slices do not hold exactly, those among them whose slices are all zero,
 * and rows / columns holding NaN or ±Inf. */
enum { MPB_QT_LOST_INEXACT = 0, MPB_QT_LOST_ZERO, MPB_QT_LOST_NONFINITE, MPB_QT_LOST_N };

/* settings ("levels=3 slices=3 products=9", the k split appended) and note
 * (the losses, empty when none; then cuBLAS environment variables) of a
 * row, the same on both backends. */
void mpb_qt_report(int level, int64_t k, const uint64_t lost[2][MPB_QT_LOST_N],
                   struct mpb_scheme_info *info);

bool mpb_qt_check(const double *params, const struct mpb_gemm *g,
                  const struct mpb_device_info *dev, char *why, size_t why_len);

/* Row/column-wise bound (the descriptor sets bound_rowcol):
 * |Ĉ−C|_ij ≤ f·‖A(i,:)‖₂‖B(:,j)‖₂ (quantensor_params.c has the derivation). */
double mpb_qt_bound(const double *params, int64_t k);

size_t mpb_qt_workspace(const double *params, const struct mpb_gemm *g, bool on_device);

enum mpb_status mpb_quantensor_host(const struct mpb_gemm *g, const double *params,
                                    struct mpb_scheme_info *info);

extern const struct mpb_scheme_cuda mpb_quantensor_cuda;

#ifdef __cplusplus
}
#endif

#endif
