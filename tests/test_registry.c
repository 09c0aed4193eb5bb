/* Registry invariants (DESIGN.md "Schemes: one registry, two backends"):
 * unique well-formed names, every parameter default valid and in range,
 * at least one backend, a bound for every scheme, a host model wherever
 * host/device bitwise equality is promised; the same for generators. */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "generators.h"
#include "schemes/registry.h"

static bool well_formed(const char *name)
{
    if (!name || !islower((unsigned char)name[0]))
        return false;
    for (const char *p = name; *p; p++)
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
            return false;
    return true;
}

static void check_params(const char *owner, const struct mpb_param_spec *specs, int n)
{
    CHECK(n >= 0 && n <= MPB_MAX_PARAMS, "%s: %d parameters", owner, n);
    CHECK(n == 0 || specs != NULL, "%s: parameter count without specs", owner);
    for (int p = 0; p < n; p++) {
        const struct mpb_param_spec *s = &specs[p];
        double v;
        char why[256];
        CHECK(well_formed(s->name), "%s: parameter name '%s'", owner, s->name);
        CHECK(s->help && *s->help, "%s.%s: no help", owner, s->name);
        CHECK(mpb_param_parse(s, s->def, &v, why, sizeof why), "%s.%s: default '%s': %s", owner, s->name,
              s->def, why);
        CHECK(mpb_param_find(specs, n, s->name) == p, "%s: parameter '%s' twice", owner, s->name);
        if (s->kind == MPB_PARAM_CHOICE)
            CHECK(s->choices && s->choices[0], "%s.%s: no choices", owner, s->name);
        else
            CHECK(s->lo <= s->hi, "%s.%s: empty range", owner, s->name);
        /* Formatting then parsing gives the value back (canonical strings). */
        if (!isnan(v)) {
            char text[64];
            double back;
            mpb_param_format(s, v, text, sizeof text);
            CHECK(mpb_param_parse(s, text, &back, why, sizeof why) && back == v, "%s.%s: '%s' does not read back",
                  owner, s->name, text);
        }
    }
}

int main(void)
{
    CHECK(mpb_n_schemes > 0, "empty registry");
    for (int i = 0; i < mpb_n_schemes; i++) {
        const struct mpb_scheme *s = mpb_schemes[i];
        CHECK(well_formed(s->name), "scheme name '%s'", s->name);
        CHECK(mpb_scheme_find(s->name) == s, "%s: name not unique", s->name);
        CHECK(s->family && *s->family && s->help && *s->help, "%s: family/help missing", s->name);
        CHECK(s->version >= 1, "%s: version %d", s->name, s->version);
        CHECK(s->cuda || s->run_host || s->multi, "%s: no backend", s->name);
        CHECK(!s->multi || (!s->cuda && !s->run_host && s->multi->layout && s->check),
              "%s: a scheme over several GPUs has its backends in multi and a check()", s->name);
        CHECK(!s->cuda || (s->cuda->setup && s->cuda->run && s->cuda->teardown), "%s: incomplete CUDA ops",
              s->name);
        CHECK(s->bound != NULL, "%s: no error bound", s->name);
        CHECK(!s->bitwise_host_device || s->run_host, "%s: bitwise promised without a host model", s->name);
        if (s->bound) {
            double params[MPB_MAX_PARAMS];
            mpb_param_defaults(s->params, s->n_params, params);
            double f1 = s->bound(params, 1), f2 = s->bound(params, 1000);
            CHECK(f1 > 0 && f1 < 1 && f2 >= f1, "%s: bound %g at k=1, %g at k=1000", s->name, f1, f2);
        }
        check_params(s->name, s->params, s->n_params);
    }
    CHECK(mpb_n_generators >= 12, "%d generators, the spec lists 12", mpb_n_generators);
    for (int i = 0; i < mpb_n_generators; i++) {
        const struct mpb_generator *g = mpb_generators[i];
        CHECK(well_formed(g->name), "generator name '%s'", g->name);
        CHECK(mpb_generator_find(g->name) == g, "%s: name not unique", g->name);
        CHECK(g->help && *g->help, "%s: no help", g->name);
        check_params(g->name, g->params, g->n_params);
    }
    return check_report("test_registry");
}
