/* A host BLAS call computed by a scheme's host model (emulate.h). */
#include "hook/emulate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schemes/registry.h"

bool mpb_hook_emulation_parse(const char *spec, struct mpb_hook_emulation *e, char *why, size_t why_len)
{
    char buf[512];
    if (strlen(spec) >= sizeof buf) {
        snprintf(why, why_len, "emulate=%.40s...: longer than %zu characters", spec, sizeof buf - 1);
        return false;
    }
    strcpy(buf, spec);
    char *rest = buf, *name = strsep(&rest, ",");
    if (!(e->scheme = mpb_scheme_find(name))) {
        snprintf(why, why_len, "emulate=%s: no scheme '%s' (mpbench list schemes)", spec, name);
        return false;
    }
    const struct mpb_scheme *s = e->scheme;
    mpb_param_defaults(s->params, s->n_params, e->params);
    for (char *kv; (kv = strsep(&rest, ",")) != NULL;) {
        char *eq = strchr(kv, '=');
        int p = eq ? (*eq = '\0', mpb_param_find(s->params, s->n_params, kv)) : -1;
        char what[256];
        if (p < 0) {
            snprintf(why, why_len, "emulate=%s: '%s' is no KEY=VALUE of scheme %s", spec, kv, s->name);
            return false;
        }
        if (!mpb_param_parse(&s->params[p], eq + 1, &e->params[p], what, sizeof what)) {
            snprintf(why, why_len, "emulate=%s: %s=%s: %s", spec, kv, eq + 1, what);
            return false;
        }
    }
    return true;
}

bool mpb_hook_emulate(const struct mpb_hook_emulation *e, const struct mpb_hook_call *call, const void *a,
                      const void *b, void *p, char *why, size_t why_len)
{
    const struct mpb_scheme *s = e->scheme;
    const char *type = call->target == MPB_TARGET_FP64 ? "fp64" : "fp32";
    if (s->target != call->target || s->field != MPB_FIELD_REAL) {
        snprintf(why, why_len, "%s computes %s %s products, not this call's real %s", s->name,
                 s->field == MPB_FIELD_REAL ? "real" : "complex", s->target == MPB_TARGET_FP64 ? "fp64" : "fp32",
                 type);
        return false;
    }
    if (!s->run_host) {
        snprintf(why, why_len, "%s has no host model", s->name);
        return false;
    }
    struct mpb_gemm g = {call->m, call->n, call->k, call->target, a, b, p, MPB_FIELD_REAL};
    char what[256] = "";
    if (s->check && !s->check(e->params, &g, NULL, what, sizeof what)) {
        snprintf(why, why_len, "%s does not take %lldx%lldx%lld: %s", s->name, (long long)call->m,
                 (long long)call->n, (long long)call->k, what);
        return false;
    }
    struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
    enum mpb_status st = s->run_host(&g, e->params, &info);
    if (st != MPB_STATUS_OK) {
        snprintf(why, why_len, "%s's host model failed on %lldx%lldx%lld (%s)%s%s", s->name, (long long)call->m,
                 (long long)call->n, (long long)call->k, mpb_status_name(st), info.note[0] ? ": " : "", info.note);
        return false;
    }
    return true;
}

/* C's entry (i, j) in the call's layout. */
static size_t c_at(const struct mpb_hook_call *c, int64_t i, int64_t j)
{
    return c->row_major ? (size_t)(i * c->ldc + j) : (size_t)(i + j * c->ldc);
}

void mpb_hook_store(const struct mpb_hook_call *call, const void *p)
{
    for (int64_t j = 0; j < call->n; j++)
        for (int64_t i = 0; i < call->m; i++) {
            size_t at = c_at(call, i, j), from = (size_t)(i + j * call->m);
            if (call->target == MPB_TARGET_FP64) {
                double *c = call->c, v = call->alpha * ((const double *)p)[from];
                c[at] = call->beta == 0 ? v : v + call->beta * c[at];
            } else {
                float *c = call->c, alpha = (float)call->alpha, beta = (float)call->beta;
                float v = alpha * ((const float *)p)[from];
                c[at] = beta == 0 ? v : v + beta * c[at];
            }
        }
}

double mpb_hook_rel_err(const struct mpb_hook_call *call, const void *p, const void *q)
{
    double diff = 0, norm = 0;
    for (int64_t i = 0; i < call->m * call->n; i++) {
        double x = call->target == MPB_TARGET_FP64 ? ((const double *)p)[i] : ((const float *)p)[i];
        double y = call->target == MPB_TARGET_FP64 ? ((const double *)q)[i] : ((const float *)q)[i];
        diff += (x - y) * (x - y);
        norm += y * y;
    }
    return norm > 0 ? sqrt(diff / norm) : sqrt(diff);
}
