/* One CSV row from a case, its result and the run's context. */
#ifndef MPB_CASE_ROW_H
#define MPB_CASE_ROW_H

#include "record/csv.h"
#include "case/metrics.h"
#include "case/plan.h"
#include "case/runner.h"

struct mpb_row_context {
    const char *run_id;
    const struct mpb_device_info *dev; /* NULL on host */
    int warmup, reps;
    const char *tags;                  /* "k=v;k=v" */
    const char *ref;                   /* "mpfr", "dd" or "none" */
};

/* acc: the accuracy of the case, NULL when no reference was computed. */
void mpb_case_row(struct mpb_row *row, const struct mpb_row_context *ctx, const struct mpb_case *c,
                  const struct mpb_result *res, const struct mpb_metrics *acc);

#endif
