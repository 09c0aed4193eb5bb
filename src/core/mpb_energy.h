/* The energy window of the timed calls (DESIGN.md "Timing"): the NVML
 * meter (mpb_nvml.h) around the timed calls and, when they end sooner than
 * a minimum, around untimed repeats of the same call until it has passed;
 * then the power the window gives held against the board's enforced power
 * limit. Host code with the calls passed in, so that the CPU suite runs it
 * against the fake NVML (tests/test_energy.c); cuda_env.cu passes the GPU's.
 *
 * Why a minimum: NVML's readings are too coarse for a short window. The
 * NVML API reference says nvmlDeviceGetPowerUsage returns, on Ampere
 * (except GA100) and newer GPUs, "power averaged over 1 sec interval"; it
 * gives no update period for nvmlDeviceGetTotalEnergyConsumption (mJ since
 * the driver loaded, Volta and newer), which PETSc's PetscLogGpuEnergyMeter
 * notes put at 20-100 ms on newer GPUs. A 44 ms window on an H200 read
 * 872 W on a 700 W board; over 1 s a 100 ms counter step is 10 % at most,
 * and the window covers the power reading's own averaging interval. */
#ifndef MPB_ENERGY_H
#define MPB_ENERGY_H

#include <stdbool.h>
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* run --energy-min-ms's default. */
#define MPB_ENERGY_MIN_MS_DEFAULT 1000
/* A window whose mean power is above the enforced power limit by more than
 * this fraction is not a reading to trust: its energy columns stay empty,
 * with the reason. The limit holds for the board's average power; 10 %
 * leaves room for a counter step inside a 1 s window. */
#define MPB_ENERGY_LIMIT_MARGIN 0.10
/* Untimed calls enqueued at once while the window is extended. */
#define MPB_ENERGY_MAX_BATCH (1L << 20)

struct mpb_energy {
    /* Set by the caller: the window's minimum (ms; 0: none), and whether a
     * shorter one is extended by repeating the call (else its energy is
     * left unmeasured, with the reason). */
    int min_ms;
    bool extend;
    /* The measurement: the board's joules over `seconds` of wall time and
     * `calls` calls (the timed ones and the repeats); NaN joules and
     * seconds where there is none, and `why` says why when it is the
     * window's or the reading's fault ("" when NVML is not there). */
    double joules, seconds;
    long calls;
    char why[192];
};

/* Empty the measurement (min_ms and extend stay). */
void mpb_energy_clear(struct mpb_energy *e);

/* What the window brackets: `timed` runs the `timed_calls` timed calls and
 * waits for them; `more` runs n more of the same call, untimed, and waits. */
struct mpb_energy_calls {
    enum mpb_status (*timed)(void *ctx);
    enum mpb_status (*more)(void *ctx, long n);
    void *ctx;
    int timed_calls;
};

/* The timed calls, and their energy into `e` on GPU `uuid`: the timed calls
 * always run; the repeats only while the meter runs (NVML there), with
 * e->extend, until e->min_ms have passed since the window opened. The
 * status of the calls. */
enum mpb_status mpb_energy_measure(const char *uuid, const struct mpb_energy_calls *calls, struct mpb_energy *e);

#ifdef __cplusplus
}
#endif

#endif
