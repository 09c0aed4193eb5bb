/* Single tensor-core instructions on constructed inputs, for `mpbench probe`
 * (what the MMA really computes). Each test t is one instruction whose
 * output entry (0,0) is c[t] + sum_l a[t*k+l]*b[t*k+l] (row 0 of A and
 * column 0 of B hold the test, everything else is zero); d[t] receives it.
 * The arrays are host arrays; the functions upload, run and download. */
#ifndef MPB_TC_PROBE_H
#define MPB_TC_PROBE_H

#include <stdint.h>

#include "cuda_env.h"
#include "tc/tc_mma_model.h"

#ifdef __cplusplus
extern "C" {
#endif

enum tc_probe_path {
    TC_PATH_MMA_SYNC = 0, /* mma.sync m16n8k16 (FP16/BF16), m16n8k8 (TF32), m16n8k32 (INT8) */
    TC_PATH_WGMMA = 1,    /* wgmma m64n8k16, m64n8k8, m64n8k32 (sm_90a) */
};

/* Floating inputs: a and b hold values of `fmt` (converted exactly on the
 * device; for TF32 the FP32 bits are passed as they are, so that the
 * instruction's own reading of extra bits can be probed), k =
 * tc_input_k(fmt) values per test. */
enum mpb_status tc_probe_float(struct mpb_cuda_env *env, enum tc_probe_path path, enum tc_input fmt, int n_tests,
                               const float *a, const float *b, const float *c, float *d);

/* INT8 inputs, INT32 accumulator, k = 32 per test. */
enum mpb_status tc_probe_int8(struct mpb_cuda_env *env, enum tc_probe_path path, int n_tests, const int8_t *a,
                              const int8_t *b, const int32_t *c, int32_t *d);

#ifdef __cplusplus
}
#endif

#endif
