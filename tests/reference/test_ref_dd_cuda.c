/* GPU suite: the dd reference kernel (ref_dd.cu) gives the host's bits
 * (ref_dd_host.c) in hi, lo and absab, on shapes with partial tiles in m,
 * n and k, fp64 and fp32, for randn, Test 2 at b_max (TwoProd underflow),
 * evil (exponent spread) and special (NaN/Inf). Exits 77 without a device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_env.h"
#include "generators.h"
#include "ref_dd.h"

static bool same(double x, double y)
{
    return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
}

static void check_case(struct mpb_cuda_env *env, const char *gen_name, enum mpb_target t, int64_t m,
                       int64_t n, int64_t k)
{
    const struct mpb_generator *gen = mpb_generator_find(gen_name);
    double params[MPB_MAX_PARAMS];
    char why[200] = "";
    mpb_param_defaults(gen->params, gen->n_params, params);
    if (gen->resolve != NULL && !gen->resolve(params, t, m, n, k, why, sizeof why)) {
        printf("%-8s %5lld %5lld %5lld  not made: %s\n", gen_name, (long long)m, (long long)n,
               (long long)k, why);
        return;
    }
    struct mpb_gen_config cfg;
    mpb_gen_config_init(&cfg, gen, params, t, m, n, k, 11);
    size_t es = mpb_target_size(t), cb = sizeof(double) * (size_t)(m * n);
    void *a = malloc((size_t)(m * k) * es), *b = malloc((size_t)(k * n) * es);
    double *host = malloc(3 * cb), *gpu = malloc(3 * cb);
    void *da = NULL, *db = NULL, *dout = NULL;
    mpb_gen_fill_host(&cfg, MPB_OPERAND_A, a);
    mpb_gen_fill_host(&cfg, MPB_OPERAND_B, b);
    struct mpb_ref_dd_out ho = {host, host + m * n, host + 2 * m * n};
    struct mpb_gemm hg = {m, n, k, t, a, b, NULL, MPB_FIELD_REAL};
    bool ok = mpb_ref_dd_host(&hg, 0, &ho);
    CHECK(ok, "%s: host evaluation failed", gen_name);
    ok = ok && mpb_cuda_alloc(env, &da, (size_t)(m * k) * es) == MPB_STATUS_OK &&
         mpb_cuda_alloc(env, &db, (size_t)(k * n) * es) == MPB_STATUS_OK &&
         mpb_cuda_alloc(env, &dout, 3 * cb) == MPB_STATUS_OK &&
         mpb_cuda_upload(env, da, a, (size_t)(m * k) * es) == MPB_STATUS_OK &&
         mpb_cuda_upload(env, db, b, (size_t)(k * n) * es) == MPB_STATUS_OK &&
         mpb_cuda_memset(env, dout, 0xFF, 3 * cb) == MPB_STATUS_OK;
    double *d = dout;
    struct mpb_ref_dd_out go = {d, d + m * n, d + 2 * m * n};
    struct mpb_gemm gg = {m, n, k, t, da, db, NULL, MPB_FIELD_REAL};
    ok = ok && mpb_ref_dd_cuda(env, &gg, &go) == MPB_STATUS_OK &&
         mpb_cuda_download(env, gpu, dout, 3 * cb) == MPB_STATUS_OK;
    CHECK(ok, "%s %lldx%lldx%lld: GPU: %s", gen_name, (long long)m, (long long)n, (long long)k,
          mpb_cuda_last_error(env));
    int64_t differ = 0, first = -1;
    for (int64_t p = 0; ok && p < 3 * m * n; p++)
        if (!same(host[p], gpu[p])) {
            differ++;
            first = first < 0 ? p : first;
        }
    const char *what[3] = {"hi", "lo", "absab"};
    CHECK(differ == 0, "%s %s %lldx%lldx%lld: %lld values differ; first %s of entry %lld: host %a, GPU %a",
          gen_name, t == MPB_TARGET_FP64 ? "fp64" : "fp32", (long long)m, (long long)n, (long long)k,
          (long long)differ, what[first / (m * n)], (long long)(first % (m * n)), host[first], gpu[first]);
    printf("%-8s %s %5lld %5lld %5lld  %s\n", gen_name, t == MPB_TARGET_FP64 ? "fp64" : "fp32",
           (long long)m, (long long)n, (long long)k, ok && differ == 0 ? "bitwise equal" : "DIFFERENT");
    mpb_cuda_free(env, da);
    mpb_cuda_free(env, db);
    mpb_cuda_free(env, dout);
    free(a), free(b), free(host), free(gpu);
}

int main(void)
{
    char why[512];
    struct mpb_cuda_env *env = mpb_cuda_open(0, why, sizeof why);
    if (!env) {
        printf("test_ref_dd_cuda: skipped: %s\n", why);
        return 77;
    }
    static const char *const gens[] = {"randn", "test2", "evil", "special"};
    static const int64_t shapes[][3] = {{1, 1, 1}, {64, 64, 16}, {65, 33, 17}, {130, 70, 300},
                                        {777, 555, 1500}};
    for (int tq = 0; tq < 2; tq++)
        for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                check_case(env, gens[g], tq ? MPB_TARGET_FP32 : MPB_TARGET_FP64, shapes[s][0],
                           shapes[s][1], shapes[s][2]);
    mpb_cuda_close(env);
    return check_report("test_ref_dd_cuda");
}
