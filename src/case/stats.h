/* Summary statistics of repeated timings (DESIGN.md "Timing"). */
#ifndef MPB_STATS_H
#define MPB_STATS_H

#include <stdint.h>

struct mpb_timing_stats {
    double median, min, max;
    /* Robust noise: 100 · 1.4826 · MAD / median, the normal-consistent
     * spread in percent of the median (NaN with fewer than 2 samples). */
    double noise_pct;
};

/* Sorts `x` in place. */
struct mpb_timing_stats mpb_timing_stats(double *x, int n);
/* Sorts x; NaN-free input. Halves before adding so huge values cannot overflow. */
double mpb_median(double *x, int64_t n);
/* Milliseconds on the monotonic clock (host-side timing). */
double mpb_now_ms(void);

#endif
