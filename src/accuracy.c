#include "accuracy.h"

#include <stdio.h>
#include <stdlib.h>

bool mpb_accuracy_measure(const struct mpb_case *c, const struct mpb_result *res, int64_t samples,
                          struct mpb_accuracy *acc, char *why, size_t why_len)
{
    struct mpb_gen_config cfg;
    mpb_gen_config_init(&cfg, c->gen, c->gp, c->scheme->target, c->m, c->n, c->k, c->seed);
    acc->values = NULL;
    acc->n = mpb_ref_select(&cfg, MPB_REF_FULL_LIMIT, samples, &acc->entries);
    if (acc->n > 0)
        acc->values = malloc(sizeof *acc->values * (size_t)acc->n);
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

void mpb_accuracy_free(struct mpb_accuracy *acc)
{
    free(acc->entries);
    free(acc->values);
    acc->entries = NULL;
    acc->values = NULL;
    acc->n = 0;
}
