#include "case/plan.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/hash.h"
#include "case/values.h"
#include "file_gen.h"

const char *mpb_impl_name(enum mpb_impl impl)
{
    return impl == MPB_IMPL_CUDA ? "cuda" : "host";
}

const char *const mpb_backend_words[] = {"auto", "cuda", "host", NULL};
const char *const mpb_progress_words[] = {"auto", "always", "never", NULL};

const char *mpb_ref_name(enum mpb_ref_choice ref)
{
    return ref == MPB_REF_MPFR ? "mpfr" : ref == MPB_REF_DD ? "dd" : "none";
}

bool mpb_shard_parse(const char *text, int *index, int *count)
{
    const char *slash = strchr(text, '/');
    int64_t i, n;
    if (!slash || !mpb_int_parse_n(text, (size_t)(slash - text), &i) || !mpb_int_parse(slash + 1, &n) || n < 1 ||
        n > INT_MAX || i < 0 || i >= n)
        return false;
    *index = (int)i;
    *count = (int)n;
    return true;
}

/* Append " -a k=v" for every parameter: the canonical string names all of
 * them, defaults included, so it stays the same case if a default changes. */
static size_t append_params(char *buf, size_t used, size_t len, const struct mpb_param_spec *specs,
                            int n, const double *values)
{
    for (int i = 0; i < n && used < len; i++) {
        char v[64];
        mpb_param_format(&specs[i], values[i], v, sizeof v);
        used += (size_t)snprintf(buf + used, len - used, " -a %s=%s", specs[i].name, v);
    }
    return used;
}

static void case_finish(struct mpb_case *c)
{
    size_t len = sizeof c->text, used = 0;
    used += (size_t)snprintf(c->text, len, "-s %s", c->scheme->name);
    used = append_params(c->text, used, len, c->scheme->params, c->scheme->n_params, c->sp);
    if (used < len)
        used += (size_t)snprintf(c->text + used, len - used, " -g %s", c->gen->name);
    used = append_params(c->text, used, len, c->gen->params, c->gen->n_params, c->gp);
    if (c->files && used < len)
        used += mpb_gen_files_case_args(c->files, c->text + used, len - used);
    if (used < len)
        snprintf(c->text + used, len - used,
                 " --m %" PRId64 " --n %" PRId64 " --k %" PRId64 " --seed %" PRIu64 " --backend %s",
                 c->m, c->n, c->k, c->seed, mpb_impl_name(c->impl));
    snprintf(c->id, sizeof c->id, "%016" PRIx64, mpb_hash_bytes(c->text, strlen(c->text)));
}

/* Odometer over the parameter lists of one selection: advance `idx`, false
 * once every combination was visited. */
static bool next_combination(const struct mpb_selection *s, int *idx)
{
    for (int p = s->n_specs - 1; p >= 0; p--) {
        if (++idx[p] < s->n_values[p])
            return true;
        idx[p] = 0;
    }
    return false;
}

static void pick(const struct mpb_selection *s, const int *idx, double *out)
{
    for (int p = 0; p < s->n_specs; p++)
        out[p] = s->values[p][idx[p]];
}

static long count_combinations(const struct mpb_selection *s)
{
    long n = 1;
    for (int p = 0; p < s->n_specs; p++)
        n *= s->n_values[p];
    return n;
}

#define MPB_PLAN_MAX_CASES 10000000

/* The number of cases, in double: the lists' product can overflow a long
 * (--size, --m, --n, --k of 100000 values each), so it is checked against
 * the limit before anything is allocated or counted in integers. */
static double combinations(const struct mpb_selection *s)
{
    double n = 1;
    for (int p = 0; p < s->n_specs; p++)
        n *= s->n_values[p];
    return n;
}

static double count_cases(const struct mpb_plan *plan)
{
    double shapes = plan->sizes.n ? plan->sizes.n : 1;
    shapes *= plan->ms.n ? plan->ms.n : 1;
    shapes *= plan->ns.n ? plan->ns.n : 1;
    shapes *= plan->ks.n ? plan->ks.n : 1;
    double schemes = 0, gens = 0;
    for (int i = 0; i < plan->n_schemes; i++)
        schemes += combinations(&plan->schemes[i]);
    for (int i = 0; i < plan->n_gens; i++) /* a from_files generator has its files' one shape */
        gens += combinations(&plan->gens[i]) * (plan->gens[i].files ? 1 : shapes);
    return schemes * gens * plan->seeds.n;
}

/* Shapes: each size gives a square case unless --m/--n/--k replace a
 * dimension; without --size the three lists are crossed. */
static int64_t *expand_shapes(const struct mpb_plan *plan, long *n_shapes)
{
    const struct mpb_int_list one = {0, NULL};
    int n_sizes = plan->sizes.n ? plan->sizes.n : 1;
    const struct mpb_int_list *lm = plan->ms.n ? &plan->ms : &one;
    const struct mpb_int_list *ln = plan->ns.n ? &plan->ns : &one;
    const struct mpb_int_list *lk = plan->ks.n ? &plan->ks : &one;
    long total = (long)n_sizes * (lm->n ? lm->n : 1) * (ln->n ? ln->n : 1) * (lk->n ? lk->n : 1);
    int64_t *shapes = malloc(sizeof *shapes * 3 * (size_t)total);
    if (!shapes)
        return NULL;
    long at = 0;
    for (int s = 0; s < n_sizes; s++) {
        int64_t sz = plan->sizes.n ? plan->sizes.v[s] : 0;
        for (int a = 0; a < (lm->n ? lm->n : 1); a++)
            for (int b = 0; b < (ln->n ? ln->n : 1); b++)
                for (int c = 0; c < (lk->n ? lk->n : 1); c++) {
                    shapes[3 * at + 0] = lm->n ? lm->v[a] : sz;
                    shapes[3 * at + 1] = ln->n ? ln->v[b] : sz;
                    shapes[3 * at + 2] = lk->n ? lk->v[c] : sz;
                    at++;
                }
    }
    *n_shapes = total;
    return shapes;
}

static void fill_case(struct mpb_case *c, const int64_t *shape,
                      uint64_t seed, enum mpb_impl impl, int index)
{
    c->m = shape[0];
    c->n = shape[1];
    c->k = shape[2];
    c->seed = seed;
    c->impl = impl;
    c->index = index;
    c->gen_ok = true;
    c->gen_why[0] = '\0';
    if (c->gen->complex_only && c->scheme->field != MPB_FIELD_COMPLEX) {
        c->gen_ok = false;
        snprintf(c->gen_why, sizeof c->gen_why, "%s: complex operands only (%s is real)", c->gen->name,
                 c->scheme->name);
    } else if (c->files && c->scheme->multi) {
        /* its parts are processes of their own, which generate their blocks */
        c->gen_ok = false;
        snprintf(c->gen_why, sizeof c->gen_why, "%s runs over several GPUs, whose parts do not read files yet",
                 c->scheme->name);
    } else if (c->files && !mpb_gen_files_fit(c->files, c->scheme->target, c->scheme->field, c->gen_why,
                                              sizeof c->gen_why)) {
        c->gen_ok = false;
    } else if (c->gen->resolve) {
        c->gen_ok = c->gen->resolve(c->gp, c->scheme->target, c->m, c->n, c->k, c->gen_why,
                                    sizeof c->gen_why);
    }
    case_finish(c);
}

/* Every combination of a generator selection's values that its validate
 * hook refuses is a usage error, named with the generator. */
static bool validate_generator(const struct mpb_selection *gs, char *why, size_t why_len)
{
    if (!gs->gen->validate)
        return true;
    int idx[MPB_MAX_PARAMS] = {0};
    do {
        double p[MPB_MAX_PARAMS];
        char bad[192];
        pick(gs, idx, p);
        if (!gs->gen->validate(p, bad, sizeof bad)) {
            snprintf(why, why_len, "-g %s: %s", gs->gen->name, bad);
            return false;
        }
    } while (next_combination(gs, idx));
    return true;
}

bool mpb_plan_expand(const struct mpb_plan *plan, enum mpb_impl impl, struct mpb_case **cases,
                     int *n_cases, char *why, size_t why_len)
{
    double count = count_cases(plan);
    if (count > MPB_PLAN_MAX_CASES) {
        snprintf(why, why_len, "the sweep expands to %.0f cases (limit %d)", count, MPB_PLAN_MAX_CASES);
        errno = EINVAL;
        return false;
    }
    for (int g = 0; g < plan->n_gens; g++)
        if (!validate_generator(&plan->gens[g], why, why_len)) {
            errno = EINVAL;
            return false;
        }
    long n_shapes;
    int64_t *shapes = expand_shapes(plan, &n_shapes);
    if (!shapes) {
        snprintf(why, why_len, "out of memory");
        errno = ENOMEM;
        return false;
    }
    long total = 0;
    long gen_combos = 0; /* the generators' cases per scheme combination */
    for (int g = 0; g < plan->n_gens; g++)
        gen_combos += count_combinations(&plan->gens[g]) * (plan->gens[g].files ? 1 : n_shapes) * plan->seeds.n;
    for (int s = 0; s < plan->n_schemes; s++)
        total += count_combinations(&plan->schemes[s]) * gen_combos;
    if (total > 10 * 1000 * 1000) {
        snprintf(why, why_len, "the sweep expands to %ld cases (limit 10000000)", total);
        free(shapes);
        errno = EINVAL;
        return false;
    }
    struct mpb_case *out = calloc((size_t)(total ? total : 1), sizeof *out);
    if (!out) {
        snprintf(why, why_len, "out of memory for %ld cases", total);
        free(shapes);
        errno = ENOMEM;
        return false;
    }
    int at = 0;
    for (int s = 0; s < plan->n_schemes; s++) {
        const struct mpb_selection *ss = &plan->schemes[s];
        int si[MPB_MAX_PARAMS] = {0};
        do {
            for (int g = 0; g < plan->n_gens; g++) {
                const struct mpb_selection *gs = &plan->gens[g];
                int gi[MPB_MAX_PARAMS] = {0};
                int64_t file_shape[3];
                if (gs->files)
                    mpb_gen_files_shape(gs->files, &file_shape[0], &file_shape[1], &file_shape[2]);
                do {
                    for (long sh = 0; sh < (gs->files ? 1 : n_shapes); sh++)
                        for (int sd = 0; sd < plan->seeds.n; sd++) {
                            struct mpb_case *c = &out[at];
                            c->scheme = ss->scheme;
                            c->added = ss->added;
                            pick(ss, si, c->sp);
                            c->gen = gs->gen;
                            c->files = gs->files;
                            pick(gs, gi, c->gp);
                            fill_case(c, gs->files ? file_shape : &shapes[3 * sh], (uint64_t)plan->seeds.v[sd],
                                      impl, at);
                            at++;
                        }
                } while (next_combination(gs, gi));
            }
        } while (next_combination(ss, si));
    }
    free(shapes);
    *cases = out;
    *n_cases = at;
    return true;
}

/* By case string, then expansion order: equal strings are adjacent, the
 * first of them first. */
static int by_text(const void *a, const void *b)
{
    const struct mpb_case *x = *(const struct mpb_case *const *)a, *y = *(const struct mpb_case *const *)b;
    int c = strcmp(x->id, y->id);
    if (!c)
        c = strcmp(x->text, y->text);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

int mpb_plan_drop_duplicates(struct mpb_case *cases, int *n_cases)
{
    int n = *n_cases;
    const struct mpb_case **order = malloc(sizeof *order * (size_t)(n ? n : 1));
    bool *dup = calloc((size_t)(n ? n : 1), sizeof *dup);
    if (!order || !dup) {
        free(order);
        free(dup);
        return -1;
    }
    for (int i = 0; i < n; i++)
        order[i] = &cases[i];
    qsort(order, (size_t)n, sizeof *order, by_text);
    for (int i = 1; i < n; i++)
        if (!strcmp(order[i]->text, order[i - 1]->text))
            dup[order[i] - cases] = true;
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (!dup[i]) {
            cases[kept] = cases[i];
            cases[kept].index = kept;
            kept++;
        }
    free(order);
    free(dup);
    *n_cases = kept;
    return n - kept;
}

void mpb_case_params(const struct mpb_case *c, char *buf, size_t len)
{
    mpb_param_format_all(c->scheme->params, c->scheme->n_params, c->sp, buf, len);
}

void mpb_case_gen_params(const struct mpb_case *c, char *buf, size_t len)
{
    if (c->files)
        mpb_gen_files_params(c->files, buf, len);
    else
        mpb_param_format_all(c->gen->params, c->gen->n_params, c->gp, buf, len);
}

/* Every value of `list` (an option) must be `want`, the files' dimension. */
static bool list_is(const struct mpb_int_list *list, const char *opt, const char *dim, int64_t want,
                    const struct mpb_selection *gs, char *why, size_t why_len)
{
    for (int i = 0; i < list->n; i++)
        if (list->v[i] != want) {
            int64_t m, n, k;
            mpb_gen_files_shape(gs->files, &m, &n, &k);
            snprintf(why, why_len, "%s %" PRId64 ": -g %s's files make m=%" PRId64 " n=%" PRId64 " k=%" PRId64
                     ", so %s is %" PRId64 " (the shape is the files'; leave out --size, --m, --n and --k, or give "
                     "the files' values)", opt, list->v[i], gs->gen->name, m, n, k, dim, want);
            return false;
        }
    return true;
}

bool mpb_plan_check_file_shapes(const struct mpb_plan *plan, char *why, size_t why_len)
{
    for (int g = 0; g < plan->n_gens; g++) {
        const struct mpb_selection *gs = &plan->gens[g];
        if (!gs->files)
            continue;
        int64_t m, n, k;
        mpb_gen_files_shape(gs->files, &m, &n, &k);
        if (!list_is(&plan->ms, "--m", "m", m, gs, why, why_len) || !list_is(&plan->ns, "--n", "n", n, gs, why, why_len) ||
            !list_is(&plan->ks, "--k", "k", k, gs, why, why_len) ||
            (!plan->ms.n && !list_is(&plan->sizes, "--size", "m", m, gs, why, why_len)) ||
            (!plan->ns.n && !list_is(&plan->sizes, "--size", "n", n, gs, why, why_len)) ||
            (!plan->ks.n && !list_is(&plan->sizes, "--size", "k", k, gs, why, why_len)))
            return false;
    }
    return true;
}

static void free_selection(struct mpb_selection *s)
{
    for (int p = 0; p < s->n_specs; p++)
        free(s->values[p]);
    if (s->files)
        mpb_gen_files_free(s->files);
    free(s->files);
}

void mpb_plan_free(struct mpb_plan *plan)
{
    for (int i = 0; i < plan->n_schemes; i++)
        free_selection(&plan->schemes[i]);
    for (int i = 0; i < plan->n_gens; i++)
        free_selection(&plan->gens[i]);
    free(plan->schemes);
    free(plan->gens);
    free(plan->sizes.v);
    free(plan->ms.v);
    free(plan->ns.v);
    free(plan->ks.v);
    free(plan->seeds.v);
    free(plan->tags);
}
