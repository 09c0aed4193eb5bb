/* What `mpbench tune` writes: one CSV row per chain, size, threshold and
 * strategy (README "mpbench tune" lists the columns), and a table on stdout. */
#ifndef MPB_TUNE_OUTPUT_H
#define MPB_TUNE_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tune/problem.h"
#include "tune/strategy.h"

#define MPB_TUNE_CSV_SCHEMA_VERSION 3 /* 2: the refinement columns; 3: margin */

/* Everything one row says. Times in ms; NaN where unknown. */
struct mpb_tune_row {
    const char *run_id, *impl, *gpu_name, *cost_model;
    const struct mpb_tune_chain *chain;
    const struct mpb_tune_level *levels; /* ranked, least accurate first */
    int n_levels;
    const char *threshold;               /* as given: "E3", "1e-3:fro_rel" */
    enum mpb_tune_metric metric;
    double threshold_value;
    double margin;                       /* the strategy tuned to margin x threshold_value (met says
                                            whether it got there); validation checks threshold_value */
    enum mpb_tune_strategy strategy;
    bool ok;                             /* the strategy ran (else note says why) */
    struct mpb_tune_choice choice;
    double tune_s;
    double baseline_predicted_ms, measured_ms, baseline_measured_ms;
    double optimum_predicted_ms;         /* exhaustive's under this threshold, when it ran */
    uint64_t seed, valid_seed;
    double valid_err;
    struct mpb_tune_refinement ir;       /* a factorisation chain's solve (iterations -1: none) */
    char note[512];
};

/* Header line of the CSV. */
bool mpb_tune_csv_header(FILE *f);
bool mpb_tune_csv_row(FILE *f, const struct mpb_tune_row *r);

/* The table on stdout: the ranked levels of a chain, then one line per row. */
void mpb_tune_print_levels(const struct mpb_tune_chain *c, const struct mpb_tune_level *levels, int n_levels,
                           const double *op0_err, const double (*cost)[MPB_TUNE_MAX_LEVELS],
                           double baseline_ms, const char *cost_model);
void mpb_tune_print_row(const struct mpb_tune_row *r);
/* The heading of a chain that failed before its strategies ran (its rows follow). */
void mpb_tune_print_failed(const struct mpb_tune_chain *c);

#endif
