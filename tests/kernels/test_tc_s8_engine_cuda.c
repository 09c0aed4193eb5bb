/* The tensor-core engine's block-scaled INT8 path (tc_s8_args) on the GPU
 * against its host model, bit for bit: every level structure a kernel is
 * built for (MixPert's configurations I-IV) at each kgroup, on awkward shapes
 * (1, 7, 33, 127, non-square, k not a multiple of the group or the k-tile),
 * with the deepest pipeline and with two stages, with scales that take both
 * of the consumers' conversions (tc_s8_scale_is_fast: normal powers of two,
 * and rows whose a_scale * weight is subnormal, zero or above 2^103). Entries
 * are compared on a sample of at most 3000 per case; every entry is checked
 * for being written (C is poisoned with NaN first). Exits 77 without an
 * sm_90 GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_env.h"
#include "cuda_open.h"
#include "rng.h"
#include "tc/tc_engine_host.h"

static int uniform_int(int lo, int hi)
{
    return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* A row's scale: mostly 2^-30..2^30; one row in eight takes an extreme that
 * leaves the fast conversion for some or all levels (weights are
 * 2^-12..2^-33): 0, 2^-140, 2^-120 (a_scale * weight underflows or is
 * subnormal), 2^116 (2^104 at level 0: above the fast range). */
static float row_scale(void)
{
    static const float extremes[] = {0.0f, 0x1p-140f, 0x1p-120f, 0x1p116f};
    if (rng_next() % 8 == 0)
        return extremes[rng_next() % 4];
    return ldexpf(1.0f, uniform_int(-30, 30));
}

struct config {
    int a_planes, b_planes, n_pairs, n_levels;
    struct tc_pair pairs[TC_MAX_S8_PAIRS];
    int level_end[TC_MAX_LEVELS];
    int kgroup, max_stages;
};

static bool run_case(struct mpb_cuda_env *env, const struct config *cfg, int64_t m, int64_t n, int64_t k)
{
    const int64_t ld = tc_plane_ld(TC_IN_S8, k), groups = tc_s8_groups(k, cfg->kgroup);
    const int64_t sld_a = (m + 3) / 4 * 4, sld_b = (n + 3) / 4 * 4;
    const size_t a_bytes = (size_t)(m * ld), b_bytes = (size_t)(n * ld);
    const size_t sa_bytes = sizeof(float) * (size_t)(groups * sld_a), sb_bytes = sizeof(float) * (size_t)(groups * sld_b);
    int8_t *ha = calloc(a_bytes * (size_t)cfg->a_planes, 1), *hb = calloc(b_bytes * (size_t)cfg->b_planes, 1);
    float *hsa = calloc(sa_bytes, 1), *hsb = calloc(sb_bytes, 1), *hc = malloc(sizeof *hc * (size_t)(m * n));
    void *da = NULL, *db = NULL, *dsa = NULL, *dsb = NULL, *dc = NULL;
    bool ok = ha && hb && hsa && hsb && hc;
    for (int p = 0; ok && p < cfg->a_planes; p++)
        for (int64_t r = 0; r < m; r++)
            for (int64_t l = 0; l < k; l++)
                ha[(p * m + r) * ld + l] = (int8_t)uniform_int(-127, 127);
    for (int p = 0; ok && p < cfg->b_planes; p++)
        for (int64_t r = 0; r < n; r++)
            for (int64_t l = 0; l < k; l++)
                hb[(p * n + r) * ld + l] = (int8_t)uniform_int(-127, 127);
    for (int64_t g = 0; ok && g < groups; g++) {
        for (int64_t i = 0; i < m; i++)
            hsa[g * sld_a + i] = row_scale();
        for (int64_t j = 0; j < n; j++)
            hsb[g * sld_b + j] = ldexpf(1.0f, uniform_int(-40, -10));
    }
    ok = ok && !mpb_cuda_alloc(env, &da, a_bytes * (size_t)cfg->a_planes) &&
         !mpb_cuda_alloc(env, &db, b_bytes * (size_t)cfg->b_planes) && !mpb_cuda_alloc(env, &dsa, sa_bytes) &&
         !mpb_cuda_alloc(env, &dsb, sb_bytes) && !mpb_cuda_alloc(env, &dc, sizeof(float) * (size_t)(m * n)) &&
         !mpb_cuda_upload(env, da, ha, a_bytes * (size_t)cfg->a_planes) &&
         !mpb_cuda_upload(env, db, hb, b_bytes * (size_t)cfg->b_planes) && !mpb_cuda_upload(env, dsa, hsa, sa_bytes) &&
         !mpb_cuda_upload(env, dsb, hsb, sb_bytes) && !mpb_cuda_memset(env, dc, 0xFF, sizeof(float) * (size_t)(m * n));
    CHECK(ok, "setting up %lldx%lldx%lld: %s", (long long)m, (long long)n, (long long)k, mpb_cuda_last_error(env));
    struct tc_s8_args g = {.m = m, .n = n, .k = k, .n_a_planes = cfg->a_planes, .n_b_planes = cfg->b_planes,
                           .ld = ld, .n_pairs = cfg->n_pairs, .n_levels = cfg->n_levels, .kgroup = cfg->kgroup,
                           .a_scale_ld = sld_a, .b_scale_ld = sld_b, .ldc = m, .max_stages = cfg->max_stages};
    memcpy(g.pairs, cfg->pairs, sizeof g.pairs);
    memcpy(g.level_end, cfg->level_end, sizeof g.level_end);
    for (int L = 0; L < cfg->n_levels; L++)
        g.level_weight[L] = ldexpf(1.0f, -12 - 7 * L);
    struct tc_plan *plan = NULL;
    char why[256] = "";
    if (ok) {
        for (int p = 0; p < cfg->a_planes; p++)
            g.a_planes[p] = (int8_t *)da + p * a_bytes;
        for (int p = 0; p < cfg->b_planes; p++)
            g.b_planes[p] = (int8_t *)db + p * b_bytes;
        g.a_scale = dsa;
        g.b_scale = dsb;
        g.c = dc;
        int err = tc_s8_plan_create(&g, &plan, why, sizeof why);
        if (!err)
            err = tc_plan_launch(plan, mpb_cuda_stream(env));
        ok = !err && !mpb_cuda_sync(env) && !mpb_cuda_download(env, hc, dc, sizeof(float) * (size_t)(m * n));
        CHECK(ok, "engine %lldx%lldx%lld: %s %s", (long long)m, (long long)n, (long long)k, why,
              mpb_cuda_last_error(env));
    }
    int64_t bad = 0, unwritten = 0;
    if (ok) {
        for (int p = 0; p < cfg->a_planes; p++)
            g.a_planes[p] = ha + p * a_bytes;
        for (int p = 0; p < cfg->b_planes; p++)
            g.b_planes[p] = hb + p * b_bytes;
        g.a_scale = hsa;
        g.b_scale = hsb;
        for (int64_t e = 0; e < m * n; e++)
            unwritten += isnan(hc[e]);
        const int64_t step = m * n > 3000 ? m * n / 3000 : 1;
        for (int64_t e = 0; e < m * n; e += step) {
            float want = tc_s8_engine_entry(&g, e % m, e / m);
            bad += memcmp(&want, &hc[e], sizeof want) != 0;
        }
        char desc[160];
        tc_plan_describe(plan, desc, sizeof desc);
        CHECK(bad == 0 && unwritten == 0,
              "%lldx%lldx%lld pairs %d levels %d kgroup %d [%s]: %lld sampled entries differ from the host model, "
              "%lld unwritten",
              (long long)m, (long long)n, (long long)k, cfg->n_pairs, cfg->n_levels, cfg->kgroup, desc,
              (long long)bad, (long long)unwritten);
    }
    tc_plan_destroy(plan);
    mpb_cuda_free(env, da);
    mpb_cuda_free(env, db);
    mpb_cuda_free(env, dsa);
    mpb_cuda_free(env, dsb);
    mpb_cuda_free(env, dc);
    free(ha);
    free(hb);
    free(hsa);
    free(hsb);
    free(hc);
    return ok && bad == 0 && unwritten == 0;
}

int main(void)
{
    struct mpb_cuda_env *env = test_cuda_open_or_skip();
    const struct mpb_device_info *dev = mpb_cuda_device(env);
    if (!(dev->cc_major == 9 && dev->cc_minor == 0)) {
        printf("test_tc_s8_engine_cuda: skipped: the engine is built for sm_90a, this is sm_%d%d\n", dev->cc_major,
               dev->cc_minor);
        mpb_cuda_close(env);
        return 77;
    }
/* MixPert's level structures (mp_recipe_of): pairs (i, j) by level i + j. */
#define CONFIG_I 2, 2, 4, 3, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, {1, 3, 4}
#define CONFIG_II 2, 3, 6, 4, {{0, 0}, {0, 1}, {1, 0}, {0, 2}, {1, 1}, {1, 2}}, {1, 3, 5, 6}
#define CONFIG_III 3, 2, 6, 4, {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}}, {1, 3, 5, 6}
#define CONFIG_IV 3, 3, 8, 4, {{0, 0}, {0, 1}, {1, 0}, {0, 2}, {1, 1}, {2, 0}, {1, 2}, {2, 1}}, {1, 3, 6, 8}
/* IV with kgroup 128: at most two pairs a level (02,11 | 20). */
#define CONFIG_IV_SPLIT 3, 3, 8, 5, {{0, 0}, {0, 1}, {1, 0}, {0, 2}, {1, 1}, {2, 0}, {1, 2}, {2, 1}}, {1, 3, 5, 6, 8}
    static const struct config configs[] = {
        {CONFIG_I, 32, 0},   {CONFIG_I, 64, 0},    {CONFIG_I, 128, 0},        {CONFIG_II, 32, 0},
        {CONFIG_II, 64, 0},  {CONFIG_II, 128, 0},  {CONFIG_III, 64, 0},       {CONFIG_III, 128, 0},
        {CONFIG_IV, 32, 0},  {CONFIG_IV, 64, 0},   {CONFIG_IV_SPLIT, 128, 0}, {CONFIG_IV, 64, 2},
        {CONFIG_I, 128, 2},
    };
    static const int64_t shapes[][3] = {{1, 1, 1},    {7, 7, 7},     {33, 33, 33},   {127, 127, 127},
                                        {1, 300, 77}, {300, 1, 200}, {200, 300, 77}, {129, 257, 1000},
                                        {1000, 1000, 1000}};
    int cases = 0, failed = 0;
    for (size_t c = 0; c < sizeof configs / sizeof *configs; c++)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            cases++;
            failed += !run_case(env, &configs[c], shapes[s][0], shapes[s][1], shapes[s][2]);
        }
    printf("test_tc_s8_engine_cuda: %d cases, %d differ from the host model\n", cases, failed);
    mpb_cuda_close(env);
    return check_report("test_tc_s8_engine_cuda");
}
