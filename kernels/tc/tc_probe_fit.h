/* Fitting tc_mma_model.h to what the GPU returned on the probe's battery,
 * and the answers `mpbench probe` prints, each with the test that decides it. */
#ifndef MPB_TC_PROBE_FIT_H
#define MPB_TC_PROBE_FIT_H

#include <stddef.h>

#include "tc/tc_probe_battery.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The candidate models the fit tries (every combination of the parameter
 * values in tc_probe_fit.c): count written to *n. */
const struct tc_mma_model *tc_candidates(int *n);

/* Mismatches of model m against the GPU results d (bitwise; any NaN equals
 * any NaN). Raw tests are skipped. The first mismatching test index goes to
 * *first (-1 when none). */
int tc_model_mismatches(const struct tc_mma_model *m, const struct tc_fbattery *b, const float *d, int *first);

/* "frac_bits=25 split=1 acc_in_sum=1 round=rz trunc=zero product_exp=sum". */
void tc_model_format(const struct tc_mma_model *m, char *buf, size_t len);

struct tc_fit {
    struct tc_mma_model best;      /* fewest mismatches (the first such candidate) */
    int mismatches;
    int exact_fits;                /* candidates with no mismatch */
    struct tc_mma_model runner_up; /* fewest among those that differ from best on the battery */
    int runner_up_mismatches;
};

void tc_fit(const struct tc_fbattery *b, const float *d, struct tc_fit *fit);

/* One question about the instruction, its answer, and the evidence. */
struct tc_answer {
    const char *question;
    char answer[160];
    char evidence[400];
};

/* The answers for one floating path; returns how many were written. */
int tc_answers(const struct tc_fbattery *b, const float *d, const struct tc_fit *fit, struct tc_answer *out,
               int max);

/* The answers for the INT8 path (exactness, overflow). */
int tc_int8_answers(const struct tc_ibattery *b, const int32_t *d, struct tc_answer *out, int max);

#ifdef __cplusplus
}
#endif

#endif
