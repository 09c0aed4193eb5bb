/* Run one case on one backend: generate A and B, set the scheme up, time
 * it, read back what it did, and summarise the output matrix. */
#ifndef MPB_RUNNER_H
#define MPB_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include "cuda_env.h"
#include "plan.h"
#include "stats.h"

struct mpb_runner {
    enum mpb_impl impl;
    struct mpb_cuda_env *env; /* NULL on the host backend */
    int warmup, reps;
    int warmup_ms;            /* untimed calls go on until this many ms have passed (0: none) */
    bool keep_data;           /* hand A, B and C back in host memory (selftest, reference) */
    bool ref_dd;              /* --ref dd follows (its buffers count in the memory a case needs) */
    bool vs_native;           /* --vs-native: also run the target's native GEMM on the same A, B */
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
};

void mpb_run_case(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res);
void mpb_result_free(struct mpb_result *res);

/* The output's summary (out_hash, nonfinite) from C on the host. */
void mpb_result_summarise(struct mpb_result *res, const void *c, int64_t count, enum mpb_target t);

/* The problem of a case without data (for check()). */
struct mpb_gemm mpb_case_gemm(const struct mpb_case *c);

/* The memory one case needs, decided before anything is allocated: bytes
 * of host and device memory (saturating at SIZE_MAX: a byte count beyond
 * size_t), and what they are made of, for the note of a refused case. */
struct mpb_case_memory {
    size_t host, device;
    size_t matrices;     /* A, B and C */
    size_t workspace;    /* the scheme's own buffers (host model or GPU setup) */
    size_t reference;    /* the reference's buffers (host; --ref dd on the GPU: device too) */
};
void mpb_case_memory(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_case_memory *mem);

/* Host memory available to this process now: MemAvailable of /proc/meminfo
 * (what can be allocated without swapping), else the free pages sysconf
 * reports. */
size_t mpb_host_memory_available(void);

/* "51.5 GB" (10^9 bytes), with the exact count when `exact`; a saturated
 * count is "2^64 bytes or more". */
void mpb_format_bytes(char *buf, size_t len, size_t bytes, bool exact);

#endif
