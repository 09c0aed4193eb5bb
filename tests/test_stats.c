/* Timing statistics: median of odd/even counts, min/max, and the MAD-based
 * noise figure. */
#include <math.h>

#include "check.h"
#include "case/stats.h"

int main(void)
{
    double odd[] = {5, 1, 3};
    struct mpb_timing_stats s = mpb_timing_stats(odd, 3);
    CHECK(s.median == 3 && s.min == 1 && s.max == 5, "odd: %g %g %g", s.median, s.min, s.max);
    /* deviations 2,0,2 → MAD 2 → 100·1.4826·2/3 */
    CHECK(fabs(s.noise_pct - 100 * 1.4826 * 2 / 3) < 1e-12, "noise %g", s.noise_pct);

    double even[] = {4, 1, 2, 3};
    s = mpb_timing_stats(even, 4);
    CHECK(s.median == 2.5, "even median %g", s.median);

    double one[] = {7};
    s = mpb_timing_stats(one, 1);
    CHECK(s.median == 7 && isnan(s.noise_pct), "single sample: median %g noise %g", s.median, s.noise_pct);

    double flat[] = {2, 2, 2, 2, 9}; /* one outlier does not move a robust noise */
    s = mpb_timing_stats(flat, 5);
    CHECK(s.noise_pct == 0 && s.max == 9, "outlier: noise %g max %g", s.noise_pct, s.max);
    return check_report("test_stats");
}
