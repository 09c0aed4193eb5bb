/* What `mpbench run` prints on screen: the progress line of a case and the
 * summary table after a sweep (at most MPB_SUMMARY_WIDTH columns, the full
 * detail being the CSV's). */
#ifndef MPB_SUMMARY_H
#define MPB_SUMMARY_H

#include <stdio.h>
#include "case/metrics.h"
#include "case/plan.h"
#include "case/runner.h"

#define MPB_SUMMARY_WIDTH 120

/* What the screen shows of one case. */
struct mpb_summary_row {
    const struct mpb_case *c;
    enum mpb_status status;
    double ms, tflops, noise_pct, err_fro; /* NaN when not measured */
    char grade[2];
    int fallback; /* the CSV's fallback: 1 ran native instead of emulating, 0 not, -1 unknown */
};

struct mpb_summary {
    struct mpb_summary_row *rows;
    int n;
};

void mpb_summary_add(struct mpb_summary *s, const struct mpb_case *c, const struct mpb_result *res,
                     const struct mpb_metrics *acc);
/* A run --devices worker's row as one line of text (no newline), and the
 * parent's reading of it for case c; false when `text` is not such a line. */
void mpb_summary_encode(const struct mpb_summary_row *r, char *buf, size_t len);
bool mpb_summary_add_encoded(struct mpb_summary *s, const struct mpb_case *c, const char *text);
/* "adp [decision=eager] host, phi phi=2, 128x128x128, seed 1: ok 71.5 ms
 * err_fro 7.5e-17 grade A": the scheme's non-default parameters in brackets,
 * the generator's all, and the table's marks spelt out. */
void mpb_summary_progress(const struct mpb_summary_row *r, char *buf, size_t len);
/* The table, and a legend line for what its marks and columns mean. */
void mpb_summary_print(const struct mpb_summary *s, FILE *f);
void mpb_summary_free(struct mpb_summary *s);

#endif
