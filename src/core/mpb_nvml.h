/* NVML (the driver's management library), loaded at run time with dlopen,
 * so that mpbench links no NVML and runs where there is no NVIDIA driver:
 * the GPUs' clocks, power limit and state for `mpbench env` and the
 * meta.json sidecar, and the energy of the timed calls (mpb_cuda_time).
 * Implemented in mpb_nvml.c, the one file that calls NVML.
 *
 * MPBENCH_NVML_LIB=PATH (tests only) loads PATH instead of
 * libnvidia-ml.so.1: the CPU suite's fake NVML (tests/fake_nvml.c). */
#ifndef MPB_NVML_H
#define MPB_NVML_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether NVML is loaded and initialised (the first call loads it); false
 * with the reason ("libnvidia-ml.so.1: cannot open shared object file…"). */
bool mpb_nvml_available(char *why, size_t why_len);

/* The driver's release ("580.95.05"); false when NVML is not available. */
bool mpb_nvml_driver(char *buf, size_t len);

/* One GPU as NVML sees it; -1 (integers) or NaN (doubles) where NVML does
 * not say. */
struct mpb_nvml_gpu {
    char name[96];
    char uuid[96];                       /* "GPU-…", as cuda_env.cu formats the CUDA UUID */
    unsigned long long mem_bytes;
    int sm_clock_mhz, max_sm_clock_mhz;  /* now, and the most it may reach */
    int mem_clock_mhz, max_mem_clock_mhz;
    double power_limit_w;                /* enforced board power limit */
    double power_w;                      /* board power now */
    int temperature_c;
    int pstate;                          /* 0 (P0, most performance) … 15 */
    bool energy_counter;                 /* total energy consumption is readable */
};

/* How many GPUs NVML sees (0 when it is not available). */
int mpb_nvml_gpu_count(void);
/* GPU `index` (NVML's order) or the GPU with `uuid`; false when there is
 * none or NVML is not available. */
bool mpb_nvml_gpu_at(int index, struct mpb_nvml_gpu *g);
bool mpb_nvml_gpu_find(const char *uuid, struct mpb_nvml_gpu *g);

/* The energy the board of GPU `uuid` uses between start and stop: the
 * difference of its total energy counter when the GPU has one, else its
 * power sampled by a thread every MPB_NVML_SAMPLE_MS and averaged, times
 * the wall time between the two. NULL from start when NVML or the GPU's
 * readings are not available. */
#define MPB_NVML_SAMPLE_MS 5
struct mpb_energy_meter;
struct mpb_energy_meter *mpb_energy_start(const char *uuid);
/* Seconds (wall, CLOCK_MONOTONIC) since start. */
double mpb_energy_elapsed(const struct mpb_energy_meter *m);
/* Joules and seconds (wall, CLOCK_MONOTONIC) since start; false when a
 * reading failed or nothing was measured (a counter that did not move).
 * Frees the meter either way; NULL is accepted. */
bool mpb_energy_stop(struct mpb_energy_meter *m, double *joules, double *seconds);

#ifdef __cplusplus
}
#endif

#endif
