/* What adp decides short of the whole data. Before any kernel runs
 * (decision=auto, mpb_adp_shape_decision, kernels/adp/adp_params.c), at its
 * defaults:
 *  - native by the time model up to 4096 (no scan or ESC), the data decide
 *    at 8192 and 16384, native by the working set from 20480 (the emulated
 *    path would need more than ADP_AUTO_WORKSPACE_BYTES);
 *  - eager is never decided by shape;
 *  - the working set counted for the runner follows the decision: cuBLAS's
 *    workspace alone where auto runs DGEMM by shape, the emulated path's
 *    otherwise;
 *  - the row of a memory decision says why and that the ESC was skipped.
 * On the ESC of the first ADP_ESC_SAMPLE_ROWS rows (host model, eager):
 *  - a native decision there stands (53 + ESC past max_bits in a sampled
 *    row): the row says esc>= and why; the same rows past the sample get
 *    the whole ESC; narrow data emulate with the whole ESC;
 *  - what makes that sound: every native reason of adp_decide holds at any
 *    larger ESC (auto's predicted time grows with the bits). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
    struct adp_decision d = {0, 0, 0, 0, 1, ADP_NATIVE_MEMORY, 0, 0};
    struct mpb_scheme_info info = {0};
    mpb_adp_describe(&c, &d, &info);
    CHECK(strstr(info.settings, "esc=skipped") != NULL, "settings: %s", info.settings);
    CHECK(strstr(info.note, "60 GiB") != NULL, "note: %s", info.note);
    CHECK(info.fallback == 1, "fallback %d", info.fallback);
}

/* A: m×k ones but a[wide_row, 0] = 2^150 (none when wide_row < 0); B: k×n
 * ones but b[1, j] = 2^150. Rows without the big entry have ESC 1; the
 * wide row 151: 204 bits, past max_bits = 200. */
static void run_wide(int64_t wide_row, const double *params, struct mpb_scheme_info *info)
{
    const int64_t m = 300, n = 5, k = 70;
    double *a = malloc(sizeof *a * (size_t)(m * k)), *b = malloc(sizeof *b * (size_t)(k * n));
    double *c = malloc(sizeof *c * (size_t)(m * n));
    for (int64_t t = 0; t < m * k; t++)
        a[t] = 1.0 + (double)(t % 7) * 0x1p-3;
    for (int64_t t = 0; t < k * n; t++)
        b[t] = t % k == 1 ? 0x1p150 : 1.0 - (double)(t % 5) * 0x1p-4;
    if (wide_row >= 0)
        a[wide_row] = 0x1p150;
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = MPB_TARGET_FP64, .a = a, .b = b, .c = c};
    *info = (struct mpb_scheme_info){.slices = -1, .fallback = -1};
    CHECK(mpb_adp_host(&g, params, info) == MPB_STATUS_OK, "wide row %lld: host model", (long long)wide_row);
    free(a), free(b), free(c);
}

static void test_sampled_esc(void)
{
    double eager[MPB_MAX_PARAMS];
    mpb_param_defaults(mpb_adp_params, MPB_ADP_N_PARAMS, eager);
    eager[MPB_ADP_DECISION] = MPB_ADP_EAGER;
    struct mpb_scheme_info info;
    run_wide(5, eager, &info);
    CHECK(info.fallback == 1 && strstr(info.settings, "esc>=151 ") && strstr(info.note, "first 128 rows"),
          "wide sampled row: %s | %s", info.settings, info.note);
    run_wide(200, eager, &info);
    CHECK(info.fallback == 1 && strstr(info.settings, "esc=151 ") && !strstr(info.note, "first 128 rows"),
          "wide row past the sample: %s | %s", info.settings, info.note);
    run_wide(-1, eager, &info);
    CHECK(info.fallback == 0 && strstr(info.settings, "esc=1 ") && !strstr(info.note, "first 128 rows"),
          "narrow: %s | %s", info.settings, info.note);
}

/* Once adp_decide is native at some ESC, it is at every larger one. */
static void test_native_monotone(void)
{
    static const int64_t sizes[] = {64, 4096, 8192, 16384, 32768};
    for (int fixed = 0; fixed <= 90; fixed += 90)
        for (int crt = 0; crt <= 1; crt++)
            for (int mode = 0; mode <= 1; mode++)
                for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                    struct adp_config c = {.max_bits = 200, .fixed_bits = fixed, .fallback = 1,
                                           .auto_mode = mode, .block = 64, .crt = crt,
                                           .m = sizes[i], .n = sizes[i], .k = sizes[i]};
                    int first_native = -1;
                    for (int esc = 0; esc <= 300; esc++) {
                        int native = adp_decide(&c, 0, esc).native;
                        if (native && first_native < 0)
                            first_native = esc;
                        CHECK(native || first_native < 0, "n=%lld crt %d auto %d fixed %d: native at "
                              "ESC %d, emulated at %d", (long long)sizes[i], crt, mode, fixed,
                              first_native, esc);
                    }
                }
}

int main(void)
{
    test_decisions();
    test_memory_row();
    test_sampled_esc();
    test_native_monotone();
    return check_report("test_adp_auto");
}
