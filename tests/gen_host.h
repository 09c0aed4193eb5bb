/* A and B of generator `name` on the host, for a test: its defaults with
 * the first parameter set to `param` (NaN: keep the default), resolved for
 * the shape (a failure is a CHECK failure); real operands, or complex ones
 * (two parts per element) with gen_host_fill_field. */
#ifndef MPB_TEST_GEN_HOST_H
#define MPB_TEST_GEN_HOST_H

#include <math.h>

#include "check.h"
#include "generators.h"

static inline void gen_host_fill_field(const char *name, double param, enum mpb_target t, enum mpb_field f,
                                        int64_t m, int64_t n, int64_t k, uint64_t seed, void *a, void *b)
{
    const struct mpb_generator *g = mpb_generator_find(name);
    double gp[MPB_MAX_PARAMS];
    char why[256] = "";
    mpb_param_defaults(g->params, g->n_params, gp);
    if (g->n_params && !isnan(param))
        gp[0] = param;
    CHECK(!g->resolve || g->resolve(gp, t, m, n, k, why, sizeof why), "%s: %s", name, why);
    struct mpb_gen_config cfg;
    mpb_gen_config_init_field(&cfg, g, gp, t, f, m, n, k, seed);
    mpb_gen_fill_host(&cfg, MPB_OPERAND_A, a);
    mpb_gen_fill_host(&cfg, MPB_OPERAND_B, b);
}

static inline void gen_host_fill(const char *name, double param, enum mpb_target t, int64_t m, int64_t n,
                                 int64_t k, uint64_t seed, void *a, void *b)
{
    gen_host_fill_field(name, param, t, MPB_FIELD_REAL, m, n, k, seed, a, b);
}

#endif
