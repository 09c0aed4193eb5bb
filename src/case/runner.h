/* Run one case on one backend: generate A and B, set the scheme up, time
 * it, read back what it did, and summarise the output matrix. */
#ifndef MPB_RUNNER_H
#define MPB_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include "cuda_env.h"
#include "case/plan.h"
#include "case/result.h"

/* Run case c with the runner's settings into res. */
void mpb_run_case(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res);

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

#endif
