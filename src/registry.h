/* The scheme registry: one explicit table of descriptors (src/registry.c). */
#ifndef MPB_REGISTRY_H
#define MPB_REGISTRY_H

#include <stdbool.h>
#include "gemm.h"
#include "param.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mpb_cuda_env;
struct mpb_phase_clock;
struct mpb_device_info;

/* CUDA backend of a scheme. setup() allocates everything the timed calls
 * need (workspaces included); run() only enqueues work on env's stream and
 * marks phases on `clock` when it is not NULL; report() reads back what the
 * calls did; teardown() frees. Each returns MPB_STATUS_OK or a failure with
 * a message left in env (see cuda_env.h). */
struct mpb_scheme_cuda {
    enum mpb_status (*setup)(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                             const double *params, void **state);
    enum mpb_status (*run)(struct mpb_cuda_env *env, void *state,
                           const struct mpb_gemm *g, struct mpb_phase_clock *clock);
    enum mpb_status (*report)(struct mpb_cuda_env *env, void *state,
                              struct mpb_scheme_info *info);
    void (*teardown)(struct mpb_cuda_env *env, void *state);
};

struct mpb_scheme {
    const char *name;
    const char *family;
    const char *help;
    enum mpb_target target;
    int version;                          /* bump when the numerics change */
    const struct mpb_param_spec *params;
    int n_params;
    /* Can this case run on this device (NULL = host backend)? false with a
     * reason in `why` when not. NULL check = always. */
    bool (*check)(const double *params, const struct mpb_gemm *g,
                  const struct mpb_device_info *dev, char *why, size_t why_len);
    const struct mpb_scheme_cuda *cuda;   /* NULL: no CUDA backend */
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
};

extern const struct mpb_scheme *const mpb_schemes[];
extern const int mpb_n_schemes;

const struct mpb_scheme *mpb_scheme_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif
