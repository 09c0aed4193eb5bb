/* Ozaki scheme II on INT8 tensor cores (specs/schemes.md "ozaki2_int8";
 * Ozaki, Uchino, Imamura 2025, arXiv 2504.08009): CRT over N pairwise-
 * coprime moduli ≤ 256, one INT8→INT32 GEMM per modulus.
 *
 * What a row reports (kernels/ozaki2/README.md):
 *   slices   = moduli used (N)
 *   fallback = 0 (there is no fallback: a row of A or column of B holding
 *              NaN or ±Inf gives NaN in its row/column of C)
 *   settings = moduli, mode, budget_bits (L: |A'||B'| < 2^L), gemm, mblock, nblock
 * Parameters: moduli (2..20; the spec's range 8..20 plus small counts for the
 * fp32 target and tests), mode fast|accurate, nblock (columns per INT8 GEMM
 * call; 0 = auto), mblock (rows per call; 0 = auto), gemm calls|batched|engine
 * (engine: every modulus' product in one launch of the tensor-core engine's
 * INT8 GEMM, kernels/tc/tc_i8.h, which reduces each sum modulo its modulus
 * and stores it as one byte; sm_90a, k ≤ MPB_OZ2_MAX_K). */
#ifndef MPB_OZAKI2_H
#define MPB_OZAKI2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cuda_env.h"
#include "gemm.h"
#include "param.h"
#include "scheme.h"
#include "ozaki2/ozaki2_arith.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mpb_oz2_param {
    MPB_OZ2_MODULI = 0,
    MPB_OZ2_MODE,
    MPB_OZ2_NBLOCK,
    MPB_OZ2_MBLOCK,
    MPB_OZ2_GEMM,
    MPB_OZ2_N_PARAMS
};
enum mpb_oz2_mode { MPB_OZ2_FAST = 0, MPB_OZ2_ACCURATE };
enum mpb_oz2_gemm { MPB_OZ2_GEMM_CALLS = 0, MPB_OZ2_GEMM_BATCHED, MPB_OZ2_GEMM_ENGINE };

/* Parameter tables: the fp64 and fp32 targets differ in the default count. */
extern const struct mpb_param_spec mpb_ozaki2_int8_params[], mpb_ozaki2_int8_sp_params[];

/* CRT constants for n moduli (exact, GMP). Returns false for n outside
 * [MPB_OZ2_MIN_MODULI, MPB_OZ2_MAX_MODULI]. */
bool mpb_oz2_crt_init(int n, struct mpb_oz2_crt *tab);

/* INT8 GEMM output tiles: nblock columns and mblock rows each (0 = auto:
 * all rows, columns in blocks of 4096 above 4096: mpb_int8_block_cols). */
int64_t mpb_oz2_block_cols(const double *params, int64_t n);
int64_t mpb_oz2_block_rows(const double *params, int64_t m);

/* k padded to a multiple of 32 (zeros): aligned int8 leading dimensions. */
int64_t mpb_oz2_padded_k(int64_t k);

/* gemm=engine: the leading dimension of its outputs (m up to a multiple of
 * 16: the engine's rule for byte planes). */
int64_t mpb_oz2_engine_ldc(int64_t m);

/* Terms per INT8 GEMM along k: the whole padded k up to MPB_OZ2_MAX_K,
 * else chunks of at most MPB_CRT_CHUNK_K (mpb_crt_chunks and
 * mpb_crt_chunk_len over the padded k, aligned to 32). */
int64_t mpb_oz2_chunk_most(int64_t k);

/* Bytes the host model (on_device false) or setup (true) allocates beyond
 * A, B and C (the descriptor's workspace_bytes). */
size_t mpb_ozaki2_workspace(const double *params, const struct mpb_gemm *g, bool on_device);

bool mpb_oz2_check(const double *params, const struct mpb_gemm *g,
                   const struct mpb_device_info *dev, char *why, size_t why_len);

/* Row/column-wise bounds (the descriptor sets bound_rowcol):
 * |Ĉ−C|_ij ≤ f·‖A(i,:)‖₂‖B(:,j)‖₂ (ozaki2_params.c has the derivation). */
double mpb_ozaki2_bound(const double *params, int64_t k);
double mpb_ozaki2_sp_bound(const double *params, int64_t k);

enum mpb_status mpb_ozaki2_host(const struct mpb_gemm *g, const double *params,
                                struct mpb_scheme_info *info);

/* The host model with every dot product split along k into chunks of at
 * most `chunk` terms (one INT32 sum each, folded as on the GPU), at any k;
 * mpb_ozaki2_host splits only above MPB_OZ2_MAX_K, into MPB_CRT_CHUNK_K.
 * The output does not depend on the split (tests check it). */
enum mpb_status mpb_ozaki2_host_chunked(const struct mpb_gemm *g, const double *params,
                                        struct mpb_scheme_info *info, int64_t chunk);

extern const struct mpb_scheme_cuda mpb_ozaki2_cuda;

#ifdef __cplusplus
}
#endif

#endif
