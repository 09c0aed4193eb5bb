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
};

void mpb_run_case(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res);
void mpb_result_free(struct mpb_result *res);

/* The problem of a case without data (for check()). */
struct mpb_gemm mpb_case_gemm(const struct mpb_case *c);

#endif
