/* Host side of a complex scheme made of a real one (complex_embed.h): the
 * host model (the real host model on the embedded operands), the check, the
 * bound and the working set. */
#include "common/complex_embed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpb_size.h"

struct mpb_gemm mpb_embed_real_gemm(const struct mpb_gemm *g)
{
    return (struct mpb_gemm){.m = 2 * g->m, .n = g->n, .k = 2 * g->k, .target = g->target,
                             .field = MPB_FIELD_REAL};
}

/* Part q of element x of an interleaved complex array (double or float). */
static void put(void *dst, int64_t at, const void *src, int64_t x, int q, bool negate, size_t es)
{
    if (es == sizeof(double)) {
        double v = ((const double *)src)[2 * x + q];
        ((double *)dst)[at] = negate ? -v : v;
    } else {
        float v = ((const float *)src)[2 * x + q];
        ((float *)dst)[at] = negate ? -v : v;
    }
}

static void embed(const struct mpb_gemm *g, void *ae, void *be)
{
    size_t es = mpb_target_size(g->target);
    int64_t m = g->m, k = g->k, n = g->n;
    for (int64_t l = 0; l < k; l++)
        for (int64_t i = 0; i < m; i++) {
            int64_t x = i + l * m;
            put(ae, mpb_embed_a_at(m, k, i, l, 0, 0), g->a, x, 0, false, es);
            put(ae, mpb_embed_a_at(m, k, i, l, 1, 0), g->a, x, 1, false, es);
            put(ae, mpb_embed_a_at(m, k, i, l, 0, 1), g->a, x, 1, true, es);
            put(ae, mpb_embed_a_at(m, k, i, l, 1, 1), g->a, x, 0, false, es);
        }
    for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k; l++) {
            put(be, mpb_embed_b_at(k, l, j, 0), g->b, l + j * k, 0, false, es);
            put(be, mpb_embed_b_at(k, l, j, 1), g->b, l + j * k, 1, false, es);
        }
}

static void interleave(const struct mpb_gemm *g, const void *ce)
{
    size_t es = mpb_target_size(g->target);
    unsigned char *c = g->c;
    for (int64_t j = 0; j < g->n; j++)
        for (int64_t i = 0; i < g->m; i++)
            for (int q = 0; q < 2; q++)
                memcpy(c + es * (size_t)(2 * (i + j * g->m) + q),
                       (const unsigned char *)ce + es * (size_t)mpb_embed_c_at(g->m, i, j, q), es);
}

enum mpb_status mpb_embed_host(const struct mpb_embed_real *real, const struct mpb_gemm *g, const double *params,
                               struct mpb_scheme_info *info)
{
    struct mpb_gemm rg = mpb_embed_real_gemm(g);
    size_t es = mpb_target_size(g->target);
    void *ae = malloc(es * (size_t)(rg.m * rg.k) + 16), *be = malloc(es * (size_t)(rg.k * rg.n) + 16),
         *ce = malloc(es * (size_t)(rg.m * rg.n) + 16);
    enum mpb_status st = MPB_STATUS_ERROR;
    if (!ae || !be || !ce) {
        snprintf(info->note, sizeof info->note, "out of host memory for the embedded operands");
    } else {
        embed(g, ae, be);
        rg.a = ae;
        rg.b = be;
        rg.c = ce;
        st = real->run_host(&rg, params, info);
        if (st == MPB_STATUS_OK)
            interleave(g, ce);
    }
    free(ae);
    free(be);
    free(ce);
    return st;
}

bool mpb_embed_check(const struct mpb_embed_real *real, const double *params, const struct mpb_gemm *g,
                     const struct mpb_device_info *dev, char *why, size_t why_len)
{
    if (!real->check)
        return true;
    struct mpb_gemm rg = mpb_embed_real_gemm(g);
    return real->check(params, &rg, dev, why, why_len);
}

double mpb_embed_bound(const struct mpb_embed_real *real, const double *params, int64_t k)
{
    return sqrt(2.0) * real->bound(params, 2 * k);
}

/* The embedded A, B and C (2m×2k, 2k×n, 2m×n real: twice A's bytes, B's
 * and C's) beside the real scheme's working set on the 2m×n×2k problem. */
size_t mpb_embed_workspace(const struct mpb_embed_real *real, const double *params, const struct mpb_gemm *g,
                           bool on_device)
{
    struct mpb_gemm rg = mpb_embed_real_gemm(g);
    size_t es = mpb_target_size(g->target);
    size_t embedded = mpb_size_add(mpb_size_add(mpb_size_matrix(rg.m, rg.k, es), mpb_size_matrix(rg.k, rg.n, es)),
                                   mpb_size_matrix(rg.m, rg.n, es));
    size_t inner;
    if (real->workspace)
        inner = real->workspace(params, &rg, on_device);
    else
        inner = on_device ? 0 : embedded;
    return mpb_size_add(embedded, inner);
}
