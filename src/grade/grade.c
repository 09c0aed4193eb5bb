/* The battery of `mpbench grade` (README "mpbench grade") and what each
 * case tells the verdict. */
#include "grade/grade.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/accuracy.h"
#include "gen_designated.h"

/* What the grader reads from a case beyond its per-case grade. */
enum item_role {
    ROLE_PLAIN,
    ROLE_RANDN,   /* the partner of inner: same seed, same N(0,1) draws */
    ROLE_INNER,   /* metamorphic: a conventional GEMM gives randn's bits */
    ROLE_TEST1,   /* designated zeros must be exactly 0 */
    ROLE_TEST2,   /* relative error against 10·k·u; test2 also sweeps b */
    ROLE_TEST3,   /* leading-block relative error */
    ROLE_SPECIAL, /* NaN/Inf propagation (extended family, not graded) */
};

struct battery_item {
    const char *gen;
    const char *key, *value; /* one parameter set away from its default, or NULL */
    enum item_role role;
    bool complex_only;
};

/* The battery of README "mpbench grade", in order; randn comes before inner
 * so that the pair is compared as soon as inner has run. Test 3 is there
 * for its class (the verdict's `test3`). The special
 * rate is raised from 1e-3 so that small cases hold special values too.
 *
 * The complex battery is the same items plus smallim. Each carries over
 * because of how the generators fill complex operands (gen_element.h):
 * both parts are independent draws, while whatever a generator draws per
 * row, column, inner index or key is shared by the parts.
 *  - test1a, test1b: the zeroed rows, columns and pair supports are zero
 *    in both parts, so the designated entries of C are exactly 0 in both
 *    parts for 4M and 3M alike (every product in them is 0); Test 1 looks
 *    at both parts.
 *  - test2, test2r: A = z·2^j, B = z·2^-j with z = x + iy, x, y in [1, 2):
 *    every product lies within 0.64 rad of the imaginary axis, so
 *    |C_ij| ≥ 0.8·(|A||B|)_ij (moduli) and the relative error of the
 *    modulus stays ≤ 1.25·ρ_A·u: the 10·k·u criterion keeps its meaning
 *    (a single part does not: Re Σ(x² − y²) cancels). The diagonal keeps
 *    its role, products of size 1 from operands spread over 2^±b.
 *  - test3: the scale 2^s(l) and the huge row and column are shared by
 *    the parts, so the block argument holds for the complex entry; its
 *    error is the modulus one (test3_block_error).
 *  - outer, inner: the row/column and inner scales are shared; a 4M or 3M
 *    GEMM scales each real product (3M's Ar + Ai too) exactly, so inner
 *    stays bitwise invariant.
 *  - evil, special: per part, each part its own exponent or injection.
 *  - smallim (complex only): imaginary parts 2^-span of the real ones, where
 *    3M's Im = T3 − T1 − T2 is normwise but not componentwise stable; the
 *    per-part ρ of the verdict sees it. Its span is the generator's largest,
 *    40, not its default 24: 3M's ρ_Im grows like 2^span, and at 24 evil's
 *    independent per-part exponents (±30) outdo it at small k (zgemm3m at
 *    33³: ρ_Im/2k 4.2e6 against 6.1e5; at 40, 6e10), so that the case that
 *    decides a 3M verdict is the one built to show its failure. */
static const struct battery_item battery[] = {
    {"uniform", NULL, NULL, ROLE_PLAIN, false},
    {"randn", NULL, NULL, ROLE_RANDN, false},
    {"phi", "phi", "0.5", ROLE_PLAIN, false},
    {"phi", "phi", "1", ROLE_PLAIN, false},
    {"phi", "phi", "2", ROLE_PLAIN, false},
    {"phi", "phi", "4", ROLE_PLAIN, false},
    {"test1a", NULL, NULL, ROLE_TEST1, false},
    {"test1b", NULL, NULL, ROLE_TEST1, false},
    {"test2", NULL, NULL, ROLE_TEST2, false},
    {"test2r", NULL, NULL, ROLE_TEST2, false},
    {"test3", NULL, NULL, ROLE_TEST3, false},
    {"outer", NULL, NULL, ROLE_PLAIN, false},
    {"inner", NULL, NULL, ROLE_INNER, false},
    {"evil", NULL, NULL, ROLE_PLAIN, false},
    {"smallim", "span", "40", ROLE_PLAIN, true},
    {"special", "rate", "0.01", ROLE_SPECIAL, false},
};
#define BATTERY_SIZE (int)(sizeof battery / sizeof battery[0])

struct grade_run {
    const struct mpb_grade_config *cfg;
    const struct mpb_grade_options *opt;
    struct mpb_verdict *v;
    double u;
    uint64_t randn_hash; /* of this shape and seed */
    bool randn_ok;
};

/* Generator parameters: defaults, then the item's one override. */
static bool item_params(const struct battery_item *it, const struct mpb_generator *gen, double *gp,
                        char *why, size_t why_len)
{
    mpb_param_defaults(gen->params, gen->n_params, gp);
    if (!it->key)
        return true;
    int p = mpb_param_find(gen->params, gen->n_params, it->key);
    return p >= 0 && mpb_param_parse(&gen->params[p], it->value, &gp[p], why, why_len);
}

/* One case through plan.c, so that it gets the canonical string and id of
 * `mpbench run` (gen params resolved, e.g. b = b_max). */
static bool make_case(const struct grade_run *gr, const struct mpb_generator *gen, double *gp,
                      const struct mpb_grade_shape *shape, uint64_t seed, struct mpb_case *out,
                      char *why, size_t why_len)
{
    struct mpb_selection ss = {.scheme = gr->cfg->scheme, .specs = gr->cfg->scheme->params,
                               .n_specs = gr->cfg->scheme->n_params};
    struct mpb_selection gs = {.gen = gen, .specs = gen->params, .n_specs = gen->n_params};
    double sp[MPB_MAX_PARAMS];
    memcpy(sp, gr->cfg->params, sizeof sp);
    for (int p = 0; p < ss.n_specs; p++) {
        ss.values[p] = &sp[p];
        ss.n_values[p] = 1;
    }
    for (int p = 0; p < gs.n_specs; p++) {
        gs.values[p] = &gp[p];
        gs.n_values[p] = 1;
    }
    int64_t m = shape->m, n = shape->n, k = shape->k, s = (int64_t)seed;
    struct mpb_plan plan = {.schemes = &ss, .n_schemes = 1, .gens = &gs, .n_gens = 1,
                            .ms = {1, &m}, .ns = {1, &n}, .ks = {1, &k}, .seeds = {1, &s}};
    struct mpb_case *cases;
    int n_cases;
    if (!mpb_plan_expand(&plan, gr->opt->runner->impl, &cases, &n_cases, why, why_len))
        return false;
    *out = cases[0];
    free(cases);
    return true;
}

static double elem(const void *p, int64_t idx, enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? ((const double *)p)[idx] : ((const float *)p)[idx];
}

/* Part `part` of C(i, j) (complex parts are interleaved, real first). */
static double c_part(const struct mpb_case *c, const void *out, int64_t i, int64_t j, int part)
{
    int parts = mpb_field_parts(c->scheme->field);
    return elem(out, (i + j * c->m) * parts + part, c->scheme->target);
}

/* A complex entry counts once, whichever of its parts is not 0. */
static bool nonzero_at(const struct mpb_case *c, const void *out, int64_t i, int64_t j)
{
    bool bad = false;
    for (int part = 0; part < mpb_field_parts(c->scheme->field); part++) {
        double x = c_part(c, out, i, j, part);
        bad |= x != 0 || isnan(x); /* NaN counts (Test 1) */
    }
    return bad;
}

/* Test 1: every entry of C that is exactly 0 by construction, all of them
 * (not only the sampled ones): whole rows and columns for 1a, pairs for 1b. */
static int64_t test1_nonzeros(const struct mpb_case *c, const struct mpb_gen_config *gc, const void *out)
{
    int64_t bad = 0;
    if (c->gen->kind == MPB_GEN_TEST1B) {
        int64_t np = mpb_test1b_pairs(gc, NULL, NULL);
        int64_t *rows = malloc(sizeof *rows * (size_t)(np + 1)), *cols = malloc(sizeof *cols * (size_t)(np + 1));
        if (!rows || !cols) {
            free(rows);
            free(cols);
            return -1;
        }
        mpb_test1b_pairs(gc, rows, cols);
        for (int64_t p = 0; p < np; p++)
            bad += nonzero_at(c, out, rows[p], cols[p]);
        free(rows);
        free(cols);
        return bad;
    }
    int64_t nr = mpb_test1a_zero_rows(gc, NULL), nc = mpb_test1a_zero_cols(gc, NULL);
    int64_t *rows = malloc(sizeof *rows * (size_t)(nr + 1)), *cols = malloc(sizeof *cols * (size_t)(nc + 1));
    if (!rows || !cols) {
        free(rows);
        free(cols);
        return -1;
    }
    mpb_test1a_zero_rows(gc, rows);
    mpb_test1a_zero_cols(gc, cols);
    for (int64_t r = 0; r < nr; r++)
        for (int64_t j = 0; j < c->n; j++)
            bad += nonzero_at(c, out, rows[r], j);
    for (int64_t q = 0; q < nc; q++)
        for (int64_t i = 0; i < c->m; i++)
            bad += nonzero_at(c, out, i, cols[q]);
    free(rows);
    free(cols);
    return bad;
}

/* |Ĉ−C|_ij / (|A||B|)_ij: the relative error of Test 3's entries where
 * they are all positive, and immune to the cancellation that random signs
 * bring (a conventional float GEMM keeps it ≤ k·u: Jeannerod & Rump). */
static long double entry_componentwise_error(double c_hat, const struct mpb_ref_value *v)
{
    if (!isfinite(c_hat))
        return INFINITY;
    long double err = fabsl(((long double)c_hat - v->hi) - v->lo);
    return err == 0 ? 0 : v->absab == 0 ? INFINITY : err / v->absab;
}

/* A complex entry's |Ĉ−C|_ij / (|A||B|)_ij with moduli, as ρ_A's (metrics.c). */
static long double complex_componentwise_error(const struct mpb_case *c, const struct mpb_result *res,
                                               int64_t i, int64_t j, const struct mpb_ref_value *v)
{
    double re = c_part(c, res->c, i, j, 0), im = c_part(c, res->c, i, j, 1);
    if (!isfinite(re) || !isfinite(im))
        return INFINITY;
    long double err = hypotl(((long double)re - v[0].hi) - v[0].lo, ((long double)im - v[1].hi) - v[1].lo);
    struct mpb_gemm g = mpb_case_gemm(c);
    g.a = res->a;
    g.b = res->b;
    long double absab = mpb_complex_absab(&g, i, j);
    return err == 0 ? 0 : absab == 0 ? INFINITY : err / absab;
}

/* Test 3: max componentwise error over the leading (n0−1)×(n0−1) block,
 * every entry of which the reference checks (designated). */
static double test3_block_error(const struct mpb_case *c, const struct mpb_gen_config *gc,
                                const struct mpb_result *res, const struct mpb_accuracy *acc)
{
    int64_t rows, cols;
    mpb_test3_block(gc, &rows, &cols);
    bool complex = c->scheme->field == MPB_FIELD_COMPLEX;
    long double worst = 0;
    for (int64_t p = 0; p < acc->n; p++) {
        int64_t i = acc->entries[p].i, j = acc->entries[p].j;
        if (i < rows && j < cols)
            worst = fmaxl(worst, complex ? complex_componentwise_error(c, res, i, j, &acc->values[2 * p])
                                         : entry_componentwise_error(c_part(c, res->c, i, j, 0), &acc->values[p]));
    }
    return (double)worst;
}

/* Where native IEEE arithmetic gives NaN/±Inf (the reference's rounded
 * value), Ĉ must match; a finite Ĉ there is a silently wrong value. Each
 * part of a complex entry counts as an entry: it is a real sum of 2k
 * products, which a 4M GEMM computes with IEEE semantics. */
static void observe_special(struct grade_run *gr, const struct mpb_case *c, const struct mpb_result *res,
                            const struct mpb_accuracy *acc)
{
    int64_t entries = 0, native = 0, spread = 0, differs = 0, finite_wrong = 0;
    int parts = mpb_field_parts(c->scheme->field);
    for (int64_t q = 0; q < acc->n * parts; q++) {
        const struct mpb_ref_value *v = &acc->values[q];
        double c_hat = c_part(c, res->c, acc->entries[q / parts].i, acc->entries[q / parts].j, (int)(q % parts));
        double expected = v->finite ? v->rounded : v->hi;
        if (isfinite(expected)) {
            spread += !isfinite(c_hat);
            continue;
        }
        entries++;
        if (isfinite(c_hat))
            finite_wrong++;
        else if (isnan(expected) ? isnan(c_hat) : c_hat == expected)
            native++;
        else
            differs++;
    }
    mpb_verdict_add_special(gr->v, entries, native, spread, differs, finite_wrong);
}

static void observe(struct grade_run *gr, enum item_role role, const struct mpb_case *c,
                    const struct mpb_result *res, const struct mpb_accuracy *acc)
{
    struct mpb_gen_config gc;
    mpb_gen_config_init(&gc, c->gen, c->gp, c->scheme->target, c->m, c->n, c->k, c->seed);
    mpb_verdict_add_metrics(gr->v, c, &acc->metrics);
    switch (role) {
    case ROLE_TEST1: {
        int64_t bad = test1_nonzeros(c, &gc, res->c);
        if (bad >= 0)
            mpb_verdict_add_test1(gr->v, c, bad);
        break;
    }
    case ROLE_TEST2:
        mpb_verdict_add_test2(gr->v, c, gr->u, acc->metrics.err_max_rel);
        break;
    case ROLE_TEST3:
        mpb_verdict_add_test3(gr->v, c, gr->u, test3_block_error(c, &gc, res, acc));
        break;
    case ROLE_SPECIAL:
        observe_special(gr, c, res, acc);
        break;
    case ROLE_RANDN:
        gr->randn_hash = res->out_hash;
        gr->randn_ok = true;
        break;
    case ROLE_INNER:
        if (gr->randn_ok)
            mpb_verdict_add_inner(gr->v, res->out_hash == gr->randn_hash);
        break;
    case ROLE_PLAIN:
        break;
    }
}

/* Run, measure, report, observe; true when the case ran and was measured.
 * *test2_max_rel (may be NULL) gets its max relative error; `bisection`:
 * a case of the b sweep after its first (mpb_grade_case_fn). */
static bool run_one(struct grade_run *gr, enum item_role role, const struct mpb_case *c,
                    double *test2_max_rel, bool bisection)
{
    struct mpb_result res;
    struct mpb_accuracy acc = {0};
    bool measured = false;
    char why[512];
    mpb_run_case(gr->opt->runner, c, &res);
    if (res.status == MPB_STATUS_OK) {
        measured = mpb_accuracy_measure(c, &res, gr->opt->ref_samples, &acc, why, sizeof why);
        if (!measured) {
            res.status = MPB_STATUS_ERROR;
            snprintf(res.note, sizeof res.note, "%s", why);
        } else if (acc.metrics.note[0] && !res.note[0]) {
            snprintf(res.note, sizeof res.note, "%s", acc.metrics.note);
        }
    }
    mpb_verdict_add_status(gr->v, res.status);
    if (res.status != MPB_STATUS_OK) {
        char failure[MPB_GRADE_FAILURE_LEN];
        snprintf(failure, sizeof failure, "%s: %s (mpbench run %s)", mpb_status_name(res.status),
                 res.note[0] ? res.note : "(no note)", c->text);
        mpb_verdict_add_failure(gr->v, failure);
    }
    if (gr->opt->on_case)
        gr->opt->on_case(gr->opt->ctx, c, &res, measured ? &acc.metrics : NULL, bisection);
    if (measured)
        observe(gr, role, c, &res, &acc);
    if (role == ROLE_RANDN && !measured)
        gr->randn_ok = false;
    if (test2_max_rel)
        *test2_max_rel = measured ? acc.metrics.err_max_rel : NAN;
    mpb_accuracy_free(&acc);
    mpb_result_free(&res);
    return measured;
}

/* Test 2 at b (NaN: b_max); true with *pass set when the case ran. */
static bool test2_at(struct grade_run *gr, const struct mpb_generator *gen, double b,
                                  const struct mpb_grade_shape *shape, uint64_t seed, bool *pass,
                                  double *b_resolved, char *why, size_t why_len)
{
    double gp[MPB_MAX_PARAMS];
    int pb = mpb_param_find(gen->params, gen->n_params, "b");
    mpb_param_defaults(gen->params, gen->n_params, gp);
    gp[pb] = b;
    struct mpb_case c;
    double rel;
    if (!make_case(gr, gen, gp, shape, seed, &c, why, why_len) || !run_one(gr, ROLE_TEST2, &c, &rel, !isnan(b)))
        return false;
    *pass = mpb_test2_passes(c.k, gr->u, rel);
    if (b_resolved)
        *b_resolved = c.gp[pb];
    return true;
}

/* Test 2 at b_max (the battery's case), then b* = the largest b that
 * passes, by bisection on [0, b_max]: a fixed-point scheme with W bits
 * fails once 2b + 53 > W and keeps failing above, so
 * pass/fail is monotone in b and ⌈log2(b_max + 1)⌉ cases find the edge. */
static void test2_sweep(struct grade_run *gr, const struct mpb_generator *gen, const struct mpb_grade_shape *shape,
                        uint64_t seed)
{
    bool pass;
    double bmax;
    char why[256]; /* a case that cannot be made or run is a row already; the sweep just stops */
    if (!test2_at(gr, gen, NAN, shape, seed, &pass, &bmax, why, sizeof why))
        return;
    if (pass || bmax < 1) {
        mpb_verdict_add_b_star(gr->v, shape->k, pass ? (int)bmax : MPB_BSTAR_NONE);
        return;
    }
    int lo = -1, hi = (int)bmax; /* lo passes (−1: none yet), hi fails */
    if (!test2_at(gr, gen, 0, shape, seed, &pass, NULL, why, sizeof why))
        return;
    if (pass)
        lo = 0;
    while (lo >= 0 && hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (!test2_at(gr, gen, mid, shape, seed, &pass, NULL, why, sizeof why))
            return;
        if (pass)
            lo = mid;
        else
            hi = mid;
    }
    mpb_verdict_add_b_star(gr->v, shape->k, lo >= 0 ? lo : MPB_BSTAR_NONE);
}

static bool item_runs(int t, enum mpb_field field)
{
    return !battery[t].complex_only || field == MPB_FIELD_COMPLEX;
}

int mpb_grade_battery_cases(enum mpb_field field)
{
    int n = 0;
    for (int t = 0; t < BATTERY_SIZE; t++)
        n += item_runs(t, field);
    return n;
}

/* The generator of battery item t with its parameters. */
static const struct mpb_generator *item_generator(int t, double *gp, char *why, size_t why_len)
{
    const struct battery_item *it = &battery[t];
    const struct mpb_generator *gen = mpb_generator_find(it->gen);
    if (!gen || !item_params(it, gen, gp, why, why_len)) {
        snprintf(why, why_len, "battery item %s %s=%s is not a valid generator setting", it->gen,
                 it->key ? it->key : "", it->value ? it->value : "");
        return NULL;
    }
    return gen;
}

bool mpb_grade_run(const struct mpb_grade_config *cfg, const struct mpb_grade_options *opt,
                   struct mpb_verdict *v, char *why, size_t why_len)
{
    struct grade_run gr = {.cfg = cfg, .opt = opt, .v = v, .u = mpb_unit_roundoff(cfg->scheme->target)};
    mpb_verdict_init(v);
    for (int s = 0; s < opt->n_shapes; s++) {
        const struct mpb_grade_shape *shape = &opt->shapes[s];
        bool square = shape->m == shape->k && shape->n == shape->k;
        for (int seed = 1; seed <= opt->seeds; seed++) {
            gr.randn_ok = false;
            for (int t = 0; t < BATTERY_SIZE; t++) {
                if (!item_runs(t, cfg->scheme->field))
                    continue;
                double gp[MPB_MAX_PARAMS];
                const struct mpb_generator *gen = item_generator(t, gp, why, why_len);
                if (!gen)
                    return false;
                /* The sweep runs on square shapes with the first seed, test2 only
                 * (test2r's shuffle changes nothing for the b edge of a scheme
                 * that scales by rows and columns). */
                if (battery[t].role == ROLE_TEST2 && gen->kind == MPB_GEN_TEST2 && square && seed == 1) {
                    test2_sweep(&gr, gen, shape, (uint64_t)seed);
                    continue;
                }
                struct mpb_case c;
                if (!make_case(&gr, gen, gp, shape, (uint64_t)seed, &c, why, why_len))
                    return false;
                run_one(&gr, battery[t].role, &c, NULL, false);
            }
        }
    }
    mpb_verdict_settle(v);
    return true;
}

bool mpb_grade_list(const struct mpb_grade_config *cfg, const struct mpb_grade_options *opt,
                    void (*fn)(void *ctx, const struct mpb_case *c), void *ctx, char *why, size_t why_len)
{
    const struct grade_run gr = {.cfg = cfg, .opt = opt};
    for (int s = 0; s < opt->n_shapes; s++)
        for (int seed = 1; seed <= opt->seeds; seed++)
            for (int t = 0; t < BATTERY_SIZE; t++) {
                if (!item_runs(t, cfg->scheme->field))
                    continue;
                double gp[MPB_MAX_PARAMS];
                const struct mpb_generator *gen = item_generator(t, gp, why, why_len);
                struct mpb_case c;
                if (!gen || !make_case(&gr, gen, gp, &opt->shapes[s], (uint64_t)seed, &c, why, why_len))
                    return false;
                fn(ctx, &c);
            }
    return true;
}
