/* Levels of `mpbench tune`: registered schemes with parameter values (the
 * -s/-a grammar of run, under --levels), and one GEMM of a chain run under
 * one of them on given A and B, on the host model or the GPU. */
#ifndef MPB_TUNE_LEVEL_H
#define MPB_TUNE_LEVEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_env.h"
#include "case/plan.h"

struct mpb_tune_level {
    const struct mpb_scheme *scheme;
    double params[MPB_MAX_PARAMS];
    char name[192]; /* the scheme and the parameters that differ from its defaults: "refine_fp16 tau=000" */
};

/* Every configuration of the selections (the Cartesian product of each
 * one's -a lists), in command-line order, into out[0..max); the count, or -1
 * with why (more than max, a target other than FP32, a repeated level). */
int mpb_tune_levels_expand(const struct mpb_selection *sel, int n_sel, struct mpb_tune_level *out, int max,
                           char *why, size_t why_len);

/* The level of a scheme at its defaults (the all-sgemm baseline, dgemm's reference). */
void mpb_tune_level_default(const struct mpb_scheme *s, struct mpb_tune_level *out);

/* Scheme states kept across GEMM calls (level.c): NULL in an exec keeps none. */
struct mpb_tune_states;

/* Where GEMMs run: the host models (env NULL) or the GPU. */
struct mpb_tune_exec {
    struct mpb_cuda_env *env;
    int warmup, reps; /* timed runs on the GPU (mpb_cuda_time); the host times its one call */
    /* On the GPU: the states of state_reusable schemes, one per level,
     * shape and operand addresses, so that the runs of a chain (whose
     * buffers stay put) set each GEMM's scheme up once (setup allocates
     * and builds plans: milliseconds per GEMM otherwise). */
    struct mpb_tune_states *states;
};

/* A store for exec.states (NULL when out of memory); states_release tears
 * every kept state down (before the buffers they bind are freed), and
 * states_free also frees the store. */
struct mpb_tune_states *mpb_tune_states_new(void);
void mpb_tune_states_release(const struct mpb_tune_exec *x);
void mpb_tune_states_free(const struct mpb_tune_exec *x);

/* C = A·B (m x k times k x n, column-major, elements of the scheme's target)
 * under `level`, on operands already where the backend runs: device
 * pointers on the GPU, host pointers on the host. With `time_ms`, also its
 * time: the median of the timed GPU calls, or the host model's one call (a
 * model's time, not a speed). MPB_STATUS_OK, or a failure with a sentence
 * in why (on the GPU, mpb_cuda_is_sticky says whether the context is lost). */
enum mpb_status mpb_tune_gemm_resident(const struct mpb_tune_exec *x, const struct mpb_tune_level *level,
                                       int64_t m, int64_t n, int64_t k, const void *a, const void *b, void *c,
                                       double *time_ms, char *why, size_t why_len);

/* The same on host operands, staged through the device on the GPU (each
 * call allocates, uploads, downloads C and frees: for one-off GEMMs such as
 * the FP64 reference's). */
enum mpb_status mpb_tune_gemm(const struct mpb_tune_exec *x, const struct mpb_tune_level *level, int64_t m,
                              int64_t n, int64_t k, const void *a, const void *b, void *c, char *why,
                              size_t why_len);

#endif
