/* The human summary printed after a sweep: one aligned line per case. */
#ifndef MPB_SUMMARY_H
#define MPB_SUMMARY_H

#include <stdio.h>
#include "case/metrics.h"
#include "case/plan.h"
#include "case/runner.h"

struct mpb_summary {
    char **lines; /* cells separated by '\t' */
    int n;
};

void mpb_summary_add(struct mpb_summary *s, const struct mpb_case *c, const struct mpb_result *res,
                     const struct mpb_metrics *acc);
/* Add a line made by mpb_summary_add elsewhere (a run --devices worker's). */
void mpb_summary_add_line(struct mpb_summary *s, const char *line);
void mpb_summary_print(const struct mpb_summary *s, FILE *f);
void mpb_summary_free(struct mpb_summary *s);

#endif
