/* Host model of mixpert: the packer of mixpert_arith.h, the engine's
 * block-scaled INT8 path (tc_engine_host.c), with fallback=on the BF16x3
 * part on the engine's float path and the FP32 add of the two, then the
 * FP32 recomputation of rows and columns with NaN/Inf, in the GPU's order:
 * its output bit for bit. */
#include "mixpert/mixpert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc/tc_engine_host.h"

/* One operand: `vecs` vectors of k values (rows of A, columns of B), value
 * l of vector v at x[v*vstride + l*lstride]. Writes the segment planes, the
 * group scales relative to each vector's largest group, the vectors'
 * exponents (negated, as the engine's row_exp/col_exp), non-finite flags
 * and, with fallback=on, the BF16x3 planes `fb` (mp_fb_halves). */
static void pack_operand(const struct mp_recipe *r, int operand, const float *x, int64_t vecs, int64_t k,
                         int64_t vstride, int64_t lstride, int64_t ld, int8_t *planes, int segs, float *scale,
                         int64_t scale_ld, int *vec_exp, unsigned char *nonfinite, int *ea, uint16_t *fb,
                         int64_t counts[MP_N_COUNTS])
{
    const int gr = mp_group_rows(r, operand), kg = r->kgroup;
    const int64_t groups = tc_s8_groups(k, kg), fb_ld = mp_fb_ld(k), fb_off = mp_fb_offset(k);
    for (int64_t v0 = 0; v0 < vecs; v0 += gr) {
        const int64_t v1 = v0 + gr < vecs ? v0 + gr : vecs;
        for (int64_t g = 0; g < groups; g++) {
            const int64_t l0 = g * kg, l1 = l0 + kg < k ? l0 + kg : k;
            uint32_t mx = 0, mn = 0xFFFFFFFFu;
            for (int64_t v = v0; v < v1; v++)
                for (int64_t l = l0; l < l1; l++) {
                    float y = x[v * vstride + l * lstride];
                    uint32_t b = mp_abs_bits_finite(y);
                    mx = b > mx ? b : mx;
                    mn = b && b < mn ? b : mn;
                    if (!mp_is_finite(y))
                        nonfinite[v] = 1;
                }
            const int e = mp_group_exp(mx), unsafe = mp_beyond_safe_range(mx, mn);
            const int fell_back = r->fallback && unsafe;
            counts[MP_COUNT_UNSAFE] += unsafe;
            for (int64_t v = v0; v < v1; v++) {
                ea[g * vecs + v] = e;
                for (int64_t l = l0; l < l1; l++) {
                    float y = x[v * vstride + l * lstride];
                    int32_t n = mp_quantize(mp_int8_input(y, fell_back), e);
                    for (int s = 0; s < segs; s++)
                        planes[(s * vecs + v) * ld + l] = mp_segment(n, s);
                    if (fb) {
                        uint16_t first[3], second[3];
                        mp_fb_halves(operand, fell_back, y, first, second);
                        for (int p = 0; p < 3; p++) {
                            fb[(p * vecs + v) * fb_ld + l] = first[p];
                            fb[(p * vecs + v) * fb_ld + fb_off + l] = second[p];
                        }
                    }
                }
            }
        }
    }
    for (int64_t v = 0; v < vecs; v++) {
        int top = MP_ZERO_GROUP;
        for (int64_t g = 0; g < groups; g++)
            top = ea[g * vecs + v] > top ? ea[g * vecs + v] : top;
        if (top == MP_ZERO_GROUP)
            top = 0;
        vec_exp[v] = -top;
        for (int64_t g = 0; g < groups; g++) {
            const int e = ea[g * vecs + v];
            scale[g * scale_ld + v] = e == MP_ZERO_GROUP ? 0.0f : mp_pow2(e - top);
            counts[MP_COUNT_UNDERFLOW] += e != MP_ZERO_GROUP && e - top < -149;
        }
    }
    for (int64_t v = 0; v < vecs; v++)
        counts[MP_COUNT_NONFINITE] += nonfinite[v];
}

/* C(i, j) as a plain FP32 dot product, k in order (the GPU's recomputation).
 * A NaN comes out as the GPU's canonical quiet NaN, whatever the inputs'
 * NaN bits (the x86 FMA would pass an input's payload on). */
static float fp32_dot(const struct mpb_gemm *g, int64_t i, int64_t j)
{
    const float *a = (const float *)g->a, *b = (const float *)g->b;
    float acc = 0.0f;
    for (int64_t l = 0; l < g->k; l++)
        acc = fmaf(a[i + l * g->m], b[l + j * g->k], acc);
    return isnan(acc) ? tc_nan() : acc;
}

/* The host model's buffers (those of fallback=on NULL when off). */
struct model_buffers {
    int8_t *planes;
    float *scales, *c_fb;
    int *exps, *ea;
    unsigned char *nonfinite;
    uint16_t *fb;
};

static void free_buffers(struct model_buffers *b)
{
    free(b->planes);
    free(b->scales);
    free(b->c_fb);
    free(b->exps);
    free(b->ea);
    free(b->nonfinite);
    free(b->fb);
}

enum mpb_status mpb_mixpert_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info)
{
    struct mp_recipe r;
    mp_recipe_of(params, &r);
    const int64_t m = g->m, n = g->n, k = g->k, ld = tc_plane_ld(TC_IN_S8, k), groups = tc_s8_groups(k, r.kgroup);
    const int64_t lda = mp_scale_ld(m), ldb = mp_scale_ld(n);
    const size_t fb_elems = r.fallback ? (size_t)(3 * (m + n) * mp_fb_ld(k)) : 0;
    struct model_buffers bufs = {
        .planes = calloc((size_t)(3 * (m + n) * ld), 1),
        .scales = calloc((size_t)(groups * (lda + ldb)), sizeof(float)),
        .c_fb = r.fallback ? calloc((size_t)(m * n), sizeof(float)) : NULL,
        .exps = calloc((size_t)(m + n), sizeof(int)),
        .ea = calloc((size_t)(groups * (m + n)), sizeof(int)),
        .nonfinite = calloc((size_t)(m + n), 1),
        .fb = r.fallback ? calloc(fb_elems, sizeof(uint16_t)) : NULL,
    };
    if (!bufs.planes || !bufs.scales || !bufs.exps || !bufs.ea || !bufs.nonfinite ||
        (r.fallback && (!bufs.fb || !bufs.c_fb))) {
        free_buffers(&bufs);
        snprintf(info->note, sizeof info->note, "out of host memory");
        return MPB_STATUS_ERROR;
    }
    float *scales = bufs.scales, *c_fb = bufs.c_fb;
    int *exps = bufs.exps, *ea = bufs.ea;
    unsigned char *nonfinite = bufs.nonfinite;
    int64_t counts[2][MP_N_COUNTS] = {{0}};
    int8_t *pa = bufs.planes, *pb = bufs.planes + 3 * m * ld;
    uint16_t *fa = bufs.fb, *fbb = bufs.fb ? bufs.fb + 3 * m * mp_fb_ld(k) : NULL;
    pack_operand(&r, 0, (const float *)g->a, m, k, 1, m, ld, pa, r.a_segs, scales, lda, exps, nonfinite, ea, fa,
                 counts[0]);
    pack_operand(&r, 1, (const float *)g->b, n, k, k, 1, ld, pb, r.b_segs, scales + groups * lda, ldb, exps + m,
                 nonfinite + m, ea + groups * m, fbb, counts[1]);
    struct tc_s8_args args;
    mp_s8_args(&r, g, pa, pb, scales, exps, &args);
    tc_s8_engine_host(&args);
    float *c = (float *)g->c;
    if (mp_fallback_runs(&r, counts)) {
        struct tc_gemm_args fargs;
        const struct tc_mma_model model = TC_MMA_MODEL_SM90;
        mp_fb_args(g, fa, fbb, c_fb, &fargs);
        tc_engine_host(&model, &fargs);
        for (int64_t e = 0; e < m * n; e++)
            c[e] = c[e] + c_fb[e];
    }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n && nonfinite[i]; j++)
            c[j * m + i] = fp32_dot(g, i, j);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m && nonfinite[m + j]; i++)
            c[j * m + i] = fp32_dot(g, i, j);
    info->slices = r.n_pairs;
    info->fallback = mp_fallback_runs(&r, counts);
    mp_describe(&r, info->settings, sizeof info->settings);
    const int64_t ga = (m + mp_group_rows(&r, 0) - 1) / mp_group_rows(&r, 0) * groups;
    const int64_t gb = (n + mp_group_rows(&r, 1) - 1) / mp_group_rows(&r, 1) * groups;
    mp_note(&r, counts, ga, gb, info->note, sizeof info->note);
    free_buffers(&bufs);
    return MPB_STATUS_OK;
}
