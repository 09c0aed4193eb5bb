/* Host model of the FP32 split family: the split of fp32split_arith.h and
 * the engine's host model (tc_engine_host.c) with the MMA model the probe
 * fitted on the H200, so that engine=fused is the GPU's output bit for bit.
 * engine=cublas: each pair as one GEMM over all of k (the MMA model in k
 * order) added to C with round to nearest; cuBLAS's own blocking of k is not
 * modelled, so there the GPU matches within the bound, not bitwise. */
#include "fp32split/fp32split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc/tc_engine_host.h"

/* Split one operand into planes: `vecs` vectors of k values (rows of A,
 * columns of B); value l of vector v at x[v*vstride + l*lstride]. */
static void split_operand(const struct fs_recipe *r, const float *x, int64_t vecs, int64_t k, int64_t vstride,
                          int64_t lstride, int64_t ld, void *planes[3], int *exps, int64_t lost[2])
{
    const int eb = tc_plane_elem_bytes(r->fmt);
    for (int64_t v = 0; v < vecs; v++) {
        uint32_t mx = 0;
        for (int64_t l = 0; l < k && r->scale; l++) {
            uint32_t a = fs_abs_bits_finite(x[v * vstride + l * lstride]);
            mx = a > mx ? a : mx;
        }
        exps[v] = r->scale ? fs_scale_exp(mx) : 0;
        for (int64_t l = 0; l < k; l++) {
            uint32_t out[3];
            unsigned f = fs_split(r->split, x[v * vstride + l * lstride], exps[v], out);
            lost[0] += (f & FS_LOST_OVERFLOW) != 0;
            lost[1] += (f & FS_LOST_UNDERFLOW) != 0;
            for (int p = 0; p < fs_planes(r->split); p++) {
                if (eb == 2)
                    ((uint16_t *)planes[p])[v * ld + l] = (uint16_t)out[p];
                else
                    ((uint32_t *)planes[p])[v * ld + l] = out[p];
            }
        }
    }
}

static enum mpb_status host(enum fs_scheme scheme, const struct mpb_gemm *g, const double *params,
                            struct mpb_scheme_info *info)
{
    struct fs_recipe r;
    fs_recipe_of(scheme, params, &r);
    const int64_t m = g->m, n = g->n, k = g->k, ld = fs_plane_ld(&r, k);
    const int np = fs_planes(r.split), eb = tc_plane_elem_bytes(r.fmt);
    const size_t a_bytes = (size_t)(m * ld) * (size_t)eb, b_bytes = (size_t)(n * ld) * (size_t)eb;
    char *buf = calloc(1, np * (a_bytes + b_bytes));
    int *exps = malloc(sizeof *exps * (size_t)(m + n));
    float *part = r.cublas ? malloc(sizeof *part * (size_t)(m * n)) : NULL;
    if (!buf || !exps || (r.cublas && !part)) {
        free(buf);
        free(exps);
        free(part);
        snprintf(info->note, sizeof info->note, "out of host memory");
        return MPB_STATUS_ERROR;
    }
    struct tc_gemm_args args = {0};
    args.fmt = r.fmt;
    args.m = m;
    args.n = n;
    args.k = k;
    args.ld = ld;
    args.n_a_planes = r.a_planes;
    args.n_b_planes = r.b_planes;
    void *ap[3] = {0}, *bp[3] = {0};
    for (int p = 0; p < np; p++) {
        ap[p] = buf + p * a_bytes;
        bp[p] = buf + np * a_bytes + p * b_bytes;
        args.a_planes[p] = ap[p];
        args.b_planes[p] = bp[p];
    }
    int64_t lost[2][2] = {{0, 0}, {0, 0}};
    split_operand(&r, (const float *)g->a, m, k, 1, m, ld, ap, exps, lost[0]);
    split_operand(&r, (const float *)g->b, n, k, k, 1, ld, bp, exps + m, lost[1]);
    args.row_exp = r.scale ? exps : NULL;
    args.col_exp = r.scale ? exps + m : NULL;
    args.accum = r.accum;
    args.flush_k = r.flush_k;
    args.ldc = m;
    const struct tc_mma_model model = TC_MMA_MODEL_SM90;
    float *c = (float *)g->c;
    if (!r.cublas) {
        args.n_pairs = r.n_pairs;
        memcpy(args.pairs, r.pairs, sizeof r.pairs);
        args.c = c;
        tc_engine_host(&model, &args);
    } else {
        /* One GEMM per pair, unscaled sums in C, then the scales. */
        args.n_pairs = 1;
        args.row_exp = args.col_exp = NULL;
        args.c = part;
        for (int q = 0; q < r.n_pairs; q++) {
            args.pairs[0] = r.pairs[q];
            tc_engine_host(&model, &args);
            for (int64_t e = 0; e < m * n; e++)
                c[e] = q ? c[e] + part[e] : part[e];
        }
        for (int64_t j = 0; j < n && r.scale; j++)
            for (int64_t i = 0; i < m; i++)
                c[j * m + i] = ldexpf(c[j * m + i], -(exps[i] + exps[m + j]));
    }
    info->slices = r.n_pairs;
    info->fallback = 0;
    fs_recipe_describe(&r, info->settings, sizeof info->settings);
    fs_loss_note(lost, r.fmt, info->note, sizeof info->note);
    free(buf);
    free(exps);
    free(part);
    return MPB_STATUS_OK;
}

enum mpb_status mpb_egemm_host(const struct mpb_gemm *g, const double *p, struct mpb_scheme_info *i)
{
    return host(FS_EGEMM, g, p, i);
}
enum mpb_status mpb_markidis_host(const struct mpb_gemm *g, const double *p, struct mpb_scheme_info *i)
{
    return host(FS_MARKIDIS, g, p, i);
}
enum mpb_status mpb_refine_fp16_host(const struct mpb_gemm *g, const double *p, struct mpb_scheme_info *i)
{
    return host(FS_REFINE, g, p, i);
}
enum mpb_status mpb_tf32x3_host(const struct mpb_gemm *g, const double *p, struct mpb_scheme_info *i)
{
    return host(FS_TF32X3, g, p, i);
}
enum mpb_status mpb_ape_bf16x3_host(const struct mpb_gemm *g, const double *p, struct mpb_scheme_info *i)
{
    return host(FS_APE, g, p, i);
}
