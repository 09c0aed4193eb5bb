/* One configuration's verdict from the observations of its battery
 * (README "mpbench grade", "Accuracy: the reference and the grades"). */
#include "grade/grade.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "status.h"

static void worst_init(struct mpb_grade_worst *w)
{
    w->value = -1;
    w->where[0] = w->what[0] = '\0';
}

/* NaN counts as the worst value: it is what a broken output gives. Ties
 * keep the first seen. Returns whether `value` became the worst. */
static bool worst_update(struct mpb_grade_worst *w, double value, const char *where, const char *what)
{
    bool worse = isnan(value) ? !isnan(w->value) : !isnan(w->value) && value > w->value;
    if (worse) {
        w->value = value;
        snprintf(w->where, sizeof w->where, "%s", where);
        snprintf(w->what, sizeof w->what, "%s", what);
    }
    return worse;
}

/* The case as a person names it: generator, its parameters, shape, seed. */
static bool worst_case(struct mpb_grade_worst *w, double value, const struct mpb_case *c)
{
    char gp[128], what[sizeof w->what];
    mpb_case_gen_params(c, gp, sizeof gp);
    snprintf(what, sizeof what, "%s%s%s at %lldx%lldx%lld seed %llu", c->gen->name, gp[0] ? " " : "", gp,
             (long long)c->m, (long long)c->n, (long long)c->k, (unsigned long long)c->seed);
    return worst_update(w, value, c->text, what);
}

void mpb_verdict_init(struct mpb_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->grade = v->bound_grade = '-';
    worst_init(&v->rho_a);
    worst_init(&v->rho_b);
    worst_init(&v->rho_c);
    worst_init(&v->rho_re);
    worst_init(&v->rho_im);
    worst_init(&v->test1);
    worst_init(&v->test2);
    worst_init(&v->test3);
    v->b_star = MPB_BSTAR_UNKNOWN;
    for (int r = 0; r < 3; r++)
        v->slope[r] = NAN;
}

void mpb_verdict_add_status(struct mpb_verdict *v, enum mpb_status s)
{
    v->cases++;
    v->cases_ok += s == MPB_STATUS_OK;
    v->cases_error += s == MPB_STATUS_ERROR || s == MPB_STATUS_INCORRECT;
    v->cases_not_supported += s == MPB_STATUS_NOT_SUPPORTED || s == MPB_STATUS_SKIPPED;
}

void mpb_verdict_add_failure(struct mpb_verdict *v, const char *failure)
{
    if (!v->first_failure[0])
        snprintf(v->first_failure, sizeof v->first_failure, "%s", failure);
}

/* k^log2(12), written as 12^log2(k) like metrics.c's C bound. */
static double strassen_growth(int64_t k)
{
    return pow(12.0, log2((double)k));
}

static void slope_point(struct mpb_verdict *v, int64_t k, const double rho[3])
{
    int at = 0;
    while (at < v->n_ks && v->ks[at] != k)
        at++;
    if (at == v->n_ks) {
        if (v->n_ks == MPB_SLOPE_MAX_KS)
            return;
        v->ks[v->n_ks++] = k;
        for (int r = 0; r < 3; r++)
            v->max_rho[r][at] = 0;
    }
    for (int r = 0; r < 3; r++)
        v->max_rho[r][at] = fmax(v->max_rho[r][at], rho[r]);
}

/* Grade A for complex adds componentwise stability in each part. The real
 * rule holds a dot product of length k to ρ_A ≤ 10·k. A part of a complex
 * product is a real dot product of length 2k (Re = Σ ar·br − ai·bi,
 * Im = Σ ar·bi + ai·br) and its ρ (metrics.h) is taken against that dot
 * product's own Σ|·||·|, so the same rule is ρ_part ≤ 10·2k: both
 * ρ_part/(2k) ≤ 10. A 4M GEMM computes each part as such a dot product
 * (ρ_part ≤ 2k); 3M's Im = T3 − T1 − T2 is only normwise stable (Higham,
 * SIMAX 13(3), 1992): its error follows Σ(|ar|+|ai|)(|br|+|bi|), far above
 * Im's own sum when the imaginary parts are small (smallim). B and C need
 * nothing per part: a part's error is at most the modulus's. */
#define PART_A_BOUND 10.0

static bool parts_pass_a(const struct mpb_metrics *m, int64_t k)
{
    return m->rho_a_re_max / (2.0 * (double)k) <= PART_A_BOUND &&
           m->rho_a_im_max / (2.0 * (double)k) <= PART_A_BOUND; /* NaN fails */
}

void mpb_verdict_add_metrics(struct mpb_verdict *v, const struct mpb_case *c, const struct mpb_metrics *m)
{
    int64_t k = c->k;
    if (!m->grade[0])
        return; /* not graded: non-finite inputs or an out-of-range exact C */
    v->cases_graded++;
    bool complex = c->scheme->field == MPB_FIELD_COMPLEX;
    char grade = complex && m->grade[0] == 'A' && !parts_pass_a(m, k) ? 'B' : m->grade[0];
    /* A ⇒ B ⇒ C (ρ_C ≤ ρ_B ≤ ρ_A, bounds non-decreasing), so the best grade
     * passed on every case is the worst per-case grade; 'A' < … < 'F'. */
    if (v->bound_grade == '-' || grade > v->bound_grade)
        v->bound_grade = grade;
    double kd = (double)k;
    if (complex) {
        worst_case(&v->rho_re, m->rho_a_re_max / (2 * kd), c);
        worst_case(&v->rho_im, m->rho_a_im_max / (2 * kd), c);
    }
    worst_case(&v->rho_a, m->rho_a_max / kd, c);
    worst_case(&v->rho_b, m->rho_b_max / kd, c);
    worst_case(&v->rho_c, m->rho_c_max / strassen_growth(k), c);
    double rho[3] = {m->rho_a_max, m->rho_b_max, m->rho_c_max};
    slope_point(v, k, rho);
}

void mpb_verdict_add_test1(struct mpb_verdict *v, const struct mpb_case *c, int64_t nonzero)
{
    v->test1_cases++;
    v->test1_nonzero += nonzero;
    worst_case(&v->test1, (double)nonzero, c);
}

bool mpb_test2_passes(int64_t k, double u, double max_rel)
{
    return max_rel <= 10 * (double)k * u; /* NaN fails */
}

void mpb_verdict_add_test2(struct mpb_verdict *v, const struct mpb_case *c, double u, double max_rel)
{
    worst_case(&v->test2, max_rel / ((double)c->k * u), c);
}

void mpb_verdict_add_b_star(struct mpb_verdict *v, int64_t k, int b_star)
{
    if (v->b_star == MPB_BSTAR_UNKNOWN || b_star < v->b_star) {
        v->b_star = b_star;
        v->b_star_k = k;
    }
}

/* Test 3's classes: float ≤ 10·n·u < inconclusive < √u ≤ fixed. */
void mpb_verdict_add_test3(struct mpb_verdict *v, const struct mpb_case *c, double u, double max_rel)
{
    int64_t k = c->k;
    enum mpb_test3_class cls = max_rel <= 10 * (double)k * u ? MPB_T3_FLOAT
                               : max_rel < sqrt(u)           ? MPB_T3_INCONCLUSIVE
                                                             : MPB_T3_FIXED;
    if (cls > v->test3_class)
        v->test3_class = cls;
    if (worst_case(&v->test3, max_rel, c))
        v->test3_k = k;
}

void mpb_verdict_add_special(struct mpb_verdict *v, int64_t entries, int64_t native, int64_t spread,
                             int64_t differs, int64_t finite_wrong)
{
    v->special_entries += entries;
    v->special_native += native;
    v->special_spread += spread;
    v->special_differs += differs;
    v->special_finite_wrong += finite_wrong;
    enum mpb_special_class c = finite_wrong ? MPB_SPECIAL_FINITE_WRONG
                               : differs    ? MPB_SPECIAL_DIFFERS
                               : spread     ? MPB_SPECIAL_SPREAD
                                            : MPB_SPECIAL_NATIVE;
    if (c > v->special_class)
        v->special_class = c;
}

void mpb_verdict_add_inner(struct mpb_verdict *v, bool same_bits)
{
    v->inner_pairs++;
    v->inner_changed += !same_bits;
    v->inner_class = v->inner_changed ? MPB_INNER_CHANGED : MPB_INNER_INVARIANT;
}

static void append(char *buf, size_t len, const char *text)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? "; " : "", text);
}

void mpb_verdict_add_lost(struct mpb_verdict *v, int64_t cases, const char *why)
{
    v->cases += cases;
    v->cases_error += cases;
    append(v->lost, sizeof v->lost, why);
    mpb_verdict_add_failure(v, why);
}

/* Every accumulated field of `src` folded into `dst` as if its
 * observations came after dst's: the worst values keep the first seen on
 * ties, b* the first minimum, the ks their first-seen order. The settled
 * fields (classes of Test 1 and 2, slopes, grade, notes) are left to
 * mpb_verdict_settle on dst. */
void mpb_verdict_merge(struct mpb_verdict *dst, const struct mpb_verdict *src)
{
    dst->cases += src->cases;
    dst->cases_ok += src->cases_ok;
    dst->cases_graded += src->cases_graded;
    dst->cases_error += src->cases_error;
    dst->cases_not_supported += src->cases_not_supported;
    mpb_verdict_add_failure(dst, src->first_failure);
    if (src->bound_grade != '-' && (dst->bound_grade == '-' || src->bound_grade > dst->bound_grade))
        dst->bound_grade = src->bound_grade;
    worst_update(&dst->rho_a, src->rho_a.value, src->rho_a.where, src->rho_a.what);
    worst_update(&dst->rho_b, src->rho_b.value, src->rho_b.where, src->rho_b.what);
    worst_update(&dst->rho_c, src->rho_c.value, src->rho_c.where, src->rho_c.what);
    worst_update(&dst->rho_re, src->rho_re.value, src->rho_re.where, src->rho_re.what);
    worst_update(&dst->rho_im, src->rho_im.value, src->rho_im.where, src->rho_im.what);
    for (int i = 0; i < src->n_ks; i++) {
        double rho[3] = {src->max_rho[0][i], src->max_rho[1][i], src->max_rho[2][i]};
        slope_point(dst, src->ks[i], rho);
    }
    dst->test1_cases += src->test1_cases;
    dst->test1_nonzero += src->test1_nonzero;
    worst_update(&dst->test1, src->test1.value, src->test1.where, src->test1.what);
    worst_update(&dst->test2, src->test2.value, src->test2.where, src->test2.what);
    if (src->b_star != MPB_BSTAR_UNKNOWN)
        mpb_verdict_add_b_star(dst, src->b_star_k, src->b_star);
    if (worst_update(&dst->test3, src->test3.value, src->test3.where, src->test3.what))
        dst->test3_k = src->test3_k;
    if (src->test3_class > dst->test3_class)
        dst->test3_class = src->test3_class;
    dst->special_entries += src->special_entries;
    dst->special_native += src->special_native;
    dst->special_spread += src->special_spread;
    dst->special_differs += src->special_differs;
    dst->special_finite_wrong += src->special_finite_wrong;
    if (src->special_class > dst->special_class)
        dst->special_class = src->special_class;
    dst->inner_pairs += src->inner_pairs;
    dst->inner_changed += src->inner_changed;
    if (src->inner_class > dst->inner_class)
        dst->inner_class = src->inner_class;
    if (src->lost[0])
        append(dst->lost, sizeof dst->lost, src->lost);
}

/* A slope needs at least 3 ks spanning a factor of 4 or more. Two points
 * fit any line exactly, and the max ρ over a few random cases varies by
 * about 2x from one k to the next, which moves a slope fitted over ks
 * spanning a factor r by about log 2 / log r: +-23 over --quick's 32..33
 * (the "k^8.64" such a run used to warn of), +-0.5 over a factor of 4. */
#define SLOPE_MIN_KS 3
#define SLOPE_MIN_SPAN 4.0

/* Least-squares slope of log ρ against log k over the ks with a finite,
 * positive max ρ (an exact result has ρ = 0 and no logarithm); NaN when
 * those ks cannot support one. */
static double fit_slope(const struct mpb_verdict *v, int r)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, k_lo = INFINITY, k_hi = 0;
    int n = 0;
    for (int i = 0; i < v->n_ks; i++) {
        double rho = v->max_rho[r][i];
        if (!(rho > 0) || isinf(rho))
            continue;
        double x = log((double)v->ks[i]), y = log(rho);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        k_lo = fmin(k_lo, (double)v->ks[i]);
        k_hi = fmax(k_hi, (double)v->ks[i]);
        n++;
    }
    double den = n * sxx - sx * sx;
    return n >= SLOPE_MIN_KS && k_hi >= SLOPE_MIN_SPAN * k_lo && den > 0 ? (n * sxy - sx * sy) / den : NAN;
}

static void settle_classes(struct mpb_verdict *v)
{
    if (v->test1_cases)
        v->test1_class = v->test1_nonzero ? MPB_T1_STRASSEN : MPB_T1_CONVENTIONAL;
    if (v->test2.value >= 0 || isnan(v->test2.value))
        v->test2_class = v->test2.value <= 10 ? MPB_T2_FLOAT : MPB_T2_FIXED; /* float: ≤ 10·k·u */
}

/* The grade table's "who earns it" column gives C to Strassen-like
 * algorithms: 10·k^log2(12) is the growth of Strassen's error bound, while a
 * conventional O(n³) algorithm has the rigorous bound k·u·|A||B| at every k
 * (Jeannerod & Rump). A configuration Test 1 finds conventional that still
 * fails B is what the table puts in F (raw low precision, too few slices),
 * however loose the C bound is at the k it was tried at. */
static void settle_grade(struct mpb_verdict *v)
{
    v->grade = v->bound_grade;
    v->grade_note[0] = '\0';
    if (v->bound_grade == 'C' && v->test1_class == MPB_T1_CONVENTIONAL) {
        v->grade = 'F';
        snprintf(v->grade_note, sizeof v->grade_note,
                 "passes only the C (Strassen) bound but Test 1 finds it conventional: F");
    } else if (v->bound_grade == 'C' && v->test1_class == MPB_T1_UNKNOWN) {
        snprintf(v->grade_note, sizeof v->grade_note,
                 "passes only the C bound; Test 1 did not run, so C is not confirmed Strassen-like");
    }
}

static void settle_consistency(struct mpb_verdict *v)
{
    v->inconsistency[0] = '\0';
    if (v->test2_class == MPB_T2_FIXED && v->grade == 'A')
        append(v->inconsistency, sizeof v->inconsistency,
               "Test 2 classifies it fixed-point, yet it earns A");
    if (v->test1_class == MPB_T1_STRASSEN && (v->grade == 'A' || v->grade == 'B'))
        append(v->inconsistency, sizeof v->inconsistency,
               "Test 1 classifies it Strassen-like, yet it earns A or B");
}

void mpb_verdict_settle(struct mpb_verdict *v)
{
    settle_classes(v);
    for (int r = 0; r < 3; r++)
        v->slope[r] = fit_slope(v, r);
    settle_grade(v);
    v->warnings[0] = '\0';
    char w[128];
    /* A diagnostic only; the bounds of A and B grow like k, so
     * a faster-growing ratio may lose the grade at a k not tried. */
    if (v->grade == 'A' && v->slope[0] > 1.1) {
        snprintf(w, sizeof w, "slope-a: max rho_A grows like k^%.2f (> 1.1)", v->slope[0]);
        append(v->warnings, sizeof v->warnings, w);
    }
    if ((v->grade == 'A' || v->grade == 'B') && v->slope[1] > 1.1) {
        snprintf(w, sizeof w, "slope-b: max rho_B grows like k^%.2f (> 1.1)", v->slope[1]);
        append(v->warnings, sizeof v->warnings, w);
    }
    if (v->cases_not_supported) {
        snprintf(w, sizeof w, "%lld battery cases did not run (not_supported)", (long long)v->cases_not_supported);
        append(v->warnings, sizeof v->warnings, w);
    }
    if (v->lost[0])
        append(v->warnings, sizeof v->warnings, v->lost);
    settle_consistency(v);
}

/* "rho_A/k = 4.78e+20 on test2 b=126 at 32x32x32 seed 1" */
static void worst_text(char *buf, size_t len, const char *ratio, const struct mpb_grade_worst *w)
{
    snprintf(buf, len, "%s = %.3g on %s", ratio, w->value, w->what[0] ? w->what : "(no case)");
}

/* The worse part of a complex verdict, with its ratio's name; NULL for a
 * real one. */
static const struct mpb_grade_worst *worst_part(const struct mpb_verdict *v, const char **ratio)
{
    if (v->rho_re.value == -1 && v->rho_im.value == -1) /* none seen (worst_init) */
        return NULL;
    bool im = isnan(v->rho_im.value) || (!isnan(v->rho_re.value) && v->rho_im.value > v->rho_re.value);
    *ratio = im ? "rho_Im/2k" : "rho_Re/2k";
    return im ? &v->rho_im : &v->rho_re;
}

void mpb_verdict_sentence(const struct mpb_verdict *v, char *buf, size_t len)
{
    static const char *const ratio[] = {"rho_A/k", "rho_B/k", "rho_C/k^log2(12)"};
    const struct mpb_grade_worst *worst[] = {&v->rho_a, &v->rho_b, &v->rho_c};
    const char *part_ratio = NULL;
    const struct mpb_grade_worst *part = worst_part(v, &part_ratio);
    char w[384], pw[384];
    if (v->grade == '-') {
        if (v->cases_ok == 0)
            snprintf(buf, len, "no grade: no case ran (%lld error, %lld not_supported); the first: %s",
                     (long long)v->cases_error, (long long)v->cases_not_supported, v->first_failure);
        else
            snprintf(buf, len, "no grade: none of its %lld cases that ran was graded (non-finite inputs, or an "
                     "exact C out of range)", (long long)v->cases_ok);
        return;
    }
    if (v->bound_grade == 'A') {
        worst_text(w, sizeof w, ratio[0], &v->rho_a);
        if (part) {
            worst_text(pw, sizeof pw, part_ratio, part);
            snprintf(buf, len, "A: all %lld graded cases are within A's bound (rho_A/k <= 10, and "
                     "rho_Re/2k, rho_Im/2k <= 10 in each part); the closest are %s and %s",
                     (long long)v->cases_graded, w, pw);
        } else {
            snprintf(buf, len, "A: all %lld graded cases are within A's bound (rho_A/k <= 10); the closest is %s",
                     (long long)v->cases_graded, w);
        }
        return;
    }
    /* A complex B whose modulus ρ_A is within A's bound everywhere failed A
     * in a part: normwise but not componentwise stable. */
    if (v->bound_grade == 'B' && part && v->rho_a.value <= 10) {
        worst_text(pw, sizeof pw, part_ratio, part);
        snprintf(buf, len, "B: %s, past A's per-part bound of 10 (componentwise unstable in that part; "
                 "rho_A/k of the modulus is within 10)%s", pw,
                 v->test2_class == MPB_T2_FIXED ? " (Test 2 finds it fixed-point)" : "");
        return;
    }
    /* The grade one better than the bound grade failed on the worst case of
     * its ratio: B fails A on the worst rho_A, C fails B on rho_B, F fails C
     * on rho_C (a non-finite output has an infinite or NaN rho). */
    int failed = v->bound_grade == 'B' ? 0 : v->bound_grade == 'C' ? 1 : 2;
    worst_text(w, sizeof w, ratio[failed], worst[failed]);
    const char *better = failed == 0 ? "A" : failed == 1 ? "B" : "C";
    if (v->grade == 'F' && v->bound_grade == 'C')
        snprintf(buf, len, "F: %s, past B's bound of 10, and Test 1 finds it conventional, so C's Strassen "
                 "bound does not apply", w);
    else if (v->grade == 'C' && v->test1_class == MPB_T1_STRASSEN)
        snprintf(buf, len, "C: %s, past B's bound of 10; Test 1 finds it Strassen-like (%s has %.0f nonzero "
                 "designated zeros)", w, v->test1.what, v->test1.value);
    else if (v->grade == 'C')
        snprintf(buf, len, "C: %s, past B's bound of 10; Test 1 did not run, so C is not confirmed "
                 "Strassen-like", w);
    else
        snprintf(buf, len, "%c: %s, past %s's bound of 10%s", v->grade, w, better,
                 v->grade == 'B' && v->test2_class == MPB_T2_FIXED ? " (Test 2 finds it fixed-point)" : "");
}

const char *mpb_test1_class_name(enum mpb_test1_class c)
{
    static const char *const names[] = {"-", "conventional", "strassen-like"};
    return names[c];
}

const char *mpb_test2_class_name(enum mpb_test2_class c)
{
    static const char *const names[] = {"-", "float", "fixed"};
    return names[c];
}

const char *mpb_test3_class_name(enum mpb_test3_class c)
{
    static const char *const names[] = {"-", "float", "inconclusive", "fixed"};
    return names[c];
}

const char *mpb_special_class_name(enum mpb_special_class c)
{
    static const char *const names[] = {"-", "native", "spread", "differs", "FINITE-WRONG"};
    return names[c];
}

const char *mpb_inner_class_name(enum mpb_inner_class c)
{
    static const char *const names[] = {"-", "invariant", "changed"};
    return names[c];
}

int mpb_grade_exit_code(const struct mpb_verdict *v, int n)
{
    bool error = false, inconsistent = false, ran = false;
    for (int i = 0; i < n; i++) {
        error |= v[i].cases_error > 0;
        inconsistent |= v[i].inconsistency[0] != '\0';
        ran |= v[i].cases_ok > 0;
    }
    if (error)
        return MPB_EXIT_RUNTIME;
    if (inconsistent)
        return MPB_EXIT_INCORRECT;
    return ran ? MPB_EXIT_OK : MPB_EXIT_NOTHING_RAN;
}
