/* The energy window of the timed calls (mpb_energy.h). */
#include "mpb_energy.h"

#include <math.h>
#include <stdio.h>

#include "mpb_nvml.h"

void mpb_energy_clear(struct mpb_energy *e)
{
    e->joules = e->seconds = NAN;
    e->calls = 0;
    e->why[0] = '\0';
}

/* How many more calls should fill the window, at the rate of the `done`
 * calls of the first `elapsed` seconds: at least one, at most a batch (a
 * later round tops up what falls short). */
static long more_calls(long done, double elapsed, double min_s)
{
    double want = elapsed > 0 ? ceil((double)done * (min_s - elapsed) / elapsed) : (double)done;
    if (!(want >= 1))
        return 1;
    return want > (double)MPB_ENERGY_MAX_BATCH ? MPB_ENERGY_MAX_BATCH : (long)want;
}

enum mpb_status mpb_energy_measure(const char *uuid, const struct mpb_energy_calls *calls, struct mpb_energy *e)
{
    mpb_energy_clear(e);
    struct mpb_energy_meter *m = mpb_energy_start(uuid);
    enum mpb_status st = calls->timed(calls->ctx);
    long n = calls->timed_calls;
    double min_s = e->min_ms * 1e-3;
    while (st == MPB_STATUS_OK && m && e->extend) {
        double t = mpb_energy_elapsed(m);
        if (t >= min_s)
            break;
        long more = more_calls(n, t, min_s);
        st = calls->more(calls->ctx, more);
        n += more;
    }
    double joules = NAN, seconds = NAN;
    bool measured = mpb_energy_stop(m, &joules, &seconds);
    if (!m || st != MPB_STATUS_OK)
        return st;
    e->calls = n;
    /* before whether the counter moved: a short window is why it may not */
    if (seconds < min_s) {
        snprintf(e->why, sizeof e->why,
                 "energy: a %.0f ms window is shorter than --energy-min-ms %d, too short for NVML's readings",
                 seconds * 1e3, e->min_ms);
        return st;
    }
    if (!measured)
        return st;
    struct mpb_nvml_gpu g;
    double watts = joules / seconds;
    if (mpb_nvml_gpu_find(uuid, &g) && watts > g.power_limit_w * (1 + MPB_ENERGY_LIMIT_MARGIN)) {
        snprintf(e->why, sizeof e->why,
                 "energy: %.0f W over %.0f ms is more than %.0f%% above the %.0f W enforced power limit: "
                 "not a reading to trust", watts, seconds * 1e3, MPB_ENERGY_LIMIT_MARGIN * 100, g.power_limit_w);
        return st;
    }
    e->joules = joules;
    e->seconds = seconds;
    return st;
}
