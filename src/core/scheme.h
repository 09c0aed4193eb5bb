/* What a scheme is: its descriptor, its CUDA backend and what one call
 * reports. The list of schemes is the program's (src/schemes/registry.c); the
 * kernels implement these interfaces and name no program header. */
#ifndef MPB_SCHEME_H
#define MPB_SCHEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "block_cyclic.h"
#include "gemm.h"
#include "param.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mpb_cuda_env;
struct mpb_phase_clock;
struct mpb_device_info;

/* What a scheme reports about one call: what it actually did. Fields it does
 * not know stay at their "unknown" value (-1 for ints, NaN for times). */
struct mpb_scheme_info {
    int slices;          /* slices, moduli or mantissa bits used (scheme-defined; README says which) */
    int fallback;        /* 1 when it ran native instead of emulating, 0 when not, -1 unknown */
    char settings[256];  /* settings read back from the library, "k=v k=v" (params as applied) */
    char note[256];      /* anything the user should know */
};

/* CUDA backend of a scheme. setup() allocates everything the timed calls
 * need (workspaces included); run() only enqueues work on env's stream and
 * marks phases on `clock` when it is not NULL; report() reads back what the
 * calls did; teardown() frees. Each returns MPB_STATUS_OK or a failure with
 * a message left in env (see cuda_env.h); setup() may return
 * MPB_STATUS_NOT_SUPPORTED, its reason left the same way, when only the
 * library can tell (it refused the case), leaving nothing allocated. */
struct mpb_scheme_cuda {
    enum mpb_status (*setup)(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                             const double *params, void **state);
    enum mpb_status (*run)(struct mpb_cuda_env *env, void *state,
                           const struct mpb_gemm *g, struct mpb_phase_clock *clock);
    enum mpb_status (*report)(struct mpb_cuda_env *env, void *state,
                              struct mpb_scheme_info *info);
    void (*teardown)(struct mpb_cuda_env *env, void *state);
};

/* One process's part of a GEMM spread over several GPUs (src/case/multi.c):
 * rank `rank` of `ranks` on an nprow×npcol grid, A (m×k), B (k×n) and C
 * (m×n) block-cyclic with square blocks, its local arrays column-major
 * with leading dimension = its local rows. */
struct mpb_multi_part {
    int rank, ranks;
    int64_t m, n, k;
    struct mpb_block_cyclic a, b, c;    /* this rank's view of each matrix */
    const void *la, *lb;                /* local A and B (device memory; host on the host backend) */
    void *lc;                           /* local C */
    unsigned char comm_id[128];         /* the communicator's id, the same in every rank */
    const void *whole_a, *whole_b;      /* host backend: every rank's blocks, in place (m×k, k×n) */
};

/* A scheme whose one GEMM spans several GPUs (kernels/cublasmp): one
 * process per GPU, each running the same calls on its part, collectively.
 * The program generates each part's blocks and gathers C (src/case/multi.c). */
struct mpb_scheme_multi {
    /* Processes (GPUs) a case spans, its grid and its block size. */
    void (*layout)(const double *params, int *nprow, int *npcol, int64_t *block);
    /* A fresh communicator id, made by rank 0 before the others start. */
    enum mpb_status (*new_comm_id)(unsigned char id[128], char *why, size_t why_len);
    /* Collective: every rank calls it with its part. */
    enum mpb_status (*setup)(struct mpb_cuda_env *env, const struct mpb_multi_part *part,
                             const double *params, void **state);
    /* run (one collective GEMM on env's stream; g is unused), report and
     * teardown of a set-up part; calls->setup is NULL. */
    const struct mpb_scheme_cuda *calls;
    /* Host model of one part: its local C from whole_a and whole_b, which
     * hold every part's blocks. NULL: not_supported on the host. */
    enum mpb_status (*run_host)(const struct mpb_multi_part *part, const double *params,
                                struct mpb_scheme_info *info);
};

struct mpb_scheme {
    const char *name;
    const char *family;                   /* its folder under kernels/ */
    const char *help;
    enum mpb_target target;
    enum mpb_field field;                 /* complex schemes multiply complex operands (gemm.h) */
    int version;                          /* bump when the numerics change */
    const struct mpb_param_spec *params;
    int n_params;
    /* Can this case run on this device (NULL = host backend)? false with a
     * reason in `why` when not. NULL check = always. */
    bool (*check)(const double *params, const struct mpb_gemm *g,
                  const struct mpb_device_info *dev, char *why, size_t why_len);
    const struct mpb_scheme_cuda *cuda;   /* NULL: no CUDA backend */
    /* Several GPUs for one GEMM; then cuda and run_host are NULL and the
     * runner hands the case to src/case/multi.c. */
    const struct mpb_scheme_multi *multi;
    /* Host model; NULL: not_supported on host. */
    enum mpb_status (*run_host)(const struct mpb_gemm *g, const double *params,
                                struct mpb_scheme_info *info);
    /* Error bound factor f: |Ĉ−C|_ij ≤ f·(|A||B|)_ij for the computed Ĉ.
     * selftest compares GPU and host within 2f when not bitwise. */
    double (*bound)(const double *params, int64_t k);
    bool bitwise_host_device;
    /* bound() is row/column-wise instead: |Ĉ−C|_ij ≤ f·‖A(i,:)‖₂‖B(:,j)‖₂
     * (fixed-point schemes such as Ozaki-II, whose error has no
     * componentwise bound: an entry far below its row maximum truncates). */
    bool bound_rowcol;
    /* Memory the scheme allocates beyond A, B and C: device bytes of
     * cuda->setup (on_device) or host bytes of run_host, saturating at
     * SIZE_MAX (mpb_size.h); the runner refuses a case that does not fit
     * before allocating anything. NULL: the runner assumes one more copy of
     * A, B and C on the host and nothing on the device (a failing cudaMalloc
     * still gives a clean error row). */
    size_t (*workspace_bytes)(const double *params, const struct mpb_gemm *g, bool on_device);
    /* cuda->setup reads no value of A or B, only their addresses and the
     * shape: a state serves every later call on the same A, B and C buffers
     * whatever they then hold (mpbench tune keeps states across the runs
     * of a chain). False where setup converts or inspects the operands
     * (native fp16/bf16), and for schemes not checked (test_kernels_cuda
     * checks every scheme that says true). */
    bool state_reusable;
};

#ifdef __cplusplus
}
#endif

#endif
