/* The designated entries of the Demmel generators, for the reference and
 * the grader (README "Accuracy: the reference and the grades": every
 * designated entry is checked against the exact value at every size). Host
 * only. */
#ifndef MPB_GEN_DESIGNATED_H
#define MPB_GEN_DESIGNATED_H

#include <stdint.h>
#include "gen_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* test1a: the floor(m/4) rows of A that are zero, ascending; C(row, :) = 0
 * exactly. `rows` may be NULL (count only). Returns the count. */
int64_t mpb_test1a_zero_rows(const struct mpb_gen_config *cfg, int64_t *rows);
/* test1a: the floor(n/4) columns of B that are zero, ascending; C(:, col) = 0. */
int64_t mpb_test1a_zero_cols(const struct mpb_gen_config *cfg, int64_t *cols);

/* test1b: the min(m,n)/2 pairs; C(rows[p], cols[p]) = 0 exactly (the
 * supports of row rows[p] of A and column cols[p] of B are disjoint). Rows
 * are distinct, columns are distinct. Either array may be NULL. */
int64_t mpb_test1b_pairs(const struct mpb_gen_config *cfg, int64_t *rows, int64_t *cols);

/* An exact non-negative dyadic number: (w[2]·2^128 + w[1]·2^64 + w[0])·2^exp2. */
struct mpb_gen_exact {
    uint64_t w[3];
    int exp2;
};

/* test2 and test2r: every diagonal entry C(r, r), r < min(m, n), equals
 * Σ_l x_l² over l < k. Computed exactly from the 53-bit (24-bit)
 * significands with a 192-bit integer accumulator: exp2 = −104 (fp64
 * target) or −46 (fp32); no rounding for any k < 2^86. */
void mpb_test2_diag_exact(const struct mpb_gen_config *cfg, struct mpb_gen_exact *sum);

/* hi = the exact value rounded to nearest double, lo = the rest rounded to
 * nearest: |hi + lo − exact| ≤ 2^-53·|lo| (a double-double, not exact in
 * general: the exact value may need up to 192 bits). */
void mpb_gen_exact_to_dd(const struct mpb_gen_exact *x, double *hi, double *lo);

/* test3: the leading block compared, rows [0, *rows) × columns [0, *cols):
 * (n0−1)×(n0−1), clipped so that it never holds row m−1 or column n−1. */
void mpb_test3_block(const struct mpb_gen_config *cfg, int64_t *rows, int64_t *cols);

#ifdef __cplusplus
}
#endif

#endif
