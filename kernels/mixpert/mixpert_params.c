/* Parameter table, recipe, check(), error bound and note of mixpert (mixpert.h). */
#include "mixpert/mixpert.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mpb_size.h"

static const char *const config_choices[] = {"I", "II", "III", "IV", NULL};
static const char *const align_choices[] = {"row", "tile", NULL};
static const char *const fallback_choices[] = {"off", "on", NULL};

const struct mpb_param_spec mpb_mixpert_params[MPB_MIXPERT_N_PARAMS] = {
    {.name = "config", .kind = MPB_PARAM_CHOICE, .def = "IV", .choices = config_choices,
     .help = "segments of A and B kept (MixPert paper §3.3.1): I = 2+2 (4 INT8 products), II = 2+3 and "
             "III = 3+2 (6), IV = 3+3 without s2*t2 (8)"},
    {.name = "align", .kind = MPB_PARAM_CHOICE, .def = "row", .choices = align_choices,
     .help = "exponent groups: row = each row of A (column of B) on its own; tile = 16 rows of A, "
             "8 columns of B (the paper's m16n8k32 tile): more shift loss, same cost"},
    {.name = "kgroup", .kind = MPB_PARAM_INT, .def = "64", .lo = 32, .hi = 128,
     .help = "values of k per exponent group: 32 (the paper's k-tile), 64 or 128 (IV then sums its level of three "
             "products as two); "
             "larger groups convert INT32 to FP32 less often"},
    {.name = "fallback", .kind = MPB_PARAM_CHOICE, .def = "off", .choices = fallback_choices,
     .help = "groups beyond the paper's safe range (largest > 32x smallest nonzero, §3.3.3): on = "
             "every product with such a group is computed by BF16x3 (APE's six products, the "
             "paper's half-precision fallback); off = kept in INT8, counted in note"},
};

/* Ends a level of weight 2^(-12 - 7 L) at the pairs so far. */
static void close_level(struct mp_recipe *r, int L)
{
    r->level_end[r->n_levels] = r->n_pairs;
    r->level_weight[r->n_levels] = ldexpf(1.0f, -12 - MP_SEG_BITS * L);
    r->n_levels++;
}

void mp_recipe_of(const double *params, struct mp_recipe *r)
{
    memset(r, 0, sizeof *r);
    r->config = (int)params[MP_PARAM_CONFIG] + 1;
    r->align = (enum mp_align)(int)params[MP_PARAM_ALIGN];
    r->kgroup = (int)params[MP_PARAM_KGROUP];
    r->fallback = (int)params[MP_PARAM_FALLBACK] == 1;
    r->a_segs = r->config == 1 || r->config == 2 ? 2 : 3;
    r->b_segs = r->config == 1 || r->config == 3 ? 2 : 3;
    /* Levels L = i + j, pairs by increasing i; s2*t2 (L = 4) is left out
     * (§3.2.2: it lies beyond FP32's 24 bits). A level's INT32 sum over a
     * group stays exact in FP32 for at most TC_S8_LEVEL_SPAN / kgroup pairs
     * (tc_engine.h), so with kgroup 128 a level of three pairs is summed as
     * two (IV's 02,11 | 20), each added to the FP32 sum with its weight. */
    const int span = TC_S8_LEVEL_SPAN / r->kgroup;
    for (int L = 0; L <= 3; L++) {
        int in_level = 0;
        for (int i = 0; i <= L; i++) {
            int j = L - i;
            if (i >= r->a_segs || j >= r->b_segs)
                continue;
            r->pairs[r->n_pairs++] = (struct tc_pair){i, j};
            if (++in_level == span) {
                close_level(r, L);
                in_level = 0;
            }
        }
        if (in_level)
            close_level(r, L);
    }
}

int mp_group_rows(const struct mp_recipe *r, int operand)
{
    return r->align == MP_ALIGN_TILE ? (operand == 0 ? MP_TILE_ROWS_A : MP_TILE_COLS_B) : 1;
}

int64_t mp_scale_ld(int64_t rows)
{
    return (rows + 3) / 4 * 4;
}

void mp_describe(const struct mp_recipe *r, char *buf, size_t len)
{
    static const char *const names[] = {"", "I", "II", "III", "IV"};
    snprintf(buf, len, "config=%s segments=%d+%d products=%d align=%s kgroup=%d fallback=%s", names[r->config],
             r->a_segs, r->b_segs, r->n_pairs, r->align == MP_ALIGN_TILE ? "tile" : "row", r->kgroup,
             r->fallback ? "on" : "off");
}

bool mp_fallback_runs(const struct mp_recipe *r, const int64_t counts[2][MP_N_COUNTS])
{
    return r->fallback && (counts[0][MP_COUNT_UNSAFE] || counts[1][MP_COUNT_UNSAFE]);
}

void mp_note(const struct mp_recipe *r, const int64_t counts[2][MP_N_COUNTS], int64_t groups_a, int64_t groups_b,
             char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int side = 0; side < 2 && used < len; side++) {
        const int64_t *c = counts[side];
        const int64_t groups = side ? groups_b : groups_a;
        if (c[MP_COUNT_UNSAFE])
            used += (size_t)snprintf(buf + used, len - used, "%s%s: %lld of %lld groups beyond the safe range%s",
                                     used ? "; " : "", side ? "B" : "A", (long long)c[MP_COUNT_UNSAFE],
                                     (long long)groups, r->fallback ? " fell back to BF16x3" : "");
        if (c[MP_COUNT_UNDERFLOW] && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s: %lld groups below 2^-149 of the largest dropped",
                                     used ? "; " : "", side ? "B" : "A", (long long)c[MP_COUNT_UNDERFLOW]);
        if (c[MP_COUNT_NONFINITE] && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s: %lld %s with NaN/Inf recomputed in FP32",
                                     used ? "; " : "", side ? "B" : "A", (long long)c[MP_COUNT_NONFINITE],
                                     side ? "columns" : "rows");
    }
}

void mp_s8_args(const struct mp_recipe *r, const struct mpb_gemm *g, const int8_t *a_planes, const int8_t *b_planes,
                const float *scales, const int *exps, struct tc_s8_args *args)
{
    const int64_t ld = tc_plane_ld(TC_IN_S8, g->k), groups = tc_s8_groups(g->k, r->kgroup);
    memset(args, 0, sizeof *args);
    args->m = g->m;
    args->n = g->n;
    args->k = g->k;
    args->n_a_planes = r->a_segs;
    args->n_b_planes = r->b_segs;
    for (int p = 0; p < 3; p++) {
        args->a_planes[p] = a_planes + p * g->m * ld;
        args->b_planes[p] = b_planes + p * g->n * ld;
    }
    args->ld = ld;
    args->n_pairs = r->n_pairs;
    memcpy(args->pairs, r->pairs, sizeof r->pairs);
    args->n_levels = r->n_levels;
    memcpy(args->level_end, r->level_end, sizeof r->level_end);
    memcpy(args->level_weight, r->level_weight, sizeof r->level_weight);
    args->kgroup = r->kgroup;
    args->a_scale = scales;
    args->a_scale_ld = mp_scale_ld(g->m);
    args->b_scale = scales + groups * args->a_scale_ld;
    args->b_scale_ld = mp_scale_ld(g->n);
    args->row_exp = exps;
    args->col_exp = exps + g->m;
    args->c = (float *)g->c;
    args->ldc = g->m;
}

int64_t mp_fb_offset(int64_t k)
{
    return tc_plane_ld(TC_IN_BF16, k);
}

int64_t mp_fb_ld(int64_t k)
{
    return tc_plane_ld(TC_IN_BF16, mp_fb_offset(k) + k);
}

/* APE's products (Ma et al., ICS'22), smallest first as in ape_bf16x3;
 * accum=rn flushed every 256 values of k, so that the fallback's error does
 * not grow with the tensor cores' truncation over 2k. */
void mp_fb_args(const struct mpb_gemm *g, const uint16_t *a_planes, const uint16_t *b_planes, float *c,
                struct tc_gemm_args *args)
{
    static const struct tc_pair ape[] = {{2, 0}, {1, 1}, {0, 2}, {1, 0}, {0, 1}, {0, 0}};
    const int64_t ld = mp_fb_ld(g->k);
    memset(args, 0, sizeof *args);
    args->fmt = TC_IN_BF16;
    args->m = g->m;
    args->n = g->n;
    args->k = mp_fb_offset(g->k) + g->k;
    args->n_a_planes = args->n_b_planes = 3;
    for (int p = 0; p < 3; p++) {
        args->a_planes[p] = a_planes + p * g->m * ld;
        args->b_planes[p] = b_planes + p * g->n * ld;
    }
    args->ld = ld;
    args->n_pairs = 6;
    memcpy(args->pairs, ape, sizeof ape);
    args->accum = TC_ACCUM_RN;
    args->flush_k = MP_FB_FLUSH_K;
    args->c = c;
    args->ldc = g->m;
}

bool mpb_mixpert_check(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev,
                       char *why, size_t why_len)
{
    struct mp_recipe r;
    mp_recipe_of(params, &r);
    if (r.kgroup != 32 && r.kgroup != 64 && r.kgroup != 128) {
        snprintf(why, why_len, "kgroup = %d: must be 32, 64 or 128", r.kgroup);
        return false;
    }
    if (!tc_scheme_problem_supported(g->m, g->n, g->k, dev, why, why_len))
        return false;
    if (r.fallback && g->k >= INT64_C(1) << 30) {
        snprintf(why, why_len, "fallback=on needs k below 2^30 (the BF16x3 part runs over 2k)");
        return false;
    }
    return true;
}

/* Error bound, row/column-wise (|C^ - C|_ij <= f ||A(i,:)||_2 ||B(:,j)||_2),
 * align=row. A value x of a group with largest magnitude M is held to
 * within 2^(E-21) <= 2^-20 M with three segments (rounding at bit 21), and
 * within 2^(E-13) <= 2^-12 M with two (s2 cut off). Summed over k with
 * the group maxima: sum_l M_g(l) |y_l| <= sqrt(kgroup) ||x|| ||y||, and for
 * the dropped s2*t2 (<= 2^-24 M N) sum_l M N <= kgroup ||x|| ||y||. The
 * FP32 sum takes one rounding per group and level (fmaf), each at most
 * 2^-24 of a partial sum of the segment products, themselves at most
 * (1 + 2^-6)^2 |x||y|. align=tile: a group spans 16 rows of A (8 columns of
 * B), whose largest value no norm of this row bounds: no bound (NaN).
 * fallback=on: the INT8 part is the same sum over fewer products (within
 * the same f); the BF16x3 part is APE's componentwise bound over the
 * fallback's k, sum_l (|A_u||B| + |A_s||B_u|) <= (|A||B|)_ij <= the norms'
 * product; the FP32 add of the two parts one more rounding (2^-24 of
 * |C| + both errors). */
double mpb_mixpert_bound(const double *params, int64_t k)
{
    struct mp_recipe r;
    mp_recipe_of(params, &r);
    if (r.align == MP_ALIGN_TILE)
        return NAN;
    const double ea = r.a_segs == 3 ? 0x1p-20 : 0x1p-12, eb = r.b_segs == 3 ? 0x1p-20 : 0x1p-12;
    const double kg = r.kgroup, groups = (double)((k + r.kgroup - 1) / r.kgroup);
    double f = sqrt(kg) * (ea * (1 + eb) + eb);
    if (r.config == 4)
        f += kg * 0x1p-24;
    f += groups * r.n_levels * 0x1p-24 * (1 + 0x1p-5);
    f *= 1 + 0x1p-10;
    if (!r.fallback)
        return f;
    /* APE's products leave out mid*lo, lo*mid and lo*lo (|mid| <= 2^-8 |x|,
     * |lo| <= 2^-16 |x|), as ape_bf16x3's bound. */
    const double fb = tc_accum_bound(TC_IN_BF16, 6, mp_fb_offset(k) + k) + (2 * 0x1p-24 + 0x1p-32) * (1.0 + 0x1p-7);
    return (f + fb) * (1 + 0x1p-23) + 0x1p-24;
}

/* Device (setup) or host (model) bytes beyond A, B and C: three planes per
 * operand, the group exponents and scales, row/column exponents and
 * non-finite lists, the counters; with fallback=on three BF16 planes per
 * operand over the fallback's k and a second C. */
size_t mpb_mixpert_workspace(const double *params, const struct mpb_gemm *g, bool on_device)
{
    (void)on_device;
    struct mp_recipe r;
    mp_recipe_of(params, &r);
    const int64_t ld = tc_plane_ld(TC_IN_S8, g->k), groups = tc_s8_groups(g->k, r.kgroup);
    size_t planes = mpb_size_mul(3, mpb_size_matrix(g->m + g->n, ld, 1));
    size_t scales = mpb_size_matrix(groups, mp_scale_ld(g->m) + mp_scale_ld(g->n), 2 * sizeof(float));
    size_t per_row = mpb_size_matrix(g->m + g->n, 1, 4 * sizeof(int32_t));
    size_t bytes = mpb_size_add(mpb_size_add(planes, scales), mpb_size_add(per_row, 256));
    if (r.fallback) {
        size_t fb = mpb_size_mul(3, mpb_size_matrix(g->m + g->n, mp_fb_ld(g->k), sizeof(uint16_t)));
        bytes = mpb_size_add(bytes, mpb_size_add(fb, mpb_size_matrix(g->m, g->n, sizeof(float))));
    }
    return bytes;
}
