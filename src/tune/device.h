/* The steps of a tune chain that run on the GPU besides its GEMMs, so that
 * a chain run stays there: the bias (+ ReLU) epilogue, bitwise the host's
 * (a NaN's payload aside), and the error check's sums over an output and
 * its FP64 reference.
 * Implemented in device.cu. */
#ifndef MPB_TUNE_DEVICE_H
#define MPB_TUNE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_env.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the error metrics need from x against ref (problem.h's
 * mpb_tune_error): Σ (x - ref)², Σ ref², max |x - ref|, and how many
 * differences are not finite. */
struct mpb_tune_error_sums {
    double diff2, ref2, worst, nonfinite;
};

/* out = a + bias (bias a 1 x cols row vector, added to every row), and with
 * relu max(., 0) as x < 0 ? 0 : x (a NaN stays): rows x cols floats,
 * column-major, on the stream (no synchronisation). */
enum mpb_status mpb_tune_device_bias(struct mpb_cuda_env *env, bool relu, float *out, const float *a,
                                     const float *bias, int64_t rows, int64_t cols);

/* Device scratch the sums need (allocate once, reuse for every call). */
size_t mpb_tune_device_sums_scratch_bytes(void);

/* The sums over count entries of device x and ref, reduced in a fixed order
 * (the same result on every run and GPU, not the host's sequential order);
 * waits for the stream and brings back four doubles. */
enum mpb_status mpb_tune_device_error_sums(struct mpb_cuda_env *env, const float *x, const double *ref,
                                           int64_t count, void *scratch, struct mpb_tune_error_sums *out);

#ifdef __cplusplus
}
#endif

#endif
