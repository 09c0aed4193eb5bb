/* The device side of an intercepted cuBLAS call (hook_cublas.c): its
 * operands and device scalars read back, its time on its stream, and the
 * call computed by a scheme's CUDA backend. Failures are the hook's own:
 * said once (MPB_HOOK_LOG_DEVICE, or the refusal's why) and the call passes
 * through. */
#ifndef MPB_HOOK_CUDA_H
#define MPB_HOOK_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hook/emulate.h"
#include "hook/hook.h"

/* Operand `which` ('A', 'B' or 'C') as stored (column-major, *rows rows,
 * leading dimension *rows), copied to a malloc'd host buffer by
 * cudaMemcpy2DAsync on the call's stream, which is then waited for. NULL
 * when the copy failed (said once) or out of memory. */
void *mpb_hook_cuda_stored(const struct mpb_hook_call *call, char which, int64_t *rows);

/* `bytes` at device address `dev` (a scalar in CUBLAS_POINTER_MODE_DEVICE)
 * into `host`, read on `stream` after the work queued before it. */
bool mpb_hook_cuda_read(void *host, const void *dev, size_t bytes, void *stream);

/* Events around a call on its stream; stop waits for the end event and
 * gives the time between them (leaving *seconds as it was on a failure). */
struct mpb_hook_timer;
struct mpb_hook_timer *mpb_hook_cuda_timer_start(void *stream);
void mpb_hook_cuda_timer_stop(struct mpb_hook_timer *t, double *seconds);

/* The call computed by the scheme's CUDA backend on the call's device,
 * after the work queued on the call's stream and before the call returns
 * (it waits): op(A) and op(B) packed into device buffers (cublas<t>geam),
 * P = op(A)·op(B) by the scheme, C = alpha·P + beta·C. With err non-NULL,
 * also the native GEMM of the type on the packed operands and *err its
 * relative Frobenius distance from P. False with why, C untouched, when the
 * scheme does not take the call or a step failed. */
bool mpb_hook_cuda_emulate(const struct mpb_hook_emulation *e, const struct mpb_hook_call *call, double *err,
                           char *why, size_t why_len);

#endif
