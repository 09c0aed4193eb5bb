/* What adp decision=auto decides before any kernel runs
 * (mpb_adp_shape_decision, kernels/adp/adp_params.c), at its defaults:
 *  - native by the time model up to 4096 (no scan or ESC), the data decide
 *    at 8192 and 16384, native by the working set from 20480 (the emulated
 *    path would need more than ADP_AUTO_WORKSPACE_BYTES);
 *  - eager is never decided by shape;
 *  - the working set counted for the runner follows the decision: cuBLAS's
 *    workspace alone where auto runs DGEMM by shape, the emulated path's
 *    otherwise;
 *  - the row of a memory decision says why and that the ESC was skipped. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "adp/adp.h"

static struct mpb_gemm square(int64_t n)
{
    return (struct mpb_gemm){.m = n, .n = n, .k = n};
}

static void test_decisions(void)
{
    double autop[MPB_MAX_PARAMS], eager[MPB_MAX_PARAMS];
    mpb_param_defaults(mpb_adp_params, MPB_ADP_N_PARAMS, autop);
    CHECK(autop[MPB_ADP_DECISION] == MPB_ADP_AUTO, "adp's default decision is not auto");
    memcpy(eager, autop, sizeof eager);
    eager[MPB_ADP_DECISION] = MPB_ADP_EAGER;
    static const struct {
        int64_t n;
        int reason;
    } expect[] = {{1024, ADP_NATIVE_SHAPE},  {4096, ADP_NATIVE_SHAPE},  {8192, ADP_EMULATED},
                  {16384, ADP_EMULATED},     {20480, ADP_NATIVE_MEMORY}, {32768, ADP_NATIVE_MEMORY}};
    const size_t cublas_only = mpb_adp_workspace(autop, &(struct mpb_gemm){.m = 16, .n = 16, .k = 16}, true);
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        struct mpb_gemm g = square(expect[i].n);
        int got = mpb_adp_shape_decision(autop, &g);
        CHECK(got == expect[i].reason, "n=%lld: auto decides %d before the data, expected %d",
              (long long)g.m, got, expect[i].reason);
        CHECK(mpb_adp_shape_decision(eager, &g) == ADP_EMULATED, "n=%lld: eager decided by shape",
              (long long)g.m);
        size_t a = mpb_adp_workspace(autop, &g, true), e = mpb_adp_workspace(eager, &g, true);
        if (got == ADP_EMULATED)
            CHECK(a == e && a <= ADP_AUTO_WORKSPACE_BYTES, "n=%lld: auto counts %zu bytes, eager %zu",
                  (long long)g.m, a, e);
        else
            CHECK(a == cublas_only && e > a, "n=%lld: auto (native by shape) counts %zu bytes",
                  (long long)g.m, a);
        if (got == ADP_NATIVE_MEMORY)
            CHECK(e > ADP_AUTO_WORKSPACE_BYTES, "n=%lld: memory decision with eager needing %zu",
                  (long long)g.m, e);
    }
}

static void test_memory_row(void)
{
    double autop[MPB_MAX_PARAMS];
    mpb_param_defaults(mpb_adp_params, MPB_ADP_N_PARAMS, autop);
    struct mpb_gemm g = square(32768);
    struct adp_config c = mpb_adp_config(autop, &g);
    struct adp_decision d = {0, 0, 0, 0, 1, ADP_NATIVE_MEMORY, 0};
    struct mpb_scheme_info info = {0};
    mpb_adp_describe(&c, &d, &info);
    CHECK(strstr(info.settings, "esc=skipped") != NULL, "settings: %s", info.settings);
    CHECK(strstr(info.note, "60 GiB") != NULL, "note: %s", info.note);
    CHECK(info.fallback == 1, "fallback %d", info.fallback);
}

int main(void)
{
    test_decisions();
    test_memory_row();
    return check_report("test_adp_auto");
}
