/* The grader on schemes whose verdict is known by construction
 * (grade_doubles.h), on the host backend at small sizes:
 *  - a naive fp64 GEMM earns A, Test 1 conventional, Test 2 float, the
 *    inner-scaling bits of randn, native special values;
 *  - one-level Strassen earns C and Test 1 finds it Strassen-like;
 *  - W-bit fixed point is Test 2 fixed, never A, and its b* moves by
 *    (W2 − W1)/2 between two budgets (it fails near 2b + 53 > W);
 *  - the verdict rules on hand-made observations: a harness inconsistency
 *    gives exit 1, C is kept only for a Strassen-like configuration;
 *  - complex: zgemm (4M) earns A, zgemm3m (3M) B, decided by smallim's
 *    imaginary part (componentwise unstable there, Higham 1992); A needs
 *    each part's rho/2k <= 10 on hand-made observations. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "grade/grade.h"
#include "grade/grade_doubles.h"
#include "status.h"

static const struct mpb_grade_shape shapes[] = {{16, 16, 16}, {33, 33, 33}, {64, 64, 64}, {24, 5, 40}};

static void grade(const struct mpb_scheme *s, double param, struct mpb_verdict *v)
{
    struct mpb_runner runner = {.impl = MPB_IMPL_HOST, .warmup = 0, .reps = 1, .keep_data = true};
    struct mpb_grade_options opt = {.shapes = shapes, .n_shapes = (int)(sizeof shapes / sizeof *shapes),
                                    .seeds = 2, .ref_samples = 4096, .runner = &runner};
    struct mpb_grade_config cfg = {.scheme = s, .params = {param}};
    if (s->n_params && isnan(param))
        mpb_param_defaults(s->params, s->n_params, cfg.params);
    char why[256];
    CHECK(mpb_grade_run(&cfg, &opt, v, why, sizeof why), "%s: %s", s->name, why);
    printf("%-16s w=%-4g grade %c (bounds %c) rhoA/k %.3g rhoB/k %.3g rhoC/k^c %.3g test1 %s test2 %s "
           "b* %d (k=%lld) test3 %s special %s inner %s, %lld cases, %lld ok%s%s\n",
           s->name, param, v->grade, v->bound_grade, v->rho_a.value, v->rho_b.value, v->rho_c.value,
           mpb_test1_class_name(v->test1_class), mpb_test2_class_name(v->test2_class), v->b_star,
           (long long)v->b_star_k, mpb_test3_class_name(v->test3_class), mpb_special_class_name(v->special_class),
           mpb_inner_class_name(v->inner_class), (long long)v->cases, (long long)v->cases_ok,
           v->inconsistency[0] ? "; INCONSISTENT: " : "", v->inconsistency);
    CHECK(v->cases > 0 && v->cases_ok == v->cases, "%s: %lld of %lld cases ok", s->name,
          (long long)v->cases_ok, (long long)v->cases);
}

static void test_naive(void)
{
    struct mpb_verdict v;
    grade(&mpb_double_naive, 0, &v);
    CHECK(v.grade == 'A', "naive: grade %c, worst rho_A at %s", v.grade, v.rho_a.where);
    CHECK(v.rho_a.value <= 1, "naive: rho_A/k = %g above the rigorous k*u bound", v.rho_a.value);
    CHECK(v.test1_class == MPB_T1_CONVENTIONAL, "naive: test1 %s", mpb_test1_class_name(v.test1_class));
    CHECK(v.test2_class == MPB_T2_FLOAT, "naive: test2 %s at %s", mpb_test2_class_name(v.test2_class), v.test2.where);
    CHECK(v.test3_class == MPB_T3_FLOAT, "naive: test3 %s at %s", mpb_test3_class_name(v.test3_class), v.test3.where);
    CHECK(v.inner_class == MPB_INNER_INVARIANT, "naive: inner %s", mpb_inner_class_name(v.inner_class));
    CHECK(v.special_class == MPB_SPECIAL_NATIVE && v.special_entries > 0, "naive: special %s on %lld entries",
          mpb_special_class_name(v.special_class), (long long)v.special_entries);
    CHECK(v.b_star >= 0, "naive: b* %d: a float GEMM passes Test 2 at b_max", v.b_star);
    CHECK(mpb_grade_exit_code(&v, 1) == MPB_EXIT_OK, "naive: exit %d", mpb_grade_exit_code(&v, 1));
}

static void test_strassen(void)
{
    struct mpb_verdict v;
    grade(&mpb_double_strassen, 0, &v);
    CHECK(v.grade == 'C', "strassen: grade %c (bounds %c), worst rho_C at %s", v.grade, v.bound_grade, v.rho_c.where);
    CHECK(v.test1_class == MPB_T1_STRASSEN, "strassen: test1 %s", mpb_test1_class_name(v.test1_class));
    CHECK(!v.inconsistency[0], "strassen: %s", v.inconsistency);
}

static int fixed(double w)
{
    struct mpb_verdict v;
    grade(&mpb_double_fixed, w, &v);
    CHECK(v.test2_class == MPB_T2_FIXED, "fixed w=%g: test2 %s", w, mpb_test2_class_name(v.test2_class));
    CHECK(v.grade != 'A' && v.grade != '-', "fixed w=%g: grade %c", w, v.grade);
    CHECK(v.test1_class == MPB_T1_CONVENTIONAL, "fixed w=%g: test1 %s", w, mpb_test1_class_name(v.test1_class));
    CHECK(!v.inconsistency[0], "fixed w=%g: %s", w, v.inconsistency);
    CHECK(v.b_star >= 0, "fixed w=%g: b* %d", w, v.b_star);
    return v.b_star;
}

/* Test 2's pass line is 10·k·u, so a W-bit scheme passes a little beyond
 * 2b = W − 53: by ½·log2(10k·(error growth)) ≤ 5 binades at k ≤ 64. The
 * difference between two budgets cancels that term. */
static void test_fixed(void)
{
    int b53 = fixed(53), b93 = fixed(93);
    CHECK(b53 <= 5, "fixed w=53: b* = %d, expected about 0 (at most 5 from the 10*k*u slack)", b53);
    CHECK(abs((b93 - b53) - 20) <= 2, "fixed: b*(93) - b*(53) = %d - %d, expected (93 - 53)/2 = 20 +- 2", b93, b53);
}

static void fake_case(struct mpb_verdict *v, char grade_letter, double rho_a)
{
    struct mpb_metrics m = {.rho_a_max = rho_a, .rho_b_max = rho_a, .rho_c_max = rho_a, .grade = {grade_letter, 0}};
    struct mpb_case c;
    mpb_double_case(&c, "-s fake", "randn", 64);
    mpb_verdict_add_status(v, MPB_STATUS_OK);
    mpb_verdict_add_metrics(v, &c, &m);
}

/* A hand-made observation of `gen` at 64x64x64. */
static const struct mpb_case *fake(const char *gen)
{
    static struct mpb_case c;
    mpb_double_case(&c, "-s fake", gen, 64);
    return &c;
}

/* Observations that no honest scheme can produce together: only a harness
 * bug (reference, grader) could report them. */
static void test_inconsistency(void)
{
    struct mpb_verdict v;
    mpb_verdict_init(&v);
    fake_case(&v, 'A', 1);
    mpb_verdict_add_test2(&v, fake("test2"), 0x1p-53, 1e-3);
    mpb_verdict_settle(&v);
    CHECK(v.grade == 'A' && v.test2_class == MPB_T2_FIXED && v.inconsistency[0], "fixed yet A not flagged");
    CHECK(mpb_grade_exit_code(&v, 1) == MPB_EXIT_INCORRECT, "fixed yet A: exit %d", mpb_grade_exit_code(&v, 1));

    mpb_verdict_init(&v);
    fake_case(&v, 'B', 1000);
    mpb_verdict_add_test1(&v, fake("test1b"), 3);
    mpb_verdict_settle(&v);
    CHECK(v.inconsistency[0] && mpb_grade_exit_code(&v, 1) == MPB_EXIT_INCORRECT, "Strassen-like yet B not flagged");

    mpb_verdict_init(&v);
    fake_case(&v, 'A', 1);
    mpb_verdict_add_test2(&v, fake("test2"), 0x1p-53, 1e-15);
    mpb_verdict_settle(&v);
    CHECK(!v.inconsistency[0] && mpb_grade_exit_code(&v, 1) == MPB_EXIT_OK, "float A flagged: %s", v.inconsistency);
}

/* C is the Strassen bound: kept for a Strassen-like configuration, F for
 * a conventional one (README "mpbench grade"). */
static void test_c_rule(void)
{
    struct mpb_verdict v;
    mpb_verdict_init(&v);
    fake_case(&v, 'C', 1e6);
    mpb_verdict_add_test1(&v, fake("test1a"), 0);
    mpb_verdict_settle(&v);
    CHECK(v.bound_grade == 'C' && v.grade == 'F', "conventional C: grade %c", v.grade);

    mpb_verdict_init(&v);
    fake_case(&v, 'C', 1e6);
    fake_case(&v, 'A', 1);
    mpb_verdict_add_test1(&v, fake("test1a"), 5);
    mpb_verdict_settle(&v);
    CHECK(v.grade == 'C' && !v.inconsistency[0], "Strassen-like C: grade %c %s", v.grade, v.inconsistency);

    mpb_verdict_init(&v);
    mpb_verdict_add_status(&v, MPB_STATUS_NOT_SUPPORTED);
    mpb_verdict_settle(&v);
    CHECK(v.grade == '-' && mpb_grade_exit_code(&v, 1) == MPB_EXIT_NOTHING_RAN, "nothing ran: exit %d",
          mpb_grade_exit_code(&v, 1));
}

/* Max rho_A growing like k^2 at every k, all within A's bound. */
static void rising(struct mpb_verdict *v, const int64_t *ks, int n)
{
    mpb_verdict_init(v);
    for (int i = 0; i < n; i++) {
        double k = (double)ks[i];
        struct mpb_metrics m = {.rho_a_max = k * k / 1000, .rho_b_max = 1, .rho_c_max = 1, .grade = "A"};
        struct mpb_case c;
        mpb_double_case(&c, "-s fake", "randn", ks[i]);
        mpb_verdict_add_status(v, MPB_STATUS_OK);
        mpb_verdict_add_metrics(v, &c, &m);
    }
    mpb_verdict_settle(v);
}

/* A slope only where the ks can support one: 3 or more spanning 4x. */
static void test_slope(void)
{
    static const int64_t quick[] = {32, 33}, narrow[] = {30, 32, 33, 64}, wide[] = {16, 32, 64};
    struct mpb_verdict v;
    rising(&v, quick, 2);
    CHECK(isnan(v.slope[0]) && !strstr(v.warnings, "slope"), "k 32,33: slope %g, warnings '%s'", v.slope[0],
          v.warnings);
    rising(&v, narrow, 4);
    CHECK(isnan(v.slope[0]) && !v.warnings[0], "k 30..64 (2.1x): slope %g, warnings '%s'", v.slope[0], v.warnings);
    rising(&v, wide, 3);
    CHECK(fabs(v.slope[0] - 2) < 1e-9 && strstr(v.warnings, "slope-a: max rho_A grows like k^2.00"),
          "k 16,32,64: slope %g, warnings '%s'", v.slope[0], v.warnings);
}

static void expect_sentence(const struct mpb_verdict *v, const char *const *parts, int n)
{
    char s[1024];
    mpb_verdict_sentence(v, s, sizeof s);
    for (int i = 0; i < n; i++)
        CHECK(strstr(s, parts[i]) != NULL, "sentence '%s' lacks '%s'", s, parts[i]);
}

/* The sentence names the grade, the ratio and bound, and the deciding case. */
static void test_sentence(void)
{
    struct mpb_verdict v;
    struct mpb_metrics worst = {.rho_a_max = 64e4, .rho_b_max = 64, .rho_c_max = 1, .grade = "B"};
    mpb_verdict_init(&v);
    fake_case(&v, 'A', 1);
    mpb_verdict_add_status(&v, MPB_STATUS_OK);
    mpb_verdict_add_metrics(&v, fake("test2"), &worst);
    mpb_verdict_add_test2(&v, fake("test2"), 0x1p-53, 1e-3);
    mpb_verdict_settle(&v);
    static const char *const b[] = {"B: rho_A/k = 1e+04 on test2 b=", " at 64x64x64 seed 1, past A's bound of 10",
                                    "(Test 2 finds it fixed-point)"};
    expect_sentence(&v, b, 3);

    mpb_verdict_init(&v);
    fake_case(&v, 'A', 6.4);
    mpb_verdict_settle(&v);
    static const char *const a[] = {"A: all 1 graded cases are within A's bound", "0.1 on randn at 64x64x64 seed 1"};
    expect_sentence(&v, a, 2);

    mpb_verdict_init(&v);
    fake_case(&v, 'C', 1e6);
    mpb_verdict_add_test1(&v, fake("test1a"), 0);
    mpb_verdict_settle(&v);
    static const char *const f[] = {"F: rho_B/k = 1.56e+04 on randn", "Test 1 finds it conventional"};
    expect_sentence(&v, f, 2);

    mpb_verdict_init(&v);
    mpb_verdict_add_status(&v, MPB_STATUS_NOT_SUPPORTED);
    mpb_verdict_add_failure(&v, "not_supported: too large (mpbench run -s fake)");
    mpb_verdict_settle(&v);
    static const char *const none[] = {"no grade: no case ran (0 error, 1 not_supported); the first: not_supported: too large"};
    expect_sentence(&v, none, 1);
}

/* The natives with host models: 4M is componentwise stable in each part,
 * 3M only normwise (README "Complex GEMM"). */
static void test_complex(void)
{
    struct mpb_verdict v;
    char s[1024];
    grade(mpb_scheme_find("zgemm"), NAN, &v);
    mpb_verdict_sentence(&v, s, sizeof s);
    printf("  %s\n", s);
    CHECK(v.grade == 'A', "zgemm: grade %c: %s", v.grade, s);
    CHECK(v.rho_re.value >= 0 && v.rho_re.value <= 1 && v.rho_im.value >= 0 && v.rho_im.value <= 1,
          "zgemm: rho_Re/2k %g, rho_Im/2k %g above the rigorous 2k*u bound", v.rho_re.value, v.rho_im.value);
    CHECK(v.test1_class == MPB_T1_CONVENTIONAL && v.test2_class == MPB_T2_FLOAT && v.test3_class == MPB_T3_FLOAT &&
          v.inner_class == MPB_INNER_INVARIANT && v.special_class == MPB_SPECIAL_NATIVE && v.b_star >= 0,
          "zgemm: test1 %s test2 %s test3 %s inner %s special %s b* %d", mpb_test1_class_name(v.test1_class),
          mpb_test2_class_name(v.test2_class), mpb_test3_class_name(v.test3_class),
          mpb_inner_class_name(v.inner_class), mpb_special_class_name(v.special_class), v.b_star);
    CHECK(strstr(s, "rho_Re/2k, rho_Im/2k <= 10 in each part"), "zgemm: sentence '%s'", s);
    /* 16 items (smallim too) at 4 shapes and 2 seeds, the b bisection not needed */
    CHECK(v.cases == 16 * 4 * 2, "zgemm: %lld cases", (long long)v.cases);

    grade(mpb_scheme_find("zgemm3m"), NAN, &v);
    mpb_verdict_sentence(&v, s, sizeof s);
    printf("  %s\n", s);
    CHECK(v.grade == 'B' && v.rho_a.value <= 10, "zgemm3m: grade %c, rho_A/k %g: %s", v.grade, v.rho_a.value, s);
    CHECK(v.rho_im.value > 1e3 && strstr(v.rho_im.what, "smallim ") == v.rho_im.what,
          "zgemm3m: worst rho_Im/2k %g on %s, expected smallim's ~2^24/2k", v.rho_im.value, v.rho_im.what);
    CHECK(strstr(s, "B: rho_Im/2k = ") == s && strstr(s, " on smallim ") && strstr(s, "past A's per-part bound of 10"),
          "zgemm3m: sentence '%s' does not name smallim's imaginary part", s);
    CHECK(v.test1_class == MPB_T1_CONVENTIONAL && v.test2_class == MPB_T2_FLOAT && !v.inconsistency[0],
          "zgemm3m: test1 %s test2 %s %s", mpb_test1_class_name(v.test1_class), mpb_test2_class_name(v.test2_class),
          v.inconsistency);
}

/* Hand-made complex observations: the modulus within A, a part past 10·2k
 * gives B, a NaN part too; both parts within gives A. */
static void test_complex_rule(void)
{
    struct mpb_case c;
    mpb_double_case(&c, "-s fake3m", "smallim", 64);
    c.scheme = mpb_scheme_find("zgemm3m");
    struct mpb_metrics m = {.rho_a_max = 64, .rho_b_max = 1, .rho_c_max = 1, .rho_a_re_max = 100,
                            .rho_a_im_max = 1281, .grade = "A"};
    struct mpb_verdict v;
    mpb_verdict_init(&v);
    mpb_verdict_add_status(&v, MPB_STATUS_OK);
    mpb_verdict_add_metrics(&v, &c, &m);
    mpb_verdict_settle(&v);
    CHECK(v.grade == 'B' && fabs(v.rho_im.value - 1281.0 / 128) < 1e-12, "im 1281 at k 64: grade %c, rho_Im/2k %g",
          v.grade, v.rho_im.value);
    static const char *const b[] = {"B: rho_Im/2k = 10 on smallim", "past A's per-part bound of 10"};
    expect_sentence(&v, b, 2);

    m.rho_a_im_max = 1280; /* exactly 10·2k: passes */
    mpb_verdict_init(&v);
    mpb_verdict_add_metrics(&v, &c, &m);
    mpb_verdict_settle(&v);
    CHECK(v.grade == 'A', "im 1280 at k 64: grade %c", v.grade);

    m.rho_a_re_max = NAN;
    mpb_verdict_init(&v);
    mpb_verdict_add_metrics(&v, &c, &m);
    mpb_verdict_settle(&v);
    CHECK(v.grade == 'B' && isnan(v.rho_re.value), "NaN real part: grade %c", v.grade);
    static const char *const nan_part[] = {"B: rho_Re/2k = nan on smallim"};
    expect_sentence(&v, nan_part, 1);
}

int main(void)
{
    test_complex_rule();
    test_slope();
    test_sentence();
    test_inconsistency();
    test_c_rule();
    test_naive();
    test_strassen();
    test_fixed();
    test_complex();
    return check_report("test_grade");
}
