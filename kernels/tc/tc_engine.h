/* mpbench's tensor-core GEMM engine (sm_90a): C = sum over a list of plane
 * pairs of A_p * B_q, for operands already split into planes (hi/lo/...),
 * accumulated in FP32 in one of two ways:
 *   accum=tc  one accumulator chained through every MMA, the pairs in the
 *             given order at each k-step (EGEMM-TC Alg. 1, moTuner, APE);
 *   accum=rn  a zeroed MMA accumulator every flush_k, then added to an FP32
 *             accumulator with round-to-nearest (Ootomo & Yokota 2022).
 * Planes are K-major: plane p of A is m rows of k values (row i at
 * a_planes[p] + i*ld), plane q of B is n rows of k values (column j of B).
 * C is column-major with leading dimension ldc, beta = 0. Optional
 * power-of-two scales: C(i,j) = acc(i,j) * 2^-(row_exp[i] + col_exp[j]).
 * tc_engine_host.c runs the same arithmetic with the MMA model of
 * tc_mma_model.h, entry by entry. */
#ifndef MPB_TC_ENGINE_H
#define MPB_TC_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_env.h"
#include "tc/tc_mma_model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TC_MAX_PLANES 3
#define TC_MAX_PAIRS 6

enum tc_accum { TC_ACCUM_TC = 0, TC_ACCUM_RN = 1 };

struct tc_pair {
    int a, b; /* plane of A, plane of B */
};

struct tc_gemm_args {
    enum tc_input fmt;
    int64_t m, n, k;
    int n_a_planes, n_b_planes;
    const void *a_planes[TC_MAX_PLANES]; /* FP16/BF16: 2-byte values; TF32: FP32 words */
    const void *b_planes[TC_MAX_PLANES];
    int64_t ld;                          /* elements per plane row: tc_plane_ld(fmt, k) */
    int n_pairs;
    struct tc_pair pairs[TC_MAX_PAIRS];  /* MMA order within each k-step */
    enum tc_accum accum;
    int flush_k;                         /* accum=rn: k per flush, a multiple of tc_flush_step(fmt) */
    const int *row_exp, *col_exp;        /* device arrays of m and n exponents, or NULL */
    float *c;
    int64_t ldc;
    int max_stages;                      /* pipeline stages at most (2..8; 0: as many as fit) */
};

/* Row length of a plane for inner dimension k: k rounded up so that rows
 * start on 16-byte boundaries (the copy engine's rule). */
int64_t tc_plane_ld(enum tc_input fmt, int64_t k);

/* Bytes per plane element. */
int tc_plane_elem_bytes(enum tc_input fmt);

/* The k that one pipeline stage covers (flush_k must be a multiple). */
int tc_flush_step(enum tc_input fmt);

/* The schemes' check() part that is the engine's: m, n, k below 2^31 (its
 * tensor maps) and, when `dev` is given, an sm_90a GPU. 0 with a reason. */
int tc_scheme_problem_supported(int64_t m, int64_t n, int64_t k, const struct mpb_device_info *dev, char *why,
                                size_t why_len);

/* Can the engine run this problem? false with a reason when not. */
int tc_gemm_supported(const struct tc_gemm_args *args, char *why, size_t why_len);

/* Block-scaled INT8 levels (MixPert, Lin et al., LCTES'24, §3.3): INT8
 * planes whose values lie in -127..127, and per group of `kgroup` values of
 * k a power-of-two scale for every row of A (a_scale) and column of B
 * (b_scale). The pairs, in MMA order, form levels (pairs level_end[L-1] .. level_end[L]-1):
 * per group and level the tensor cores sum the level's products exactly in
 * INT32 (v), and the consumers add, with ra = a_scale * level_weight[L],
 *     acc = fmaf(v * ra, b_scale, acc)      when tc_s8_scale_is_fast(ra)
 *     acc = fmaf((float)v, ra * b_scale, acc) otherwise
 * group by group, level by level, every product rounded to nearest (both
 * are RN(v * ra * b_scale + acc) while ra * b_scale is a normal float).
 * v * ra and (float)v are exact because the engine requires
 * pairs(L) * kgroup * 128^2 <= 2^22.
 * The optional row_exp/col_exp then scale C as for the float formats. */
#define TC_MAX_S8_PAIRS 8
#define TC_MAX_LEVELS 5
/* pairs(L) * kgroup at most: |v| <= 2^8 * 128^2 = 2^22 (see above). */
#define TC_S8_LEVEL_SPAN 256

struct tc_s8_args {
    int64_t m, n, k;
    int n_a_planes, n_b_planes;
    const int8_t *a_planes[TC_MAX_PLANES], *b_planes[TC_MAX_PLANES];
    int64_t ld;                              /* tc_plane_ld(TC_IN_S8, k) */
    int n_pairs;
    struct tc_pair pairs[TC_MAX_S8_PAIRS];
    int n_levels;
    int level_end[TC_MAX_LEVELS];
    float level_weight[TC_MAX_LEVELS];
    int kgroup;                              /* 32, 64 or 128 */
    const float *a_scale, *b_scale;          /* [group][scale_ld]: group g of row i at g*a_scale_ld + i */
    int64_t a_scale_ld, b_scale_ld;          /* >= m (n), multiples of 4 */
    const int *row_exp, *col_exp;
    float *c;
    int64_t ldc;
    int max_stages;
};

/* Can the engine run this block-scaled INT8 problem? false with a reason. */
int tc_s8_supported(const struct tc_s8_args *args, char *why, size_t why_len);

/* Scale groups along k. */
int64_t tc_s8_groups(int64_t k, int kgroup);

/* A launch prepared once (tensor maps, grid, shared memory) and enqueued
 * many times: what a scheme's setup and timed calls need. */
struct tc_plan;

/* Returns a cudaError_t value (0 success); on failure writes why. The
 * plan keeps the pointers of `args`: the planes and C must stay allocated. */
int tc_plan_create(const struct tc_gemm_args *args, struct tc_plan **plan, char *why, size_t why_len);
int tc_plan_launch(const struct tc_plan *plan, void *stream);
void tc_plan_destroy(struct tc_plan *plan);

/* What the plan chose (for a scheme's `settings`): "tile=128x256x64 stages=4 ...". */
void tc_plan_describe(const struct tc_plan *plan, char *buf, size_t len);

/* The block-scaled INT8 plan (tc_s8_args; same conventions as tc_plan_create). */
int tc_s8_plan_create(const struct tc_s8_args *args, struct tc_plan **plan, char *why, size_t why_len);

/* The pipeline depth the plan chose. */
int tc_plan_stages(const struct tc_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
