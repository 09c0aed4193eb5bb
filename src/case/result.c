/* What running a case gives back (case/result.h). */
#include "case/result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "case/hash.h"
#include "mpb_size.h"

void mpb_result_summarise(struct mpb_result *res, const void *c, int64_t count, enum mpb_target t,
                          enum mpb_field f)
{
    int parts = mpb_field_parts(f);
    size_t bytes = mpb_size_matrix(count, 1, mpb_elem_size(t, f));
    res->out_hash = mpb_hash_words(c, bytes);
    res->nonfinite = 0;
    for (int64_t i = 0; i < count; i++) {
        bool finite = true;
        for (int p = 0; p < parts; p++) {
            int64_t at = i * parts + p;
            finite &= isfinite(t == MPB_TARGET_FP64 ? ((const double *)c)[at] : ((const float *)c)[at]);
        }
        res->nonfinite += !finite;
    }
    res->have_output = true;
}

void mpb_result_free(struct mpb_result *res)
{
    free(res->a);
    free(res->b);
    free(res->c);
    res->a = res->b = res->c = NULL;
}

void mpb_result_set_energy(struct mpb_result *res, const struct mpb_energy *e)
{
    bool measured = e->calls > 0 && e->joules > 0 && e->seconds > 0;
    res->power_w = measured ? e->joules / e->seconds : NAN;
    res->joules_per_call = measured ? e->joules / (double)e->calls : NAN;
    snprintf(res->energy_note, sizeof res->energy_note, "%s", e->why);
}

double mpb_result_gflops_per_w(const struct mpb_result *res, double flops)
{
    return flops * 1e-9 / res->joules_per_call;
}

size_t mpb_host_memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    if (f)
        fclose(f);
    if (found)
        return mpb_size_mul((size_t)kib, 1024);
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? mpb_size_mul((size_t)pages, (size_t)page) : SIZE_MAX;
}
