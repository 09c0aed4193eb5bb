/* Vendor emulation baselines (kernels/cublas_emu/README.md): cuBLAS's own
 * FP64 fixed-point emulation (Ozaki scheme on INT8 with automatic dynamic
 * precision) and FP32 BF16x9 emulation. Each runs on a cuBLAS handle of its
 * own, created and configured in setup, so that no emulation setting leaks
 * into the shared handle or into the next case (a handle keeps them: on the
 * H200 a fixed mode's bit cap stayed in force after a switch back to
 * dynamic mode).
 *
 * What a row reports (kernels/cublas_emu/README.md):
 *   cublas_fp64emu  slices   = mantissa bits cuBLAS retained in the last call
 *                              (read through cublasSetFixedPointEmulation-
 *                              MantissaBitCountPointer; INT8 slices =
 *                              ceil((bits + 1) / 8)); -1 = it ran native
 *                   fallback = 1 when it ran native FP64: no count written
 *                              (performant/default strategy chose native), or
 *                              a dynamic choice above max_bits (the note says
 *                              which), else 0
 *                   settings = every knob read back from the handle:
 *                              strategy, mantissa, max_bits, bit_offset,
 *                              special_values, math_mode, workspace_mb
 *   cublas_bf16x9   slices   = -1 (nothing to count)
 *                   fallback = 1 off compute capability 10.x (cuBLAS docs
 *                              §1.5: BF16x9 runs on 10.0 and 10.3 only),
 *                              -1 on 10.x: cuBLAS does not say what it ran
 *                   settings = strategy, special_values, math_mode,
 *                              workspace_mb, read back
 * No host model: on the host backend both are not_supported. */
#ifndef MPB_CUBLAS_EMU_H
#define MPB_CUBLAS_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include "cuda_env.h"
#include "gemm.h"
#include "param.h"
#include "scheme.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cublas_zfp64emu: cublas_fp64emu's parameters, check and report on
 * complex FP64 (CUDA_C_64F); its setup returns MPB_STATUS_NOT_SUPPORTED
 * when cuBLAS refuses the compute type for complex data. */
extern const struct mpb_scheme_cuda mpb_cublas_fp64emu_cuda, mpb_cublas_zfp64emu_cuda, mpb_cublas_bf16x9_cuda;

/* cublas_fp64emu's parameters, in this order (values as mpb_param holds
 * them: a choice is its index). */
enum mpb_fp64emu_param {
    MPB_FP64EMU_STRATEGY = 0, /* eager | performant | default */
    MPB_FP64EMU_MANTISSA,     /* dynamic | fixed */
    MPB_FP64EMU_MAX_BITS,     /* 0 = cuBLAS's default (79 dynamic, 55 fixed) */
    MPB_FP64EMU_BIT_OFFSET,   /* dynamic only */
    MPB_CUBLAS_FP64EMU_N_PARAMS
};
enum mpb_fp64emu_strategy { MPB_FP64EMU_EAGER = 0, MPB_FP64EMU_PERFORMANT, MPB_FP64EMU_DEFAULT };
enum mpb_fp64emu_mantissa { MPB_FP64EMU_DYNAMIC = 0, MPB_FP64EMU_FIXED };

extern const struct mpb_param_spec mpb_cublas_fp64emu_params[];
extern const int mpb_cublas_fp64emu_n_params;

/* Host backend (dev NULL): no model. A nonzero bit_offset with a fixed
 * mantissa: cuBLAS rejects the handle state. Dimensions beyond INT_MAX:
 * cublasGemmEx takes int. */
bool mpb_cublas_fp64emu_check(const double *params, const struct mpb_gemm *g,
                              const struct mpb_device_info *dev, char *why, size_t why_len);

/* Host backend: no model. Off compute capability 10.x: cuBLAS computes native
 * FP32 for CUBLAS_COMPUTE_32F_EMULATED_16BFX9. */
bool mpb_cublas_bf16x9_check(const double *params, const struct mpb_gemm *g,
                             const struct mpb_device_info *dev, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
