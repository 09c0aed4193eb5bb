/* The energy of the timed calls (src/core/mpb_nvml.c, mpb_energy.c,
 * case/result.c), through the fake NVML (fake_nvml.c, MPBENCH_NVML_LIB):
 * the energy counter's difference, the sampled power's mean, the arithmetic
 * of the CSV's power_w, joules_per_call and gflops_per_w, a GPU NVML does
 * not know; and the window: a short one extended by repeated calls to
 * --energy-min-ms (or, not extended, left unmeasured with the reason), a
 * power above the board's limit refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "case/result.h"
#include "gemm.h"
#include "mpb_energy.h"
#include "mpb_nvml.h"

#define FAKE_UUID "GPU-00000000-1111-2222-3333-444444444444"

static void busy_ms(long ms)
{
    struct timespec t = {ms / 1000, ms % 1000 * 1000000L};
    nanosleep(&t, NULL);
}

static void arithmetic(void)
{
    struct mpb_result res;
    struct mpb_energy e = {.joules = 125, .seconds = 0.5, .calls = 10};
    mpb_result_set_energy(&res, &e);
    CHECK(res.power_w == 250, "power_w %g, expected 125 J / 0.5 s = 250 W", res.power_w);
    CHECK(res.joules_per_call == 12.5, "joules_per_call %g, expected 125 J / 10 calls", res.joules_per_call);
    CHECK(res.energy_note[0] == '\0', "a measured window has the note '%s'", res.energy_note);
    double gfw = mpb_result_gflops_per_w(&res, mpb_gemm_flops(1000, 1000, 1000, MPB_FIELD_REAL));
    CHECK(fabs(gfw - 0.16) <= 1e-15, "gflops_per_w %.17g, expected 2 GFLOP / 12.5 J = 0.16", gfw);
    /* A complex multiply-add is 8 real flops: complex rates read 4x low with 2mnk. */
    gfw = mpb_result_gflops_per_w(&res, mpb_gemm_flops(1000, 1000, 1000, MPB_FIELD_COMPLEX));
    CHECK(fabs(gfw - 0.64) <= 1e-15, "complex gflops_per_w %.17g, expected 8 GFLOP / 12.5 J = 0.64", gfw);
    e = (struct mpb_energy){.joules = NAN, .seconds = NAN, .calls = 10, .why = "energy: too short"};
    mpb_result_set_energy(&res, &e);
    CHECK(isnan(res.power_w) && isnan(res.joules_per_call) &&
              isnan(mpb_result_gflops_per_w(&res, mpb_gemm_flops(8, 8, 8, MPB_FIELD_REAL))),
          "no measurement: power_w %g, joules_per_call %g (expected empty cells)", res.power_w, res.joules_per_call);
    CHECK(!strcmp(res.energy_note, "energy: too short"), "the reason is not the note: '%s'", res.energy_note);
    e = (struct mpb_energy){.joules = 5, .seconds = 1, .calls = 0};
    mpb_result_set_energy(&res, &e);
    CHECK(isnan(res.joules_per_call), "0 calls: joules_per_call %g, expected NaN", res.joules_per_call);
}

/* Calls that take CALL_MS each on the host: what the window brackets. */
#define CALL_MS 5
struct fake_calls {
    int timed_runs;     /* times the timed calls ran */
    long more_calls;    /* repeats asked for */
    enum mpb_status timed_status;
};

static enum mpb_status fake_timed(void *ctx)
{
    struct fake_calls *f = ctx;
    f->timed_runs++;
    busy_ms(2 * CALL_MS); /* the two timed calls */
    return f->timed_status;
}

static enum mpb_status fake_more(void *ctx, long n)
{
    struct fake_calls *f = ctx;
    f->more_calls += n;
    busy_ms(n * CALL_MS);
    return MPB_STATUS_OK;
}

static enum mpb_status window(const char *uuid, int min_ms, bool extend, struct fake_calls *f, struct mpb_energy *e)
{
    *f = (struct fake_calls){.timed_status = MPB_STATUS_OK};
    *e = (struct mpb_energy){.min_ms = min_ms, .extend = extend};
    struct mpb_energy_calls calls = {fake_timed, fake_more, f, 2};
    return mpb_energy_measure(uuid, &calls, e);
}

/* A counter as coarse as a real one (a step every 20 ms at 300 W): the 10 ms
 * of timed calls are repeated until 400 ms have passed, and the power is
 * right to the counter's step over the window (20 / 400 = 5 %). */
static void window_extended(void)
{
    struct fake_calls f;
    struct mpb_energy e;
    unsetenv("FAKE_NVML_ENERGY_STEP_MJ");
    setenv("FAKE_NVML_ENERGY_UPDATE_MS", "20", 1);
    setenv("FAKE_NVML_POWER_MW", "300000", 1);
    CHECK(window(FAKE_UUID, 400, true, &f, &e) == MPB_STATUS_OK, "the extended window's calls failed");
    CHECK(f.timed_runs == 1 && f.more_calls >= 1, "timed calls ran %d times, %ld repeats (expected once, and some)",
          f.timed_runs, f.more_calls);
    CHECK(e.calls == 2 + f.more_calls, "calls %ld, expected the 2 timed and the %ld repeats", e.calls, f.more_calls);
    CHECK(e.seconds >= 0.4 && e.seconds < 5, "an extended window of %g s, expected at least 0.4 s", e.seconds);
    CHECK(fabs(e.joules / e.seconds - 300) <= 300 * 0.06, "%g J over %g s is not 300 W to the counter's 5 %%",
          e.joules, e.seconds);
    CHECK(e.why[0] == '\0', "a measured window has the reason '%s'", e.why);
    /* --energy-min-ms 0: the timed calls alone */
    window(FAKE_UUID, 0, true, &f, &e);
    CHECK(f.timed_runs == 1 && f.more_calls == 0, "min 0: %ld repeats", f.more_calls);
}

/* Not extended, the same short window is left unmeasured, saying why. */
static void window_too_short(void)
{
    struct fake_calls f;
    struct mpb_energy e;
    setenv("FAKE_NVML_ENERGY_UPDATE_MS", "20", 1);
    CHECK(window(FAKE_UUID, 400, false, &f, &e) == MPB_STATUS_OK, "the short window's calls failed");
    CHECK(f.timed_runs == 1 && f.more_calls == 0, "not extended, yet %ld repeats", f.more_calls);
    CHECK(isnan(e.joules) && isnan(e.seconds), "a too-short window gave %g J over %g s", e.joules, e.seconds);
    CHECK(strstr(e.why, "shorter than --energy-min-ms 400"), "the reason '%s' does not name the option", e.why);
    /* the calls' failure is the window's status; nothing is repeated after it */
    f = (struct fake_calls){.timed_status = MPB_STATUS_ERROR};
    e = (struct mpb_energy){.min_ms = 400, .extend = true};
    struct mpb_energy_calls calls = {fake_timed, fake_more, &f, 2};
    CHECK(mpb_energy_measure(FAKE_UUID, &calls, &e) == MPB_STATUS_ERROR && f.more_calls == 0 && isnan(e.joules),
          "a failed timed call: %ld repeats, %g J", f.more_calls, e.joules);
    /* without a meter (a GPU NVML does not know) the timed calls still run, alone */
    CHECK(window("GPU-not-there", 400, true, &f, &e) == MPB_STATUS_OK && f.timed_runs == 1 && f.more_calls == 0 &&
              isnan(e.joules) && e.why[0] == '\0', "no meter: %ld repeats, %g J, reason '%s'", f.more_calls,
          e.joules, e.why);
    unsetenv("FAKE_NVML_ENERGY_UPDATE_MS");
}

/* The 872 W an H200 read over 44 ms on a 700 W board is refused with the
 * reason; 760 W (within 10 % of the limit) is kept. */
static void over_the_limit(void)
{
    struct fake_calls f;
    struct mpb_energy e;
    unsetenv("FAKE_NVML_ENERGY_STEP_MJ");
    setenv("FAKE_NVML_POWER_MW", "872000", 1);
    window(FAKE_UUID, 50, true, &f, &e);
    CHECK(isnan(e.joules) && strstr(e.why, "700 W enforced power limit"),
          "872 W on a 700 W board: %g J, reason '%s'", e.joules, e.why);
    setenv("FAKE_NVML_POWER_MW", "760000", 1);
    window(FAKE_UUID, 50, true, &f, &e);
    CHECK(fabs(e.joules / e.seconds - 760) <= 760 * 1e-12 && e.why[0] == '\0', "760 W: %g J / %g s, reason '%s'",
          e.joules, e.seconds, e.why);
}

static void energy_counter(void)
{
    double j = 0, s = 0;
    setenv("FAKE_NVML_ENERGY_STEP_MJ", "7500", 1);
    struct mpb_energy_meter *m = mpb_energy_start(FAKE_UUID);
    CHECK(m != NULL, "no meter on the fake GPU");
    busy_ms(20);
    CHECK(mpb_energy_stop(m, &j, &s), "the energy counter's window was not measured");
    CHECK(j == 7.5, "joules %.17g, expected the counter's difference 7500 mJ = 7.5 J", j);
    CHECK(s >= 0.019 && s < 5, "seconds %g for a 20 ms window", s);
    setenv("FAKE_NVML_ENERGY_STEP_MJ", "0", 1);
    m = mpb_energy_start(FAKE_UUID);
    CHECK(m && !mpb_energy_stop(m, &j, &s), "a counter that did not move gave %g J", j);
}

static void sampled_power(void)
{
    double j = 0, s = 0;
    unsetenv("FAKE_NVML_ENERGY_STEP_MJ");
    setenv("FAKE_NVML_POWER_MW", "300000", 1);
    struct mpb_energy_meter *m = mpb_energy_start(FAKE_UUID);
    CHECK(m != NULL, "no meter on the fake GPU without an energy counter");
    busy_ms(4 * MPB_NVML_SAMPLE_MS);
    CHECK(mpb_energy_stop(m, &j, &s), "the sampled window was not measured");
    CHECK(s > 0 && fabs(j / s - 300) <= 300 * 1e-12, "%.17g J over %.17g s is not 300 W", j, s);
    /* a window shorter than one period still has its readings */
    m = mpb_energy_start(FAKE_UUID);
    CHECK(m && mpb_energy_stop(m, &j, &s) && fabs(j / s - 300) <= 300 * 1e-12, "a short window: %g J, %g s", j, s);
}

int main(void)
{
    char why[256];
    arithmetic();
    CHECK(mpb_nvml_available(why, sizeof why), "the fake NVML did not load: %s (MPBENCH_NVML_LIB=%s)", why,
          getenv("MPBENCH_NVML_LIB") ? getenv("MPBENCH_NVML_LIB") : "unset");
    struct mpb_nvml_gpu g;
    CHECK(mpb_nvml_gpu_count() == 1 && mpb_nvml_gpu_at(0, &g) && g.max_sm_clock_mhz == 1980 &&
              g.power_limit_w == 700, "the fake GPU as NVML sees it");
    energy_counter();
    sampled_power();
    window_extended();
    window_too_short();
    over_the_limit();
    CHECK(mpb_energy_start("GPU-not-there") == NULL, "a meter for a GPU NVML does not know");
    CHECK(!mpb_energy_stop(NULL, &(double){0}, &(double){0}), "stop without a meter measured something");
    return check_report("test_energy");
}
