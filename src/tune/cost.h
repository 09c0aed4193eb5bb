/* The cost model of `mpbench tune` from a file: GEMM times of an `mpbench
 * run` results CSV (a GPU sweep, say), so that a tuning on the host models,
 * whose own times say nothing about GPU speed, predicts with GPU times; and
 * so that the tests can inject costs. */
#ifndef MPB_TUNE_COST_H
#define MPB_TUNE_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tune/level.h"

struct mpb_tune_cost_row {
    char *scheme, *params;
    int64_t m, n, k;
    double time_ms;
    int line; /* in the file, for messages */
};

struct mpb_tune_costs {
    char *path;
    struct mpb_tune_cost_row *rows;
    int n_rows;
};

/* Read the rows of FILE with status ok (or no status column) from the
 * columns scheme, params, m, n, k and time_ms_median; false with why naming
 * FILE:LINE and what is wrong, nothing left allocated: a record with more or
 * fewer fields than the header, an incomplete last one, a column named
 * twice, a malformed cell of those columns, or two rows of one scheme,
 * params and m, n, k (which the lookup could only choose between). */
bool mpb_tune_costs_load(const char *path, struct mpb_tune_costs *t, char *why, size_t why_len);
void mpb_tune_costs_free(struct mpb_tune_costs *t);

/* The time of `level` at m x n x k: the row of its scheme whose params are
 * all the level's parameters ("tau=000 accum=tc ...", as run writes them;
 * or as a run wrote them before the scheme gained parameters that the level
 * has at their defaults) or those that differ from the defaults ("tau=000";
 * "" for none); false with why when the file has none, or two forms. */
bool mpb_tune_costs_find(const struct mpb_tune_costs *t, const struct mpb_tune_level *level, int64_t m, int64_t n,
                         int64_t k, double *time_ms, char *why, size_t why_len);

#endif
