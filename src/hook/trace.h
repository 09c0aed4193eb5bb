/* The hook's trace folder: DIR/calls.csv, one row per call written and
 * flushed as it ends, DIR/calls.csv.meta.json, and the operands of the
 * first call of each distinct (routine, type, order, transposes, m, n, k) as .npy
 * within a byte budget. mpbench replay reads it (src/replay/). Callers
 * hold the hook's lock. */
#ifndef MPB_HOOK_TRACE_H
#define MPB_HOOK_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hook/hook.h"

/* calls.csv's columns, in order (replay checks the header against them):
 * type is the BLAS letter (d, s, z, c: cublasGemmEx's says which case),
 * alpha and beta a complex call's real parts beside alpha_im and beta_im,
 * batch a batched call's batch count (empty for the others). */
#define MPB_TRACE_COLUMNS                                                                                      \
    "call,routine,order,transa,transb,m,n,k,alpha,beta,lda,ldb,ldc,time_s,thread,operands,scheme,err_vs_native," \
    "type,alpha_im,beta_im,batch"
#define MPB_TRACE_CSV "calls.csv"
/* Operand files: <stem>_A.npy (op(A), m×k), <stem>_B.npy (op(B), k×n) and,
 * where beta != 0, <stem>_C.npy (C on input, m×n), all Fortran order. */
#define MPB_TRACE_STEM_MAX 24

struct mpb_trace_config {
    const char *dir;
    const char *mode;          /* MPBENCH_HOOK as given */
    uint64_t budget;           /* bytes of operand files */
    int64_t sample_every;      /* emulate: every Nth call checked against native (0: none) */
};

/* Create DIR (when missing) and the two files; calls.csv must not exist
 * (another run's trace is never overwritten). False with why. */
bool mpb_trace_open(const struct mpb_trace_config *cfg, char *why, size_t why_len);
bool mpb_trace_is_open(void);

/* The call's operands saved when its class is new and they fit the budget:
 * the stem written into `stem` ("" when none). */
void mpb_trace_operands(const struct mpb_hook_routine *r, const struct mpb_hook_call *call, int64_t index,
                        char stem[MPB_TRACE_STEM_MAX]);

struct mpb_trace_row {
    int64_t index;
    const char *routine, *stem, *scheme;
    double seconds;
    long thread;
    double err;                /* NaN: not checked */
};

/* One row, flushed; a failed write ends the trace (logged once). */
void mpb_trace_row(const struct mpb_hook_call *call, const struct mpb_trace_row *row);

#endif
