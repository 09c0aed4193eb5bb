/* Ozaki scheme I: ozaki1_fp16 (DGEMM-TC / SGEMM-TC, Mukunoki, Ozaki, Ogita,
 * Imamura 2020) and ozaki1_int8 (ozIMMU, Ootomo, Ozaki, Yokota 2024).
 * kernels/ozaki1/README.md. Arithmetic in ozaki1_arith.h;
 * the plan (slice counts and the GEMM calls) in ozaki1_plan.c; the host
 * model in ozaki1_host.c; the CUDA backend in ozaki1.cu.
 *
 * What a row reports (kernels/ozaki1/README.md): slices = digits per row of A / column of B
 * (the larger of the two for fp16), fallback = 0; settings list β, the
 * digit counts, the GEMM calls and the accumulation. */
#ifndef MPB_OZAKI1_H
#define MPB_OZAKI1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cuda_env.h"
#include "gemm.h"
#include "param.h"
#include "scheme.h"
#include "ozaki1/ozaki1_arith.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most digits per row/column: cr on Test 2 at b_max needs 2b + 53 ≈ 1060
 * bits, 133 digits of 8 bits. */
#define MPB_OZAKI1_MAX_DIGITS 160

/* Parameters, in table order (a choice is held as its index). */
enum mpb_ozaki1_fp16_param { MPB_OZ16_MODE = 0, MPB_OZ16_SLICES, MPB_OZ16_FAST, MPB_OZ16_N_PARAMS };
enum mpb_ozaki1_fp16_mode { MPB_OZ16_DP = 0, MPB_OZ16_CR, MPB_OZ16_FIXED };
enum mpb_ozaki1_int8_param { MPB_OZ8_SLICES = 0, MPB_OZ8_FAST, MPB_OZ8_ACCUM, MPB_OZ8_GEMM, MPB_OZ8_N_PARAMS };
enum mpb_ozaki1_int8_accum { MPB_OZ8_ACC_FP64 = 0, MPB_OZ8_ACC_EXACT };
/* gemm: one cublasGemmEx per call of the plan, or the engine's INT8 GEMM
 * (kernels/tc/tc_i8.h, sm_90a): the same calls, consecutive calls of one k
 * (mpb_ozaki1_call_k) batched 24 a launch; or auto (common/int8_gemm_auto.h). */
enum mpb_ozaki1_int8_gemm { MPB_OZ8_GEMM_CALLS = 0, MPB_OZ8_GEMM_ENGINE, MPB_OZ8_GEMM_AUTO };

extern const struct mpb_param_spec mpb_ozaki1_fp16_params[], mpb_ozaki1_int8_params[];

/* How the products reach C (ozaki1_arith.h "Accumulation"). */
enum mpb_ozaki1_acc {
    MPB_OZAKI1_ACC_PER_CALL,   /* acc += r·2^(−wβ) after every GEMM (int8 accum=fp64) */
    MPB_OZAKI1_ACC_PER_WEIGHT, /* S_w exact in int64, then acc += S_w·2^(−wβ) */
    MPB_OZAKI1_ACC_EXACT,      /* all S_w, then one correct rounding (fp16 cr) */
};

/* One low-precision GEMM: the pairs (p, q) = (p_lo + t, q_hi − t),
 * t < npairs, all of weight w, concatenated along k (their sum comes out of
 * one GEMM), over k-range [l0, l0 + len). group_end: last call of its w. */
struct mpb_ozaki1_call {
    int w, p_lo, q_hi, npairs, group_end;
    int64_t l0, len;
};

struct mpb_ozaki1_plan {
    int format;              /* enum mpb_ozaki1_format */
    int prec;                /* 53 or 24: bits of the target */
    int beta;                /* bits per digit */
    int sa, sb;              /* digits of A's rows, of B's columns */
    int fast;                /* triangular p + q ≤ max(sa, sb) + 1 */
    int wmax;                /* largest weight used */
    enum mpb_ozaki1_acc acc;
    int64_t k, kpad;         /* kpad: k rounded up to 16, the slice stride */
    int ncalls;
    struct mpb_ozaki1_call *calls;
    char note[160];          /* e.g. cr beyond the slice cap */
};

/* Per-vector stats → slice counts (fp16 dp/cr; the others take `slices`),
 * then the list of GEMM calls. `sta`: m rows of A with wsum = (|A|(|B|e))_i;
 * `stb`: n columns of B with wsum = ((eᵀ|A|)|B|)_j, rows/columns holding
 * NaN/±Inf taken as zero (mpb_ozaki1_stats); NULL when the mode needs none
 * (mpb_ozaki1_needs_stats). false with a reason in plan->note. */
bool mpb_ozaki1_needs_stats(int format, const double *params);
bool mpb_ozaki1_plan_make(struct mpb_ozaki1_plan *plan, int format, enum mpb_target target,
                          const double *params, int64_t m, int64_t n, int64_t k,
                          const struct mpb_ozaki1_vec_stats *sta,
                          const struct mpb_ozaki1_vec_stats *stb);
/* The k of a call's GEMM: its pairs' k-ranges side by side (npairs
 * digit rows of kpad values each), or its own block of one pair. */
int64_t mpb_ozaki1_call_k(const struct mpb_ozaki1_plan *plan, const struct mpb_ozaki1_call *call);

void mpb_ozaki1_plan_free(struct mpb_ozaki1_plan *plan);
/* "beta=7 sa=8 sb=8 gemms=36 calls=8 acc=per_weight" */
void mpb_ozaki1_plan_describe(const struct mpb_ozaki1_plan *plan, char *buf, size_t len);

/* Registry parts. */
bool mpb_ozaki1_fp16_check(const double *params, const struct mpb_gemm *g,
                           const struct mpb_device_info *dev, char *why, size_t why_len);
bool mpb_ozaki1_int8_check(const double *params, const struct mpb_gemm *g,
                           const struct mpb_device_info *dev, char *why, size_t why_len);
/* Whether ozaki1_int8's GEMMs run on the engine: gemm=engine, or gemm=auto
 * (common/int8_gemm_auto.h) where the shape wants the engine and it can run
 * the case on dev (never without a device). */
bool mpb_ozaki1_int8_engine_used(const double *params, const struct mpb_gemm *g,
                                 const struct mpb_device_info *dev);
enum mpb_status mpb_ozaki1_fp16_host(const struct mpb_gemm *g, const double *params,
                                     struct mpb_scheme_info *info);
enum mpb_status mpb_ozaki1_int8_host(const struct mpb_gemm *g, const double *params,
                                     struct mpb_scheme_info *info);
double mpb_ozaki1_fp16_bound(const double *params, int64_t k);
double mpb_ozaki1_fp16_sp_bound(const double *params, int64_t k);
double mpb_ozaki1_int8_bound(const double *params, int64_t k);
extern const struct mpb_scheme_cuda mpb_ozaki1_fp16_cuda, mpb_ozaki1_int8_cuda;

#ifdef __cplusplus
}
#endif

#endif
