/* MixPert (Lin et al., LCTES'24; papers/000): FP32 GEMM on the INT8 tensor
 * cores. A packer (its own timed kernels, split_ms) turns A and B into
 * three INT8 segment planes each with a power-of-two scale per group of
 * kgroup values of k (mixpert_arith.h); the tensor-core engine's block-
 * scaled INT8 path (kernels/tc, tc_s8_args) multiplies the segment pairs
 * of the configuration level by level in INT32 and adds each level of each
 * group, converted and scaled, to an FP32 sum (gemm_ms). Rows of A and
 * columns of B holding NaN or Inf are recomputed by a plain FP32 dot
 * product, so that they are non-finite wherever SGEMM's are.
 *
 * Configurations (§3.3.1, (l, r) = segments of A and B kept, minus one):
 * I (1,1) 4 products, II (1,2) and III (2,1) 6, IV (2,2) 8 (s2*t2 dropped).
 * What a row reports: slices = INT8 products per k-step, fallback = 0,
 * settings = configuration, alignment and the engine's tiles, note = the
 * groups beyond the paper's safe range (largest > 32x smallest nonzero,
 * §3.3.3; they are not recomputed), groups whose scale underflowed, rows
 * and columns recomputed for NaN/Inf. */
#ifndef MPB_MIXPERT_H
#define MPB_MIXPERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_env.h"
#include "gemm.h"
#include "mixpert/mixpert_arith.h"
#include "param.h"
#include "scheme.h"
#include "tc/tc_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mp_align { MP_ALIGN_ROW = 0, MP_ALIGN_TILE = 1 };

/* align=tile: the paper's MMA tile, 16 rows of A and 8 columns of B (m16n8k32). */
#define MP_TILE_ROWS_A 16
#define MP_TILE_COLS_B 8

struct mp_recipe {
    int config;          /* 1..4 for I..IV */
    int a_segs, b_segs;  /* segments kept */
    enum mp_align align;
    int kgroup;
    int n_pairs, n_levels;
    struct tc_pair pairs[TC_MAX_S8_PAIRS]; /* level by level */
    int level_end[TC_MAX_LEVELS];
    float level_weight[TC_MAX_LEVELS];     /* 2^(-12 - 7 L) */
};

/* What the packer counted, for the note: [A, B] x [groups beyond the safe
 * range, groups whose scale underflowed, rows (columns) with NaN/Inf]. */
enum { MP_COUNT_UNSAFE = 0, MP_COUNT_UNDERFLOW, MP_COUNT_NONFINITE, MP_N_COUNTS };

enum { MPB_MIXPERT_N_PARAMS = 3 }; /* config, align, kgroup */
extern const struct mpb_param_spec mpb_mixpert_params[MPB_MIXPERT_N_PARAMS];

void mp_recipe_of(const double *params, struct mp_recipe *r);
void mp_describe(const struct mp_recipe *r, char *buf, size_t len);
void mp_note(const int64_t counts[2][MP_N_COUNTS], int64_t groups_a, int64_t groups_b, char *buf, size_t len);

/* Rows (columns) per exponent group across rows: 1, or 16 (8) with align=tile. */
int mp_group_rows(const struct mp_recipe *r, int operand);

/* Scale rows hold m (n) values rounded up to a multiple of 4 (16 bytes). */
int64_t mp_scale_ld(int64_t rows);

bool mpb_mixpert_check(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev,
                       char *why, size_t why_len);
double mpb_mixpert_bound(const double *params, int64_t k);
size_t mpb_mixpert_workspace(const double *params, const struct mpb_gemm *g, bool on_device);
enum mpb_status mpb_mixpert_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info);
extern const struct mpb_scheme_cuda mpb_mixpert_cuda;

#ifdef __cplusplus
}
#endif

#endif
