#include "case/accuracy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ref_dd.h"
#include "ref_dd_complex.h"

bool mpb_accuracy_measure(const struct mpb_case *c, const struct mpb_result *res, int64_t samples,
                          struct mpb_accuracy *acc, char *why, size_t why_len)
{
    struct mpb_gen_config cfg;
    mpb_gen_config_init(&cfg, c->gen, c->gp, c->scheme->target, c->m, c->n, c->k, c->seed);
    acc->values = NULL;
    acc->n = mpb_ref_select(&cfg, MPB_REF_FULL_LIMIT, samples, &acc->entries);
    if (acc->n > 0) /* a value per part (reference.h) */
        acc->values = malloc(sizeof *acc->values * (size_t)acc->n * (size_t)mpb_field_parts(c->scheme->field));
    if (!acc->values) {
        snprintf(why, why_len, "reference: out of host memory for %lld entries", (long long)acc->n);
        mpb_accuracy_free(acc);
        return false;
    }
    struct mpb_gemm g = mpb_case_gemm(c);
    g.a = res->a;
    g.b = res->b;
    g.c = res->c;
    if (!mpb_ref_mpfr(&g, acc->entries, acc->n, 0, acc->values)) {
        snprintf(why, why_len, "reference: MPFR evaluation failed (out of memory?)");
        mpb_accuracy_free(acc);
        return false;
    }
    mpb_metrics_compute(&g, acc->entries, acc->values, acc->n, &acc->metrics);
    return true;
}

/* The dd reference on the GPU: A and B uploaded again (the runner kept host
 * copies only), the three outputs downloaded into `out`. */
static bool dd_on_gpu(struct mpb_cuda_env *env, const struct mpb_gemm *host, const struct mpb_ref_dd_out *out,
                      char *why, size_t why_len)
{
    size_t es = mpb_target_size(host->target);
    size_t a_bytes = (size_t)(host->m * host->k) * es, b_bytes = (size_t)(host->k * host->n) * es;
    size_t c_bytes = (size_t)(host->m * host->n) * sizeof(double);
    void *a = NULL, *b = NULL;
    struct mpb_ref_dd_out dev = {NULL, NULL, NULL};
    struct mpb_gemm g = *host;
    bool ok = mpb_cuda_alloc(env, &a, a_bytes) == MPB_STATUS_OK && mpb_cuda_alloc(env, &b, b_bytes) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, (void **)&dev.hi, c_bytes) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, (void **)&dev.lo, c_bytes) == MPB_STATUS_OK &&
              mpb_cuda_alloc(env, (void **)&dev.absab, c_bytes) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, a, host->a, a_bytes) == MPB_STATUS_OK &&
              mpb_cuda_upload(env, b, host->b, b_bytes) == MPB_STATUS_OK;
    g.a = a;
    g.b = b;
    ok = ok && mpb_ref_dd_cuda(env, &g, &dev) == MPB_STATUS_OK &&
         mpb_cuda_download(env, out->hi, dev.hi, c_bytes) == MPB_STATUS_OK &&
         mpb_cuda_download(env, out->lo, dev.lo, c_bytes) == MPB_STATUS_OK &&
         mpb_cuda_download(env, out->absab, dev.absab, c_bytes) == MPB_STATUS_OK;
    if (!ok)
        snprintf(why, why_len, "reference: dd on the GPU: %s", mpb_cuda_last_error(env));
    mpb_cuda_free(env, a);
    mpb_cuda_free(env, b);
    mpb_cuda_free(env, dev.hi);
    mpb_cuda_free(env, dev.lo);
    mpb_cuda_free(env, dev.absab);
    return ok;
}

/* Whether the dd left a part of entry p NaN/±Inf. */
static bool dd_nonfinite(const struct mpb_accuracy *acc, int64_t p, int parts)
{
    for (int r = 0; r < parts; r++)
        if (!acc->values[parts * p + r].finite)
            return true;
    return false;
}

/* Replace the entries the dd left NaN/±Inf (non-finite inputs, or a product
 * or partial sum beyond the double range) by their exact values, every part. */
static bool dd_fix_nonfinite(const struct mpb_gemm *g, struct mpb_accuracy *acc)
{
    const int parts = mpb_field_parts(g->field);
    int64_t count = 0;
    for (int64_t p = 0; p < acc->n; p++)
        count += dd_nonfinite(acc, p, parts);
    if (count == 0)
        return true;
    struct mpb_ref_entry *e = malloc(sizeof *e * (size_t)count);
    struct mpb_ref_value *v = malloc(sizeof *v * (size_t)(count * parts));
    int64_t *at = malloc(sizeof *at * (size_t)count);
    bool ok = e && v && at;
    for (int64_t p = 0, q = 0; ok && p < acc->n; p++)
        if (dd_nonfinite(acc, p, parts)) {
            e[q] = acc->entries[p];
            at[q++] = p;
        }
    ok = ok && mpb_ref_mpfr(g, e, count, 0, v);
    for (int64_t q = 0; ok && q < count; q++)
        for (int r = 0; r < parts; r++)
            acc->values[parts * at[q] + r] = v[parts * q + r];
    free(e);
    free(v);
    free(at);
    return ok;
}

/* ref_check: the worst disagreement of the dd values with the exact ones on
 * the entries --ref mpfr would check, over every part. */
static bool dd_check(const struct mpb_gemm *g, const struct mpb_gen_config *cfg, int64_t samples,
                     struct mpb_accuracy *acc)
{
    const int parts = mpb_field_parts(g->field);
    struct mpb_ref_entry *e;
    int64_t count = mpb_ref_select(cfg, MPB_REF_FULL_LIMIT, samples, &e);
    struct mpb_ref_value *v = count > 0 ? malloc(sizeof *v * (size_t)(count * parts)) : NULL;
    bool ok = count == 0 || (v && mpb_ref_mpfr(g, e, count, 0, v));
    acc->metrics.ref_check = 0;
    for (int64_t q = 0; ok && q < count; q++)
        for (int r = 0; r < parts; r++) {
            const struct mpb_ref_value *dd = &acc->values[parts * (e[q].i + e[q].j * g->m) + r];
            double d = mpb_ref_dd_disagreement(dd, &v[parts * q + r], g->target);
            if (!(d <= acc->metrics.ref_check)) {
                acc->metrics.ref_check = d;
                acc->ref_check_at = e[q];
            }
        }
    free(e);
    free(v);
    return ok;
}

/* The dd values of every entry into acc->values, one per part (a complex
 * product as its two real ones, ref_dd_complex.h), on the GPU with env. */
static bool dd_values(const struct mpb_gemm *g, struct mpb_cuda_env *env, struct mpb_accuracy *acc, char *why,
                      size_t why_len)
{
    const int parts = mpb_field_parts(g->field);
    const int64_t mn = g->m * g->n;
    struct mpb_ref_dd_out out = {malloc(sizeof(double) * (size_t)mn), malloc(sizeof(double) * (size_t)mn),
                                 malloc(sizeof(double) * (size_t)mn)};
    void *part_a[2] = {NULL, NULL}, *part_b = NULL;
    struct mpb_gemm real = *g;
    bool ok = out.hi && out.lo && out.absab;
    if (ok && parts == 2)
        ok = mpb_ref_dd_complex_parts(g, part_a, &part_b, &real);
    if (!ok)
        snprintf(why, why_len, "reference: out of host memory for %lld dd entries", (long long)mn);
    for (int r = 0; ok && r < parts; r++) {
        if (parts == 2) {
            real.a = part_a[r];
            real.b = part_b;
        }
        if (env)
            ok = dd_on_gpu(env, &real, &out, why, why_len);
        else if (!(ok = mpb_ref_dd_host(&real, 0, &out)))
            snprintf(why, why_len, "reference: dd on the host: out of memory");
        for (int64_t p = 0; ok && p < mn; p++)
            acc->values[parts * p + r] = mpb_ref_dd_value(&out, p, g->target);
    }
    free(part_a[0]);
    free(part_a[1]);
    free(part_b);
    free(out.hi);
    free(out.lo);
    free(out.absab);
    return ok;
}

bool mpb_accuracy_measure_dd(const struct mpb_case *c, const struct mpb_result *res, int64_t samples,
                             struct mpb_cuda_env *env, struct mpb_accuracy *acc, char *why,
                             size_t why_len)
{
    struct mpb_gen_config cfg;
    mpb_gen_config_init(&cfg, c->gen, c->gp, c->scheme->target, c->m, c->n, c->k, c->seed);
    struct mpb_gemm g = mpb_case_gemm(c);
    g.a = res->a;
    g.b = res->b;
    g.c = res->c;
    int64_t mn = c->m * c->n;
    acc->values = NULL;
    /* No sample limit: every entry, column-major (p = i + j·m). */
    acc->n = mpb_ref_select(&cfg, INT64_MAX, 0, &acc->entries);
    if (acc->n == mn)
        acc->values = malloc(sizeof *acc->values * (size_t)(mn * mpb_field_parts(g.field)));
    bool ok = acc->values != NULL;
    if (!ok)
        snprintf(why, why_len, "reference: out of host memory for %lld dd entries", (long long)mn);
    ok = ok && dd_values(&g, env, acc, why, why_len);
    if (ok && !dd_fix_nonfinite(&g, acc)) {
        snprintf(why, why_len, "reference: MPFR for the entries dd left non-finite failed (out of memory?)");
        ok = false;
    }
    if (ok)
        mpb_metrics_compute(&g, acc->entries, acc->values, acc->n, &acc->metrics);
    if (ok && !dd_check(&g, &cfg, samples, acc)) {
        snprintf(why, why_len, "reference: MPFR check of the dd reference failed (out of memory?)");
        ok = false;
    }
    if (!ok)
        mpb_accuracy_free(acc);
    return ok;
}

void mpb_accuracy_free(struct mpb_accuracy *acc)
{
    free(acc->entries);
    free(acc->values);
    acc->entries = NULL;
    acc->values = NULL;
    acc->n = 0;
}
