/* Host model of the complex Ozaki scheme II (ozaki2_complex_arith.h has the
 * steps): the same MPB_HD steps as ozaki2_complex.cu, with the INT8×INT8→INT32
 * GEMMs computed exactly in integers, so the output is bitwise the GPU's.
 * Meant for the small sizes of tests and `--backend host`. */
#include "ozaki2/ozaki2_complex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpb_size.h"

/* `vecs` complex vectors of length k (rows of A, columns of B): part q of
 * element l of vector v at x[2(v·vstride + l·lstride) + q]. */
struct operand {
    const void *x;
    int64_t vecs, k;
    size_t vstride, lstride;
    enum mpb_target target;
};

static double part(const struct operand *o, int64_t v, int64_t l, int q)
{
    size_t i = 2 * ((size_t)v * o->vstride + (size_t)l * o->lstride) + (size_t)q;
    return o->target == MPB_TARGET_FP64 ? ((const double *)o->x)[i] : (double)((const float *)o->x)[i];
}

/* Step 1's statistics over both parts of each vector: its largest |x| as
 * abs bits (NaN above +Inf) and, in fast mode, the sum of its squared
 * digits. */
static void vec_stats(const struct operand *o, bool sumsq, uint64_t *max, uint64_t *sq)
{
    for (int64_t v = 0; v < o->vecs; v++) {
        uint64_t mx = 0, s = 0;
        for (int64_t l = 0; l < o->k; l++)
            for (int q = 0; q < 2; q++) {
                uint64_t a = mpb_oz2_abs_bits(part(o, v, l, q));
                mx = a > mx ? a : mx;
            }
        int e = mpb_oz2_exponent(mx);
        for (int64_t l = 0; sumsq && l < o->k && mpb_oz2_abs_bits_finite(mx); l++)
            for (int q = 0; q < 2; q++) {
                int64_t d = mpb_oz2_digit_up(part(o, v, l, q), e, MPB_OZ2_NORM_DIGIT_BITS);
                s += (uint64_t)(d * d);
            }
        max[v] = mx;
        sq[v] = s;
    }
}

/* Accurate mode's digits of one operand, d[v·k + l] (0 for a non-finite
 * vector). */
static void digits(const struct operand *o, const uint64_t *max, int8_t *d)
{
    for (int64_t v = 0; v < o->vecs; v++)
        for (int64_t l = 0; l < o->k; l++)
            d[v * o->k + l] = mpb_oz2_abs_bits_finite(max[v])
                                  ? mpb_oz2c_digit(part(o, v, l, 0), part(o, v, l, 1), mpb_oz2_exponent(max[v]))
                                  : 0;
}

/* U = Ā·B̄ (exact: < k·2^12) and its row and column maxima. */
static bool u_maxima(const struct operand *a, const struct operand *b, const uint64_t *amax,
                     const uint64_t *bmax, uint64_t *rmax, uint64_t *cmax)
{
    int64_t m = a->vecs, n = b->vecs, k = a->k;
    int8_t *da = malloc((size_t)((m + n) * k) + 1);
    if (!da)
        return false;
    int8_t *db = da + m * k;
    digits(a, amax, da);
    digits(b, bmax, db);
    mpb_oz2_u_maxima(da, db, m, n, k, rmax, cmax);
    free(da);
    return true;
}

static void scales(const struct operand *o, const uint64_t *max, const uint64_t *stat, bool accurate, int budget,
                   int *mu)
{
    for (int64_t v = 0; v < o->vecs; v++) {
        int e = mpb_oz2_exponent(max[v]);
        mu[v] = !mpb_oz2_abs_bits_finite(max[v]) ? MPB_OZ2_NONFINITE
                : accurate                       ? mpb_oz2c_scale_accurate(e, stat[v], budget)
                                                 : mpb_oz2_scale_fast(e, stat[v], budget);
    }
}

/* Step 2: residue plane (t·P + q) of the scaled, truncated operand,
 * r[((t·P + q)·vecs + v)·k + l]: q = 0 real part, 1 imaginary, 2 (P = 3,
 * Karatsuba) their sum modulo m_t; zero for a non-finite vector. */
static void residues(const struct operand *o, const int *mu, int n_moduli, int planes, int8_t *r)
{
    size_t plane = (size_t)(o->vecs * o->k);
    for (int64_t v = 0; v < o->vecs; v++)
        for (int64_t l = 0; l < o->k; l++) {
            struct mpb_crt_parts p[2];
            for (int q = 0; q < 2; q++)
                p[q] = mpb_crt_split_parts(mu[v] == MPB_OZ2_NONFINITE ? 0
                                                                       : mpb_oz2_scaled_int(part(o, v, l, q), mu[v]));
            for (int t = 0; t < n_moduli; t++) {
                int8_t *at = r + (size_t)t * (size_t)planes * plane + (size_t)(v * o->k + l);
                at[0] = mpb_crt_residue(&p[0], t);
                at[plane] = mpb_crt_residue(&p[1], t);
                if (planes == 3)
                    at[2 * plane] = mpb_oz2c_sum_residue(at[0], at[plane], t);
            }
        }
}

enum mpb_status mpb_ozaki2_complex_host(const struct mpb_gemm *g, const double *params,
                                        struct mpb_scheme_info *info)
{
    return mpb_ozaki2_complex_host_chunked(g, params, info, 0);
}

enum mpb_status mpb_ozaki2_complex_host_chunked(const struct mpb_gemm *g, const double *params,
                                                struct mpb_scheme_info *info, int64_t chunk)
{
    bool accurate = params[MPB_OZ2_MODE] == MPB_OZ2_ACCURATE;
    int form = (int)params[MPB_OZ2C_FORM], n_moduli = (int)params[MPB_OZ2_MODULI];
    int planes = mpb_oz2c_planes(form), products = mpb_oz2c_products(form);
    struct mpb_oz2_crt tab;
    char why[256];
    if (!mpb_oz2c_check(params, g, NULL, why, sizeof why)) {
        snprintf(info->note, sizeof info->note, "%s", why);
        return MPB_STATUS_NOT_SUPPORTED;
    }
    if (!mpb_oz2_crt_init(n_moduli, &tab)) {
        snprintf(info->note, sizeof info->note, "moduli=%d is out of range", n_moduli);
        return MPB_STATUS_NOT_SUPPORTED;
    }
    int64_t m = g->m, n = g->n, k = g->k;
    struct operand a = {g->a, m, k, 1, (size_t)m, g->target};
    struct operand b = {g->b, n, k, (size_t)k, 1, g->target};
    size_t r_bytes = mpb_size_mul(mpb_size_matrix(m + n, k, 1), (size_t)(n_moduli * planes));
    size_t c_bytes = mpb_size_mul(mpb_size_matrix(m, n, sizeof(int32_t)), (size_t)(n_moduli * products));
    uint64_t *stats = malloc(sizeof *stats * (size_t)(2 * (m + n)) + 1);
    int *mu = malloc(sizeof *mu * (size_t)(m + n) + 1);
    int8_t *ra = r_bytes == SIZE_MAX ? NULL : malloc(r_bytes + 1);
    int32_t *c32 = c_bytes == SIZE_MAX ? NULL : malloc(c_bytes + 1);
    uint64_t *amax = stats, *bmax = stats + m, *astat = bmax + n, *bstat = astat + m;
    bool ok = stats && mu && ra && c32;
    if (ok) {
        vec_stats(&a, !accurate, amax, astat);
        vec_stats(&b, !accurate, bmax, bstat);
        ok = !accurate || u_maxima(&a, &b, amax, bmax, astat, bstat);
    }
    if (!ok) {
        free(stats), free(mu), free(ra), free(c32);
        snprintf(info->note, sizeof info->note, "out of host memory");
        return MPB_STATUS_ERROR;
    }
    int *nu = mu + m;
    int8_t *rb = ra + (size_t)(n_moduli * planes) * (size_t)(m * k);
    scales(&a, amax, astat, accurate, tab.budget, mu);
    scales(&b, bmax, bstat, accurate, tab.budget, nu);
    residues(&a, mu, n_moduli, planes, ra);
    residues(&b, nu, n_moduli, planes, rb);
    /* Step 3: product g of modulus t in plane t·G + g, exact INT32 sums
     * (residues in [−128, 127]) per chunk of at most MPB_OZ2_MAX_K terms */
    int64_t kp = mpb_oz2_padded_k(k), most = chunk > 0 ? chunk : mpb_oz2_chunk_most(k);
    int64_t chunks = mpb_crt_chunks(kp, most), len = mpb_crt_chunk_len(kp, most, chunk > 0 ? 1 : 32);
    size_t mn = (size_t)(m * n);
    for (int t = 0; t < n_moduli; t++)
        for (int p = 0; p < products; p++) {
            const int8_t *x = ra + (size_t)(t * planes + mpb_oz2c_plane_a(form, p)) * (size_t)(m * k);
            const int8_t *y = rb + (size_t)(t * planes + mpb_oz2c_plane_b(form, p)) * (size_t)(n * k);
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < m; i++)
                    c32[(size_t)(t * products + p) * mn + (size_t)(i + j * m)] =
                        mpb_oz2_residue_dot(x + i * k, y + j * k, k, len, chunks, t);
        }
    /* Step 3's combination and step 4 */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            size_t pos = (size_t)(i + j * m);
            int32_t re[MPB_OZ2_MAX_MODULI], im[MPB_OZ2_MAX_MODULI];
            for (int t = 0; t < n_moduli; t++) {
                const int32_t *c = c32 + (size_t)(t * products) * mn + pos;
                mpb_oz2c_combine(form, t, c[0], c[mn], c[2 * mn], products == 4 ? c[3 * mn] : 0, &re[t], &im[t]);
            }
            double x, y;
            mpb_oz2c_entry(re, im, 1, &tab, mu[i], nu[j], &x, &y);
            if (g->target == MPB_TARGET_FP64) {
                ((double *)g->c)[2 * pos] = x;
                ((double *)g->c)[2 * pos + 1] = y;
            } else {
                ((float *)g->c)[2 * pos] = (float)x;
                ((float *)g->c)[2 * pos + 1] = (float)y;
            }
        }
    free(stats), free(mu), free(ra), free(c32);
    info->slices = n_moduli;
    info->fallback = 0;
    int used = snprintf(info->settings, sizeof info->settings,
                        "moduli=%d mode=%s form=%s budget_bits=%d int8_gemms=%d", n_moduli,
                        accurate ? "accurate" : "fast", form == MPB_OZ2C_KARATSUBA ? "karatsuba" : "conventional",
                        tab.budget, n_moduli * products + (accurate ? 1 : 0));
    if (chunks > 1 && used > 0 && (size_t)used < sizeof info->settings)
        snprintf(info->settings + used, sizeof info->settings - (size_t)used, " kchunks=%lld kchunk=%lld",
                 (long long)chunks, (long long)len);
    return MPB_STATUS_OK;
}
