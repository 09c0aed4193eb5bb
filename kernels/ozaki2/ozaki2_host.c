/* Host model of Ozaki scheme II: the same MPB_HD steps as ozaki2.cu, with
 * the INT8×INT8→INT32 GEMMs computed exactly in integers, k split into the
 * same chunks and their sums folded the same way (mpb_crt_fold), so the
 * output is bitwise the GPU's. Meant for the small sizes of tests and
 * `--backend host` (N+1 integer GEMMs of O(mnk) each, single-threaded). */
#include "ozaki2/ozaki2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Max |x| per vector, as abs bits (NaN above +Inf: mpb_oz2_abs_bits). */
static void vec_max(const struct operand *o, uint64_t *max)
{
    for (int64_t v = 0; v < o->vecs; v++) {
        uint64_t mx = 0;
        for (int64_t l = 0; l < o->k; l++) {
            uint64_t a = mpb_oz2_abs_bits(op_elem(o, v, l));
            mx = a > mx ? a : mx;
        }
        max[v] = mx;
    }
}

/* Per finite vector, over its digits ceil(|x|·2^(15−e)): the sum of their
 * squares (fast mode's statistic) and their sum (moduli=auto's). */
static void vec_digit_sums(const struct operand *o, const uint64_t *max, uint64_t *sq, uint64_t *l1)
{
    for (int64_t v = 0; v < o->vecs; v++) {
        uint64_t s = 0, t = 0;
        int e = mpb_oz2_exponent(max[v]);
        for (int64_t l = 0; l < o->k && mpb_oz2_abs_bits_finite(max[v]); l++) {
            int64_t d = mpb_oz2_digit_up(op_elem(o, v, l), e, MPB_OZ2_NORM_DIGIT_BITS);
            s += (uint64_t)(d * d);
            t += (uint64_t)d;
        }
        sq[v] = s;
        l1[v] = t;
    }
}

void mpb_oz2_u_maxima(const int8_t *da, const int8_t *db, int64_t m, int64_t n, int64_t k, uint64_t *rmax,
                      uint64_t *cmax)
{
    memset(rmax, 0, sizeof *rmax * (size_t)m);
    memset(cmax, 0, sizeof *cmax * (size_t)n);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            uint64_t u = 0;
            for (int64_t l = 0; l < k; l++)
                u += (uint64_t)(da[i * k + l] * db[j * k + l]);
            rmax[i] = u > rmax[i] ? u : rmax[i];
            cmax[j] = u > cmax[j] ? u : cmax[j];
        }
}

/* U = Ā·B̄ (exact, < k·2^12: 64-bit sums) and its row and column maxima
 * (accurate mode's statistic). */
static bool u_maxima(const struct operand *a, const struct operand *b, const uint64_t *amax,
                     const uint64_t *bmax, uint64_t *rmax, uint64_t *cmax)
{
    int64_t m = a->vecs, n = b->vecs, k = a->k;
    int8_t *da = calloc((size_t)(m * k) + 1, 1), *db = calloc((size_t)(n * k) + 1, 1);
    if (!da || !db) {
        free(da), free(db);
        return false;
    }
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k && mpb_oz2_abs_bits_finite(amax[i]); l++)
            da[i * k + l] = (int8_t)mpb_oz2_digit_up(op_elem(a, i, l), mpb_oz2_exponent(amax[i]),
                                                     MPB_OZ2_BOUND_DIGIT_BITS);
    for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k && mpb_oz2_abs_bits_finite(bmax[j]); l++)
            db[j * k + l] = (int8_t)mpb_oz2_digit_up(op_elem(b, j, l), mpb_oz2_exponent(bmax[j]),
                                                     MPB_OZ2_BOUND_DIGIT_BITS);
    mpb_oz2_u_maxima(da, db, m, n, k, rmax, cmax);
    free(da);
    free(db);
    return true;
}

static void scales(const struct operand *o, const uint64_t *max, const uint64_t *stat, bool accurate,
                   int budget, int *mu)
{
    for (int64_t v = 0; v < o->vecs; v++) {
        int e = mpb_oz2_exponent(max[v]);
        mu[v] = !mpb_oz2_abs_bits_finite(max[v]) ? MPB_OZ2_NONFINITE
                : accurate                       ? mpb_oz2_scale_accurate(e, stat[v], budget)
                                                 : mpb_oz2_scale_fast(e, stat[v], budget);
    }
}

/* moduli=auto's sums per index l over the finite vectors (ozaki2_arith.h). */
static void index_sums(const struct operand *o, const uint64_t *max, int e_ref, uint64_t *sum, uint64_t *sumsq)
{
    memset(sum, 0, sizeof *sum * (size_t)o->k);
    memset(sumsq, 0, sizeof *sumsq * (size_t)o->k);
    for (int64_t v = 0; v < o->vecs; v++)
        for (int64_t l = 0; l < o->k && mpb_oz2_abs_bits_finite(max[v]); l++) {
            double x = op_elem(o, v, l);
            uint64_t d = mpb_oz2_digit_down(x, e_ref, MPB_OZ2_SQ_DIGIT_BITS);
            sum[l] += mpb_oz2_digit_down(x, e_ref, MPB_OZ2_SUM_DIGIT_BITS);
            sumsq[l] += d * d;
        }
}

/* Per row of A and column of B: the maximum, the scaling statistic (the
 * sum of squared digits, or in accurate mode U's maximum) and the digit
 * sum, in one block `vec` (free it). */
struct stats {
    uint64_t *vec, *amax, *bmax, *astat, *bstat, *al1, *bl1;
};

static bool stats_compute(const struct operand *a, const struct operand *b, bool accurate, struct stats *st)
{
    int64_t m = a->vecs, n = b->vecs;
    st->vec = malloc(sizeof *st->vec * (size_t)(3 * (m + n)) + 1);
    if (!st->vec)
        return false;
    st->amax = st->vec, st->bmax = st->amax + m, st->astat = st->bmax + n, st->bstat = st->astat + m;
    st->al1 = st->bstat + n, st->bl1 = st->al1 + m;
    vec_max(a, st->amax);
    vec_max(b, st->bmax);
    vec_digit_sums(a, st->amax, st->astat, st->al1);
    vec_digit_sums(b, st->bmax, st->bstat, st->bl1);
    return !accurate || u_maxima(a, b, st->amax, st->bmax, st->astat, st->bstat);
}

/* moduli=auto: the sums per index of k, then the choice. */
static bool choose(const struct operand *a, const struct operand *b, const struct stats *st, bool accurate,
                   double tol, struct mpb_oz2_auto *c)
{
    int64_t k = a->k;
    uint64_t *sums = malloc(sizeof *sums * (size_t)(4 * k) + 1);
    int budget[MPB_OZ2_MAX_MODULI + 1];
    struct mpb_oz2_crt tab;
    for (int nm = MPB_OZ2_MIN_MODULI; nm <= MPB_OZ2_MAX_MODULI; nm++)
        budget[nm] = mpb_oz2_crt_init(nm, &tab) ? tab.budget : 0;
    if (!sums)
        return false;
    struct mpb_oz2_side sa = {a->vecs, st->amax, st->astat, st->al1, sums, sums + k, mpb_oz2_e_ref(st->amax, a->vecs)};
    struct mpb_oz2_side sb = {b->vecs,      st->bmax,     st->bstat, st->bl1,
                              sums + 2 * k, sums + 3 * k, mpb_oz2_e_ref(st->bmax, b->vecs)};
    index_sums(a, st->amax, sa.e_ref, sums, sums + k);
    index_sums(b, st->bmax, sb.e_ref, sums + 2 * k, sums + 3 * k);
    bool ok = mpb_oz2_auto_choose(&sa, &sb, k, accurate, a->target, tol, budget, c);
    free(sums);
    return ok;
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

int32_t mpb_oz2_residue_dot(const int8_t *x, const int8_t *y, int64_t k, int64_t len, int64_t chunks, int t)
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

bool mpb_oz2_auto_host(const struct mpb_gemm *g, bool accurate, double tol, struct mpb_oz2_auto *c)
{
    struct operand a = {g->a, g->m, g->k, 1, (size_t)g->m, g->target};
    struct operand b = {g->b, g->n, g->k, (size_t)g->k, 1, g->target};
    struct stats st = {0};
    bool ok = stats_compute(&a, &b, accurate, &st) && choose(&a, &b, &st, accurate, tol, c);
    free(st.vec);
    return ok;
}

enum mpb_status mpb_ozaki2_host(const struct mpb_gemm *g, const double *params,
                                struct mpb_scheme_info *info)
{
    return mpb_ozaki2_host_chunked(g, params, info, 0);
}

enum mpb_status mpb_ozaki2_host_chunked(const struct mpb_gemm *g, const double *params,
                                        struct mpb_scheme_info *info, int64_t chunk)
{
    bool accurate = params[MPB_OZ2_MODE] == MPB_OZ2_ACCURATE, autom = mpb_oz2_is_auto(params);
    struct mpb_oz2_crt tab;
    char why[256];
    if (!mpb_oz2_check(params, g, NULL, why, sizeof why)) {
        snprintf(info->note, sizeof info->note, "%s", why);
        return MPB_STATUS_NOT_SUPPORTED;
    }
    int64_t m = g->m, n = g->n, k = g->k;
    struct operand a = {g->a, m, k, 1, (size_t)m, g->target};
    struct operand b = {g->b, n, k, (size_t)k, 1, g->target};
    struct stats st = {0};
    int *mu = malloc(sizeof(int) * (size_t)(m + n) + 1);
    bool ok = mu && stats_compute(&a, &b, accurate, &st);
    struct mpb_oz2_auto choice = {.moduli = autom ? 0 : (int)params[MPB_OZ2_MODULI]};
    if (ok && autom)
        ok = choose(&a, &b, &st, accurate, params[MPB_OZ2_TOL], &choice);
    int n_moduli = choice.moduli;
    size_t ra_bytes = mpb_size_mul(mpb_size_matrix(m + n, k, 1), (size_t)n_moduli);
    size_t c32_bytes = mpb_size_mul(mpb_size_matrix(m, n, sizeof(int32_t)), (size_t)n_moduli);
    int8_t *ra = !ok || ra_bytes == SIZE_MAX ? NULL : malloc(ra_bytes + 1);
    int32_t *c32 = !ok || c32_bytes == SIZE_MAX ? NULL : malloc(c32_bytes + 1);
    if (!ra || !c32) {
        free(st.vec), free(mu), free(ra), free(c32);
        snprintf(info->note, sizeof info->note, "out of host memory");
        return MPB_STATUS_ERROR;
    }
    int8_t *rb = ra + (size_t)(n_moduli * m * k);
    int *nu = mu + m;
    if (!mpb_oz2_crt_init(n_moduli, &tab)) {
        free(st.vec), free(mu), free(ra), free(c32);
        snprintf(info->note, sizeof info->note, "moduli=%d is out of range", n_moduli);
        return MPB_STATUS_NOT_SUPPORTED;
    }
    scales(&a, st.amax, st.astat, accurate, tab.budget, mu);
    scales(&b, st.bmax, st.bstat, accurate, tab.budget, nu);
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
                    mpb_oz2_residue_dot(x, y, k, len, chunks, t);
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
    free(st.vec), free(mu), free(ra), free(c32);
    info->slices = n_moduli;
    info->fallback = 0;
    int used = snprintf(info->settings, sizeof info->settings, "moduli=%d mode=%s budget_bits=%d",
                        n_moduli, accurate ? "accurate" : "fast", tab.budget);
    if (chunks > 1 && used > 0 && (size_t)used < sizeof info->settings)
        snprintf(info->settings + used, sizeof info->settings - (size_t)used,
                 " kchunks=%lld kchunk=%lld", (long long)chunks, (long long)len);
    if (autom)
        mpb_oz2_auto_note(&choice, info->note, sizeof info->note);
    return MPB_STATUS_OK;
}
