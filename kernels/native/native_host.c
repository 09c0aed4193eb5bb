/* Host models and error bounds of the native baselines: the plain host
 * GEMM (common/host_gemm.c) on the inputs, or on their copies rounded as the
 * GPU rounds them (common/lowp_arith.h). */
#include "native/native.h"

#include <stdio.h>
#include <stdlib.h>

#include "mpb_arith.h"
#include "mpb_size.h"
#include "common/host_gemm.h"
#include "common/lowp_arith.h"

static void info_native(struct mpb_scheme_info *info)
{
    info->fallback = 0;
}

size_t mpb_native_plain_workspace(const double *params, const struct mpb_gemm *g, bool on_device)
{
    (void)params, (void)g, (void)on_device;
    return 0;
}

/* lowp_host's rounded copies; on the GPU tf32 rounds inside cuBLAS. */
size_t mpb_native_tf32_workspace(const double *params, const struct mpb_gemm *g, bool on_device)
{
    (void)params;
    size_t ab = mpb_size_add(mpb_size_matrix(g->m, g->k, 1), mpb_size_matrix(g->k, g->n, 1));
    return on_device ? 0 : mpb_size_mul(ab, sizeof(float));
}

/* lowp_host's rounded copies; native.cu's 16-bit copies (convert()). */
size_t mpb_native_half_workspace(const double *params, const struct mpb_gemm *g, bool on_device)
{
    (void)params;
    size_t ab = mpb_size_add(mpb_size_matrix(g->m, g->k, 1), mpb_size_matrix(g->k, g->n, 1));
    return mpb_size_mul(ab, on_device ? sizeof(uint16_t) : sizeof(float));
}

enum mpb_status mpb_dgemm_host(const struct mpb_gemm *g, const double *params,
                               struct mpb_scheme_info *info)
{
    (void)params;
    mpb_host_gemm_f64(g->a, g->b, g->c, g->m, g->n, g->k);
    info_native(info);
    return MPB_STATUS_OK;
}

enum mpb_status mpb_sgemm_host(const struct mpb_gemm *g, const double *params,
                               struct mpb_scheme_info *info)
{
    (void)params;
    mpb_host_gemm_f32(g->a, g->b, g->c, g->m, g->n, g->k);
    info_native(info);
    return MPB_STATUS_OK;
}

static void round_all(float (*round_fn)(float), const float *x, float *y, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        y[i] = round_fn(x[i]);
}

/* Tensor-core model: inputs rounded to the format (the same MPB_HD function
 * as the GPU's conversion kernel), then an fp32 product-sum. The products of
 * two 11-bit (or 8-bit) significands fit in fp32's 24 bits, so fmaf rounds
 * once per step, on the addition, as the tensor core's fp32 accumulator does
 * (up to its rounding direction, which the bound covers). */
static enum mpb_status lowp_host(float (*round_fn)(float), const struct mpb_gemm *g,
                                 struct mpb_scheme_info *info)
{
    size_t na = (size_t)(g->m * g->k), nb = (size_t)(g->k * g->n);
    float *ar =
        malloc((na + nb) * sizeof *ar + 1); /* + 1: a valid pointer when A and B are empty */
    if (!ar) {
        snprintf(info->note, sizeof info->note,
                 "out of host memory for the rounded copies of A and B (%zu floats)", na + nb);
        return MPB_STATUS_ERROR;
    }
    float *br = ar + na;
    round_all(round_fn, g->a, ar, (int64_t)na);
    round_all(round_fn, g->b, br, (int64_t)nb);
    mpb_host_gemm_f32(ar, br, g->c, g->m, g->n, g->k);
    free(ar);
    info_native(info);
    return MPB_STATUS_OK;
}

enum mpb_status mpb_tf32_host(const struct mpb_gemm *g, const double *params,
                              struct mpb_scheme_info *info)
{
    (void)params;
    return lowp_host(mpb_tf32_round, g, info);
}

enum mpb_status mpb_fp16_host(const struct mpb_gemm *g, const double *params,
                              struct mpb_scheme_info *info)
{
    (void)params;
    return lowp_host(mpb_fp16_round, g, info);
}

enum mpb_status mpb_bf16_host(const struct mpb_gemm *g, const double *params,
                              struct mpb_scheme_info *info)
{
    (void)params;
    return lowp_host(mpb_bf16_round, g, info);
}

/* Error bounds.
 *
 * Recursive summation of k products, each step rounded with unit roundoff u,
 * in any order: |Ĉ − C| ≤ γ_k |A||B|, γ_k = k·u/(1 − k·u) (Higham, Accuracy
 * and Stability of Numerical Algorithms, 2nd ed. 2002, §3.1 eq. (3.5) for an
 * inner product, §3.5 eq. (3.13) for C = AB). cuBLAS may block or split the
 * sum along k; the bound holds for every order.
 *
 * Low-precision inputs: â = a(1+α), b̂ = b(1+β), |α|, |β| ≤ u_in, so each
 * product is âb̂ = ab(1+α)(1+β) and
 *     |Ĉ − C| ≤ [(1+u_in)²(1+γ_k(u_acc)) − 1] |A||B|.
 * u_in = 2^-11 for fp16 and 2^-8 for bf16 (our conversion kernel rounds to
 * nearest). tf32: cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32 kernels may truncate
 * fp32 inputs instead of rounding them, so u_in = 2^-10, the unit roundoff of
 * chopping to 11 significant bits. u_acc = 2^-23: tensor cores accumulate in
 * fp32 with truncation rather than round to nearest (Fasi, Higham, Mikaitis,
 * Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021), and
 * chopping has unit roundoff 2^(1−t) = 2^-23 (Higham §2.1).
 * Valid while the inputs stay in the format's normal range: subnormal fp16 or
 * bf16 inputs carry an absolute, not relative, rounding error, and inputs
 * beyond the largest finite value become ±Inf. */
static double lowp_bound(double u_in, int64_t k)
{
    return (1.0 + 2.0 * u_in + u_in * u_in) * (1.0 + mpb_gamma_k(k, 0x1p-23)) - 1.0;
}

double mpb_dgemm_bound(const double *params, int64_t k)
{
    (void)params;
    return mpb_gamma_k(k, 0x1p-53);
}

double mpb_sgemm_bound(const double *params, int64_t k)
{
    (void)params;
    return mpb_gamma_k(k, 0x1p-24);
}

double mpb_tf32_bound(const double *params, int64_t k)
{
    (void)params;
    return lowp_bound(0x1p-10, k);
}

double mpb_fp16_bound(const double *params, int64_t k)
{
    (void)params;
    return lowp_bound(0x1p-11, k);
}

double mpb_bf16_bound(const double *params, int64_t k)
{
    (void)params;
    return lowp_bound(0x1p-8, k);
}
