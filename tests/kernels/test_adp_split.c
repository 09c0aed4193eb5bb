/* adp with k split into INT32-exact chunks (k above ADP_MAX_TERMS), tested
 * at small k through the host model's `most` (terms per INT32 sum):
 *  - the GEMM plan: every slice pair of every diagonal over every chunk of
 *    the padded k exactly once, chunks aligned and within `most`;
 *  - the CRT engine's output does not depend on the split (the chunks are
 *    folded modulo 2·m_t: the bits of one exact sum);
 *  - the slice engine's does only through the double-word sum of more exact
 *    terms: within 2^-52 relative of the unsplit output;
 *  - the scan counts the NaN, Inf and subnormal entries it falls back on,
 *    and the note says how many.
 * Fixed seed; failures print the case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define TEST_RNG_SEED 0x5DEECE66Dull
#include "rng.h"
#include "adp/adp.h"

static void test_plan(void)
{
    static const int64_t ks[] = {1, 5, 16, 17, 100, 131071, 131072, 262144, 1000003, (int64_t)1 << 24};
    static const int64_t mosts[] = {ADP_MAX_TERMS, 7, 64};
    for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++)
        for (size_t b = 0; b < sizeof mosts / sizeof mosts[0]; b++) {
            int64_t k = ks[a], most = mosts[b], kp = adp_padded_k(k);
            if (most != ADP_MAX_TERMS && k > 5000)
                continue;
            struct adp_gemm_plan plan = adp_gemm_plan_for(k, most);
            CHECK(plan.pairs ? (int64_t)plan.pairs * k <= most : plan.len <= most,
                  "k %lld most %lld: %d pairs, chunks of %lld", (long long)k, (long long)most,
                  plan.pairs, (long long)plan.len);
            CHECK(plan.chunks * plan.len >= kp && (plan.chunks - 1) * plan.len < kp,
                  "k %lld most %lld: %lld chunks of %lld do not cover %lld", (long long)k,
                  (long long)most, (long long)plan.chunks, (long long)plan.len, (long long)kp);
            if (most == ADP_MAX_TERMS)
                CHECK(plan.len % 16 == 0 && (k > ADP_MAX_TERMS) == (plan.chunks > 1),
                      "k %lld: chunks of %lld, %lld of them", (long long)k, (long long)plan.len,
                      (long long)plan.chunks);
            for (int d = 0; d < ADP_MAX_SLICES; d++) {
                int seen[ADP_MAX_SLICES][160] = {{0}};
                for (int g = 0; g < adp_diagonal_gemms(&plan, d); g++) {
                    int p0, p1;
                    int64_t c;
                    adp_diagonal_gemm(&plan, d, g, &p0, &p1, &c);
                    CHECK(p0 >= 0 && p0 <= p1 && p1 <= d && c >= 0 && c < plan.chunks && c < 160,
                          "d %d gemm %d: pairs %d..%d chunk %lld", d, g, p0, p1, (long long)c);
                    for (int p = p0; p <= p1 && c < 160; p++)
                        seen[p][c]++;
                }
                for (int p = 0; p <= d; p++)
                    for (int64_t c = 0; c < plan.chunks && c < 160; c++)
                        CHECK(seen[p][c] == 1, "k %lld most %lld d %d: pair %d chunk %lld in %d GEMMs",
                              (long long)k, (long long)most, d, p, (long long)c, seen[p][c]);
            }
        }
}

/* x·2^e, x uniform in (−1, 1), e in [−span, span]. */
static double draw(int span)
{
    return ldexp((double)(rng_next() >> 11) * 0x1p-52 - 1.0, (int)(rng_next() % (2 * span + 1)) - span);
}

static void run_case(const double *params, struct mpb_gemm *g, double *out, int64_t most)
{
    struct mpb_scheme_info info;
    g->c = out;
    CHECK(mpb_adp_host_split(g, params, &info, most) == MPB_STATUS_OK, "host model failed: %s", info.note);
    CHECK(info.fallback == 0, "%lldx%lldx%lld: fell back: %s", (long long)g->m, (long long)g->n,
          (long long)g->k, info.note);
}

static void test_split_outputs(void)
{
    enum { MAXM = 4, MAXN = 3, MAXK = 200 };
    static double a[MAXM * MAXK], b[MAXK * MAXN], c0[MAXM * MAXN], c1[MAXM * MAXN];
    static const int64_t mosts[] = {1, 7, 50, 199};
    for (int it = 0; it < 60; it++) {
        int64_t m = 1 + (int64_t)(rng_next() % MAXM), n = 1 + (int64_t)(rng_next() % MAXN);
        int64_t k = 1 + (int64_t)(rng_next() % MAXK);
        int span = it % 3 == 0 ? 2 : 12;
        for (int64_t p = 0; p < m * k; p++)
            a[p] = draw(span);
        for (int64_t p = 0; p < k * n; p++)
            b[p] = draw(span);
        bool slices = it % 2;
        double params[MPB_ADP_N_PARAMS] = {[MPB_ADP_MAX_BITS] = 200, [MPB_ADP_FALLBACK] = MPB_ADP_FALLBACK_ON,
                                           [MPB_ADP_DECISION] = MPB_ADP_EAGER, [MPB_ADP_BLOCK] = 1 + it % 64,
                                           [MPB_ADP_ENGINE] = slices ? MPB_ADP_ENGINE_SLICES : MPB_ADP_ENGINE_CRT};
        struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = MPB_TARGET_FP64, .a = a, .b = b};
        run_case(params, &g, c0, ADP_MAX_TERMS);
        for (size_t q = 0; q < sizeof mosts / sizeof mosts[0]; q++) {
            run_case(params, &g, c1, mosts[q]);
            for (int64_t p = 0; p < m * n; p++) {
                bool same = slices ? fabs(c1[p] - c0[p]) <= 0x1p-52 * fabs(c0[p]) : memcmp(&c1[p], &c0[p], 8) == 0;
                CHECK(same, "%s %lldx%lldx%lld, at most %lld terms per INT32 sum: entry %lld is %a, "
                      "unsplit %a", slices ? "slices" : "crt", (long long)m, (long long)n, (long long)k,
                      (long long)mosts[q], (long long)p, c1[p], c0[p]);
            }
        }
    }
}

/* 3 NaN, 2 Inf, 4 subnormals in A and B: native, and the note counts 9. */
static void test_special_count(void)
{
    enum { M = 5, N = 4, K = 6 };
    double a[M * K], b[K * N], c[M * N];
    for (int p = 0; p < M * K; p++)
        a[p] = draw(3);
    for (int p = 0; p < K * N; p++)
        b[p] = draw(3);
    a[0] = a[7] = b[3] = NAN;
    a[11] = -INFINITY;
    b[20] = INFINITY;
    a[2] = b[0] = 0x1p-1060;
    a[29] = b[23] = -0x1p-1030;
    double params[MPB_ADP_N_PARAMS] = {[MPB_ADP_MAX_BITS] = 200, [MPB_ADP_FALLBACK] = MPB_ADP_FALLBACK_ON,
                                       [MPB_ADP_DECISION] = MPB_ADP_EAGER, [MPB_ADP_BLOCK] = 64,
                                       [MPB_ADP_ENGINE] = MPB_ADP_ENGINE_CRT};
    struct mpb_gemm g = {.m = M, .n = N, .k = K, .target = MPB_TARGET_FP64, .a = a, .b = b, .c = c};
    struct mpb_scheme_info info;
    CHECK(mpb_adp_host(&g, params, &info) == MPB_STATUS_OK, "host model failed: %s", info.note);
    CHECK(info.fallback == 1 && strstr(info.note, "(9 of the 54 entries of A and B)"),
          "fallback %d, note \"%s\"", info.fallback, info.note);
}

int main(void)
{
    test_plan();
    test_split_outputs();
    test_special_count();
    return check_report("test_adp_split");
}
