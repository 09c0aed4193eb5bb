/* mpb_verdict_merge (grade.h): the battery run one shape at a time (the
 * unit of `grade --devices`) and the partial verdicts merged in shape
 * order give, field by field, the verdict of one mpb_grade_run over every
 * shape, and the same cases in the same order. On the host backend, for
 * schemes of different behaviour: a naive fp64 GEMM (A), W-bit fixed point
 * (Test 2 fixed, a b* per square shape), one-level Strassen (C), sgemm
 * (fp32), fp16 (overflow: NaN worst values, inner scaling changed) and
 * zgemm3m (complex: the per-part worst values, B).
 * Then ties by hand: the first seen worst value and b* stay. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "grade/grade.h"
#include "grade/grade_doubles.h"
#include "schemes/registry.h"

static const struct mpb_grade_shape shapes[] = {{16, 16, 16}, {33, 33, 33}, {24, 5, 40}, {20, 20, 20}};
#define N_SHAPES (int)(sizeof shapes / sizeof *shapes)

/* The cases a run showed: canonical string, status and output hash, one line each. */
struct case_log {
    char *text;
    size_t len;
    FILE *f;
};

static void log_case(void *ctx, const struct mpb_case *c, const struct mpb_result *res, const struct mpb_metrics *acc,
                     bool bisection)
{
    (void)bisection;
    struct case_log *log = ctx;
    fprintf(log->f, "%s %d %016llx %s\n", c->text, (int)res->status, (unsigned long long)res->out_hash,
            acc ? acc->grade : "-");
}

static bool grade_shapes(const struct mpb_grade_config *cfg, const struct mpb_grade_shape *sh, int n,
                         struct case_log *log, struct mpb_verdict *v)
{
    struct mpb_runner runner = {.impl = MPB_IMPL_HOST, .warmup = 0, .reps = 1, .keep_data = true};
    struct mpb_grade_options opt = {.shapes = sh, .n_shapes = n, .seeds = 2, .ref_samples = 4096,
                                    .runner = &runner, .on_case = log_case, .ctx = log};
    char why[256];
    bool ok = mpb_grade_run(cfg, &opt, v, why, sizeof why);
    CHECK(ok, "%s: %s", cfg->scheme->name, why);
    return ok;
}

static bool same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof a);
}

static bool same_worst(const struct mpb_grade_worst *a, const struct mpb_grade_worst *b)
{
    return same_double(a->value, b->value) && !strcmp(a->where, b->where) && !strcmp(a->what, b->what);
}

/* The first field in which a and b differ, or NULL. */
static const char *verdict_difference(const struct mpb_verdict *a, const struct mpb_verdict *b)
{
#define SAME(field) if (a->field != b->field) return #field
#define SAME_TEXT(field) if (strcmp(a->field, b->field)) return #field
#define SAME_WORST(field) if (!same_worst(&a->field, &b->field)) return #field
    SAME(grade);
    SAME(bound_grade);
    SAME_TEXT(grade_note);
    SAME(cases);
    SAME(cases_ok);
    SAME(cases_graded);
    SAME(cases_error);
    SAME(cases_not_supported);
    SAME_TEXT(first_failure);
    SAME_WORST(rho_a);
    SAME_WORST(rho_b);
    SAME_WORST(rho_c);
    SAME_WORST(rho_re);
    SAME_WORST(rho_im);
    SAME(test1_cases);
    SAME(test1_nonzero);
    SAME_WORST(test1);
    SAME(test1_class);
    SAME_WORST(test2);
    SAME(test2_class);
    SAME(b_star);
    SAME(b_star_k);
    SAME_WORST(test3);
    SAME(test3_k);
    SAME(test3_class);
    SAME(special_entries);
    SAME(special_native);
    SAME(special_spread);
    SAME(special_differs);
    SAME(special_finite_wrong);
    SAME(special_class);
    SAME(inner_pairs);
    SAME(inner_changed);
    SAME(inner_class);
    SAME(n_ks);
    for (int i = 0; i < a->n_ks; i++) {
        SAME(ks[i]);
        for (int r = 0; r < 3; r++)
            if (!same_double(a->max_rho[r][i], b->max_rho[r][i]))
                return "max_rho";
    }
    for (int r = 0; r < 3; r++)
        if (!same_double(a->slope[r], b->slope[r]))
            return "slope";
    SAME_TEXT(warnings);
    SAME_TEXT(inconsistency);
    SAME_TEXT(lost);
    return NULL;
#undef SAME
#undef SAME_TEXT
#undef SAME_WORST
}

static void check_merge(const struct mpb_scheme *s, double param)
{
    struct mpb_grade_config cfg = {.scheme = s, .params = {param}};
    if (isnan(param))
        mpb_param_defaults(s->params, s->n_params, cfg.params);
    struct case_log whole = {0}, parts = {0};
    static struct mpb_verdict one, merged, part;
    whole.f = open_memstream(&whole.text, &whole.len);
    parts.f = open_memstream(&parts.text, &parts.len);
    if (!whole.f || !parts.f) {
        CHECK(false, "open_memstream failed");
        return;
    }
    bool ok = grade_shapes(&cfg, shapes, N_SHAPES, &whole, &one);
    mpb_verdict_init(&merged);
    int worst_a_parts = 0; /* partial verdicts whose worst rho_A is not the whole's: the merge chose */
    for (int sh = 0; ok && sh < N_SHAPES; sh++) {
        ok = grade_shapes(&cfg, &shapes[sh], 1, &parts, &part);
        worst_a_parts += strcmp(part.rho_a.where, one.rho_a.where) != 0;
        mpb_verdict_merge(&merged, &part);
    }
    mpb_verdict_settle(&merged);
    fclose(whole.f);
    fclose(parts.f);
    if (ok) {
        const char *diff = verdict_difference(&one, &merged);
        CHECK(!diff, "%s w=%g: merged per-shape verdicts differ from one run in %s", s->name, param, diff ? diff : "");
        CHECK(whole.len == parts.len && !memcmp(whole.text, parts.text, whole.len),
              "%s w=%g: the per-shape runs' cases are not the one run's, in its order", s->name, param);
        CHECK(worst_a_parts > 0 && one.n_ks > 1, "%s: the split decides nothing (%d ks)", s->name, one.n_ks);
        printf("%-10s w=%-3g grade %c, %lld cases, b* %d (k=%lld), worst rho_A/k %.3g at %s: merge == one run\n",
               s->name, param, one.grade, (long long)one.cases, one.b_star, (long long)one.b_star_k,
               one.rho_a.value, one.rho_a.where);
    }
    free(whole.text);
    free(parts.text);
}

/* Hand-made partials whose worst values and b* tie: the first stays, as
 * in one run's fold; NaN beats every number and the first NaN stays. */
static void check_ties(void)
{
    static struct mpb_verdict first, second, merged;
    struct mpb_metrics m = {.rho_a_max = 64, .rho_b_max = NAN, .rho_c_max = 1, .grade = "B"};
    struct mpb_case c1, c2, c2_32;
    mpb_double_case(&c1, "first", "randn", 64);
    mpb_double_case(&c2, "second", "randn", 64);
    mpb_double_case(&c2_32, "second", "test3", 32);
    mpb_verdict_init(&first);
    mpb_verdict_init(&second);
    mpb_verdict_add_metrics(&first, &c1, &m);
    mpb_verdict_add_b_star(&first, 64, 3);
    mpb_verdict_add_test3(&first, &c1, 0x1p-53, NAN);
    mpb_verdict_add_metrics(&second, &c2, &m);
    mpb_verdict_add_b_star(&second, 32, 3);
    mpb_verdict_add_test3(&second, &c2_32, 0x1p-53, NAN);
    mpb_verdict_init(&merged);
    mpb_verdict_merge(&merged, &first);
    mpb_verdict_merge(&merged, &second);
    mpb_verdict_settle(&merged);
    CHECK(!strcmp(merged.rho_a.where, "first") && !strcmp(merged.rho_b.where, "first"),
          "ties: worst rho_A at %s, rho_B (NaN) at %s; expected the first", merged.rho_a.where, merged.rho_b.where);
    CHECK(merged.b_star == 3 && merged.b_star_k == 64, "ties: b* %d at k %lld, expected the first (3 at 64)",
          merged.b_star, (long long)merged.b_star_k);
    CHECK(!strcmp(merged.test3.where, "first") && merged.test3_k == 64, "ties: Test 3 NaN at %s, k %lld",
          merged.test3.where, (long long)merged.test3_k);
    CHECK(merged.n_ks == 1 && merged.cases_graded == 2, "ties: %d ks, %lld graded", merged.n_ks,
          (long long)merged.cases_graded);
}

int main(void)
{
    check_ties();
    check_merge(&mpb_double_naive, 0);
    check_merge(&mpb_double_fixed, 53);
    check_merge(&mpb_double_strassen, 0);
    check_merge(mpb_scheme_find("sgemm"), NAN);
    check_merge(mpb_scheme_find("fp16"), NAN);
    check_merge(mpb_scheme_find("zgemm3m"), NAN);
    return check_report("test_grade_merge");
}
