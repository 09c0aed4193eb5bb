/* A complex scheme made of a real one: C = A·B with complex A (m×k) and B
 * (k×n) is the real product
 *
 *     [Re C]   [Ar  −Ai] [Br]
 *     [Im C] = [Ai   Ar]·[Bi]      (2m×n = 2m×2k · 2k×n),
 *
 * so any real scheme multiplies complex matrices by running once on these
 * embedded operands: 4M (four real products' flops, 8mnk), each part a real
 * dot product of length 2k, the sums the exact reference takes per part
 * (reference/ref_dd_complex.c). Row i and row m+i of the embedded A hold the
 * same numbers, and column j of the embedded B both parts of B(:,j), so a
 * per-row/column scaling (Ozaki-I, adp, the FP32 splits' exponents) sees the
 * complex row's and column's magnitudes, one scale over both parts, as
 * ozaki2_int8_z's does.
 *
 * Error: if the real scheme's bound is |Ĉ−C|_ij ≤ f(k)·(|A||B|)_ij, each
 * part's error here is ≤ f(2k)·Σ_l(|ar||br| + |ai||bi|) ≤ f(2k)·(|A||B|)_ij
 * with |·| the complex modulus (Cauchy–Schwarz on each term), so the
 * modulus of the error is ≤ √2·f(2k)·(|A||B|)_ij; the same for a
 * row/column bound, whose embedded row and column norms are the complex
 * ones.
 *
 * The embedding and the interleaving back are copies and negations, exact;
 * the host model runs the real host model on the same embedded operands, so
 * host = GPU bitwise wherever the real scheme's is.
 *
 * A family declares its complex schemes with MPB_EMBED_COMPLEX (below) in a
 * file of its own; the registry names them as any other scheme. */
#ifndef MPB_COMPLEX_EMBED_H
#define MPB_COMPLEX_EMBED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpb_hd.h"
#include "scheme.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the embedding puts things (column-major). Block (r, s) of the
 * embedded A (r, s ∈ {0, 1}: [[Ar, −Ai], [Ai, Ar]]) holds A(i, l) at row
 * r·m + i, column s·k + l; the embedded B holds part q of B(l, j) at row
 * q·k + l; the embedded C part q of C(i, j) at row q·m + i. */
MPB_HD int64_t mpb_embed_a_at(int64_t m, int64_t k, int64_t i, int64_t l, int r, int s)
{
    return (r * m + i) + (s * k + l) * 2 * m;
}

MPB_HD int64_t mpb_embed_b_at(int64_t k, int64_t l, int64_t j, int q)
{
    return q * k + l + j * 2 * k;
}

MPB_HD int64_t mpb_embed_c_at(int64_t m, int64_t i, int64_t j, int q)
{
    return q * m + i + j * 2 * m;
}

/* The real scheme a complex one runs on: its descriptor's parts. */
struct mpb_embed_real {
    const struct mpb_scheme_cuda *cuda;
    enum mpb_status (*run_host)(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info);
    bool (*check)(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev, char *why,
                  size_t why_len);
    double (*bound)(const double *params, int64_t k);
    /* NULL: scheme.h's default (A, B and C once more on the host, nothing on the device). */
    size_t (*workspace)(const double *params, const struct mpb_gemm *g, bool on_device);
};

/* The real problem of complex g: 2m×n×2k, pointers not set. */
struct mpb_gemm mpb_embed_real_gemm(const struct mpb_gemm *g);

/* The complex scheme's descriptor parts, given its real scheme. */
enum mpb_status mpb_embed_setup(const struct mpb_embed_real *real, struct mpb_cuda_env *env,
                                const struct mpb_gemm *g, const double *params, void **state);
enum mpb_status mpb_embed_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                              struct mpb_phase_clock *clock);
enum mpb_status mpb_embed_report(struct mpb_cuda_env *env, void *state, struct mpb_scheme_info *info);
void mpb_embed_teardown(struct mpb_cuda_env *env, void *state);
enum mpb_status mpb_embed_host(const struct mpb_embed_real *real, const struct mpb_gemm *g, const double *params,
                               struct mpb_scheme_info *info);
bool mpb_embed_check(const struct mpb_embed_real *real, const double *params, const struct mpb_gemm *g,
                     const struct mpb_device_info *dev, char *why, size_t why_len);
double mpb_embed_bound(const struct mpb_embed_real *real, const double *params, int64_t k);
size_t mpb_embed_workspace(const struct mpb_embed_real *real, const double *params, const struct mpb_gemm *g,
                           bool on_device);

/* Defines the descriptor parts of complex scheme `prefix` on real scheme
 * `real` (a const struct mpb_embed_real): prefix##_cuda, _host, _check,
 * _bound, _workspace, declared with MPB_EMBED_COMPLEX_DECLARE. */
#define MPB_EMBED_COMPLEX_DECLARE(prefix)                                                                   \
    extern const struct mpb_scheme_cuda prefix##_cuda;                                                     \
    enum mpb_status prefix##_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info); \
    bool prefix##_check(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev,  \
                        char *why, size_t why_len);                                                        \
    double prefix##_bound(const double *params, int64_t k);                                                \
    size_t prefix##_workspace(const double *params, const struct mpb_gemm *g, bool on_device)

#define MPB_EMBED_COMPLEX(prefix, real)                                                                     \
    static enum mpb_status prefix##_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,              \
                                          const double *params, void **state)                              \
    {                                                                                                      \
        return mpb_embed_setup(&(real), env, g, params, state);                                            \
    }                                                                                                      \
    const struct mpb_scheme_cuda prefix##_cuda = {prefix##_setup, mpb_embed_run, mpb_embed_report,         \
                                                  mpb_embed_teardown};                                     \
    enum mpb_status prefix##_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info) \
    {                                                                                                      \
        return mpb_embed_host(&(real), g, params, info);                                                   \
    }                                                                                                      \
    bool prefix##_check(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev,  \
                        char *why, size_t why_len)                                                         \
    {                                                                                                      \
        return mpb_embed_check(&(real), params, g, dev, why, why_len);                                     \
    }                                                                                                      \
    double prefix##_bound(const double *params, int64_t k)                                                 \
    {                                                                                                      \
        return mpb_embed_bound(&(real), params, k);                                                        \
    }                                                                                                      \
    size_t prefix##_workspace(const double *params, const struct mpb_gemm *g, bool on_device)              \
    {                                                                                                      \
        return mpb_embed_workspace(&(real), params, g, on_device);                                         \
    }

#ifdef __cplusplus
}
#endif

#endif
