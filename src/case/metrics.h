/* Error metrics and per-case grade (README "Accuracy: the reference and the
 * grades"), over the entries the reference checked. */
#ifndef MPB_METRICS_H
#define MPB_METRICS_H

#include <stdint.h>
#include "gemm.h"
#include "reference.h"

struct mpb_metrics {
    int64_t entries;       /* entries compared */
    double err_fro_rel;    /* ‖Ĉ−C‖_F / ‖C‖_F over the checked entries */
    double err_max_rel;    /* max |Ĉ−C|_ij / |C_ij| over C_ij ≠ 0 */
    double err_median_rel; /* median of |Ĉ−C|_ij / |C_ij| (0/0 = 0, x/0 = +Inf) */
    double rho_a_max, rho_b_max, rho_c_max; /* complex: |·| the modulus, ‖·‖ over both parts */
    double rho_a_re_max, rho_a_im_max; /* complex only (NaN for real): each part's error against its
                                          own Σ|·||·| (Re: |Ar||Br|+|Ai||Bi|, Im: |Ar||Bi|+|Ai||Br|) */
    int64_t nonfinite;     /* checked entries where Ĉ is NaN/±Inf but the exact value is finite */
    int64_t cr_mismatch;   /* checked entries with a finite reference where Ĉ is not the correctly
                              rounded C_ij (0: correctly rounded on every one); -1 none checked */
    double ref_check;      /* --ref dd: worst dd error on the exactly checked entries, in
                              units of u·(|A||B|)_ij (accuracy.h); NaN otherwise */
    char grade[2];         /* "A", "B", "C", "F"; "" when not graded (non-finite inputs) */
    char note[160];        /* why not graded */
};

/* The unit roundoff of the target: 2^-53 or 2^-24. */
double mpb_unit_roundoff(enum mpb_target t);

/* g->a, g->b, g->c: host arrays (C computed by the scheme). v[p] is the
 * reference of entry e[p]; for complex operands v[2p] and v[2p + 1] are
 * its real and imaginary parts (reference.h). Norms are accumulated in long double (x86: 15-bit
 * exponent) so Test 2's 2^±510 entries do not overflow. */
void mpb_metrics_compute(const struct mpb_gemm *g, const struct mpb_ref_entry *e,
                         const struct mpb_ref_value *v, int64_t n, struct mpb_metrics *out);

/* (|A||B|)_ij of a complex problem, |·| the modulus (the denominator of its ρ_A before u). */
long double mpb_complex_absab(const struct mpb_gemm *g, int64_t i, int64_t j);

/* The best grade whose bound holds: A ρ_A ≤ 10k, B ρ_B ≤ 10k, C ρ_C ≤ 10·k^log2(12), else F. */
char mpb_grade_of(double rho_a, double rho_b, double rho_c, int64_t k, int64_t nonfinite);

#endif
