#include "case/stats.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mpb_median(double *x, int64_t n)
{
    if (n <= 0)
        return NAN;
    qsort(x, (size_t)n, sizeof *x, compare_doubles);
    return n % 2 ? x[n / 2] : 0.5 * x[n / 2 - 1] + 0.5 * x[n / 2];
}

struct mpb_timing_stats mpb_timing_stats(double *x, int n)
{
    struct mpb_timing_stats s = {NAN, NAN, NAN, NAN};
    if (n <= 0)
        return s;
    s.median = mpb_median(x, n);
    s.min = x[0];
    s.max = x[n - 1];
    if (n >= 2) {
        double *dev = malloc(sizeof *dev * (size_t)n);
        if (dev) {
            for (int i = 0; i < n; i++)
                dev[i] = fabs(x[i] - s.median);
            s.noise_pct = 100.0 * 1.4826 * mpb_median(dev, n) / s.median;
            free(dev);
        }
    }
    return s;
}

double mpb_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
