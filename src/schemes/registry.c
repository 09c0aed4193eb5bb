/* The one table of schemes (DESIGN.md "Schemes: one registry, two backends").
 * Add a scheme here and it is listed, run, swept and self-tested; the
 * registry test (tests/test_registry.c) checks every entry's invariants. */
#include "schemes/registry.h"

#include <string.h>

#include "adp/adp.h"
#include "adp/adp_complex.h"
#include "cublas_emu/cublas_emu.h"
#include "cublasmp/cublasmp.h"
#include "fp32split/fp32split.h"
#include "fp32split/fp32split_complex.h"
#include "mixpert/mixpert.h"
#include "native/native.h"
#include "ozaki1/ozaki1.h"
#include "ozaki1/ozaki1_complex.h"
#include "ozaki2/ozaki2.h"
#include "ozaki2/ozaki2_complex.h"
#include "quantensor/quantensor.h"

static const struct mpb_scheme dgemm = {
    .name = "dgemm", .family = "native", .target = MPB_TARGET_FP64, .version = 1,
    .help = "cublasDgemm, native FP64; host model: fma loop in double",
    .cuda = &mpb_dgemm_cuda, .run_host = mpb_dgemm_host, .bound = mpb_dgemm_bound,
    .workspace_bytes = mpb_native_plain_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme sgemm = {
    .name = "sgemm", .family = "native", .target = MPB_TARGET_FP32, .version = 1,
    .help = "cublasSgemm, native FP32 (no TF32); host model: fmaf loop in float",
    .cuda = &mpb_sgemm_cuda, .run_host = mpb_sgemm_host, .bound = mpb_sgemm_bound,
    .workspace_bytes = mpb_native_plain_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme tf32 = {
    .name = "tf32", .family = "native", .target = MPB_TARGET_FP32, .version = 1,
    .help = "cublasGemmEx FP32 data, CUBLAS_COMPUTE_32F_FAST_TF32 (raw low precision)",
    .cuda = &mpb_tf32_cuda, .run_host = mpb_tf32_host, .bound = mpb_tf32_bound,
    .workspace_bytes = mpb_native_tf32_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme fp16 = {
    .name = "fp16", .family = "native", .target = MPB_TARGET_FP32, .version = 1,
    .help = "cublasGemmEx FP16 inputs (rounded once, untimed), FP32 accumulation and output",
    .cuda = &mpb_fp16_cuda, .run_host = mpb_fp16_host, .bound = mpb_fp16_bound,
    .workspace_bytes = mpb_native_half_workspace,
};

static const struct mpb_scheme bf16 = {
    .name = "bf16", .family = "native", .target = MPB_TARGET_FP32, .version = 1,
    .help = "cublasGemmEx BF16 inputs (rounded once, untimed), FP32 accumulation and output",
    .cuda = &mpb_bf16_cuda, .run_host = mpb_bf16_host, .bound = mpb_bf16_bound,
    .workspace_bytes = mpb_native_half_workspace,
};

static const struct mpb_scheme zgemm = {
    .name = "zgemm", .family = "native", .target = MPB_TARGET_FP64, .field = MPB_FIELD_COMPLEX, .version = 1,
    .help = "cublasZgemm, native complex FP64 (4M); host model: an fma loop in double per part",
    .cuda = &mpb_zgemm_cuda, .run_host = mpb_zgemm_host, .bound = mpb_zgemm_bound,
    .workspace_bytes = mpb_native_plain_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme cgemm = {
    .name = "cgemm", .family = "native", .target = MPB_TARGET_FP32, .field = MPB_FIELD_COMPLEX, .version = 1,
    .help = "cublasCgemm, native complex FP32 (4M); host model: an fmaf loop in float per part",
    .cuda = &mpb_cgemm_cuda, .run_host = mpb_cgemm_host, .bound = mpb_cgemm_bound,
    .workspace_bytes = mpb_native_plain_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme zgemm3m = {
    .name = "zgemm3m", .family = "native", .target = MPB_TARGET_FP64, .field = MPB_FIELD_COMPLEX, .version = 1,
    .help = "cublasZgemm3m, complex FP64 with three real products (Gauss/Karatsuba); host model: "
            "T1=Ar*Br, T2=Ai*Bi, T3=(Ar+Ai)*(Br+Bi) as fma loops, Re=T1-T2, Im=T3-T1-T2",
    .cuda = &mpb_zgemm3m_cuda, .run_host = mpb_zgemm3m_host, .bound = mpb_zgemm3m_bound,
    .workspace_bytes = mpb_native_plain_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme cgemm3m = {
    .name = "cgemm3m", .family = "native", .target = MPB_TARGET_FP32, .field = MPB_FIELD_COMPLEX, .version = 1,
    .help = "cublasCgemm3m, complex FP32 with three real products (Gauss/Karatsuba); host model: "
            "as zgemm3m's in float",
    .cuda = &mpb_cgemm3m_cuda, .run_host = mpb_cgemm3m_host, .bound = mpb_cgemm3m_bound,
    .workspace_bytes = mpb_native_plain_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme cublas_fp64emu = {
    .name = "cublas_fp64emu", .family = "cublas_emu", .target = MPB_TARGET_FP64, .version = 1,
    .help = "cuBLAS FP64 fixed-point emulation (CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, NVIDIA's ADP); "
            "slices = mantissa bits retained",
    .params = mpb_cublas_fp64emu_params, .n_params = MPB_CUBLAS_FP64EMU_N_PARAMS,
    .check = mpb_cublas_fp64emu_check, .cuda = &mpb_cublas_fp64emu_cuda, .bound = mpb_dgemm_bound,
};

static const struct mpb_scheme cublas_zfp64emu = {
    .name = "cublas_zfp64emu", .family = "cublas_emu", .target = MPB_TARGET_FP64, .field = MPB_FIELD_COMPLEX,
    .version = 1,
    .help = "cuBLAS FP64 fixed-point emulation on complex FP64 (cublasGemmEx, CUDA_C_64F, "
            "CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT); not_supported, with cuBLAS's status, where cuBLAS "
            "refuses it; slices = mantissa bits retained",
    .params = mpb_cublas_fp64emu_params, .n_params = MPB_CUBLAS_FP64EMU_N_PARAMS,
    .check = mpb_cublas_fp64emu_check, .cuda = &mpb_cublas_zfp64emu_cuda, .bound = mpb_zgemm_bound,
};

static const struct mpb_scheme cublas_bf16x9 = {
    .name = "cublas_bf16x9", .family = "cublas_emu", .target = MPB_TARGET_FP32, .version = 1,
    .help = "cuBLAS FP32 emulation with 9 BF16 products (CUBLAS_COMPUTE_32F_EMULATED_16BFX9); "
            "not_supported below compute capability 10.0, where cuBLAS silently runs native FP32",
    .check = mpb_cublas_bf16x9_check, .cuda = &mpb_cublas_bf16x9_cuda, .bound = mpb_sgemm_bound,
};

/* Several GPUs for one GEMM: cuBLASMp, optional at build time. */
static const struct mpb_scheme mp_dgemm = {
    .name = "mp_dgemm", .family = "cublasmp", .target = MPB_TARGET_FP64, .version = 1,
    .help = "cuBLASMp native FP64 GEMM (cublasMpGemm) over `gpus` GPUs, 2-D block-cyclic; host "
            "model: dgemm's on every part; needs a build with cuBLASMp on the GPU",
    .params = mpb_mp_dgemm_params, .n_params = MPB_MP_DGEMM_N_PARAMS,
    .check = mpb_mp_dgemm_check, .multi = &mpb_mp_dgemm_multi, .bound = mpb_dgemm_bound,
};

static const struct mpb_scheme mp_fp64emu = {
    .name = "mp_fp64emu", .family = "cublasmp", .target = MPB_TARGET_FP64, .version = 1,
    .help = "cuBLASMp FP64 fixed-point emulation (cuBLASMp >= 0.9) over `gpus` GPUs, 2-D "
            "block-cyclic; slices = mantissa bits retained; needs a build with cuBLASMp",
    .params = mpb_mp_fp64emu_params, .n_params = MPB_MP_FP64EMU_N_PARAMS,
    .check = mpb_mp_fp64emu_check, .multi = &mpb_mp_fp64emu_multi, .bound = mpb_dgemm_bound,
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
    .bitwise_host_device = true, .bound_rowcol = true, .workspace_bytes = mpb_ozaki2_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme ozaki2_int8_sp = {
    .name = "ozaki2_int8_sp", .family = "ozaki2", .target = MPB_TARGET_FP32, .version = 1,
    .help = "Ozaki scheme II for FP32 (as ozaki2_int8, fewer moduli); slices = moduli",
    .params = mpb_ozaki2_int8_sp_params, .n_params = MPB_OZ2_N_PARAMS, .check = mpb_oz2_check,
    .cuda = &mpb_ozaki2_cuda, .run_host = mpb_ozaki2_host, .bound = mpb_ozaki2_sp_bound,
    .bitwise_host_device = true, .bound_rowcol = true, .workspace_bytes = mpb_ozaki2_workspace,
    .state_reusable = true,
};

/* Complex Ozaki-II: one scheme per target, as the real pair (the registry
 * holds one target and field per name; z and c as in zgemm and cgemm). */
static const struct mpb_scheme ozaki2_int8_z = {
    .name = "ozaki2_int8_z", .family = "ozaki2", .target = MPB_TARGET_FP64, .field = MPB_FIELD_COMPLEX,
    .version = 1,
    .help = "Ozaki scheme II for complex FP64 (ZGEMM): one scale per row/column over both parts, "
            "form=karatsuba (3 INT8 GEMMs per modulus, exact on residues) or conventional (4M: 4, the "
            "same bits); "
            "slices = moduli; NaN/Inf in a row of A or column of B gives NaN there",
    .params = mpb_ozaki2_int8_z_params, .n_params = MPB_OZ2C_N_PARAMS, .check = mpb_oz2c_check,
    .cuda = &mpb_ozaki2_complex_cuda, .run_host = mpb_ozaki2_complex_host, .bound = mpb_ozaki2_z_bound,
    .bitwise_host_device = true, .bound_rowcol = true, .workspace_bytes = mpb_ozaki2_complex_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme ozaki2_int8_c = {
    .name = "ozaki2_int8_c", .family = "ozaki2", .target = MPB_TARGET_FP32, .field = MPB_FIELD_COMPLEX,
    .version = 1,
    .help = "Ozaki scheme II for complex FP32 (CGEMM): as ozaki2_int8_z, fewer moduli; slices = moduli",
    .params = mpb_ozaki2_int8_c_params, .n_params = MPB_OZ2C_N_PARAMS, .check = mpb_oz2c_check,
    .cuda = &mpb_ozaki2_complex_cuda, .run_host = mpb_ozaki2_complex_host, .bound = mpb_ozaki2_c_bound,
    .bitwise_host_device = true, .bound_rowcol = true, .workspace_bytes = mpb_ozaki2_complex_workspace,
    .state_reusable = true,
};

/* Bitwise host/device holds on the emulated path only: a native fallback runs
 * cublasDgemm on the GPU and the dgemm host model on the host, which agree
 * within the bound, not bit for bit (tests/kernels/test_adp_cuda.c checks
 * the emulated path bitwise). */
static const struct mpb_scheme adp = {
    .name = "adp", .family = "adp", .target = MPB_TARGET_FP64, .version = 3,
    .help = "Automatic Dynamic Precision (Schwarz et al.): ESC picks the bits, NaN/Inf/subnormal "
            "and speed guardrails fall back to DGEMM; exact INT8 engine: CRT residues (engine=crt) "
            "or Ozaki-I unsigned slices; slices = CRT moduli or INT8 slices used",
    .params = mpb_adp_params, .n_params = MPB_ADP_N_PARAMS,
    .check = mpb_adp_check, .cuda = &mpb_adp_cuda, .run_host = mpb_adp_host,
    .bound = mpb_adp_bound, .workspace_bytes = mpb_adp_workspace,
};

/* The FP32 split family on mpbench's tensor-core engine (kernels/tc). The
 * host models run the MMA model `mpbench probe` fitted on the H200 and
 * reproduce the GPU bit for bit; egemm engine=cublas (not the default) only
 * within the bound, cuBLAS's own order of k not being modelled. */
static const struct mpb_scheme egemm = {
    .name = "egemm", .family = "fp32split", .target = MPB_TARGET_FP32, .version = 1,
    .help = "EGEMM-TC (Feng et al., PPoPP'21): round-split FP16 hi + lo, lo*lo, lo*hi, hi*lo, hi*hi "
            "per k-step on mpbench's wgmma engine; slices = MMAs per k-step",
    .params = mpb_egemm_params, .n_params = MPB_EGEMM_N_PARAMS, .check = mpb_egemm_check, .cuda = &mpb_egemm_cuda,
    .run_host = mpb_egemm_host, .bound = mpb_egemm_bound, .bitwise_host_device = true, .bound_rowcol = true,
    .workspace_bytes = mpb_egemm_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme markidis = {
    .name = "markidis", .family = "fp32split", .target = MPB_TARGET_FP32, .version = 1,
    .help = "Markidis et al. (2018): truncation split FP16 hi + lo on the same engine as egemm; "
            "slices = MMAs per k-step",
    .params = mpb_markidis_params, .n_params = MPB_MARKIDIS_N_PARAMS, .check = mpb_markidis_check, .cuda = &mpb_markidis_cuda,
    .run_host = mpb_markidis_host, .bound = mpb_markidis_bound, .bitwise_host_device = true,
    .bound_rowcol = true,
    .workspace_bytes = mpb_markidis_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme refine_fp16 = {
    .name = "refine_fp16", .family = "fp32split", .target = MPB_TARGET_FP32, .version = 1,
    .help = "moTuner's FP16 refinement levels (Mo et al., CF 2022): hi*hi plus the correction products "
            "tau = t1 t2 t3 (A_hi*B_lo, A_lo*B_hi, A_lo*B_lo); slices = MMAs per k-step",
    .params = mpb_refine_fp16_params, .n_params = MPB_REFINE_FP16_N_PARAMS, .check = mpb_refine_fp16_check,
    .cuda = &mpb_refine_fp16_cuda, .run_host = mpb_refine_fp16_host, .bound = mpb_refine_fp16_bound,
    .bitwise_host_device = true, .bound_rowcol = true,
    .workspace_bytes = mpb_refine_fp16_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme tf32x3 = {
    .name = "tf32x3", .family = "fp32split", .target = MPB_TARGET_FP32, .version = 1,
    .help = "CUTLASS 3xTF32: big = tf32(x), small = tf32(x - big), small*big + big*small + big*big "
            "on mpbench's wgmma engine; slices = MMAs per k-step",
    .params = mpb_tf32x3_params, .n_params = MPB_TF32X3_N_PARAMS, .check = mpb_tf32x3_check, .cuda = &mpb_tf32x3_cuda,
    .run_host = mpb_tf32x3_host, .bound = mpb_tf32x3_bound, .bitwise_host_device = true,
    .workspace_bytes = mpb_tf32x3_workspace,
    .state_reusable = true,
};

static const struct mpb_scheme ape_bf16x3 = {
    .name = "ape_bf16x3", .family = "fp32split", .target = MPB_TARGET_FP32, .version = 1,
    .help = "APE (Ma et al., ICS'22): x = hi + mid + lo in BF16, the six products of weight <= 2 on "
            "mpbench's wgmma engine; slices = MMAs per k-step",
    .params = mpb_ape_bf16x3_params, .n_params = MPB_APE_BF16X3_N_PARAMS, .check = mpb_ape_bf16x3_check,
    .cuda = &mpb_ape_bf16x3_cuda, .run_host = mpb_ape_bf16x3_host, .bound = mpb_ape_bf16x3_bound,
    .bitwise_host_device = true,
    .workspace_bytes = mpb_ape_bf16x3_workspace,
    .state_reusable = true,
};

/* MixPert on the engine's block-scaled INT8 path; the host model runs the
 * same packer and INT32 sums and reproduces the GPU bit for bit. */
static const struct mpb_scheme mixpert = {
    .name = "mixpert", .family = "mixpert", .target = MPB_TARGET_FP32, .version = 1,
    .help = "MixPert (Lin et al., LCTES'24): sign, exponent and three 7-bit INT8 segments per group of "
            "kgroup values, segment products on INT8 tensor cores, INT32 -> FP32 per group; "
            "slices = INT8 products per k-step",
    .params = mpb_mixpert_params, .n_params = MPB_MIXPERT_N_PARAMS, .check = mpb_mixpert_check,
    .cuda = &mpb_mixpert_cuda, .run_host = mpb_mixpert_host, .bound = mpb_mixpert_bound,
    .bitwise_host_device = true, .bound_rowcol = true, .workspace_bytes = mpb_mixpert_workspace,
    .state_reusable = true,
};

/* QuanTensor (closed source) from its descriptions in MixPert and moTuner:
 * INT8 slices with power-of-two scales, exact INT8 GEMMs, a fixed
 * accumulation order shared with the host model (quantensor_arith.h). */
static const struct mpb_scheme quantensor_int8 = {
    .name = "quantensor_int8", .family = "quantensor", .target = MPB_TARGET_FP32, .version = 1,
    .help = "QuanTensor-style INT8 quantisation (per-row/column power-of-two scales) with `levels` "
            "0-3 of residual refinement: 1, 3, 6, 9 INT8 GEMMs; slices = INT8 slices per operand; "
            "NaN/Inf rows and columns fixed up to SGEMM's value",
    .params = mpb_quantensor_params, .n_params = MPB_QT_N_PARAMS, .check = mpb_qt_check,
    .cuda = &mpb_quantensor_cuda, .run_host = mpb_quantensor_host, .bound = mpb_qt_bound,
    .bitwise_host_device = true, .bound_rowcol = true, .workspace_bytes = mpb_qt_workspace,
    .state_reusable = true,
};

/* Complex schemes made of real ones (kernels/common/complex_embed.h): the
 * real scheme once on [Ar −Ai; Ai Ar]·[Br; Bi], 4M, its parameters, its
 * host model on the same embedding (so its host/device promise), the
 * bound √2·f(2k). */
static const struct mpb_scheme ozaki1_int8_z = {
    .name = "ozaki1_int8_z", .family = "ozaki1", .target = MPB_TARGET_FP64, .field = MPB_FIELD_COMPLEX,
    .version = 1,
    .help = "ozaki1_int8 for complex FP64 (ZGEMM), 4M: one ozaki1_int8 product of the real embedding "
            "[Ar -Ai; Ai Ar]*[Br; Bi] (2m x n x 2k), one scale per complex row/column",
    .params = mpb_ozaki1_int8_params, .n_params = MPB_OZ8_N_PARAMS,
    .check = mpb_ozaki1_int8_z_check, .cuda = &mpb_ozaki1_int8_z_cuda,
    .run_host = mpb_ozaki1_int8_z_host, .bound = mpb_ozaki1_int8_z_bound,
    .bitwise_host_device = true, .workspace_bytes = mpb_ozaki1_int8_z_workspace,
};

static const struct mpb_scheme adp_z = {
    .name = "adp_z", .family = "adp", .target = MPB_TARGET_FP64, .field = MPB_FIELD_COMPLEX, .version = 2,
    .help = "adp for complex FP64 (ZGEMM), 4M: one adp product of the real embedding "
            "[Ar -Ai; Ai Ar]*[Br; Bi] (2m x n x 2k); its fallback is DGEMM on that embedding",
    .params = mpb_adp_params, .n_params = MPB_ADP_N_PARAMS,
    .check = mpb_adp_z_check, .cuda = &mpb_adp_z_cuda, .run_host = mpb_adp_z_host,
    .bound = mpb_adp_z_bound, .workspace_bytes = mpb_adp_z_workspace,
};

static const struct mpb_scheme tf32x3_c = {
    .name = "tf32x3_c", .family = "fp32split", .target = MPB_TARGET_FP32, .field = MPB_FIELD_COMPLEX,
    .version = 1,
    .help = "tf32x3 for complex FP32 (CGEMM), 4M: one tf32x3 product of the real embedding "
            "[Ar -Ai; Ai Ar]*[Br; Bi] (2m x n x 2k)",
    .params = mpb_tf32x3_params, .n_params = MPB_TF32X3_N_PARAMS, .check = mpb_tf32x3_c_check,
    .cuda = &mpb_tf32x3_c_cuda, .run_host = mpb_tf32x3_c_host, .bound = mpb_tf32x3_c_bound,
    .bitwise_host_device = true, .workspace_bytes = mpb_tf32x3_c_workspace,
};

static const struct mpb_scheme ape_bf16x3_c = {
    .name = "ape_bf16x3_c", .family = "fp32split", .target = MPB_TARGET_FP32, .field = MPB_FIELD_COMPLEX,
    .version = 1,
    .help = "ape_bf16x3 for complex FP32 (CGEMM), 4M: one ape_bf16x3 product of the real embedding "
            "[Ar -Ai; Ai Ar]*[Br; Bi] (2m x n x 2k)",
    .params = mpb_ape_bf16x3_params, .n_params = MPB_APE_BF16X3_N_PARAMS, .check = mpb_ape_bf16x3_c_check,
    .cuda = &mpb_ape_bf16x3_c_cuda, .run_host = mpb_ape_bf16x3_c_host, .bound = mpb_ape_bf16x3_c_bound,
    .bitwise_host_device = true, .workspace_bytes = mpb_ape_bf16x3_c_workspace,
};

const struct mpb_scheme *const mpb_schemes[] = {
    &dgemm, &sgemm, &tf32, &fp16, &bf16, &zgemm, &cgemm, &zgemm3m, &cgemm3m, &cublas_fp64emu, &cublas_zfp64emu,
    &cublas_bf16x9,
    &ozaki1_fp16, &ozaki1_fp16_sp, &ozaki1_int8, &ozaki1_int8_z,
    &ozaki2_int8, &ozaki2_int8_sp, &ozaki2_int8_z, &ozaki2_int8_c,
    &adp, &adp_z,
    &egemm, &markidis, &refine_fp16, &tf32x3, &ape_bf16x3, &tf32x3_c, &ape_bf16x3_c,
    &mixpert, &quantensor_int8,
    &mp_dgemm, &mp_fp64emu,
};
const int mpb_n_schemes = (int)(sizeof mpb_schemes / sizeof mpb_schemes[0]);

const struct mpb_scheme *mpb_scheme_find(const char *name)
{
    for (int i = 0; i < mpb_n_schemes; i++)
        if (strcmp(mpb_schemes[i]->name, name) == 0)
            return mpb_schemes[i];
    return NULL;
}

const struct mpb_scheme *mpb_scheme_native(enum mpb_target t, enum mpb_field f)
{
    if (f == MPB_FIELD_COMPLEX)
        return mpb_scheme_find(t == MPB_TARGET_FP64 ? "zgemm" : "cgemm");
    return mpb_scheme_find(t == MPB_TARGET_FP64 ? "dgemm" : "sgemm");
}
