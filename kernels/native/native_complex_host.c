/* Host models and error bounds of the native complex baselines: each entry
 * from complex_arith.h, 4M (zgemm, cgemm) or 3M (zgemm3m, cgemm3m). */
#include "native/native.h"

#include "mpb_arith.h"
#include "native/complex_arith.h"

typedef void entry_f64(const double *, const double *, int64_t, int64_t, int64_t, int64_t, double *,
                       double *);
typedef void entry_f32(const float *, const float *, int64_t, int64_t, int64_t, int64_t, float *, float *);

static void gemm_f64(entry_f64 *entry, const struct mpb_gemm *g)
{
    double *c = g->c;
    for (int64_t j = 0; j < g->n; j++)
        for (int64_t i = 0; i < g->m; i++)
            entry(g->a, g->b, g->m, g->k, i, j, &c[2 * (i + j * g->m)], &c[2 * (i + j * g->m) + 1]);
}

static void gemm_f32(entry_f32 *entry, const struct mpb_gemm *g)
{
    float *c = g->c;
    for (int64_t j = 0; j < g->n; j++)
        for (int64_t i = 0; i < g->m; i++)
            entry(g->a, g->b, g->m, g->k, i, j, &c[2 * (i + j * g->m)], &c[2 * (i + j * g->m) + 1]);
}

enum mpb_status mpb_zgemm_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info)
{
    (void)params;
    gemm_f64(mpb_c4m_entry_f64, g);
    info->fallback = 0;
    return MPB_STATUS_OK;
}

enum mpb_status mpb_cgemm_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info)
{
    (void)params;
    gemm_f32(mpb_c4m_entry_f32, g);
    info->fallback = 0;
    return MPB_STATUS_OK;
}

enum mpb_status mpb_zgemm3m_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info)
{
    (void)params;
    gemm_f64(mpb_c3m_entry_f64, g);
    info->fallback = 0;
    return MPB_STATUS_OK;
}

enum mpb_status mpb_cgemm3m_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info)
{
    (void)params;
    gemm_f32(mpb_c3m_entry_f32, g);
    info->fallback = 0;
    return MPB_STATUS_OK;
}

/* Error bounds, against (|A||B|)_ij with |·| the complex modulus.
 *
 * 4M: each part is a sum of 2k real products, each step rounded once in
 * any order, so |ΔRe| ≤ γ_2k·P_re and |ΔIm| ≤ γ_2k·P_im with P_re =
 * Σ|ar||br| + |ai||bi|, P_im = Σ|ar||bi| + |ai||br| (Higham 2002, §3.1).
 * Per index l the vector (p_re, p_im) has each component ≤ |a||b|
 * (Cauchy–Schwarz), so its length is ≤ √2·|a||b| and
 * |ΔC| ≤ γ_2k·‖(P_re, P_im)‖₂ ≤ √2·γ_2k·(|A||B|)_ij.
 *
 * 3M: with S = Σ(|ar|+|ai|)(|br|+|bi|) ≤ 2(|A||B|)_ij: T1, T2 carry
 * γ_k·P1, γ_k·P2 (P1 + P2 = P_re ≤ S); T3's inputs are rounded sums, so
 * |ΔT3| ≤ [(1+u)²(1+γ_k) − 1]·S ≤ γ_{k+2}·S. Re = fl(T1 − T2):
 * |ΔRe| ≤ γ_{k+1}·P_re. Im = fl(fl(T3 − T1) − T2): the three errors plus a
 * rounding of |T3 − T1| ≤ (1+γ_{k+2})·2S and of |Im| ≤ (1+γ_{k+3})·S,
 * |ΔIm| ≤ 2γ_{k+5}·S. So |ΔC| ≤ |ΔRe| + |ΔIm| ≤ 3γ_{k+5}·S ≤ 6γ_{k+5}·(|A||B|)_ij.
 * The imaginary part's error scales with S, not with P_im: 3M has no
 * per-part componentwise bound (the smallim generator shows it). */
static double bound_4m(int64_t k, double u)
{
    return 1.4142135623730951 * mpb_gamma_k(2 * k, u);
}

static double bound_3m(int64_t k, double u)
{
    return 6 * mpb_gamma_k(k + 5, u);
}

double mpb_zgemm_bound(const double *params, int64_t k)
{
    (void)params;
    return bound_4m(k, 0x1p-53);
}

double mpb_cgemm_bound(const double *params, int64_t k)
{
    (void)params;
    return bound_4m(k, 0x1p-24);
}

double mpb_zgemm3m_bound(const double *params, int64_t k)
{
    (void)params;
    return bound_3m(k, 0x1p-53);
}

double mpb_cgemm3m_bound(const double *params, int64_t k)
{
    (void)params;
    return bound_3m(k, 0x1p-24);
}
