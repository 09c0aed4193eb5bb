/* libmpbench_hook.so: GEMM calls of an unmodified program, intercepted
 * through LD_PRELOAD (hook_blas.c's entry points), passed through, recorded
 * (trace.c) or computed by an mpbench scheme's host model (emulate.c).
 * This header is what the entry points and the modes share. */
#ifndef MPB_HOOK_H
#define MPB_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gemm.h"

/* One GEMM call, C = alpha·op(A)·op(B) + beta·C, as the program made it:
 * op(A) m×k, op(B) k×n, C m×n, each stored column-major or, for a cblas
 * call with CblasRowMajor, row-major, with its leading dimension. A cuBLAS
 * call's operands are device memory (hook_cuda.c reads them); a batched
 * call's are not read at all (it is only counted). */
struct mpb_hook_call {
    enum mpb_target target;  /* fp64: d and z routines; fp32: s and c routines */
    bool row_major;
    char transa, transb;     /* 'N', 'T' or 'C' (real: 'C' is 'T'; complex: conjugate transpose) */
    int64_t m, n, k;
    double alpha, beta;      /* an s routine's floats, widened exactly; complex: the real parts */
    const void *a, *b;
    void *c;
    int64_t lda, ldb, ldc;
    enum mpb_field field;    /* last fields: the host routines' initializers leave them zero */
    double alpha_im, beta_im;
    bool batched;            /* a batched call (only counted): `batch` its batch count */
    int64_t batch;
    bool device;             /* cuBLAS: a, b, c on the current device, ordered on `stream` */
    void *stream;            /* cudaStream_t */
};

/* The BLAS letter of the call's type: d, s, z or c. */
static inline char mpb_hook_type(const struct mpb_hook_call *c)
{
    return c->field == MPB_FIELD_COMPLEX ? (c->target == MPB_TARGET_FP64 ? 'z' : 'c')
                                         : (c->target == MPB_TARGET_FP64 ? 'd' : 's');
}

/* An intercepted routine: what the modes need of it besides the call. */
struct mpb_hook_routine {
    const char *name;        /* "dgemm_", "cblas_dgemm", ... */
    /* The real routine on the program's own arguments (`args`, the entry
     * point's). */
    void (*pass)(const void *args);
    /* The real routine on packed operands: P = A·B, A m×k, B k×n and P m×n
     * column-major in the call's target (an emulated call's sampled check). */
    void (*product)(int64_t m, int64_t n, int64_t k, const void *a, const void *b, void *p);
};

/* Whether a call should go straight to the real routine: the hook is off,
 * or this thread is inside an intercepted call already (a cblas routine
 * calling the Fortran one, a mode's own native call). Reads the
 * environment once. */
bool mpb_hook_bypass(void);

/* An intercepted call, handled by the mode (the real routine found). */
void mpb_hook_gemm(const struct mpb_hook_routine *r, const struct mpb_hook_call *call, const void *args);

/* The real symbol `name` (cached in *slot), not this library's: the next
 * object in the search order, else any loaded object that exports it (a
 * BLAS that a Python extension loaded with RTLD_LOCAL). NULL when none. */
void *mpb_hook_real(const char *name, void *volatile *slot, const void *self);

/* The real symbol `name` as the code at `caller` (a return address) would
 * bind it without the hook: looked up in the search list of the caller's
 * own object, so that a program whose libcublas differs from the hook's
 * (PyTorch's, loaded with RTLD_LOCAL) reaches its own; for a call from the
 * hook itself (mpbench's CUDA code), in `own`, the soname the hook was
 * linked with; else as mpb_hook_real. Cached per call site. */
void *mpb_hook_real_for(const char *name, const void *caller, const void *self, const char *own);

/* No real routine exists: the call is computed by mpbench's native host
 * model (dgemm's or sgemm's fma chains), said once on stderr. */
void mpb_hook_no_real(const char *name, const struct mpb_hook_call *call);

/* Each reason the hook logs, said once per process on stderr. */
enum mpb_hook_log {
    MPB_HOOK_LOG_CONFIG,      /* the variables: mode unknown, trace missing, a bad number */
    MPB_HOOK_LOG_TRACE,       /* the trace folder cannot be written: recording stops */
    MPB_HOOK_LOG_OPERANDS,    /* an operand file could not be written (or memory) */
    MPB_HOOK_LOG_BUDGET,      /* the byte budget is spent: later shapes keep no operands */
    MPB_HOOK_LOG_REFUSED,     /* emulate: a call the scheme's host model does not take */
    MPB_HOOK_LOG_NO_REAL,     /* no real routine: mpbench's native host model computes it */
    MPB_HOOK_LOG_DEVICE,      /* cuBLAS: the hook's own CUDA work failed (operands, scalars, emulation) */
    MPB_HOOK_LOG_COUNT
};
void mpb_hook_log_once(enum mpb_hook_log why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A call the real routine accepts, so that reading its operands stays in
 * bounds; any other is only passed through (and the real routine reports it). */
bool mpb_hook_call_valid(const struct mpb_hook_call *c);

/* op(A) (which 'A', m×k), op(B) ('B', k×n) or C ('C', m×n) of the call,
 * column-major and packed, in the call's type (op 'C' of a complex operand
 * conjugated), copied from the device for a cuBLAS call; NULL when out of
 * memory or the copy failed (said once). */
void *mpb_hook_pack(const struct mpb_hook_call *call, char which);

#endif
