/* `mpbench selftest`: on cuda, every generator's device fill against its
 * host fill (bitwise), and every scheme's GPU output against its host model
 * (bitwise where the descriptor says so, then also on NaN, ±Inf, subnormal
 * and −0 inputs; else within twice the scheme's bound); on host, every host
 * model against the exact MPFR reference within its bound. Small awkward
 * shapes (DESIGN.md "Tests"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "reference.h"
#include "case/runner.h"

static const int64_t shapes[][3] = {
    {1, 1, 1},     {2, 2, 2},     {7, 7, 7},     {31, 31, 31},  {32, 32, 32},  {33, 33, 33},
    {127, 127, 127}, {128, 128, 128}, {129, 129, 129}, {330, 33, 33}, {33, 330, 33}, {33, 33, 330},
};
#define N_SHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static double elem(const void *p, int64_t i, enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

/* |element idx| of a real or complex (interleaved) array: the modulus. */
static long double elem_abs(const struct mpb_gemm *g, const void *p, int64_t idx)
{
    if (g->field != MPB_FIELD_COMPLEX)
        return fabsl((long double)elem(p, idx, g->target));
    return hypotl(elem(p, 2 * idx, g->target), elem(p, 2 * idx + 1, g->target));
}

/* |x_idx − y_idx| (the modulus of the parts' differences); NaN where either is. */
static double elem_diff(const struct mpb_gemm *g, const void *x, const void *y, int64_t idx)
{
    int parts = mpb_field_parts(g->field);
    double d2 = 0;
    for (int q = 0; q < parts; q++) {
        double d = elem(x, idx * parts + q, g->target) - elem(y, idx * parts + q, g->target);
        d2 += d * d;
    }
    return sqrt(d2);
}

/* Do x_idx and y_idx hold the same bits' values (NaN matching NaN) in every part? */
static bool elem_same(const struct mpb_gemm *g, const void *x, const void *y, int64_t idx)
{
    int parts = mpb_field_parts(g->field);
    for (int q = 0; q < parts; q++) {
        double a = elem(x, idx * parts + q, g->target), b = elem(y, idx * parts + q, g->target);
        if (!(a == b || (isnan(a) && isnan(b))))
            return false;
    }
    return true;
}

/* (|A||B|)_ij, |·| the complex modulus for complex operands. */
static long double abs_ab(const struct mpb_gemm *g, const void *a, const void *b, int64_t i, int64_t j)
{
    long double s = 0;
    for (int64_t l = 0; l < g->k; l++)
        s += elem_abs(g, a, i + l * g->m) * elem_abs(g, b, l + j * g->k);
    return s;
}

/* ‖A(i,:)‖₂‖B(:,j)‖₂: what a row/column-wise bound (bound_rowcol) scales. */
static long double rowcol_norms(const struct mpb_gemm *g, const void *a, const void *b, int64_t i, int64_t j)
{
    long double sa = 0, sb = 0;
    for (int64_t l = 0; l < g->k; l++) {
        long double x = elem_abs(g, a, i + l * g->m), y = elem_abs(g, b, l + j * g->k);
        sa += x * x;
        sb += y * y;
    }
    return sqrtl(sa) * sqrtl(sb);
}

/* max over entries of |x−y| / (tol·(|A||B|)_ij) (or tol·‖A(i,:)‖₂‖B(:,j)‖₂
 * when `rowcol`), or +Inf where a difference meets a zero bound or the two
 * disagree on being finite. */
static double worst_ratio(const struct mpb_gemm *g, const void *a, const void *b, const void *x,
                          const void *y, double tol, bool rowcol)
{
    double worst = 0;
    for (int64_t j = 0; j < g->n; j++)
        for (int64_t i = 0; i < g->m; i++) {
            long double absab = rowcol ? rowcol_norms(g, a, b, i, j) : abs_ab(g, a, b, i, j);
            double diff = elem_diff(g, x, y, i + j * g->m);
            if (elem_same(g, x, y, i + j * g->m))
                continue;
            double r = isnan(diff) ? INFINITY : diff / (tol * (double)absab * (1 + 1e-6));
            if (r > worst)
                worst = r;
        }
    return worst;
}

/* max over all entries of |x − C|/(f·(|A||B|)_ij) (or f·‖A(i,:)‖₂‖B(:,j)‖₂
 * when `rowcol`) against the exact C of the MPFR reference (hi + lo), with
 * the same conventions as worst_ratio; complex: the modulus of the parts'
 * errors against the modulus (|A||B|)_ij. */
static double worst_ratio_exact(const struct mpb_gemm *g, const void *a, const void *b, const void *x, double f,
                                bool rowcol)
{
    int64_t n = g->m * g->n;
    int parts = mpb_field_parts(g->field);
    struct mpb_ref_entry *e = malloc(sizeof *e * (size_t)n);
    struct mpb_ref_value *v = malloc(sizeof *v * (size_t)(n * parts));
    struct mpb_gemm in = *g;
    in.a = a;
    in.b = b;
    double worst = INFINITY;
    if (e && v) {
        for (int64_t p = 0; p < n; p++)
            e[p] = (struct mpb_ref_entry){.i = p % g->m, .j = p / g->m};
        if (mpb_ref_mpfr(&in, e, n, 0, v)) {
            worst = 0;
            for (int64_t p = 0; p < n; p++) {
                long double d2 = 0;
                for (int q = 0; q < parts; q++) {
                    const struct mpb_ref_value *w = &v[p * parts + q];
                    long double d = (long double)elem(x, p * parts + q, g->target) - w->hi - w->lo;
                    d2 += d * d;
                }
                long double diff = sqrtl(d2);
                long double scale = rowcol ? rowcol_norms(g, a, b, p % g->m, p / g->m)
                                    : parts == 1 ? v[p].absab : abs_ab(g, a, b, p % g->m, p / g->m);
                double r = diff == 0 ? 0 : isnan((double)diff) ? INFINITY : (double)(diff / (f * scale));
                worst = fmax(worst, r);
            }
        }
    }
    free(e);
    free(v);
    return worst;
}

struct tally {
    int passed, failed, unsupported;
};

static void make_case(struct mpb_case *c, const struct mpb_scheme *s, const char *gen, double gen_param,
                      const int64_t *shape, enum mpb_impl impl)
{
    memset(c, 0, sizeof *c);
    c->scheme = s;
    mpb_param_defaults(s->params, s->n_params, c->sp);
    c->gen = mpb_generator_find(gen);
    mpb_param_defaults(c->gen->params, c->gen->n_params, c->gp);
    if (c->gen->n_params)
        c->gp[0] = gen_param;
    c->m = shape[0];
    c->n = shape[1];
    c->k = shape[2];
    c->seed = 1;
    c->impl = impl;
    c->gen_ok = true;
    snprintf(c->text, sizeof c->text, "-s %s -g %s --m %lld --n %lld --k %lld --seed 1 --backend %s", s->name,
             gen, (long long)c->m, (long long)c->n, (long long)c->k, mpb_impl_name(impl));
}

/* The host model to compare a scheme with: its own, or for a scheme without
 * one (vendor emulation) the native model of its target. */
static const struct mpb_scheme *host_partner(const struct mpb_scheme *s)
{
    if (s->run_host)
        return s;
    return mpb_scheme_native(s->target, s->field);
}

/* The GPU output of a case against the host model (its own, or the native
 * model of its target) on the same inputs. */
static bool gpu_matches_host(const struct mpb_case *c, const struct mpb_result *res, double *worst)
{
    struct mpb_gemm g = mpb_case_gemm(c);
    size_t bytes = (size_t)(c->m * c->n) * mpb_elem_size(g.target, g.field);
    void *expect = malloc(bytes);
    const struct mpb_scheme *partner = host_partner(c->scheme);
    struct mpb_scheme_info info = {.slices = -1, .fallback = -1};
    g.a = res->a;
    g.b = res->b;
    g.c = expect;
    bool ok = expect && partner->run_host(&g, c->sp, &info) == MPB_STATUS_OK;
    if (ok && c->scheme->bitwise_host_device && partner == c->scheme) {
        ok = memcmp(expect, res->c, bytes) == 0;
        *worst = ok ? *worst : INFINITY;
    } else if (ok) {
        double r2 = worst_ratio(&g, res->a, res->b, res->c, expect, 2 * c->scheme->bound(c->sp, c->k),
                               c->scheme->bound_rowcol);
        *worst = fmax(*worst, r2);
        ok = r2 <= 1;
    }
    free(expect);
    return ok;
}

static bool check_case(const struct mpb_runner *r, const struct mpb_case *c, double *worst, char *why,
                       size_t why_len)
{
    struct mpb_result res;
    mpb_run_case(r, c, &res);
    if (res.status != MPB_STATUS_OK) {
        snprintf(why, why_len, "%s: %s", mpb_status_name(res.status), res.note);
        mpb_result_free(&res);
        return res.status == MPB_STATUS_NOT_SUPPORTED;
    }
    bool ok;
    if (r->impl == MPB_IMPL_CUDA) {
        ok = gpu_matches_host(c, &res, worst);
    } else {
        struct mpb_gemm g = mpb_case_gemm(c);
        double r1 = worst_ratio_exact(&g, res.a, res.b, res.c, c->scheme->bound(c->sp, c->k),
                                       c->scheme->bound_rowcol);
        *worst = fmax(*worst, r1);
        ok = r1 <= 1;
    }
    if (!ok)
        snprintf(why, why_len, "outside the bound (worst |diff|/bound %.3g); rerun: mpbench run %s", *worst,
                 c->text);
    mpb_result_free(&res);
    return ok;
}

/* Device fill against host fill, byte for byte, for one generator at one
 * awkward shape in both targets, real and complex (a complex-only
 * generator complex only). */
static bool check_generator(struct mpb_cuda_env *env, const struct mpb_generator *gen, char *why, size_t why_len)
{
    static const int64_t m = 65, n = 33, k = 130;
    double params[MPB_MAX_PARAMS];
    bool ok = true;
    for (int t = 0; ok && t < 4; t++) {
        enum mpb_target target = t % 2 ? MPB_TARGET_FP32 : MPB_TARGET_FP64;
        enum mpb_field field = t / 2 ? MPB_FIELD_COMPLEX : MPB_FIELD_REAL;
        if (gen->complex_only && field == MPB_FIELD_REAL)
            continue;
        mpb_param_defaults(gen->params, gen->n_params, params);
        if (gen->resolve && !gen->resolve(params, target, m, n, k, why, why_len))
            return false;
        struct mpb_gen_config cfg;
        mpb_gen_config_init_field(&cfg, gen, params, target, field, m, n, k, 7);
        for (int op = 0; ok && op < 2; op++) {
            size_t bytes = (size_t)(op ? k * n : m * k) * mpb_elem_size(target, field);
            void *dev = NULL, *from_dev = malloc(bytes), *from_host = malloc(bytes);
            ok = from_dev && from_host && mpb_cuda_alloc(env, &dev, bytes) == MPB_STATUS_OK &&
                 mpb_gen_fill_cuda(env, &cfg, (enum mpb_operand)op, dev) == MPB_STATUS_OK &&
                 mpb_cuda_download(env, from_dev, dev, bytes) == MPB_STATUS_OK;
            if (!ok)
                snprintf(why, why_len, "%s", mpb_cuda_last_error(env));
            else {
                mpb_gen_fill_host(&cfg, (enum mpb_operand)op, from_host);
                ok = memcmp(from_dev, from_host, bytes) == 0;
                if (!ok)
                    snprintf(why, why_len, "%s %s %s fill differs between device and host (65x33x130, seed 7)",
                             mpb_field_name(field), mpb_target_name(target), op ? "B" : "A");
            }
            mpb_cuda_free(env, dev);
            free(from_dev);
            free(from_host);
        }
    }
    return ok;
}

static void check_generators(struct mpb_cuda_env *env, struct tally *t)
{
    int bad = 0, checked = 0;
    char why[512];
    for (int i = 0; i < mpb_n_generators; i++) {
        if (mpb_generators[i]->from_files)
            continue; /* no device fill of its own: the host's is uploaded */
        checked++;
        if (!check_generator(env, mpb_generators[i], why, sizeof why)) {
            printf("  FAIL  generator %-6s %s\n", mpb_generators[i]->name, why);
            bad++;
        }
    }
    if (!bad)
        printf("  ok    generators       %d, device fill = host fill bitwise (fp64 and fp32, real and complex)\n",
               checked);
    t->passed += !bad;
    t->failed += bad;
}

/* A scheme over several GPUs (multi) is checked at its defaults: one GPU,
 * one part; its GPU side may be missing from the build (then n/a). */
static bool has_backend(const struct mpb_scheme *s, enum mpb_impl impl)
{
    if (impl == MPB_IMPL_CUDA)
        return s->cuda != NULL || s->multi != NULL;
    return s->run_host != NULL || (s->multi && s->multi->run_host);
}

static void check_scheme(const struct mpb_runner *r, const struct mpb_scheme *s, struct tally *t)
{
    /* `special` at a rate that leaves about half the rows of A finite at
     * k = 128: only where the GPU must equal the host model bit for bit (a
     * bound relative to |A||B| means nothing at a NaN). */
    static const struct {
        const char *gen;
        double param;
        bool bitwise_only;
    } gens[] = {{"uniform", 0, false}, {"phi", 0.5, false}, {"randn", 0, false}, {"special", 0.01, true}};
    bool bitwise = r->impl == MPB_IMPL_CUDA && s->bitwise_host_device;
    double worst = 0;
    int cases = 0;
    char why[1024] = "";
    bool ok = true, unsupported = false;
    for (size_t gi = 0; ok && !unsupported && gi < sizeof gens / sizeof gens[0]; gi++)
        for (int sh = 0; ok && !unsupported && sh < N_SHAPES && (bitwise || !gens[gi].bitwise_only); sh++) {
            struct mpb_case c;
            make_case(&c, s, gens[gi].gen, gens[gi].param, shapes[sh], r->impl);
            why[0] = '\0';
            ok = check_case(r, &c, &worst, why, sizeof why);
            unsupported = ok && why[0];
            cases++;
        }
    if (unsupported) {
        printf("  n/a   %-16s %s\n", s->name, why);
        t->unsupported++;
    } else if (ok) {
        printf("  ok    %-16s %3d cases, worst |diff|/bound %.3g%s\n", s->name, cases, worst,
               bitwise ? " (bitwise), special values included" : "");
        t->passed++;
    } else {
        printf("  FAIL  %-16s %s\n", s->name, why);
        t->failed++;
    }
}

int mpb_cmd_selftest(int argc, char **argv)
{
    int backend = MPB_BACKEND_AUTO;
    for (int i = 1; i < argc; i++) {
        const char *val;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            puts("usage: mpbench selftest [--backend auto|cuda|host]\n\n"
                 "cuda: every generator's device fill against its host fill (bitwise), and\n"
                 "every scheme on the GPU against its host model (bitwise where the\n"
                 "scheme says so, then also on the special generator's NaN/Inf/subnormal\n"
                 "inputs; else within twice its error bound); host: every host model\n"
                 "against the exact MPFR reference within its bound. Shapes 1..129, 10:1.\n"
                 "Exit 0 all passed, 1 a failure, 77 --backend cuda without a GPU.");
            return MPB_EXIT_OK;
        }
        if ((val = mpb_cli_value("selftest", argc, argv, &i, "--backend"))) {
            if (!*val || !mpb_cli_choice("selftest", "--backend", val, mpb_backend_words, &backend))
                return MPB_EXIT_USAGE;
        } else {
            mpb_cli_error("selftest", "unknown option '%s' (expected --backend auto|cuda|host)", argv[i]);
            return MPB_EXIT_USAGE;
        }
    }
    struct mpb_runner r = {.impl = MPB_IMPL_HOST, .warmup = 0, .reps = 1, .keep_data = true};
    int exit_code = MPB_EXIT_OK;
    if (!mpb_cli_open_backend("selftest", (enum mpb_backend_choice)backend, "checking", &r.env,
                              &exit_code))
        return exit_code;
    if (r.env)
        r.impl = MPB_IMPL_CUDA;
    printf("mpbench selftest, backend %s%s%s\n", mpb_impl_name(r.impl), r.env ? ": " : "",
           r.env ? mpb_cuda_device(r.env)->name : "");
    struct tally t = {0};
    if (r.env)
        check_generators(r.env, &t);
    for (int i = 0; i < mpb_n_schemes; i++)
        if (has_backend(mpb_schemes[i], r.impl))
            check_scheme(&r, mpb_schemes[i], &t);
    printf("%d passed, %d failed, %d not supported here\n", t.passed, t.failed, t.unsupported);
    if (r.env)
        mpb_cuda_close(r.env);
    return t.failed ? MPB_EXIT_INCORRECT : MPB_EXIT_OK;
}
