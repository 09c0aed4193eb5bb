/* The one table of schemes (DESIGN.md "Schemes: one registry, two backends").
 * Add a scheme here and it is listed, run, swept and self-tested; the
 * registry test (tests/test_registry.c) checks every entry's invariants. */
#include "registry.h"

#include <string.h>

#include "adp/adp.h"
#include "cublas_emu/cublas_emu.h"
#include "native/native.h"
#include "ozaki1/ozaki1.h"
#include "ozaki2/ozaki2.h"

static const struct mpb_scheme dgemm = {
    .name = "dgemm", .family = "native", .target = MPB_TARGET_FP64, .version = 1,
    .help = "cublasDgemm, native FP64; host model: fma loop in double",
    .cuda = &mpb_dgemm_cuda, .run_host = mpb_dgemm_host, .bound = mpb_dgemm_bound,
};

static const struct mpb_scheme sgemm = {
    .name = "sgemm", .family = "native", .target = MPB_TARGET_FP32, .version = 1,
    .help = "cublasSgemm, native FP32 (no TF32); host model: fmaf loop in float",
    .cuda = &mpb_sgemm_cuda, .run_host = mpb_sgemm_host, .bound = mpb_sgemm_bound,
};

static const struct mpb_scheme tf32 = {
    .name = "tf32", .family = "native", .target = MPB_TARGET_FP32, .version = 1,
    .help = "cublasGemmEx FP32 data, CUBLAS_COMPUTE_32F_FAST_TF32 (raw low precision)",
    .cuda = &mpb_tf32_cuda, .run_host = mpb_tf32_host, .bound = mpb_tf32_bound,
};

static const struct mpb_scheme fp16 = {
    .name = "fp16", .family = "native", .target = MPB_TARGET_FP32, .version = 1,
    .help = "cublasGemmEx FP16 inputs (rounded once, untimed), FP32 accumulation and output",
    .cuda = &mpb_fp16_cuda, .run_host = mpb_fp16_host, .bound = mpb_fp16_bound,
};

static const struct mpb_scheme bf16 = {
    .name = "bf16", .family = "native", .target = MPB_TARGET_FP32, .version = 1,
    .help = "cublasGemmEx BF16 inputs (rounded once, untimed), FP32 accumulation and output",
    .cuda = &mpb_bf16_cuda, .run_host = mpb_bf16_host, .bound = mpb_bf16_bound,
};

static const struct mpb_scheme cublas_fp64emu = {
    .name = "cublas_fp64emu", .family = "cublas_emu", .target = MPB_TARGET_FP64, .version = 1,
    .help = "cuBLAS FP64 fixed-point emulation (CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, NVIDIA's ADP); "
            "slices = mantissa bits retained",
    .params = mpb_cublas_fp64emu_params, .n_params = MPB_CUBLAS_FP64EMU_N_PARAMS,
    .check = mpb_cublas_fp64emu_check, .cuda = &mpb_cublas_fp64emu_cuda, .bound = mpb_dgemm_bound,
};

static const struct mpb_scheme cublas_bf16x9 = {
    .name = "cublas_bf16x9", .family = "cublas_emu", .target = MPB_TARGET_FP32, .version = 1,
    .help = "cuBLAS FP32 emulation with 9 BF16 products (CUBLAS_COMPUTE_32F_EMULATED_16BFX9); "
            "not_supported below compute capability 10.0, where cuBLAS silently runs native FP32",
    .check = mpb_cublas_bf16x9_check, .cuda = &mpb_cublas_bf16x9_cuda, .bound = mpb_sgemm_bound,
};

static const struct mpb_scheme ozaki1_fp16 = {
    .name = "ozaki1_fp16", .family = "ozaki1", .target = MPB_TARGET_FP64, .version = 2,
    .help = "Ozaki scheme I on FP16 tensor cores (DGEMM-TC, Mukunoki et al. 2020): error-free "
            "FP16 digits, exact FP32 slice products, FP64 (dp) or correctly rounded (cr) sum; "
            "NaN/Inf in a row of A or column of B gives NaN there",
    .params = mpb_ozaki1_fp16_params, .n_params = MPB_OZ16_N_PARAMS,
    .check = mpb_ozaki1_fp16_check, .cuda = &mpb_ozaki1_fp16_cuda,
    .run_host = mpb_ozaki1_fp16_host, .bound = mpb_ozaki1_fp16_bound,
    .bitwise_host_device = true,
};

static const struct mpb_scheme ozaki1_fp16_sp = {
    .name = "ozaki1_fp16_sp", .family = "ozaki1", .target = MPB_TARGET_FP32, .version = 2,
    .help = "ozaki1_fp16 in SP-mode (SGEMM-TC): FP32 data, same digits and sums",
    .params = mpb_ozaki1_fp16_params, .n_params = MPB_OZ16_N_PARAMS,
    .check = mpb_ozaki1_fp16_check, .cuda = &mpb_ozaki1_fp16_cuda,
    .run_host = mpb_ozaki1_fp16_host, .bound = mpb_ozaki1_fp16_sp_bound,
    .bitwise_host_device = true,
};

static const struct mpb_scheme ozaki1_int8 = {
    .name = "ozaki1_int8", .family = "ozaki1", .target = MPB_TARGET_FP64, .version = 2,
    .help = "Ozaki scheme I on INT8 tensor cores (ozIMMU, Ootomo, Ozaki, Yokota 2024): 7-bit "
            "digits per row/column scale, exact INT8->INT32 GEMMs, FP64 or exact grouped sum; "
            "NaN/Inf in a row of A or column of B gives NaN there",
    .params = mpb_ozaki1_int8_params, .n_params = MPB_OZ8_N_PARAMS,
    .check = mpb_ozaki1_int8_check, .cuda = &mpb_ozaki1_int8_cuda,
    .run_host = mpb_ozaki1_int8_host, .bound = mpb_ozaki1_int8_bound,
    .bitwise_host_device = true,
};

static const struct mpb_scheme ozaki2_int8 = {
    .name = "ozaki2_int8", .family = "ozaki2", .target = MPB_TARGET_FP64, .version = 1,
    .help = "Ozaki scheme II: CRT over `moduli` INT8 GEMMs (Ozaki, Uchino, Imamura 2025); "
            "slices = moduli; NaN/Inf in a row of A or column of B gives NaN there",
    .params = mpb_ozaki2_int8_params, .n_params = MPB_OZ2_N_PARAMS, .check = mpb_oz2_check,
    .cuda = &mpb_ozaki2_cuda, .run_host = mpb_ozaki2_host, .bound = mpb_ozaki2_bound,
    .bitwise_host_device = true, .bound_rowcol = true,
};

static const struct mpb_scheme ozaki2_int8_sp = {
    .name = "ozaki2_int8_sp", .family = "ozaki2", .target = MPB_TARGET_FP32, .version = 1,
    .help = "Ozaki scheme II for FP32 (as ozaki2_int8, fewer moduli); slices = moduli",
    .params = mpb_ozaki2_int8_sp_params, .n_params = MPB_OZ2_N_PARAMS, .check = mpb_oz2_check,
    .cuda = &mpb_ozaki2_cuda, .run_host = mpb_ozaki2_host, .bound = mpb_ozaki2_sp_bound,
    .bitwise_host_device = true, .bound_rowcol = true,
};

/* Bitwise host/device holds on the emulated path only: a native fallback runs
 * cublasDgemm on the GPU and the dgemm host model on the host, which agree
 * within the bound, not bit for bit (tests/kernels/test_adp_cuda.c checks
 * the emulated path bitwise). */
static const struct mpb_scheme adp = {
    .name = "adp", .family = "adp", .target = MPB_TARGET_FP64, .version = 2,
    .help = "Automatic Dynamic Precision (Schwarz et al.): ESC picks the bits, NaN/Inf/subnormal "
            "and speed guardrails fall back to DGEMM; exact INT8 engine: CRT residues (engine=crt) "
            "or Ozaki-I unsigned slices; slices = CRT moduli or INT8 slices used",
    .params = mpb_adp_params, .n_params = MPB_ADP_N_PARAMS,
    .check = mpb_adp_check, .cuda = &mpb_adp_cuda, .run_host = mpb_adp_host,
    .bound = mpb_adp_bound,
};

const struct mpb_scheme *const mpb_schemes[] = {
    &dgemm, &sgemm, &tf32, &fp16, &bf16, &cublas_fp64emu, &cublas_bf16x9,
    &ozaki1_fp16, &ozaki1_fp16_sp, &ozaki1_int8,
    &ozaki2_int8, &ozaki2_int8_sp,
    &adp,
};
const int mpb_n_schemes = (int)(sizeof mpb_schemes / sizeof mpb_schemes[0]);

const struct mpb_scheme *mpb_scheme_find(const char *name)
{
    for (int i = 0; i < mpb_n_schemes; i++)
        if (strcmp(mpb_schemes[i]->name, name) == 0)
            return mpb_schemes[i];
    return NULL;
}
