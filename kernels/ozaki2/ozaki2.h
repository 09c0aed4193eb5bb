/* Ozaki scheme II on INT8 tensor cores (Ozaki, Uchino, Imamura 2025, arXiv
 * 2504.08009; kernels/ozaki2/README.md): CRT over N pairwise-
 * coprime moduli ≤ 256, one INT8→INT32 GEMM per modulus.
 *
 * What a row reports (kernels/ozaki2/README.md):
 *   slices   = moduli used (N)
 *   fallback = 0 (there is no fallback: a row of A or column of B holding
 *              NaN or ±Inf gives NaN in its row/column of C)
 *   settings = moduli (the count used), mode, budget_bits (L: |A'||B'| < 2^L),
 *              gemm, mblock, nblock
 *   note     = with moduli=auto, why that count (mpb_oz2_auto_note)
 * Parameters: moduli (2..20; the spec's range 8..20 plus small counts for the
 * fp32 target and tests; auto: the fewest whose error bound is within the
 * native GEMM's, or within tol, ozaki2_auto.c), mode fast|accurate, nblock (columns per INT8 GEMM
 * call; 0 = auto), mblock (rows per call; 0 = auto), gemm calls|batched|engine
 * (engine: every modulus' product in one launch of the tensor-core engine's
 * INT8 GEMM, kernels/tc/tc_i8.h, which reduces each sum modulo its modulus
 * and stores it as one byte; sm_90a, k ≤ MPB_OZ2_MAX_K), tol (moduli=auto's
 * target, a normwise error relative to ‖|A||B|‖_F; 0 = the native GEMM's). */
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
    MPB_OZ2_TOL,
    MPB_OZ2_N_PARAMS
};
enum mpb_oz2_mode { MPB_OZ2_FAST = 0, MPB_OZ2_ACCURATE };
enum mpb_oz2_gemm { MPB_OZ2_GEMM_CALLS = 0, MPB_OZ2_GEMM_BATCHED, MPB_OZ2_GEMM_ENGINE, MPB_OZ2_GEMM_AUTO };

/* Parameter tables: the fp64 and fp32 targets differ in the default count. */
extern const struct mpb_param_spec mpb_ozaki2_int8_params[], mpb_ozaki2_int8_sp_params[];

/* moduli=auto (held as NaN): the count is chosen per call. */
bool mpb_oz2_is_auto(const double *params);

/* The most moduli a call may use: the count, or MPB_OZ2_MAX_MODULI for
 * auto (buffers are sized for it). */
int mpb_oz2_moduli_most(const double *params);

/* What moduli=auto reads of one operand (ozaki2_arith.h "moduli=auto's
 * statistics"): per vector (row of A, column of B) its largest |x| as abs
 * bits, its scaling statistic (fast mode: the sum of squared digits;
 * accurate: the row/column maximum of U) and its digit sum; per l < k the
 * two lower-bound sums, relative to 2^e_ref. */
struct mpb_oz2_side {
    int64_t count;
    const uint64_t *max, *stat, *l1;
    const uint64_t *sum, *sumsq;
    int e_ref;
};

/* e_ref: the largest exponent of a finite, nonzero vector (0 when none). */
int mpb_oz2_e_ref(const uint64_t *max, int64_t count);

/* The choice and why: `bound` bounds ‖Ĉ−C‖_F (before the final rounding)
 * with `moduli`, `target` is the native GEMM's ½√k·u (Higham and Mary's
 * probabilistic bound at λ = 1/2) or a user's tol (`user`), both relative
 * to a lower bound of ‖|A||B|‖_F; `fewer` is the bound with one modulus
 * less (NAN at the fewest). met: bound ≤ target; else `moduli` is the count
 * of the least bound. */
struct mpb_oz2_auto {
    int moduli;
    bool met, user;
    double bound, target, fewer;
};

/* budget[N] = mpb_oz2_crt_init(N)'s budget for every N in
 * [MPB_OZ2_MIN_MODULI, MPB_OZ2_MAX_MODULI]; tol = the tol parameter (0: the
 * native GEMM's target). False when out of host memory. */
bool mpb_oz2_auto_choose(const struct mpb_oz2_side *a, const struct mpb_oz2_side *b, int64_t k,
                         bool accurate, enum mpb_target target, double tol, const int *budget,
                         struct mpb_oz2_auto *out);

/* The choice of moduli=auto for host arrays g->a, g->b (what the host
 * model chooses). False when out of host memory. */
bool mpb_oz2_auto_host(const struct mpb_gemm *g, bool accurate, double tol, struct mpb_oz2_auto *c);

/* The row's note: "auto: 14 moduli, ...". */
void mpb_oz2_auto_note(const struct mpb_oz2_auto *c, char *buf, size_t len);

/* CRT constants for n moduli (exact, GMP). Returns false for n outside
 * [MPB_OZ2_MIN_MODULI, MPB_OZ2_MAX_MODULI]. */
bool mpb_oz2_crt_init(int n, struct mpb_oz2_crt *tab);

/* Accurate mode's statistic on the host: the row and column maxima of the
 * exact U = Ā·B̄ from digit rows da (m×k) and db (n×k), k-contiguous. */
/* c ≡ x·y (mod 2·m_t) for the CRT (mpb_crt_digit reads nothing more), as
 * the host models compute an INT8 GEMM's entry: one exact INT32 sum per
 * chunk of `len` terms along k (what one INT8 GEMM returns), the chunks
 * folded in order as the CUDA paths fold them (mpb_crt_fold); one chunk:
 * the INT32 sum itself. */
int32_t mpb_oz2_residue_dot(const int8_t *x, const int8_t *y, int64_t k, int64_t len, int64_t chunks, int t);

void mpb_oz2_u_maxima(const int8_t *da, const int8_t *db, int64_t m, int64_t n, int64_t k, uint64_t *rmax,
                      uint64_t *cmax);

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

/* The INT8 GEMMs a case runs: the gemm parameter, with auto resolved
 * (common/int8_gemm_auto.h) to the engine where the shape wants it and the
 * engine can run it on dev, else to calls (calls without a device). */
enum mpb_oz2_gemm mpb_oz2_gemm_used(const double *params, const struct mpb_gemm *g,
                                    const struct mpb_device_info *dev);
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
