/* Host-side descriptor parts of ozaki2_int8_z and ozaki2_int8_c: parameter
 * tables, check(), the error bound and the working set. */
#include "ozaki2/ozaki2_complex.h"

#include <math.h>
#include <stdio.h>

#include "common/cublas_util.h"
#include "mpb_size.h"

static const char *const mode_choices[] = {"fast", "accurate", NULL};
static const char *const gemm_choices[] = {"calls", "batched", NULL};
static const char *const form_choices[] = {"karatsuba", "conventional", NULL};

/* Defaults: the real schemes' counts (15 for fp64, 8 for fp32): each part
 * is a real dot product of length 2k, reconstructed the same way. */
#define OZ2C_PARAMS(default_moduli)                                                              \
    {                                                                                            \
        [MPB_OZ2_MODULI] = {.name = "moduli", .kind = MPB_PARAM_INT, .def = default_moduli,     \
                            .lo = MPB_OZ2_MIN_MODULI, .hi = MPB_OZ2_MAX_MODULI,                  \
                            .help = "number of moduli (256, 255, 253, 251, ...); each costs 3 "  \
                                    "INT8 GEMMs (form=karatsuba) or 4 (form=conventional)"},     \
        [MPB_OZ2_MODE] = {.name = "mode", .kind = MPB_PARAM_CHOICE, .def = "fast",               \
                          .choices = mode_choices,                                               \
                          .help = "scaling bound over both parts: fast = Cauchy-Schwarz; "       \
                                  "accurate = one extra INT8 GEMM of 5-bit digits of |re|+|im|"}, \
        [MPB_OZ2_NBLOCK] = {.name = "nblock", .kind = MPB_PARAM_INT, .def = "0", .lo = 0,        \
                            .hi = 1 << 30,                                                       \
                            .help = "columns of B per INT8 GEMM call; 0 = auto (4096 when "      \
                                    "n > 4096)"},                                                \
        [MPB_OZ2_MBLOCK] = {.name = "mblock", .kind = MPB_PARAM_INT, .def = "0", .lo = 0,        \
                            .hi = 1 << 30, .help = "rows of A per INT8 GEMM call; 0 = auto (all m)"}, \
        [MPB_OZ2_GEMM] = {.name = "gemm", .kind = MPB_PARAM_CHOICE, .def = "calls",              \
                          .choices = gemm_choices,                                               \
                          .help = "INT8 GEMMs: calls = one cublasGemmEx per product, modulus "   \
                                  "and tile; batched = one strided-batched call per product "    \
                                  "kind and tile"},                                              \
        [MPB_OZ2C_FORM] = {.name = "form", .kind = MPB_PARAM_CHOICE, .def = "karatsuba",          \
                           .choices = form_choices,                                              \
                           .help = "products per modulus: karatsuba = 3 (Ar*Br, Ai*Bi, "         \
                                   "(Ar+Ai)*(Br+Bi) on residues, exact); conventional = 4 "    \
                                   "(4M); the same bits"},                                      \
    }

const struct mpb_param_spec mpb_ozaki2_int8_z_params[] = OZ2C_PARAMS("15");
const struct mpb_param_spec mpb_ozaki2_int8_c_params[] = OZ2C_PARAMS("8");

bool mpb_oz2c_check(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev,
                    char *why, size_t why_len)
{
    (void)params;
    if (!dev)
        return true;
    /* k is split into chunks of at most MPB_CRT_CHUNK_K, but the residues'
     * leading dimension is the padded k */
    struct mpb_gemm padded = *g;
    padded.k = mpb_oz2_padded_k(g->k);
    return mpb_cublas_int_dims(&padded, "cublasGemmStridedBatchedEx", why, why_len);
}

int64_t mpb_oz2c_product_cols(const double *params, int64_t n)
{
    if (n <= 0)
        return 0;
    int64_t nb = mpb_oz2_block_cols(params, n), want = n / 48 + 1;
    if (want < 4096)
        want = 4096;
    int64_t cols = (want + nb - 1) / nb * nb;
    return cols < n ? cols : n;
}

/* Mirrors the allocations of ozaki2_complex_host.c (per row/column the
 * maximum, the scaling statistic and the scale; N·P residue planes of k,
 * accurate mode's digits; N·G INT32 products of all of C) and
 * ozaki2_complex.cu's alloc_all (six statistics and the scale per
 * row/column; N·P residue planes of the padded k; N·G INT32 products of
 * one tile of mpb_oz2c_product_cols columns, and N·G more for the later
 * chunks' products when k is split; at least accurate mode's U over all of
 * C, 4 bytes an entry, 12 when k is split). P = 3 (karatsuba) or 2 (4m)
 * residue planes, G = 3 or 4 products per modulus: per entry of A or B,
 * P·N bytes of residues; per entry of a product tile, 4·G·N bytes (15
 * moduli, karatsuba: 45 and 180 bytes). */
size_t mpb_ozaki2_complex_workspace(const double *params, const struct mpb_gemm *g, bool on_device)
{
    size_t nm = (size_t)params[MPB_OZ2_MODULI];
    int form = (int)params[MPB_OZ2C_FORM];
    size_t planes = nm * (size_t)mpb_oz2c_planes(form), products = nm * (size_t)mpb_oz2c_products(form);
    int64_t vecs = g->m + g->n;
    size_t per_vec = on_device ? 6 * sizeof(uint64_t) + sizeof(int) : 2 * sizeof(uint64_t) + sizeof(int);
    size_t bytes = mpb_size_add(mpb_size_matrix(vecs, 1, per_vec), 256);
    int64_t k = on_device ? mpb_oz2_padded_k(g->k) : g->k;
    bytes = mpb_size_add(bytes, mpb_size_mul(planes, mpb_size_matrix(vecs, k, 1)));
    if (!on_device && params[MPB_OZ2_MODE] == MPB_OZ2_ACCURATE)
        bytes = mpb_size_add(bytes, mpb_size_matrix(vecs, k, 1));
    if (!on_device)
        return mpb_size_add(bytes, mpb_size_mul(products, mpb_size_matrix(g->m, g->n, sizeof(int32_t))));
    bool split = g->k > MPB_OZ2_MAX_K;
    size_t tile = mpb_size_mul(products * (split ? 2 : 1),
                               mpb_size_matrix(g->m, mpb_oz2c_product_cols(params, g->n), sizeof(int32_t)));
    size_t u = mpb_size_mul(split ? 3 : 1, mpb_size_matrix(g->m, g->n, sizeof(int32_t)));
    return mpb_size_add(bytes, tile > u ? tile : u);
}

/* The bound, row/column-wise with the complex modulus, as the real
 * scheme's (ozaki2_params.c) for the real vectors of length 2k that each
 * part is a dot product of: a = [Ar(i,:) Ai(i,:)], whose 2-norm is
 * ‖A(i,:)‖₂ with |·| the modulus, and b = [Br(:,j); Bi(:,j)] permuted and
 * signed. With |Δ| < 1 per part, each part's error in the scaled domain is
 * ≤ √(2k)(2^nu‖b‖₂ + 2^mu‖a‖₂). Fast mode gives
 * mu ≥ L/2 − e − log2(2k)/2 − 1 (bitlen(S) ≤ 31 + log2(2k)); accurate mode
 * half a bit less, mu ≥ L/2 − e − log2(2k)/2 − 3/2 (bitlen(umax) ≤
 * 13 + log2 k with 5-bit digits). With 2^(e−1) ≤ ‖a‖₂,
 * 2^-mu ≤ 4√2·√(2k)·2^(−L/2)‖a‖₂ in both, so each part's error unscaled is
 * ≤ 16√2·k·2^(−L/2)‖a‖₂‖b‖₂ and the modulus of the two ≤ 32k·2^(−L/2)·
 * ‖a‖₂‖b‖₂. Plus the rounding of the result (≤ 2u‖a‖₂‖b‖₂). */
static double bound(const double *params, int64_t k, double u)
{
    struct mpb_oz2_crt tab;
    if (!mpb_oz2_crt_init((int)params[MPB_OZ2_MODULI], &tab))
        return INFINITY;
    return 32.0 * (double)k * ldexp(1.0, -tab.budget / 2) + 2.0 * u;
}

double mpb_ozaki2_z_bound(const double *params, int64_t k)
{
    return bound(params, k, 0x1p-53);
}

double mpb_ozaki2_c_bound(const double *params, int64_t k)
{
    return bound(params, k, 0x1p-24);
}
