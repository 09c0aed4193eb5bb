/* Host model of Ozaki scheme II: the same MPB_HD steps as ozaki2.cu, with
 * the INT8×INT8→INT32 GEMMs computed exactly in integers, k split into the
 * same chunks and their sums folded the same way (mpb_crt_fold), so the
 * output is bitwise the GPU's. Meant for the small sizes of tests and
 * `--backend host` (N+1 integer GEMMs of O(mnk) each, single-threaded). */
#include "ozaki2/ozaki2.h"

#include <stdio.h>
#include <stdlib.h>

#include "mpb_size.h"

static double elem(const void *p, size_t i, enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

/* The operands as the scheme sees them: `vecs` vectors of length k (rows of
 * A, columns of B), element l of vector v at x[v·vstride + l·lstride]. */
struct operand {
    const void *x;
    int64_t vecs, k;
    size_t vstride, lstride;
    enum mpb_target target;
};

static double op_elem(const struct operand *o, int64_t v, int64_t l)
{
    return elem(o->x, (size_t)v * o->vstride + (size_t)l * o->lstride, o->target);
}

/* Max |x| per vector (as abs bits, NaN/Inf detected), then exponent. */
static void vec_exponents(const struct operand *o, int *e, bool *finite)
{
    for (int64_t v = 0; v < o->vecs; v++) {
        uint64_t mx = 0;
        for (int64_t l = 0; l < o->k; l++) {
            uint64_t a = mpb_oz2_abs_bits(op_elem(o, v, l));
            mx = a > mx ? a : mx;
        }
        finite[v] = mpb_oz2_abs_bits_finite(mx);
        e[v] = finite[v] ? mpb_oz2_exponent(mx) : 0;
    }
}

static void scales_fast(const struct operand *o, const int *e, const bool *finite, int budget,
                        int *mu)
{
    for (int64_t v = 0; v < o->vecs; v++) {
        uint64_t s = 0;
        for (int64_t l = 0; l < o->k && finite[v]; l++) {
            int64_t d = mpb_oz2_digit_up(op_elem(o, v, l), e[v], MPB_OZ2_NORM_DIGIT_BITS);
            s += (uint64_t)(d * d);
        }
        mu[v] = finite[v] ? mpb_oz2_scale_fast(e[v], s, budget) : MPB_OZ2_NONFINITE;
    }
}

/* U = Ā·B̄ (exact, < k·2^12: 64-bit sums), its row and column maxima, then
 * the scales. */
static void scales_accurate(const struct operand *a, const struct operand *b, const int *ea,
                            const bool *fa, const int *eb, const bool *fb, int budget, int *mu,
                            int *nu)
{
    int64_t m = a->vecs, n = b->vecs, k = a->k;
    int8_t *da = calloc((size_t)(m * k) + 1, 1), *db = calloc((size_t)(n * k) + 1, 1);
    uint64_t *rmax = calloc((size_t)m + 1, sizeof *rmax), *cmax = calloc((size_t)n + 1, sizeof *cmax);
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k && fa[i]; l++)
            da[i * k + l] = (int8_t)mpb_oz2_digit_up(op_elem(a, i, l), ea[i], MPB_OZ2_BOUND_DIGIT_BITS);
    for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k && fb[j]; l++)
            db[j * k + l] = (int8_t)mpb_oz2_digit_up(op_elem(b, j, l), eb[j], MPB_OZ2_BOUND_DIGIT_BITS);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            uint64_t u = 0;
            for (int64_t l = 0; l < k; l++)
                u += (uint64_t)(da[i * k + l] * db[j * k + l]);
            rmax[i] = u > rmax[i] ? u : rmax[i];
            cmax[j] = u > cmax[j] ? u : cmax[j];
        }
    for (int64_t i = 0; i < m; i++)
        mu[i] = fa[i] ? mpb_oz2_scale_accurate(ea[i], rmax[i], budget) : MPB_OZ2_NONFINITE;
    for (int64_t j = 0; j < n; j++)
        nu[j] = fb[j] ? mpb_oz2_scale_accurate(eb[j], cmax[j], budget) : MPB_OZ2_NONFINITE;
    free(da);
    free(db);
    free(rmax);
    free(cmax);
}

/* Residues of the scaled, truncated operand for every modulus:
 * r[(t·vecs + v)·k + l]; zero for a non-finite vector. */
static void residues(const struct operand *o, const int *mu, int n_moduli, int8_t *r)
{
    for (int64_t v = 0; v < o->vecs; v++)
        for (int64_t l = 0; l < o->k; l++) {
            double x = mu[v] == MPB_OZ2_NONFINITE ? 0 : mpb_oz2_scaled_int(op_elem(o, v, l), mu[v]);
            struct mpb_crt_parts parts = mpb_crt_split_parts(x);
            for (int t = 0; t < n_moduli; t++)
                r[((size_t)t * (size_t)o->vecs + (size_t)v) * (size_t)o->k + (size_t)l] =
                    mpb_crt_residue(&parts, t);
        }
}

/* c ≡ x·y (mod 2·m_t) for the CRT (mpb_crt_digit reads nothing more):
 * one exact INT32 sum per chunk of `len` terms along k (what one INT8 GEMM
 * returns), the chunks folded in order as ozaki2.cu folds them; one chunk:
 * the INT32 sum itself. */
static int32_t residue_dot(const int8_t *x, const int8_t *y, int64_t k, int64_t len, int64_t chunks,
                           int t)
{
    int32_t acc = 0;
    for (int64_t c = 0; c < chunks; c++) {
        int32_t s = 0;
        for (int64_t l = c * len; l < k && l < (c + 1) * len; l++)
            s += (int32_t)x[l] * y[l];
        acc = c == 0 ? s : mpb_crt_fold(acc, s, t);
    }
    return acc;
}

enum mpb_status mpb_ozaki2_host(const struct mpb_gemm *g, const double *params,
                                struct mpb_scheme_info *info)
{
    return mpb_ozaki2_host_chunked(g, params, info, 0);
}

enum mpb_status mpb_ozaki2_host_chunked(const struct mpb_gemm *g, const double *params,
                                        struct mpb_scheme_info *info, int64_t chunk)
{
    int n_moduli = (int)params[MPB_OZ2_MODULI];
    bool accurate = params[MPB_OZ2_MODE] == MPB_OZ2_ACCURATE;
    struct mpb_oz2_crt tab;
    char why[256];
    if (!mpb_oz2_check(params, g, NULL, why, sizeof why) || !mpb_oz2_crt_init(n_moduli, &tab)) {
        snprintf(info->note, sizeof info->note, "%s", why);
        return MPB_STATUS_NOT_SUPPORTED;
    }
    int64_t m = g->m, n = g->n, k = g->k;
    struct operand a = {g->a, m, k, 1, (size_t)m, g->target};
    struct operand b = {g->b, n, k, (size_t)k, 1, g->target};
    int *ea = malloc(sizeof(int) * (size_t)(2 * (m + n) + 1)), *eb = ea + m, *mu = eb + n, *nu = mu + m;
    bool *fa = malloc((size_t)(m + n) + 1), *fb = fa + m;
    size_t ra_bytes = mpb_size_mul(mpb_size_matrix(m + n, k, 1), (size_t)n_moduli);
    size_t c32_bytes = mpb_size_mul(mpb_size_matrix(m, n, sizeof(int32_t)), (size_t)n_moduli);
    int8_t *ra = ra_bytes == SIZE_MAX ? NULL : malloc(ra_bytes + 1), *rb = ra + (size_t)(n_moduli * m * k);
    int32_t *c32 = c32_bytes == SIZE_MAX ? NULL : malloc(c32_bytes + 1);
    if (!ea || !fa || !ra || !c32) {
        free(ea), free(fa), free(ra), free(c32);
        snprintf(info->note, sizeof info->note, "out of host memory for the residues");
        return MPB_STATUS_ERROR;
    }
    vec_exponents(&a, ea, fa);
    vec_exponents(&b, eb, fb);
    if (accurate) {
        scales_accurate(&a, &b, ea, fa, eb, fb, tab.budget, mu, nu);
    } else {
        scales_fast(&a, ea, fa, tab.budget, mu);
        scales_fast(&b, eb, fb, tab.budget, nu);
    }
    residues(&a, mu, n_moduli, ra);
    residues(&b, nu, n_moduli, rb);
    int64_t kp = mpb_oz2_padded_k(k), most = chunk > 0 ? chunk : mpb_oz2_chunk_most(k);
    int64_t chunks = mpb_crt_chunks(kp, most), len = mpb_crt_chunk_len(kp, most, chunk > 0 ? 1 : 32);
    for (int t = 0; t < n_moduli; t++)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                const int8_t *x = ra + ((size_t)t * (size_t)m + (size_t)i) * (size_t)k;
                const int8_t *y = rb + ((size_t)t * (size_t)n + (size_t)j) * (size_t)k;
                c32[(size_t)t * (size_t)(m * n) + (size_t)(i + j * m)] =
                    residue_dot(x, y, k, len, chunks, t);
            }
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            size_t p = (size_t)(i + j * m);
            double c = mpb_oz2_entry(c32 + p, (size_t)(m * n), &tab, mu[i], nu[j]);
            if (g->target == MPB_TARGET_FP64)
                ((double *)g->c)[p] = c;
            else
                ((float *)g->c)[p] = (float)c;
        }
    free(ea), free(fa), free(ra), free(c32);
    info->slices = n_moduli;
    info->fallback = 0;
    int used = snprintf(info->settings, sizeof info->settings, "moduli=%d mode=%s budget_bits=%d",
                        n_moduli, accurate ? "accurate" : "fast", tab.budget);
    if (chunks > 1 && used > 0 && (size_t)used < sizeof info->settings)
        snprintf(info->settings + used, sizeof info->settings - (size_t)used,
                 " kchunks=%lld kchunk=%lld", (long long)chunks, (long long)len);
    return MPB_STATUS_OK;
}
