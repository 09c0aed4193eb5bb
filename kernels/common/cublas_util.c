#include "common/cublas_util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mpb_cublas_int_dims(const struct mpb_gemm *g, const char *api, char *why, size_t why_len)
{
    if (g->m <= INT_MAX && g->n <= INT_MAX && g->k <= INT_MAX)
        return true;
    snprintf(why, why_len, "%s takes int dimensions: m=%lld n=%lld k=%lld exceeds INT_MAX", api,
             (long long)g->m, (long long)g->n, (long long)g->k);
    return false;
}

void mpb_cublas_env_note(char *note, size_t len)
{
    static const char *const vars[] = {
        "CUBLAS_EMULATE_DOUBLE_PRECISION",
        "CUBLAS_EMULATE_SINGLE_PRECISION",
        "CUBLAS_EMULATION_STRATEGY",
        "CUBLAS_EMULATION_SPECIAL_VALUES_SUPPORT_MASK",
        "CUBLAS_FIXEDPOINT_EMULATION_MANTISSA_BIT_COUNT",
        "NVIDIA_TF32_OVERRIDE",
    };
    const char *sep = note[0] ? "; cuBLAS environment:" : "cuBLAS environment:";
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *value = getenv(vars[i]);
        if (!value)
            continue;
        size_t used = strlen(note);
        if (used + 1 >= len)
            return;
        snprintf(note + used, len - used, "%s %s=%s", sep, vars[i], value);
        sep = "";
    }
}

const char *mpb_cublas_math_mode_name(cublasMath_t mode)
{
    static const struct {
        int mode;
        const char *name, *name_disallow;
    } names[] = {
        {CUBLAS_DEFAULT_MATH, "default", "default+disallow_reduced_precision_reduction"},
        {CUBLAS_TENSOR_OP_MATH, "tensor_op", "tensor_op+disallow_reduced_precision_reduction"},
        {CUBLAS_PEDANTIC_MATH, "pedantic", "pedantic+disallow_reduced_precision_reduction"},
        {CUBLAS_TF32_TENSOR_OP_MATH, "tf32_tensor_op",
         "tf32_tensor_op+disallow_reduced_precision_reduction"},
        {CUBLAS_FP32_EMULATED_BF16X9_MATH, "fp32_emulated_bf16x9",
         "fp32_emulated_bf16x9+disallow_reduced_precision_reduction"},
        {CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH, "fp64_emulated_fixedpoint",
         "fp64_emulated_fixedpoint+disallow_reduced_precision_reduction"},
    };
    int flag = CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    int base = (int)mode & ~flag;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].mode == base)
            return ((int)mode & flag) ? names[i].name_disallow : names[i].name;
    return "unknown";
}

int64_t mpb_int8_block_cols(int64_t n)
{
    return n > 4096 ? 4096 : n;
}

cublasStatus_t mpb_gemm_int8_tn(cublasHandle_t handle, int m, int n, int k, const int8_t *a,
                                int lda, const int8_t *b, int ldb, int32_t *c, int ldc,
                                int64_t nblock)
{
    static const int32_t one = 1, zero = 0;
    for (int64_t j0 = 0; j0 < n; j0 += nblock) {
        int nb = (int)(n - j0 < nblock ? n - j0 : nblock);
        cublasStatus_t st = cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, nb, k, &one, a,
                                         CUDA_R_8I, lda, b + j0 * ldb, CUDA_R_8I, ldb, &zero,
                                         c + j0 * ldc, CUDA_R_32I, ldc, CUBLAS_COMPUTE_32I,
                                         CUBLAS_GEMM_DEFAULT);
        if (st != CUBLAS_STATUS_SUCCESS)
            return st;
    }
    return CUBLAS_STATUS_SUCCESS;
}
