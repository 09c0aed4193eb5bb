/* What a case is run with (the runner's settings) and what running it
 * gives back (its status, times and output summary): shared by the one-GPU
 * path (case/runner.c) and the several-GPU path (case/multi.c). */
#ifndef MPB_RESULT_H
#define MPB_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cuda_env.h"
#include "case/plan.h"
#include "case/stats.h"

struct mpb_runner {
    enum mpb_impl impl;
    struct mpb_cuda_env *env; /* NULL on the host backend */
    int warmup, reps;
    int warmup_ms;            /* untimed calls go on until this many ms have passed (0: none) */
    bool keep_data;           /* hand A, B and C back in host memory (selftest, reference) */
    bool ref_dd;              /* --ref dd follows (its buffers count in the memory a case needs) */
    bool vs_native;           /* --vs-native: also run the target's native GEMM on the same A, B */
    bool energy;              /* measure the timed calls' energy (run; grade's single calls do not) */
    int energy_min_ms;        /* --energy-min-ms: the energy window's minimum (mpb_energy.h) */
    bool energy_extend;       /* repeat the call to reach it (else leave a shorter window unmeasured) */
    bool node_shared;         /* a run --devices worker: the node's other GPUs are other workers' */
};

struct mpb_result {
    enum mpb_status status;
    char note[512];
    bool sticky;                        /* the CUDA context died: end the sweep */
    struct mpb_timing_stats time_ms;
    double tflops;                      /* NaN on the host backend */
    double phase_ms[MPB_PHASE_COUNT];   /* NaN where the scheme marked no phase */
    struct mpb_scheme_info info;
    bool have_output;
    int64_t nonfinite;                  /* NaN/Inf entries of C (never-written entries stay NaN) */
    uint64_t out_hash;                  /* mpb_hash_words over C's bytes, column-major */
    void *a, *b, *c;                    /* host copies when keep_data, else NULL */
    double max_abs_vs_native;           /* max |C - C_native| over C (EGEMM-TC's metric), NaN if not run */
    double power_w;                     /* mean board power over the energy window, NaN if not measured */
    double joules_per_call;             /* the board's energy of one call in it, NaN if not measured */
    char energy_note[192];              /* why a measured window's energy is not given ("" otherwise) */
};

void mpb_result_free(struct mpb_result *res);

/* power_w and joules_per_call from the energy of a window's calls: W = J / s
 * over the window, J per call = J / calls (NaN without a measurement), and
 * the reason there is none into energy_note. */
void mpb_result_set_energy(struct mpb_result *res, const struct mpb_energy *e);

/* GFLOP/s per watt, that is GFLOP per joule: the flops of one call
 * (mpb_gemm_flops) over its joules; NaN without a measurement. */
double mpb_result_gflops_per_w(const struct mpb_result *res, double flops);

/* The output's summary (out_hash, nonfinite: entries with a NaN or ±Inf
 * part) from C's `count` entries on the host. */
void mpb_result_summarise(struct mpb_result *res, const void *c, int64_t count, enum mpb_target t,
                          enum mpb_field f);

/* Host memory available to this process now: MemAvailable of /proc/meminfo
 * (what can be allocated without swapping), else the free pages sysconf
 * reports. */
size_t mpb_host_memory_available(void);

/* "51.5 GB" (10^9 bytes), with the exact count when `exact`; a saturated
 * count is "2^64 bytes or more". */
void mpb_format_bytes(char *buf, size_t len, size_t bytes, bool exact);

#endif
