#include "cublas_util.h"

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
