/* The FP32 split family on mpbench's tensor-core engine (kernels/tc):
 *   egemm        EGEMM-TC (Feng et al., PPoPP'21): round-split
 *                FP16 hi + lo, products lo*lo, lo*hi, hi*lo, hi*hi per k-step
 *   markidis     Markidis et al. (2018): the same with the truncation split
 *   refine_fp16  moTuner's refinement levels (Mo et al., CF'22; after
 *                QuanTensor): hi*hi plus the correction products chosen by tau = t1 t2 t3
 *   tf32x3       CUTLASS 3xTF32: big*big + big*small + small*big
 *   ape_bf16x3   APE (Ma et al., ICS'22): three BF16 planes, six products
 * The split (fp32split_arith.h) is its own timed kernel (split_ms), the
 * products one engine launch (gemm_ms). A configuration is a recipe: split,
 * input format, the plane pairs in MMA order, scaling and accumulation.
 *
 * What a row reports: slices = MMAs per k-step (the plane pairs),
 * fallback = 0, settings = the recipe and the engine's tiles, note = values
 * whose split overflowed or lost bits to subnormal planes (by operand), when any. */
#ifndef MPB_FP32SPLIT_H
#define MPB_FP32SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_env.h"
#include "fp32split/fp32split_arith.h"
#include "gemm.h"
#include "param.h"
#include "scheme.h"
#include "tc/tc_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

enum fs_scheme { FS_EGEMM = 0, FS_MARKIDIS, FS_REFINE, FS_TF32X3, FS_APE };

struct fs_recipe {
    enum fs_split split;
    enum tc_input fmt;
    int n_pairs;
    struct tc_pair pairs[TC_MAX_PAIRS]; /* MMA order within a k-step, smallest first */
    int a_planes, b_planes;             /* planes the pairs use */
    bool scale;                         /* power-of-two scales per row of A, column of B */
    enum tc_accum accum;
    int flush_k;
    bool cublas;                        /* egemm engine=cublas: one cublasGemmEx per pair over all of k */
};

enum {
    MPB_EGEMM_N_PARAMS = 5,       /* terms, accum, flush_k, scale, engine */
    MPB_MARKIDIS_N_PARAMS = 4,    /* terms, accum, flush_k, scale */
    MPB_REFINE_FP16_N_PARAMS = 4, /* tau, accum, flush_k, scale */
    MPB_TF32X3_N_PARAMS = 2,      /* accum, flush_k */
    MPB_APE_BF16X3_N_PARAMS = 2,  /* accum, flush_k */
};
extern const struct mpb_param_spec mpb_egemm_params[MPB_EGEMM_N_PARAMS], mpb_markidis_params[MPB_MARKIDIS_N_PARAMS],
    mpb_refine_fp16_params[MPB_REFINE_FP16_N_PARAMS], mpb_tf32x3_params[MPB_TF32X3_N_PARAMS],
    mpb_ape_bf16x3_params[MPB_APE_BF16X3_N_PARAMS];

/* The recipe of scheme `s` with parameter values `params` (its own table's order). */
void fs_recipe_of(enum fs_scheme s, const double *params, struct fs_recipe *r);

/* "split=round16 fmt=fp16 pairs=lo*lo,lo*hi,hi*lo,hi*hi scale=rowcol accum=tc". */
void fs_recipe_describe(const struct fs_recipe *r, char *buf, size_t len);

/* Plane row length (elements) for inner dimension k. */
int64_t fs_plane_ld(const struct fs_recipe *r, int64_t k);

/* Descriptor hooks, one set per scheme. */
bool mpb_egemm_check(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev,
                     char *why, size_t why_len);
bool mpb_markidis_check(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev,
                        char *why, size_t why_len);
bool mpb_refine_fp16_check(const double *params, const struct mpb_gemm *g,
                           const struct mpb_device_info *dev, char *why, size_t why_len);
bool mpb_tf32x3_check(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev,
                      char *why, size_t why_len);
bool mpb_ape_bf16x3_check(const double *params, const struct mpb_gemm *g,
                          const struct mpb_device_info *dev, char *why, size_t why_len);

double mpb_egemm_bound(const double *params, int64_t k);
double mpb_markidis_bound(const double *params, int64_t k);
double mpb_refine_fp16_bound(const double *params, int64_t k);
double mpb_tf32x3_bound(const double *params, int64_t k);
double mpb_ape_bf16x3_bound(const double *params, int64_t k);

size_t mpb_egemm_workspace(const double *params, const struct mpb_gemm *g, bool on_device);
size_t mpb_markidis_workspace(const double *params, const struct mpb_gemm *g, bool on_device);
size_t mpb_refine_fp16_workspace(const double *params, const struct mpb_gemm *g, bool on_device);
size_t mpb_tf32x3_workspace(const double *params, const struct mpb_gemm *g, bool on_device);
size_t mpb_ape_bf16x3_workspace(const double *params, const struct mpb_gemm *g, bool on_device);

enum mpb_status mpb_egemm_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info);
enum mpb_status mpb_markidis_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info);
enum mpb_status mpb_refine_fp16_host(const struct mpb_gemm *g, const double *params,
                                     struct mpb_scheme_info *info);
enum mpb_status mpb_tf32x3_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info);
enum mpb_status mpb_ape_bf16x3_host(const struct mpb_gemm *g, const double *params,
                                    struct mpb_scheme_info *info);

extern const struct mpb_scheme_cuda mpb_egemm_cuda, mpb_markidis_cuda, mpb_refine_fp16_cuda, mpb_tf32x3_cuda,
    mpb_ape_bf16x3_cuda;

/* The note for values whose split lost range: "split of A: 12 values
 * overflowed FP16, 3 lost bits below its normal range; ..." (empty when
 * nothing was lost). */
void fs_loss_note(const int64_t lost[2][2], enum tc_input fmt, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
