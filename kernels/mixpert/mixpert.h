/* MixPert (Lin et al., LCTES'24): FP32 GEMM on the INT8 tensor
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
 * Fallback (§3.3.3, §5): a group beyond the paper's safe range (largest >
 * 32x smallest nonzero) loses bits to the alignment shift. With fallback=on
 * every product that involves such a group leaves the INT8 path (its
 * segments are zero there) and goes to a half-precision emulation, APE's
 * BF16x3 (six BF16 products, accum=rn) on the engine's float path:
 *     C = A_s B_s (INT8) + [A_u | A_s] [B ; B_u] (BF16x3, k twice over)
 * with A_u, B_u the values of unsafe groups and A_s = A - A_u, B_s likewise;
 * the two parts are added in FP32. The BF16x3 launch is skipped when no
 * group is unsafe (the packer's counts are read back for that).
 *
 * What a row reports: slices = INT8 products per k-step, fallback = 1 when
 * the BF16x3 part ran, settings = configuration, alignment, fallback and the
 * engine's tiles, note = the groups beyond the safe range (and whether they
 * fell back), groups whose scale underflowed, rows and columns recomputed
 * for NaN/Inf. */
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

/* fallback=on: the BF16x3 part's accum=rn flush length. */
#define MP_FB_FLUSH_K 256

struct mp_recipe {
    int config;          /* 1..4 for I..IV */
    int a_segs, b_segs;  /* segments kept */
    enum mp_align align;
    int kgroup;
    bool fallback;       /* unsafe groups to BF16x3 */
    int n_pairs, n_levels;
    struct tc_pair pairs[TC_MAX_S8_PAIRS]; /* level by level */
    int level_end[TC_MAX_LEVELS];
    float level_weight[TC_MAX_LEVELS];     /* 2^(-12 - 7 L) */
};

/* What the packer counted, for the note: [A, B] x [groups beyond the safe
 * range, groups whose scale underflowed, rows (columns) with NaN/Inf]. */
enum { MP_COUNT_UNSAFE = 0, MP_COUNT_UNDERFLOW, MP_COUNT_NONFINITE, MP_N_COUNTS };

enum { MP_PARAM_CONFIG = 0, MP_PARAM_ALIGN, MP_PARAM_KGROUP, MP_PARAM_FALLBACK, MPB_MIXPERT_N_PARAMS };
extern const struct mpb_param_spec mpb_mixpert_params[MPB_MIXPERT_N_PARAMS];

void mp_recipe_of(const double *params, struct mp_recipe *r);
void mp_describe(const struct mp_recipe *r, char *buf, size_t len);
void mp_note(const struct mp_recipe *r, const int64_t counts[2][MP_N_COUNTS], int64_t groups_a, int64_t groups_b,
             char *buf, size_t len);

/* Did any group leave the safe range (what decides the BF16x3 launch)? */
bool mp_fallback_runs(const struct mp_recipe *r, const int64_t counts[2][MP_N_COUNTS]);

/* The INT8 launch over planes (a_segs planes of A of m rows, then b_segs of
 * B of n rows, each ld = tc_plane_ld(TC_IN_S8, k) bytes apart), scales
 * (groups x a_scale_ld for A, then for B) and vector exponents (m, then n). */
void mp_s8_args(const struct mp_recipe *r, const struct mpb_gemm *g, const int8_t *a_planes, const int8_t *b_planes,
                const float *scales, const int *exps, struct tc_s8_args *args);

/* The fallback's planes: row v of plane p holds the first operand's half
 * (A_u, or all of B) at [0, k) and the second (A_s, or B_u) at
 * [mp_fb_offset(k), mp_fb_offset(k) + k); zero in between and beyond. */
int64_t mp_fb_offset(int64_t k);
int64_t mp_fb_ld(int64_t k);

/* The BF16x3 launch over those planes (3 of A's m rows, then 3 of B's n)
 * into c (m x n, leading dimension m). */
void mp_fb_args(const struct mpb_gemm *g, const uint16_t *a_planes, const uint16_t *b_planes, float *c,
                struct tc_gemm_args *args);

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
