/* The exact reference (README "Accuracy: the reference and the grades"):
 * for chosen entries (i, j), C_ij = Σ_l a_il·b_lj with every product exact
 * in MPFR (106 bits for fp64 inputs, 48 for fp32) and one mpfr_sum. Host
 * only. */
#ifndef MPB_REFERENCE_H
#define MPB_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>
#include "gen_config.h"
#include "gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mpb_ref_entry {
    int64_t i, j;
};

struct mpb_ref_value {
    double rounded; /* C_ij correctly rounded to nearest-even in the target precision (a float value for fp32) */
    double hi, lo;  /* the exact C_ij as hi + lo: hi = RN(C_ij), lo = RN(C_ij − hi) (fp64 roundings,
                       subnormals included); error ≤ 2^-106·|C_ij|, or 2^-1075 where lo is subnormal */
    double absab;   /* (|A||B|)_ij rounded up (for ρ_A); +Inf if it overflows */
    bool finite;    /* false when the sum is NaN or ±Inf (non-finite inputs) or C_ij overflows
                       the double range; hi then holds it (NaN or ±Inf), lo = 0 */
};

/* Entries to check for a case: every entry when m·n·k ≤ full_limit, else
 * `samples` distinct entries drawn from PCG (stream 7 of the case seed, so
 * the choice is reproducible) plus the generator's designated entries
 * (Test 1 zeros: at least one entry in every zero row and column; Test 1b
 * pairs; Test 2 diagonal; Test 3 leading block). Sorted by (j, i), without
 * duplicates. Returns the count; *out is malloc'ed (NULL on failure, count −1). */
int64_t mpb_ref_select(const struct mpb_gen_config *cfg, int64_t full_limit, int64_t samples,
                       struct mpb_ref_entry **out);

/* Exact values of `n` entries of A·B (g->a, g->b host arrays of g->target's
 * type) using `threads` threads (0 = one per online core). Complex
 * operands (g->field): 2n values, out[2p] the real part of entry p and
 * out[2p + 1] its imaginary part, each part's absab its own
 * Σ|·||·| over the 2k real products of that part. */
bool mpb_ref_mpfr(const struct mpb_gemm *g, const struct mpb_ref_entry *e, int64_t n, int threads,
                  struct mpb_ref_value *out);

#ifdef __cplusplus
}
#endif

#endif
