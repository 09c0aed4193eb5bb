/* The double-double reference (README "Accuracy: the reference and the
 * grades"): every entry of A·B, fast, on the host (threads) or the GPU
 * (ref_dd.cu), with identical bits on both (ref_dd_arith.h: same operations,
 * same order l = 0 … k−1). Error: |hi + lo − C_ij| ≤ 3k·u²·(1 + 4ku)·(|A||B|)_ij +
 * k·2^-1075 (u = 2^-53; derivation in ref_dd_arith.h), i.e. below
 * 3k·2^-53·(1 + 4ku) in units of u_fp64·(|A||B|)_ij, the unit of ρ_A.
 * `--ref dd` checks it against the exact MPFR reference on the entries that
 * `--ref mpfr` would sample and reports the worst ratio (`ref_check`). */
#ifndef MPB_REF_DD_H
#define MPB_REF_DD_H

#include <stdbool.h>
#include <stdint.h>
#include "reference.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The output of the dd reference, three m×n column-major arrays:
 * hi + lo ≈ C_ij (normalized: hi = RN(hi + lo)); absab = Σ_l |RN(a_il·b_lj)|
 * in double, within a relative (k+1)·2^-53 (+ k·2^-1075) of (|A||B|)_ij.
 * An entry whose evaluation left the double range is NaN or ±Inf in hi. */
struct mpb_ref_dd_out {
    double *hi, *lo, *absab;
};

/* All entries of A·B (g->a, g->b host arrays of g->target's type) with
 * `threads` threads (0 = one per online core). False when out of memory. */
bool mpb_ref_dd_host(const struct mpb_gemm *g, int threads, const struct mpb_ref_dd_out *out);

/* The same on the GPU: g->a, g->b and the three arrays of `out` are device
 * pointers; enqueued on env's stream. m, n, k < 2^31. */
struct mpb_cuda_env;
enum mpb_status mpb_ref_dd_cuda(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                const struct mpb_ref_dd_out *out);

/* Entry p of `out` as a reference value (reference.h): hi, lo, absab as
 * computed, `rounded` = RN_target(hi + lo) (for fp32 from hi and lo's sign,
 * which decides a tie), finite = hi is finite. */
struct mpb_ref_value mpb_ref_dd_value(const struct mpb_ref_dd_out *out, int64_t p,
                                      enum mpb_target target);

/* |dd − exact| / (u·(|A||B|)_ij) for one entry, u the target's unit
 * roundoff, against the exact value x (mpb_ref_mpfr): the dd error in the
 * unit of ρ_A. 0 when both agree exactly (0/0 included), +Inf when only one
 * is finite or |A||B| = 0 with a nonzero difference; NaN and ±Inf entries
 * that agree (both NaN, or the same infinity) give 0. */
double mpb_ref_dd_disagreement(const struct mpb_ref_value *dd, const struct mpb_ref_value *x,
                               enum mpb_target target);

#ifdef __cplusplus
}
#endif

#endif
