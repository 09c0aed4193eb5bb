/* Host model of the tensor-core engine (tc_engine.h): the same MMAs in the
 * same order on the same plane values, each MMA evaluated by the model of
 * tc_mma_model.h, entry by entry; and of its plain INT8 GEMM (tc_i8.h),
 * whose sums are exact modulo 2^32 in any order. */
#include "tc/tc_engine_host.h"

#include <math.h>

#include "common/lowp_arith.h"

/* The value a plane element holds, as the tensor core reads it. */
static float plane_value(enum tc_input fmt, const void *plane, int64_t index)
{
    switch (fmt) {
    case TC_IN_FP16: return mpb_fp16_to_f32(((const uint16_t *)plane)[index]);
    case TC_IN_BF16: return mpb_bf16_to_f32(((const uint16_t *)plane)[index]);
    case TC_IN_TF32: return ((const float *)plane)[index];
    case TC_IN_S8: return (float)((const int8_t *)plane)[index];
    }
    return NAN;
}

float tc_engine_entry(const struct tc_mma_model *model, const struct tc_gemm_args *g, int64_t i, int64_t j)
{
    const int kstep = tc_input_k(g->fmt);
    float acc = 0.0f, sum = 0.0f;
    float a[TC_MAX_PLANES][16], b[TC_MAX_PLANES][16];
    for (int64_t k0 = 0; k0 < g->k; k0 += kstep) {
        for (int p = 0; p < g->n_a_planes; p++)
            for (int l = 0; l < kstep; l++)
                a[p][l] = k0 + l < g->k ? plane_value(g->fmt, g->a_planes[p], i * g->ld + k0 + l) : 0.0f;
        for (int p = 0; p < g->n_b_planes; p++)
            for (int l = 0; l < kstep; l++)
                b[p][l] = k0 + l < g->k ? plane_value(g->fmt, g->b_planes[p], j * g->ld + k0 + l) : 0.0f;
        for (int q = 0; q < g->n_pairs; q++)
            acc = tc_mma_entry(model, g->fmt, acc, a[g->pairs[q].a], b[g->pairs[q].b]);
        /* accum=rn: every flush_k (and after the last k-step) the MMA
         * accumulator is added to the FP32 sum with round to nearest and restarts. */
        int64_t done = k0 + kstep;
        if (g->accum == TC_ACCUM_RN && (done % g->flush_k == 0 || done >= g->k)) {
            sum = sum + acc;
            acc = 0.0f;
        }
    }
    float v = g->accum == TC_ACCUM_RN ? sum : acc;
    if (g->row_exp)
        v = ldexpf(v, -(g->row_exp[i] + g->col_exp[j]));
    return v;
}

void tc_engine_host(const struct tc_mma_model *model, const struct tc_gemm_args *g)
{
    for (int64_t j = 0; j < g->n; j++)
        for (int64_t i = 0; i < g->m; i++)
            g->c[j * g->ldc + i] = tc_engine_entry(model, g, i, j);
}

float tc_s8_engine_entry(const struct tc_s8_args *g, int64_t i, int64_t j)
{
    const int64_t groups = tc_s8_groups(g->k, g->kgroup);
    float acc = 0.0f;
    for (int64_t G = 0; G < groups; G++) {
        const int64_t l0 = G * g->kgroup, l1 = l0 + g->kgroup < g->k ? l0 + g->kgroup : g->k;
        for (int L = 0, q = 0; L < g->n_levels; L++) {
            int32_t v = 0; /* exact: the engine bounds |v| by 2^22 */
            for (; q < g->level_end[L]; q++) {
                const int8_t *a = g->a_planes[g->pairs[q].a] + i * g->ld, *b = g->b_planes[g->pairs[q].b] + j * g->ld;
                for (int64_t l = l0; l < l1; l++)
                    v += (int32_t)a[l] * (int32_t)b[l];
            }
            const float ra = g->a_scale[G * g->a_scale_ld + i] * g->level_weight[L];
            const float sb = g->b_scale[G * g->b_scale_ld + j];
            acc = tc_s8_scale_is_fast(ra) ? fmaf((float)v * ra, sb, acc) : fmaf((float)v, ra * sb, acc);
        }
    }
    if (g->row_exp)
        acc = ldexpf(acc, -(g->row_exp[i] + g->col_exp[j]));
    return acc;
}

void tc_s8_engine_host(const struct tc_s8_args *g)
{
    for (int64_t j = 0; j < g->n; j++)
        for (int64_t i = 0; i < g->m; i++)
            g->c[j * g->ldc + i] = tc_s8_engine_entry(g, i, j);
}

int32_t tc_i8_entry(const struct tc_i8_args *g, int gemm, int64_t i, int64_t j)
{
    const int8_t *a = g->gemms[gemm].a + i * g->ld, *b = g->gemms[gemm].b + j * g->ld;
    int32_t c = 0;
    for (int64_t l = 0; l < g->k; l++)
        c = tc_i8_mac(c, a[l], b[l]);
    return c;
}

void tc_i8_host(const struct tc_i8_args *g)
{
    for (int t = 0; t < g->n_gemms; t++) {
        const struct tc_i8_gemm *x = &g->gemms[t];
        const struct tc_i8_modp k = tc_i8_modp_of(x->mod ? x->mod : TC_I8_MOD_MIN);
        for (int64_t j = 0; j < g->n; j++)
            for (int64_t i = 0; i < g->m; i++) {
                const int32_t v = tc_i8_entry(g, t, i, j);
                if (x->mod)
                    ((uint8_t *)x->c)[j * g->ldc + i] = tc_i8_mod(v, k);
                else
                    ((int32_t *)x->c)[j * g->ldc + i] = v;
            }
    }
}
