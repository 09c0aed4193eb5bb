/* Host model of `adp`: the GPU path step by step with the same MPB_HD
 * arithmetic (adp_arith.h), so that decision, ESC, slices and output bits
 * are those of adp.cu:
 *   scan      special values (counted); max |a| of each row of A, max |b| of each
 *             column of B; exponent summaries per block of `block` along k
 *   ESC       max over (i, j) of adp_esc_of(e_i, e_j, max over blocks of
 *             adp_block_estimate) — the GPU's max-plus kernel computes the
 *             same integers
 *   decision  adp_decide; native cases run the dgemm host model's GEMM
 *             (common/host_gemm.c)
 *   slices    adp_slice per entry
 *   products  per diagonal d, the GEMMs of adp_diagonal_gemm (pairs side by
 *             side along k, or above ADP_MAX_TERMS one pair per chunk of k):
 *             the exact integer sum of each (what one INT8 GEMM returns)
 *   accum     adp_acc_add in the order d = 0..s−1, GEMMs in order, then
 *             adp_acc_final;
 * or, for the CRT engine (adp_crt_arith.h), the int8 residues of
 * adp_crt_value per modulus, one exact integer dot product per modulus and
 * entry (per chunk of k above ADP_MAX_TERMS, folded: mpb_crt_fold), and
 * adp_crt_entry. */
#include "adp/adp.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/host_gemm.h"
#include "mpb_size.h"

struct adp_scan {
    int64_t special;    /* NaN, Inf and subnormal entries */
    int *ea, *eb;       /* e(max|row i of A|), e(max|column j of B|) */
    int *sa, *sb;       /* scale exponents E of the slicing */
    int *xmax, *xmin;   /* A's block summaries, [β·m + i] */
    int *ymax, *ymin;   /* B's block summaries, [β·n + j] */
    int64_t blocks;
};

static void scan_free(struct adp_scan *s)
{
    free(s->ea);
    free(s->eb);
    free(s->sa);
    free(s->sb);
    free(s->xmax);
    free(s->xmin);
    free(s->ymax);
    free(s->ymin);
}

static bool scan_alloc(struct adp_scan *s, int64_t m, int64_t n, int64_t blocks)
{
    s->blocks = blocks;
    s->ea = malloc(sizeof(int) * (size_t)m);
    s->sa = malloc(sizeof(int) * (size_t)m);
    s->eb = malloc(sizeof(int) * (size_t)n);
    s->sb = malloc(sizeof(int) * (size_t)n);
    s->xmax = malloc(sizeof(int) * (size_t)(m * blocks));
    s->xmin = malloc(sizeof(int) * (size_t)(m * blocks));
    s->ymax = malloc(sizeof(int) * (size_t)(n * blocks));
    s->ymin = malloc(sizeof(int) * (size_t)(n * blocks));
    return s->ea && s->sa && s->eb && s->sb && s->xmax && s->xmin && s->ymax && s->ymin;
}

/* One vector (row of A: stride m; column of B: stride 1): special flag, max
 * |x| and block summaries. */
static void scan_vector(const double *x, int64_t stride, int64_t k, int block, int64_t *special,
                        int *e, int *scale, int *bmax, int *bmin, int64_t bstride)
{
    uint64_t max_bits = 0;
    for (int64_t b0 = 0, beta = 0; b0 < k; b0 += block, beta++) {
        int hi = ADP_EXP_NONE, lo = ADP_EXP_TOP;
        for (int64_t l = b0; l < k && l < b0 + block; l++) {
            double v = x[l * stride];
            uint64_t u = mpb_f64_to_bits(v) & 0x7FFFFFFFFFFFFFFFull;
            *special += adp_is_special(v);
            max_bits = u > max_bits ? u : max_bits;
            adp_block_add(&hi, &lo, v);
        }
        bmax[beta * bstride] = hi;
        bmin[beta * bstride] = lo;
    }
    *e = adp_exponent_of_bits(max_bits);
    *scale = adp_scale_exponent(max_bits);
}

static void scan_run(const struct mpb_gemm *g, int block, struct adp_scan *s)
{
    const double *a = g->a, *b = g->b;
    s->special = 0;
    for (int64_t i = 0; i < g->m; i++)
        scan_vector(a + i, g->m, g->k, block, &s->special, &s->ea[i], &s->sa[i], &s->xmax[i],
                    &s->xmin[i], g->m);
    for (int64_t j = 0; j < g->n; j++)
        scan_vector(b + j * g->k, 1, g->k, block, &s->special, &s->eb[j], &s->sb[j], &s->ymax[j],
                    &s->ymin[j], g->n);
}

/* The ESC over rows i0 … i1 − 1 of A. */
static int esc_run(const struct mpb_gemm *g, const struct adp_scan *s, int64_t i0, int64_t i1)
{
    int esc = 0;
    for (int64_t j = 0; j < g->n; j++)
        for (int64_t i = i0; i < i1; i++) {
            int z = 2 * ADP_EXP_NONE;
            for (int64_t beta = 0; beta < s->blocks; beta++)
                z = adp_imax(z, adp_block_estimate(s->xmax[beta * g->m + i], s->xmin[beta * g->m + i],
                                                   s->ymax[beta * g->n + j], s->ymin[beta * g->n + j]));
            esc = adp_imax(esc, adp_esc_of(s->ea[i], s->eb[j], z));
        }
    return esc;
}

/* Slices of A as [i][p][l] and of B as [j][q][l] (layout is free on the
 * host; the values are adp_slice's). */
static void slice_run(const struct mpb_gemm *g, const struct adp_scan *sc, int s, int8_t *as,
                      int8_t *bs)
{
    const double *a = g->a, *b = g->b;
    int64_t m = g->m, n = g->n, k = g->k;
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++)
            adp_slice(a[i + l * m], sc->sa[i], s, as + i * s * k + l, k);
    for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k; l++)
            adp_slice(b[l + j * k], sc->sb[j], s, bs + j * s * k + l, k);
}

static int32_t dot_i8(const int8_t *x, const int8_t *y, int64_t k)
{
    int32_t sum = 0;
    for (int64_t l = 0; l < k; l++)
        sum += (int32_t)x[l] * (int32_t)y[l];
    return sum;
}

/* Terms l0 … l1 − 1 of chunk c of k (all of k when pairs are side by side);
 * empty when the chunk lies in the padding. */
static void chunk_range(const struct adp_gemm_plan *plan, int64_t c, int64_t k, int64_t *l0,
                        int64_t *l1)
{
    *l0 = c * plan->len;
    *l1 = *l0 + plan->len < k ? *l0 + plan->len : k;
    if (*l1 < *l0)
        *l1 = *l0;
}

/* One output entry: the exact sums of the diagonals' GEMMs, double-word
 * accumulated in the GPU's order. */
static double entry(const int8_t *ai, const int8_t *bj, int s, int64_t k,
                    const struct adp_gemm_plan *plan, int ea, int eb)
{
    double hi = 0.0, lo = 0.0;
    for (int d = 0; d < s; d++)
        for (int gi = 0; gi < adp_diagonal_gemms(plan, d); gi++) {
            int p0, p1;
            int64_t c, l0, l1;
            adp_diagonal_gemm(plan, d, gi, &p0, &p1, &c);
            chunk_range(plan, c, k, &l0, &l1);
            int32_t sum = 0;
            for (int p = p0; p <= p1; p++)
                sum += dot_i8(ai + p * k + l0, bj + (d - p) * k + l0, l1 - l0);
            adp_acc_add(&hi, &lo, adp_diagonal_term(sum, d));
        }
    return adp_acc_final(hi, lo, ea, eb);
}

static enum mpb_status emulate(const struct mpb_gemm *g, const struct adp_scan *sc, int s,
                               const struct adp_gemm_plan *plan, struct mpb_scheme_info *info)
{
    int64_t m = g->m, n = g->n, k = g->k;
    size_t bytes_a = mpb_size_mul(mpb_size_matrix(m, k, 1), (size_t)s);
    size_t bytes_b = mpb_size_mul(mpb_size_matrix(n, k, 1), (size_t)s);
    int8_t *as = bytes_a < SIZE_MAX ? malloc(bytes_a + 1) : NULL;
    int8_t *bs = bytes_b < SIZE_MAX ? malloc(bytes_b + 1) : NULL;
    if (!as || !bs) {
        free(as);
        free(bs);
        snprintf(info->note, sizeof info->note, "out of host memory for %d slices", s);
        return MPB_STATUS_ERROR;
    }
    slice_run(g, sc, s, as, bs);
    double *c = g->c;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            c[i + j * m] = entry(as + i * s * k, bs + j * s * k, s, k, plan, sc->sa[i], sc->sb[j]);
    free(as);
    free(bs);
    return MPB_STATUS_OK;
}

/* The CRT engine: residues of A as [t][i][l], of B as [t][j][l]. */
static void residues_of(const double *x, int64_t ld_i, int64_t ld_l, int64_t count, int64_t k,
                        const int *scale, int bits, int moduli, int8_t *out)
{
    for (int64_t i = 0; i < count; i++)
        for (int64_t l = 0; l < k; l++) {
            struct mpb_crt_parts p =
                mpb_crt_split_parts(adp_crt_value(x[i * ld_i + l * ld_l], scale[i], bits));
            for (int t = 0; t < moduli; t++)
                out[(t * count + i) * k + l] = mpb_crt_residue(&p, t);
        }
}

/* x·y modulo 2·m_t as the CRT reads it: one exact INT32 sum per chunk of k,
 * folded in order (one chunk: the sum itself), as adp.cu's GEMMs and
 * fold kernel compute it. */
static int32_t crt_dot(const int8_t *x, const int8_t *y, int64_t k, const struct adp_gemm_plan *plan,
                       int t)
{
    int32_t acc = 0;
    for (int64_t c = 0; c < plan->chunks; c++) {
        int64_t l0, l1;
        chunk_range(plan, c, k, &l0, &l1);
        int32_t s = dot_i8(x + l0, y + l0, l1 - l0);
        acc = c == 0 ? s : mpb_crt_fold(acc, s, t);
    }
    return acc;
}

static enum mpb_status emulate_crt(const struct mpb_gemm *g, const struct adp_scan *sc, int bits,
                                   int moduli, const struct adp_gemm_plan *plan,
                                   struct mpb_scheme_info *info)
{
    int64_t m = g->m, n = g->n, k = g->k;
    struct adp_crt tab;
    int budget;
    size_t bytes_a = mpb_size_mul(mpb_size_matrix(m, k, 1), (size_t)moduli);
    size_t bytes_b = mpb_size_mul(mpb_size_matrix(n, k, 1), (size_t)moduli);
    int8_t *ra = bytes_a < SIZE_MAX ? malloc(bytes_a + 1) : NULL;
    int8_t *rb = bytes_b < SIZE_MAX ? malloc(bytes_b + 1) : NULL;
    if (!ra || !rb || !mpb_adp_crt_init(moduli, &tab, &budget)) {
        free(ra);
        free(rb);
        snprintf(info->note, sizeof info->note, "out of host memory for %d moduli", moduli);
        return MPB_STATUS_ERROR;
    }
    residues_of(g->a, 1, m, m, k, sc->sa, bits, moduli, ra);
    residues_of(g->b, k, 1, n, k, sc->sb, bits, moduli, rb);
    double *c = g->c;
    int32_t prod[ADP_CRT_MAX_MODULI];
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            for (int t = 0; t < moduli; t++)
                prod[t] = crt_dot(ra + (t * m + i) * k, rb + (t * n + j) * k, k, plan, t);
            c[i + j * m] = adp_crt_entry(prod, 1, &tab, sc->sa[i], sc->sb[j], bits);
        }
    free(ra);
    free(rb);
    return MPB_STATUS_OK;
}

enum mpb_status mpb_adp_host(const struct mpb_gemm *g, const double *params,
                             struct mpb_scheme_info *info)
{
    return mpb_adp_host_split(g, params, info, ADP_MAX_TERMS);
}

enum mpb_status mpb_adp_host_split(const struct mpb_gemm *g, const double *params,
                                   struct mpb_scheme_info *info, int64_t most)
{
    struct adp_config cfg = mpb_adp_config(params, g);
    struct adp_gemm_plan plan = adp_gemm_plan_for(g->k, most);
    const int shape_reason = mpb_adp_shape_decision(params, g);
    struct adp_decision d = {0, 0, 0, 0, 1, shape_reason, 0, 0};
    enum mpb_status st = MPB_STATUS_OK;
    if (shape_reason == ADP_EMULATED) {
        struct adp_scan sc = {0};
        if (!scan_alloc(&sc, g->m, g->n, (g->k + cfg.block - 1) / cfg.block)) {
            scan_free(&sc);
            snprintf(info->note, sizeof info->note, "out of host memory for the ESC summaries");
            return MPB_STATUS_ERROR;
        }
        scan_run(g, cfg.block, &sc);
        /* the sampled rows first (ADP_ESC_SAMPLE_ROWS), as the GPU does */
        int64_t sample = g->m < ADP_ESC_SAMPLE_ROWS ? g->m : ADP_ESC_SAMPLE_ROWS;
        int esc = esc_run(g, &sc, 0, sample);
        d = adp_decide(&cfg, sc.special, esc);
        if (sample < g->m && d.native)
            d.sampled = 1;
        else if (sample < g->m)
            d = adp_decide(&cfg, sc.special, adp_imax(esc, esc_run(g, &sc, sample, g->m)));
        if (!d.native)
            st = d.moduli ? emulate_crt(g, &sc, d.bits, d.moduli, &plan, info)
                          : emulate(g, &sc, d.slices, &plan, info);
        scan_free(&sc);
    }
    if (st == MPB_STATUS_OK && d.native)
        mpb_host_gemm_f64(g->a, g->b, g->c, g->m, g->n, g->k);
    if (st == MPB_STATUS_OK)
        mpb_adp_describe(&cfg, &d, info);
    return st;
}
