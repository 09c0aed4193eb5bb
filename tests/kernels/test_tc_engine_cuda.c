/* The tensor-core engine (kernels/tc) on the GPU against its host model with
 * the H200's MMA model, bit for bit: every input format, both accumulations,
 * one to three planes per operand with the pair lists of the split schemes,
 * scaled and unscaled, on awkward shapes (1, 7, 33, 127, non-square, k not a
 * multiple of the k-tile), with the deepest pipeline that fits and with
 * two or three stages. Entries are compared on a sample of at most 3000
 * per case (the host model is slow); every entry is checked for being
 * written (C is poisoned with NaN first). Exits 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/lowp_arith.h"
#include "cuda_env.h"
#include "rng.h"
#include "tc/tc_engine_host.h"

static double uniform(void)
{
    return (double)(rng_next() >> 11) * 0x1p-53;
}

/* Random plane values of the format over about 12 binades; later planes
 * smaller, as a split's are. */
static void *make_planes(enum tc_input fmt, int planes, int64_t rows, int64_t ld, int64_t k)
{
    const int eb = tc_plane_elem_bytes(fmt);
    unsigned char *h = calloc((size_t)(planes * rows * ld), (size_t)eb);
    for (int p = 0; h && p < planes; p++)
        for (int64_t r = 0; r < rows; r++)
            for (int64_t l = 0; l < k; l++) {
                float x = (float)((uniform() - 0.5) * exp2((uniform() - 0.5) * 12)) * (p ? 0x1p-11f : 1.0f);
                int64_t at = (p * rows + r) * ld + l;
                if (fmt == TC_IN_FP16)
                    ((uint16_t *)h)[at] = mpb_fp16_from_f32(x);
                else if (fmt == TC_IN_BF16)
                    ((uint16_t *)h)[at] = mpb_bf16_from_f32(x);
                else
                    ((float *)h)[at] = mpb_tf32_round(x);
            }
    return h;
}

struct config {
    int a_planes, b_planes, n_pairs;
    struct tc_pair pairs[TC_MAX_PAIRS];
    enum tc_accum accum;
    int flush_k;
    bool scaled;
    int max_stages;
};

static bool run_case(struct mpb_cuda_env *env, enum tc_input fmt, const struct config *cfg, int64_t m, int64_t n,
                     int64_t k)
{
    const struct tc_mma_model model = TC_MMA_MODEL_SM90;
    const int eb = tc_plane_elem_bytes(fmt);
    const int64_t ld = tc_plane_ld(fmt, k);
    const size_t a_bytes = (size_t)(m * ld * eb), b_bytes = (size_t)(n * ld * eb);
    unsigned char *ha = make_planes(fmt, cfg->a_planes, m, ld, k), *hb = make_planes(fmt, cfg->b_planes, n, ld, k);
    int *exps = malloc(sizeof *exps * (size_t)(m + n));
    float *hc = malloc(sizeof *hc * (size_t)(m * n));
    void *da = NULL, *db = NULL, *dc = NULL, *dexp = NULL;
    bool ok = ha && hb && exps && hc;
    for (int64_t i = 0; ok && i < m + n; i++)
        exps[i] = (int)(uniform() * 20) - 10;
    ok = ok && !mpb_cuda_alloc(env, &da, a_bytes * cfg->a_planes) && !mpb_cuda_alloc(env, &db, b_bytes * cfg->b_planes) &&
         !mpb_cuda_alloc(env, &dc, sizeof(float) * (size_t)(m * n)) &&
         !mpb_cuda_alloc(env, &dexp, sizeof *exps * (size_t)(m + n)) &&
         !mpb_cuda_upload(env, da, ha, a_bytes * cfg->a_planes) && !mpb_cuda_upload(env, db, hb, b_bytes * cfg->b_planes) &&
         !mpb_cuda_upload(env, dexp, exps, sizeof *exps * (size_t)(m + n)) &&
         !mpb_cuda_memset(env, dc, 0xFF, sizeof(float) * (size_t)(m * n));
    CHECK(ok, "setting up %lldx%lldx%lld: %s", (long long)m, (long long)n, (long long)k, mpb_cuda_last_error(env));
    struct tc_gemm_args g = {.fmt = fmt, .m = m, .n = n, .k = k, .n_a_planes = cfg->a_planes,
                             .n_b_planes = cfg->b_planes, .ld = ld, .n_pairs = cfg->n_pairs, .accum = cfg->accum,
                             .flush_k = cfg->flush_k, .ldc = m, .max_stages = cfg->max_stages};
    memcpy(g.pairs, cfg->pairs, sizeof g.pairs);
    struct tc_plan *plan = NULL;
    char why[256] = "";
    if (ok) {
        for (int p = 0; p < cfg->a_planes; p++)
            g.a_planes[p] = (char *)da + p * a_bytes;
        for (int p = 0; p < cfg->b_planes; p++)
            g.b_planes[p] = (char *)db + p * b_bytes;
        g.row_exp = cfg->scaled ? dexp : NULL;
        g.col_exp = cfg->scaled ? (int *)dexp + m : NULL;
        g.c = dc;
        int err = tc_plan_create(&g, &plan, why, sizeof why);
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
        g.row_exp = cfg->scaled ? exps : NULL;
        g.col_exp = cfg->scaled ? exps + m : NULL;
        for (int64_t e = 0; e < m * n; e++)
            unwritten += isnan(hc[e]);
        const int64_t step = m * n > 3000 ? m * n / 3000 : 1;
        for (int64_t e = 0; e < m * n; e += step) {
            float want = tc_engine_entry(&model, &g, e % m, e / m);
            bad += memcmp(&want, &hc[e], sizeof want) != 0;
        }
        char desc[128];
        tc_plan_describe(plan, desc, sizeof desc);
        CHECK(bad == 0 && unwritten == 0,
              "fmt %d %lldx%lldx%lld accum %d planes %d+%d pairs %d [%s]: %lld sampled entries differ from the "
              "host model, %lld unwritten",
              (int)fmt, (long long)m, (long long)n, (long long)k, (int)cfg->accum, cfg->a_planes, cfg->b_planes,
              cfg->n_pairs, desc, (long long)bad, (long long)unwritten);
    }
    tc_plan_destroy(plan);
    mpb_cuda_free(env, da);
    mpb_cuda_free(env, db);
    mpb_cuda_free(env, dc);
    mpb_cuda_free(env, dexp);
    free(ha);
    free(hb);
    free(exps);
    free(hc);
    return ok && bad == 0 && unwritten == 0;
}

int main(void)
{
    char why[256];
    struct mpb_cuda_env *env = mpb_cuda_open(0, why, sizeof why);
    if (!env) {
        printf("test_tc_engine_cuda: skipped: %s\n", why);
        return 77;
    }
    const struct mpb_device_info *dev = mpb_cuda_device(env);
    if (!(dev->cc_major == 9 && dev->cc_minor == 0)) {
        printf("test_tc_engine_cuda: skipped: the engine is built for sm_90a, this is sm_%d%d\n", dev->cc_major,
               dev->cc_minor);
        mpb_cuda_close(env);
        return 77;
    }
    static const struct config configs[] = {
        {1, 1, 1, {{0, 0}}, TC_ACCUM_TC, 0, false, 0},
        {2, 2, 4, {{1, 1}, {1, 0}, {0, 1}, {0, 0}}, TC_ACCUM_TC, 0, true, 0},      /* egemm, markidis */
        {2, 2, 3, {{1, 0}, {0, 1}, {0, 0}}, TC_ACCUM_RN, 64, false, 0},            /* tf32x3, accum=rn */
        {1, 2, 2, {{0, 1}, {0, 0}}, TC_ACCUM_TC, 0, true, 0},                      /* refine_fp16 tau=100 */
        {3, 3, 6, {{2, 0}, {1, 1}, {0, 2}, {1, 0}, {0, 1}, {0, 0}}, TC_ACCUM_TC, 0, false, 0}, /* ape_bf16x3 */
        {1, 1, 1, {{0, 0}}, TC_ACCUM_RN, 256, true, 0},
        {2, 2, 5, {{1, 1}, {1, 0}, {0, 1}, {0, 0}, {1, 1}}, TC_ACCUM_RN, 32, false, 0},
        {2, 2, 4, {{1, 1}, {1, 0}, {0, 1}, {0, 0}}, TC_ACCUM_TC, 0, true, 2},   /* shallow pipelines */
        {1, 1, 1, {{0, 0}}, TC_ACCUM_RN, 64, false, 3},
    };
    static const int64_t shapes[][3] = {{1, 1, 1},     {7, 7, 7},     {33, 33, 33},   {127, 127, 127},
                                        {1, 300, 77},  {300, 1, 200}, {200, 300, 77}, {129, 257, 1000},
                                        {1000, 1000, 1000}};
    int cases = 0, failed = 0;
    for (int f = 0; f < 3; f++)
        for (size_t c = 0; c < sizeof configs / sizeof *configs; c++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
                cases++;
                failed += !run_case(env, (enum tc_input)f, &configs[c], shapes[s][0], shapes[s][1], shapes[s][2]);
            }
    printf("test_tc_engine_cuda: %d cases, %d differ from the host model\n", cases, failed);
    mpb_cuda_close(env);
    return check_report("test_tc_engine_cuda");
}
