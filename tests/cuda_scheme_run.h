/* The GPU tests' one run of a scheme's CUDA backend, as the runner does it:
 * A and B (in the target's type) uploaded, C poisoned (NaN), setup,
 * mpb_cuda_time (one warm-up, two timed calls, the instrumented one),
 * report (when the scheme has one), teardown, C downloaded. */
#ifndef MPB_TEST_CUDA_SCHEME_RUN_H
#define MPB_TEST_CUDA_SCHEME_RUN_H

#include <stdbool.h>

#include "cuda_env.h"
#include "gemm.h"
#include "scheme.h"

/* false when a step failed: mpb_cuda_last_error(env) says which. */
static inline bool test_cuda_run(struct mpb_cuda_env *env, const struct mpb_scheme_cuda *ops, const double *params,
                                 enum mpb_target target, int64_t m, int64_t n, int64_t k, const void *a, const void *b,
                                 void *c, struct mpb_scheme_info *info, double phase[MPB_PHASE_COUNT])
{
    const size_t elem = mpb_target_size(target);
    const size_t bytes_a = elem * (size_t)(m * k), bytes_b = elem * (size_t)(k * n), bytes_c = elem * (size_t)(m * n);
    void *da = NULL, *db = NULL, *dc = NULL, *state = NULL;
    bool ok = mpb_cuda_alloc(env, &da, bytes_a) == MPB_STATUS_OK && mpb_cuda_alloc(env, &db, bytes_b) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, &dc, bytes_c) == MPB_STATUS_OK && mpb_cuda_upload(env, da, a, bytes_a) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, db, b, bytes_b) == MPB_STATUS_OK && mpb_cuda_memset(env, dc, 0xFF, bytes_c) == MPB_STATUS_OK;
    const struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = target, .a = da, .b = db, .c = dc};
    double times[2];
    ok = ok && ops->setup(env, &g, params, &state) == MPB_STATUS_OK;
    ok = ok && mpb_cuda_time(env, ops, state, &g, 1, 0, 2, times, phase, NULL) == MPB_STATUS_OK;
    ok = ok && (!ops->report || ops->report(env, state, info) == MPB_STATUS_OK);
    ok = ok && mpb_cuda_download(env, c, dc, bytes_c) == MPB_STATUS_OK;
    if (state)
        ops->teardown(env, state);
    mpb_cuda_free(env, da);
    mpb_cuda_free(env, db);
    mpb_cuda_free(env, dc);
    return ok;
}

#endif
