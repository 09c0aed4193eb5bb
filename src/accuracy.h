/* Accuracy of one case: choose the entries, compute their exact values,
 * and the metrics and grade (--ref mpfr). */
#ifndef MPB_ACCURACY_H
#define MPB_ACCURACY_H

#include <stdbool.h>
#include <stdint.h>
#include "metrics.h"
#include "plan.h"
#include "runner.h"

/* Up to this many exact products (m·n·k) every entry is checked; above it,
 * --ref-samples random entries plus the generator's designated ones. */
#define MPB_REF_FULL_LIMIT (INT64_C(1) << 24)

struct mpb_accuracy {
    int64_t n;                     /* entries checked */
    struct mpb_ref_entry *entries;
    struct mpb_ref_value *values;  /* their exact values */
    struct mpb_metrics metrics;
};

/* res must hold the host copies of A, B and C (runner keep_data). False
 * with a reason when the reference could not be computed. */
bool mpb_accuracy_measure(const struct mpb_case *c, const struct mpb_result *res, int64_t samples,
                          struct mpb_accuracy *acc, char *why, size_t why_len);
void mpb_accuracy_free(struct mpb_accuracy *acc);

#endif
