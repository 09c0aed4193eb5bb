/* Speed of the exact reference: exact products per second on one core at
 * k = 4096 and 16384 (randn fp64 and fp32, and Test 2's 2^±b spread), and
 * the wall time of the case mpbench meets at scale: 4096 sampled entries of
 * an N×16384·16384×N fp64 product (default N = 16384, argv[1] changes it;
 * A and B take 2·N·16384·8 bytes) on every online core. That one is filled
 * with a plain xorshift uniform(−1,1): the host fill of the generators
 * would take minutes, and the reference's cost does not depend on it. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "generators.h"
#include "reference.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A uniform(−1,1) fill (Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8(14), 2003). */
static void bench_fill_fast(double *x, int64_t count, uint64_t state)
{
    for (int64_t p = 0; p < count; p++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        x[p] = (double)(state >> 11) * 0x1p-52 - 1;
    }
}

struct bench_case {
    struct mpb_gen_config cfg;
    void *a, *b;
};

static bool bench_make(struct bench_case *c, const char *gen, enum mpb_target t, int64_t m,
                       int64_t n, int64_t k, bool gen_fill)
{
    const struct mpb_generator *g = mpb_generator_find(gen);
    double p[MPB_MAX_PARAMS];
    char why[200];
    mpb_param_defaults(g->params, g->n_params, p);
    if (g->resolve != NULL && !g->resolve(p, t, m, n, k, why, sizeof why)) {
        fprintf(stderr, "bench_ref_mpfr: %s: %s\n", gen, why);
        return false;
    }
    mpb_gen_config_init(&c->cfg, g, p, t, m, n, k, 1);
    c->a = malloc((size_t)(m * k) * mpb_target_size(t));
    c->b = malloc((size_t)(k * n) * mpb_target_size(t));
    if (c->a == NULL || c->b == NULL) {
        fprintf(stderr, "bench_ref_mpfr: out of memory for %lldx%lldx%lld\n", (long long)m,
                (long long)n, (long long)k);
        free(c->a);
        free(c->b);
        return false;
    }
    if (gen_fill) {
        mpb_gen_fill_host(&c->cfg, MPB_OPERAND_A, c->a);
        mpb_gen_fill_host(&c->cfg, MPB_OPERAND_B, c->b);
    } else {
        bench_fill_fast(c->a, m * k, 1);
        bench_fill_fast(c->b, k * n, 2);
    }
    return true;
}

/* Seconds for the entries chosen by mpb_ref_select with `samples`. */
static double bench_time(const struct bench_case *c, int64_t samples, int threads, int64_t *count)
{
    struct mpb_ref_entry *e;
    *count = mpb_ref_select(&c->cfg, 0, samples, &e);
    struct mpb_ref_value *v = malloc((size_t)*count * sizeof *v);
    struct mpb_gemm g = {c->cfg.m, c->cfg.n, c->cfg.k, c->cfg.target, c->a, c->b, NULL, MPB_FIELD_REAL};
    double t0 = now();
    bool ok = v != NULL && mpb_ref_mpfr(&g, e, *count, threads, v);
    double dt = now() - t0;
    free(e);
    free(v);
    return ok ? dt : -1;
}

static bool bench_per_core(const char *gen, enum mpb_target t, int64_t k)
{
    struct bench_case c;
    if (!bench_make(&c, gen, t, 64, 64, k, true))
        return false;
    int64_t count;
    double dt = bench_time(&c, (INT64_C(1) << 24) / k, 1, &count);
    free(c.a);
    free(c.b);
    if (dt < 0)
        return false;
    printf("%-7s %s k=%-6lld 1 thread: %6.1f M exact products/s (%lld entries, %.2f s)\n", gen,
           t == MPB_TARGET_FP64 ? "fp64" : "fp32", (long long)k, (double)count * (double)k / dt / 1e6,
           (long long)count, dt);
    return true;
}

int main(int argc, char **argv)
{
    int64_t big = argc > 1 ? atoll(argv[1]) : 16384;
    static const int64_t ks[2] = {4096, 16384};
    bool ok = true;
    for (int q = 0; q < 2; q++) {
        ok = ok && bench_per_core("randn", MPB_TARGET_FP64, ks[q]);
        ok = ok && bench_per_core("randn", MPB_TARGET_FP32, ks[q]);
        ok = ok && bench_per_core("test2", MPB_TARGET_FP64, ks[q]);
    }
    struct bench_case c;
    if (!ok || !bench_make(&c, "uniform", MPB_TARGET_FP64, big, big, 16384, false))
        return 1;
    int64_t count;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double dt = bench_time(&c, 4096, 0, &count);
    free(c.a);
    free(c.b);
    if (dt < 0)
        return 1;
    printf("uniform fp64 %lldx16384x%lld, %lld sampled entries, %ld threads: %.2f s "
           "(%.1f M products/s)\n",
           (long long)big, (long long)big, (long long)count, cores, dt,
           (double)count * 16384 / dt / 1e6);
    return 0;
}
