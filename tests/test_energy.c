/* The energy of the timed calls (src/core/mpb_nvml.c, case/result.c),
 * through the fake NVML (fake_nvml.c, MPBENCH_NVML_LIB): the energy
 * counter's difference, the sampled power's mean, the arithmetic of the
 * CSV's power_w, joules_per_call and gflops_per_w, and a GPU NVML does not
 * know. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "case/result.h"
#include "mpb_nvml.h"

#define FAKE_UUID "GPU-00000000-1111-2222-3333-444444444444"

static void busy_ms(long ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

static void arithmetic(void)
{
    struct mpb_result res;
    struct mpb_energy e = {.joules = 125, .seconds = 0.5};
    mpb_result_set_energy(&res, &e, 10);
    CHECK(res.power_w == 250, "power_w %g, expected 125 J / 0.5 s = 250 W", res.power_w);
    CHECK(res.joules_per_call == 12.5, "joules_per_call %g, expected 125 J / 10 calls", res.joules_per_call);
    double gfw = mpb_result_gflops_per_w(&res, 1000, 1000, 1000);
    CHECK(fabs(gfw - 0.16) <= 1e-15, "gflops_per_w %.17g, expected 2 GFLOP / 12.5 J = 0.16", gfw);
    e = (struct mpb_energy){NAN, NAN};
    mpb_result_set_energy(&res, &e, 10);
    CHECK(isnan(res.power_w) && isnan(res.joules_per_call) && isnan(mpb_result_gflops_per_w(&res, 8, 8, 8)),
          "no measurement: power_w %g, joules_per_call %g (expected empty cells)", res.power_w, res.joules_per_call);
    e = (struct mpb_energy){5, 1};
    mpb_result_set_energy(&res, &e, 0);
    CHECK(isnan(res.joules_per_call), "0 calls: joules_per_call %g, expected NaN", res.joules_per_call);
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
    CHECK(mpb_energy_start("GPU-not-there") == NULL, "a meter for a GPU NVML does not know");
    CHECK(!mpb_energy_stop(NULL, &(double){0}, &(double){0}), "stop without a meter measured something");
    return check_report("test_energy");
}
