/* Host-side descriptor parts of the vendor emulation baselines: parameter
 * table and check() (C, so that the table can use designated initializers). */
#include "cublas_emu/cublas_emu.h"

#include <stdio.h>

#include "common/cublas_util.h"

static const char *const strategy_choices[] = {"eager", "performant", "default", NULL};
static const char *const mantissa_choices[] = {"dynamic", "fixed", NULL};

/* Ranges: cuBLAS 13.1 rejects only a negative max_bits (0 restores the
 * default; 1000 was accepted on an H200); 255 bits = 32 INT8 slices is far
 * past the 79-bit default. The offset setter takes any int; ±64 is more than
 * an FP64 significand either way. */
const struct mpb_param_spec mpb_cublas_fp64emu_params[] = {
    [MPB_FP64EMU_STRATEGY] = {.name = "strategy",
                              .kind = MPB_PARAM_CHOICE,
                              .def = "eager",
                              .choices = strategy_choices,
                              .help =
                                  "cublasSetEmulationStrategy: eager = emulate whenever possible; "
                                  "performant/default may run native DGEMM (they do on H200)"},
    [MPB_FP64EMU_MANTISSA] = {.name = "mantissa",
                              .kind = MPB_PARAM_CHOICE,
                              .def = "dynamic",
                              .choices = mantissa_choices,
                              .help = "cublasSetFixedPointEmulationMantissaControl: dynamic = bits "
                                      "chosen per call for FP64 accuracy; fixed = max_bits always"},
    [MPB_FP64EMU_MAX_BITS] = {.name = "max_bits",
                              .kind = MPB_PARAM_INT,
                              .def = "0",
                              .lo = 0,
                              .hi = 255,
                              .help =
                                  "cublasSetFixedPointEmulationMaxMantissaBitCount; 0 = cuBLAS "
                                  "default (79 dynamic, 55 fixed); fixed: the bits kept; dynamic: "
                                  "cuBLAS runs native FP64 past it"},
    [MPB_FP64EMU_BIT_OFFSET] = {.name = "bit_offset",
                                .kind = MPB_PARAM_INT,
                                .def = "0",
                                .lo = -64,
                                .hi = 64,
                                .help =
                                    "cublasSetFixedPointEmulationMantissaBitOffset: bits added to "
                                    "the dynamic choice (mantissa=dynamic only)"},
};
const int mpb_cublas_fp64emu_n_params = MPB_CUBLAS_FP64EMU_N_PARAMS;

bool mpb_cublas_fp64emu_check(const double *params, const struct mpb_gemm *g,
                              const struct mpb_device_info *dev, char *why, size_t why_len)
{
    if (!dev) {
        snprintf(why, why_len, "no host model (cuBLAS's emulation runs on the GPU only)");
        return false;
    }
    if (params[MPB_FP64EMU_MANTISSA] == MPB_FP64EMU_FIXED && params[MPB_FP64EMU_BIT_OFFSET] != 0) {
        snprintf(why, why_len,
                 "bit_offset=%g needs mantissa=dynamic (with a fixed mantissa "
                 "cublasGemmEx returns CUBLAS_STATUS_INVALID_VALUE)",
                 params[MPB_FP64EMU_BIT_OFFSET]);
        return false;
    }
    return mpb_cublas_int_dims(g, "cublasGemmEx", why, why_len);
}

bool mpb_cublas_bf16x9_check(const double *params, const struct mpb_gemm *g,
                             const struct mpb_device_info *dev, char *why, size_t why_len)
{
    (void)params;
    if (!dev) {
        snprintf(why, why_len, "no host model (cuBLAS's emulation runs on the GPU only)");
        return false;
    }
    if (dev->cc_major != 10) {
        snprintf(why, why_len,
                 "cuBLAS runs native FP32 for CUBLAS_COMPUTE_32F_EMULATED_16BFX9 on compute "
                 "capability %d.%d (emulation needs 10.x)",
                 dev->cc_major, dev->cc_minor);
        return false;
    }
    return mpb_cublas_int_dims(g, "cublasGemmEx", why, why_len);
}
