/* `mpbench grade`: the Demmel battery on one scheme configuration and its
 * verdict (README "mpbench grade"; the tests and grades of Demmel et al.,
 * "How to grade the accuracy of an implementation of the BLAS", 2024).
 *
 * grade.c runs the battery and turns each case into observations (the
 * per-case grade, Test 1 zeros, Test 2 and Test 3 relative errors, special
 * values, the inner-scaling hash); grade_verdict.c folds observations into
 * one verdict and settles the classes and the grade. The engine takes any
 * scheme descriptor with a host model or CUDA backend, so tests can grade
 * test doubles (tests/grade/). */
#ifndef MPB_GRADE_H
#define MPB_GRADE_H

#include <stdbool.h>
#include <stdint.h>
#include "case/metrics.h"
#include "case/plan.h"
#include "case/runner.h"

/* A scheme configuration: one value per parameter. */
struct mpb_grade_config {
    const struct mpb_scheme *scheme;
    double params[MPB_MAX_PARAMS];
};

struct mpb_grade_shape {
    int64_t m, n, k;
};

/* Called after every case (CSV row, progress); acc NULL when no reference;
 * `bisection` for the cases of Test 2's b sweep after its first (b = b_max),
 * which mpb_grade_battery_cases does not count. */
typedef void (*mpb_grade_case_fn)(void *ctx, const struct mpb_case *c, const struct mpb_result *res,
                                  const struct mpb_metrics *acc, bool bisection);

struct mpb_grade_options {
    const struct mpb_grade_shape *shapes;
    int n_shapes;
    int seeds;                  /* seeds 1..seeds */
    int64_t ref_samples;        /* reference entries sampled above MPB_REF_FULL_LIMIT */
    const struct mpb_runner *runner;
    mpb_grade_case_fn on_case;  /* may be NULL */
    void *ctx;
};

enum mpb_test1_class { MPB_T1_UNKNOWN, MPB_T1_CONVENTIONAL, MPB_T1_STRASSEN };
enum mpb_test2_class { MPB_T2_UNKNOWN, MPB_T2_FLOAT, MPB_T2_FIXED };
enum mpb_test3_class { MPB_T3_UNKNOWN, MPB_T3_FLOAT, MPB_T3_INCONCLUSIVE, MPB_T3_FIXED };
/* Extended family (not graded): where native IEEE arithmetic gives NaN/±Inf. */
enum mpb_special_class {
    MPB_SPECIAL_UNKNOWN,
    MPB_SPECIAL_NATIVE,       /* every such entry like native, nothing else non-finite */
    MPB_SPECIAL_SPREAD,       /* like native, plus NaN/Inf where native is finite */
    MPB_SPECIAL_DIFFERS,      /* NaN where native gives ±Inf, or the other way round */
    MPB_SPECIAL_FINITE_WRONG, /* a finite value where native is NaN/±Inf: flagged */
};
enum mpb_inner_class { MPB_INNER_UNKNOWN, MPB_INNER_INVARIANT, MPB_INNER_CHANGED };

#define MPB_BSTAR_UNKNOWN (-2) /* no sweep ran */
#define MPB_BSTAR_NONE (-1)    /* even b = 0 fails */
#define MPB_SLOPE_MAX_KS 64

/* "status: note (mpbench run <case>)" of a case that did not run ok */
#define MPB_GRADE_FAILURE_LEN (sizeof ((struct mpb_result *)0)->note + sizeof ((struct mpb_case *)0)->text + 64)

/* The worst value of a normalised ratio and the case that produced it. */
struct mpb_grade_worst {
    double value;    /* -1: none seen */
    char where[768]; /* the case string (mpbench run <where> reruns it) */
    char what[160];  /* the same for people: "test2 b=126 at 32x32x32 seed 1" */
};

struct mpb_verdict {
    char grade;             /* A, B, C, F; '-' when no case was graded */
    char bound_grade;       /* the best grade whose bound held on every graded case */
    char grade_note[160];   /* why grade differs from bound_grade */
    int64_t cases, cases_ok, cases_graded, cases_error, cases_not_supported;
    char first_failure[MPB_GRADE_FAILURE_LEN]; /* the first case that did not run ok, "" none */
    /* ρ_A/k, ρ_B/k, ρ_C/k^log2(12) (1/10 of each is the grade's bound) */
    struct mpb_grade_worst rho_a, rho_b, rho_c;
    /* complex schemes: each part's ρ against its own Σ|·||·| over 2k (A also
     * needs both ≤ 10: grade_verdict.c); value -1 for real ones */
    struct mpb_grade_worst rho_re, rho_im;
    int64_t test1_cases, test1_nonzero;     /* nonzero (or NaN) designated zeros */
    struct mpb_grade_worst test1;           /* most nonzeros in one case */
    enum mpb_test1_class test1_class;
    struct mpb_grade_worst test2;           /* max relative error / (k·u) */
    enum mpb_test2_class test2_class;
    int b_star;                             /* min over swept shapes; MPB_BSTAR_* */
    int64_t b_star_k;                       /* k where the minimum was found */
    struct mpb_grade_worst test3;           /* leading-block relative error */
    int64_t test3_k;
    enum mpb_test3_class test3_class;
    int64_t special_entries, special_native, special_spread, special_differs, special_finite_wrong;
    enum mpb_special_class special_class;
    int inner_pairs, inner_changed;
    enum mpb_inner_class inner_class;
    /* max ρ per distinct k over graded cases, for the slope diagnostic */
    int n_ks;
    int64_t ks[MPB_SLOPE_MAX_KS];
    double max_rho[3][MPB_SLOPE_MAX_KS];
    double slope[3];                        /* of log max ρ_A, ρ_B, ρ_C vs log k; NaN where the
                                               ks cannot support one (grade_verdict.c) */
    char lost[256];                         /* grade --devices: shapes a dead worker held */
    char warnings[512];
    char inconsistency[256];                /* non-empty: a harness bug (exit 1) */
};

/* Run the battery and the b sweep; fills *v (settled). false only when a
 * case could not be set up at all (out of memory); failed cases are
 * counted in v and shown to on_case. */
bool mpb_grade_run(const struct mpb_grade_config *cfg, const struct mpb_grade_options *opt,
                   struct mpb_verdict *v, char *why, size_t why_len);

/* Cases of the battery per shape and seed for a scheme of `field` (the
 * complex battery has smallim too), not counting Test 2's b sweep. */
int mpb_grade_battery_cases(enum mpb_field field);

/* The battery's cases for `cfg` in the order mpb_grade_run runs them, to
 * `fn` (--dry-run), without running any: the b sweep's bisection is not
 * among them (it depends on the results). false with why when a case
 * cannot be made. */
bool mpb_grade_list(const struct mpb_grade_config *cfg, const struct mpb_grade_options *opt,
                    void (*fn)(void *ctx, const struct mpb_case *c), void *ctx, char *why, size_t why_len);

/* Verdict building (grade_verdict.c), from the case that was observed. */
void mpb_verdict_init(struct mpb_verdict *v);
void mpb_verdict_add_status(struct mpb_verdict *v, enum mpb_status s);
/* A case that did not run ok, kept when it is the first. */
void mpb_verdict_add_failure(struct mpb_verdict *v, const char *failure);
void mpb_verdict_add_metrics(struct mpb_verdict *v, const struct mpb_case *c, const struct mpb_metrics *m);
void mpb_verdict_add_test1(struct mpb_verdict *v, const struct mpb_case *c, int64_t nonzero);
/* max_rel: max relative error of a Test 2 case (all entries are positive). */
void mpb_verdict_add_test2(struct mpb_verdict *v, const struct mpb_case *c, double u, double max_rel);
void mpb_verdict_add_b_star(struct mpb_verdict *v, int64_t k, int b_star);
void mpb_verdict_add_test3(struct mpb_verdict *v, const struct mpb_case *c, double u, double max_rel);
void mpb_verdict_add_special(struct mpb_verdict *v, int64_t entries, int64_t native, int64_t spread,
                             int64_t differs, int64_t finite_wrong);
void mpb_verdict_add_inner(struct mpb_verdict *v, bool same_bits);
/* A shape's battery that did not come back (its worker died): its `cases`
 * count as errors, `why` is kept for the warnings (and as the first
 * failure when there is none). */
void mpb_verdict_add_lost(struct mpb_verdict *v, int64_t cases, const char *why);
/* Fold a partial verdict (mpb_grade_run over some of the shapes) into
 * dst, as if src's cases ran after dst's: merging the per-shape verdicts in
 * shape order, then settling, gives the verdict of one run over all shapes. */
void mpb_verdict_merge(struct mpb_verdict *dst, const struct mpb_verdict *src);
/* Classes, slopes, the configuration grade and the consistency check. */
void mpb_verdict_settle(struct mpb_verdict *v);

/* One plain sentence saying why the verdict is its grade, naming the case
 * that decides it (the worst one past the next better grade's bound, or
 * the closest to the bound it passed) and what it failed. */
void mpb_verdict_sentence(const struct mpb_verdict *v, char *buf, size_t len);

/* Test 2's float criterion (README "mpbench grade"): every relative error
 * ≤ 10·k·u. */
bool mpb_test2_passes(int64_t k, double u, double max_rel);

const char *mpb_test1_class_name(enum mpb_test1_class c);
const char *mpb_test2_class_name(enum mpb_test2_class c);
const char *mpb_test3_class_name(enum mpb_test3_class c);
const char *mpb_special_class_name(enum mpb_special_class c);
const char *mpb_inner_class_name(enum mpb_inner_class c);

/* Exit code of `mpbench grade` over its verdicts (status.h): 3 when a case
 * failed with an error, else 1 on a harness inconsistency, else 77 when no
 * case ran, else 0. */
int mpb_grade_exit_code(const struct mpb_verdict *v, int n);

#endif
