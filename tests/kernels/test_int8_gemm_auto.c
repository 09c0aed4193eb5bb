/* gemm=auto of the INT8 schemes (kernels/common/int8_gemm_auto.h): the
 * default of each; the engine up to m·n·k = 8192³ on sm_90a where the
 * scheme's engine can run the case, cuBLAS's calls above that, on another
 * GPU, without a device and where the engine's own limits refuse (Ozaki-II
 * and adp: k past one INT32 sum; adp: engine=slices); an explicit
 * gemm=calls/engine is kept; check() never refuses auto for the engine's
 * sake; the on-device working set of auto covers the engine's layout where
 * the shape wants it. */
#include <string.h>

#include "check.h"
#include "adp/adp.h"
#include "common/int8_gemm_auto.h"
#include "ozaki1/ozaki1.h"
#include "ozaki2/ozaki2.h"
#include "quantensor/quantensor.h"

static const struct mpb_device_info hopper = {.cc_major = 9, .cc_minor = 0},
                                    ampere = {.cc_major = 8, .cc_minor = 0};

static struct mpb_gemm shape(int64_t m, int64_t n, int64_t k)
{
    return (struct mpb_gemm){.m = m, .n = n, .k = k, .target = MPB_TARGET_FP64};
}

static void test_size_rule(void)
{
    struct mpb_gemm at = shape(8192, 8192, 8192), past = shape(8192, 8192, 8193);
    CHECK(mpb_int8_auto_wants_engine(&at), "8192^3 wants the engine");
    CHECK(!mpb_int8_auto_wants_engine(&past), "8192x8192x8193 does not");
    struct mpb_gemm tall = shape(1 << 20, 64, 64), big = shape(16384, 16384, 16384);
    CHECK(mpb_int8_auto_wants_engine(&tall), "2^20x64x64 (2^32 multiply-adds) wants the engine");
    CHECK(!mpb_int8_auto_wants_engine(&big), "16384^3 does not");
}

/* used(params, g, dev) for one scheme, with its gemm parameter set to v. */
typedef bool engine_used_fn(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev);

static bool oz2_used(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev)
{
    return mpb_oz2_gemm_used(params, g, dev) == MPB_OZ2_GEMM_ENGINE;
}

struct scheme_case {
    const char *name;
    const struct mpb_param_spec *specs;
    int n_params, gemm, calls, engine, autom;
    engine_used_fn *used;
    bool (*check)(const double *, const struct mpb_gemm *, const struct mpb_device_info *, char *, size_t);
};

static void test_scheme(const struct scheme_case *c)
{
    const struct mpb_param_spec *spec = &c->specs[c->gemm];
    CHECK(!strcmp(spec->name, "gemm") && !strcmp(spec->def, "auto"), "%s: gemm's default is %s", c->name, spec->def);
    double params[MPB_MAX_PARAMS], v = -1;
    char why[256] = "";
    CHECK(mpb_param_parse(spec, "auto", &v, why, sizeof why) && v == c->autom, "%s: gemm=auto parses to %g", c->name,
          v);
    mpb_param_defaults(c->specs, c->n_params, params);
    CHECK(params[c->gemm] == c->autom, "%s: default value %g", c->name, params[c->gemm]);
    struct mpb_gemm small = shape(127, 33, 1000), at = shape(8192, 8192, 8192), big = shape(16384, 16384, 16384);
    CHECK(c->used(params, &small, &hopper) && c->used(params, &at, &hopper), "%s: auto on sm_90a up to 8192^3 is not "
          "the engine", c->name);
    CHECK(!c->used(params, &big, &hopper), "%s: auto at 16384^3 is the engine", c->name);
    CHECK(!c->used(params, &small, &ampere) && !c->used(params, &small, NULL), "%s: auto without sm_90a is the engine",
          c->name);
    why[0] = '\0';
    CHECK(c->check(params, &small, &ampere, why, sizeof why), "%s: check refuses auto on sm_80: %s", c->name, why);
    params[c->gemm] = c->calls;
    CHECK(!c->used(params, &small, &hopper), "%s: gemm=calls runs the engine", c->name);
    params[c->gemm] = c->engine;
    CHECK(c->used(params, &big, &hopper), "%s: gemm=engine at 16384^3 is not the engine", c->name);
}

/* The engine's own limits: auto falls back to calls where gemm=engine is refused. */
static void test_engine_limits(void)
{
    double params[MPB_MAX_PARAMS];
    char why[256] = "";
    struct mpb_gemm long_k = shape(16, 16, 131072);
    mpb_param_defaults(mpb_ozaki2_int8_params, MPB_OZ2_N_PARAMS, params);
    CHECK(mpb_oz2_gemm_used(params, &long_k, &hopper) == MPB_OZ2_GEMM_CALLS, "ozaki2 auto at k=131072 is not calls");
    CHECK(mpb_oz2_check(params, &long_k, &hopper, why, sizeof why), "ozaki2 auto at k=131072 refused: %s", why);
    params[MPB_OZ2_GEMM] = MPB_OZ2_GEMM_BATCHED;
    CHECK(mpb_oz2_gemm_used(params, &long_k, &hopper) == MPB_OZ2_GEMM_BATCHED, "ozaki2 gemm=batched not kept");
    mpb_param_defaults(mpb_adp_params, MPB_ADP_N_PARAMS, params);
    CHECK(!mpb_adp_gemm_engine_used(params, &long_k, &hopper), "adp auto at k=131072 is the engine");
    struct mpb_gemm small = shape(64, 64, 64);
    params[MPB_ADP_ENGINE] = MPB_ADP_ENGINE_SLICES;
    CHECK(!mpb_adp_gemm_engine_used(params, &small, &hopper), "adp auto with engine=slices is the engine");
    CHECK(mpb_adp_check(params, &small, &hopper, why, sizeof why), "adp auto engine=slices refused: %s", why);
}

/* On the device, auto's working set is at least the engine's where the
 * shape wants it, and the calls' elsewhere. */
static void test_workspace(void)
{
    double autop[MPB_MAX_PARAMS], one[MPB_MAX_PARAMS];
    struct mpb_gemm g = shape(1001, 333, 515), big = shape(16384, 16384, 16384);
    mpb_param_defaults(mpb_ozaki2_int8_params, MPB_OZ2_N_PARAMS, autop);
    memcpy(one, autop, sizeof one);
    one[MPB_OZ2_GEMM] = MPB_OZ2_GEMM_ENGINE;
    size_t engine = mpb_ozaki2_workspace(one, &g, true);
    one[MPB_OZ2_GEMM] = MPB_OZ2_GEMM_CALLS;
    size_t calls = mpb_ozaki2_workspace(one, &g, true), a = mpb_ozaki2_workspace(autop, &g, true);
    CHECK(a >= engine && a >= calls, "ozaki2 auto %zu, engine %zu, calls %zu", a, engine, calls);
    CHECK(mpb_ozaki2_workspace(autop, &big, true) == mpb_ozaki2_workspace(one, &big, true),
          "ozaki2 auto at 16384^3 is not the calls' working set");
    mpb_param_defaults(mpb_quantensor_params, MPB_QT_N_PARAMS, autop);
    memcpy(one, autop, sizeof one);
    one[MPB_QT_GEMM] = MPB_QT_GEMM_ENGINE;
    engine = mpb_qt_workspace(one, &g, true);
    one[MPB_QT_GEMM] = MPB_QT_GEMM_CALLS;
    calls = mpb_qt_workspace(one, &g, true);
    a = mpb_qt_workspace(autop, &g, true);
    CHECK(a == engine && engine > calls, "quantensor auto %zu, engine %zu, calls %zu", a, engine, calls);
}

static bool oz2_check(const double *p, const struct mpb_gemm *g, const struct mpb_device_info *d, char *w, size_t l)
{
    return mpb_oz2_check(p, g, d, w, l);
}

int main(void)
{
    test_size_rule();
    const struct scheme_case cases[] = {
        {"ozaki2_int8", mpb_ozaki2_int8_params, MPB_OZ2_N_PARAMS, MPB_OZ2_GEMM, MPB_OZ2_GEMM_CALLS, MPB_OZ2_GEMM_ENGINE,
         MPB_OZ2_GEMM_AUTO, oz2_used, oz2_check},
        {"ozaki2_int8_sp", mpb_ozaki2_int8_sp_params, MPB_OZ2_N_PARAMS, MPB_OZ2_GEMM, MPB_OZ2_GEMM_CALLS,
         MPB_OZ2_GEMM_ENGINE, MPB_OZ2_GEMM_AUTO, oz2_used, oz2_check},
        {"adp", mpb_adp_params, MPB_ADP_N_PARAMS, MPB_ADP_GEMM, MPB_ADP_GEMM_CALLS, MPB_ADP_GEMM_ENGINE,
         MPB_ADP_GEMM_AUTO, mpb_adp_gemm_engine_used, mpb_adp_check},
        {"quantensor_int8", mpb_quantensor_params, MPB_QT_N_PARAMS, MPB_QT_GEMM, MPB_QT_GEMM_CALLS, MPB_QT_GEMM_ENGINE,
         MPB_QT_GEMM_AUTO, mpb_qt_gemm_engine_used, mpb_qt_check},
        {"ozaki1_int8", mpb_ozaki1_int8_params, MPB_OZ8_N_PARAMS, MPB_OZ8_GEMM, MPB_OZ8_GEMM_CALLS,
         MPB_OZ8_GEMM_ENGINE, MPB_OZ8_GEMM_AUTO, mpb_ozaki1_int8_engine_used, mpb_ozaki1_int8_check},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        test_scheme(&cases[i]);
    test_engine_limits();
    test_workspace();
    return check_report("test_int8_gemm_auto");
}
