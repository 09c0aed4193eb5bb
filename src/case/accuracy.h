/* Accuracy of one case: choose the entries, compute their reference values,
 * and the metrics and grade: exact values of the chosen entries (--ref
 * mpfr), or double-double values of every entry checked against the exact
 * ones (--ref dd). */
#ifndef MPB_ACCURACY_H
#define MPB_ACCURACY_H

#include <stdbool.h>
#include <stdint.h>
#include "case/metrics.h"
#include "case/plan.h"
#include "case/runner.h"

/* Up to this many exact products (m·n·k) every entry is checked; above it,
 * --ref-samples random entries plus the generator's designated ones. */
#define MPB_REF_FULL_LIMIT (INT64_C(1) << 24)

/* --ref dd: a case whose ref_check exceeds this is an error. It is 1% of
 * the smallest bound the reference judges, ρ_A = 1 (k·u·|A||B| at k = 1, the
 * rigorous conventional bound ρ_A/k ≤ 1: the dd error must stay below 1%
 * of the smallest bound it is used to judge).
 * The dd bound is 3k·2^-53 in these units (ref_dd.h), 2^-37 at k = 2^14. */
#define MPB_REF_DD_CHECK_LIMIT 0.01

struct mpb_accuracy {
    int64_t n;                     /* entries checked */
    struct mpb_ref_entry *entries;
    struct mpb_ref_value *values;  /* their reference values */
    struct mpb_metrics metrics;    /* metrics.ref_check: --ref dd only */
    struct mpb_ref_entry ref_check_at; /* --ref dd: where ref_check was reached */
};

/* res must hold the host copies of A, B and C (runner keep_data). False
 * with a reason when the reference could not be computed. */
bool mpb_accuracy_measure(const struct mpb_case *c, const struct mpb_result *res, int64_t samples,
                          struct mpb_accuracy *acc, char *why, size_t why_len);
/* --ref dd: every entry by the double-double reference, on the GPU when
 * `env` is given (the case ran there) else on the host threads; entries it
 * leaves NaN/±Inf are recomputed exactly. The entries --ref mpfr would
 * check (mpb_ref_select with `samples`) are evaluated exactly too, and the
 * worst |dd − exact| / (u·(|A||B|)_ij) over them is metrics.ref_check. The
 * metrics are those of the dd values of all m·n entries. */
bool mpb_accuracy_measure_dd(const struct mpb_case *c, const struct mpb_result *res, int64_t samples,
                             struct mpb_cuda_env *env, struct mpb_accuracy *acc, char *why,
                             size_t why_len);
void mpb_accuracy_free(struct mpb_accuracy *acc);

#endif
