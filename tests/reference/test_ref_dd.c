/* The double-double reference on the host (ref_dd.h):
 *  - known answers: integers, a sum below the double's precision, exact
 *    cancellation of 2^±60 terms, TwoSum/TwoProd exactness;
 *  - the fp32 rounding of hi + lo at ties, at the overflow threshold;
 *  - every generator (special included), fp64 and fp32, three shapes: every
 *    entry against the exact MPFR reference within the documented bound
 *    3k·u²·(1 + 4ku)·(|A||B|)_ij + k·2^-1075, absab within (k+1)·u, the
 *    rounded value equal to the exact one; where the exact value is NaN/±Inf
 *    the dd value is too (accuracy.c recomputes those exactly);
 *  - the same bits with 1 and 3 threads.
 * A failure names the generator, target, shape, seed and entry. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "generators.h"
#include "ref_dd.h"
#include "ref_dd_arith.h"

#define U64 0x1p-53

static bool same(double x, double y)
{
    return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
}

static bool dd_alloc(struct mpb_ref_dd_out *o, int64_t count)
{
    size_t bytes = sizeof(double) * (size_t)(count > 0 ? count : 1);
    o->hi = malloc(bytes);
    o->lo = malloc(bytes);
    o->absab = malloc(bytes);
    return o->hi && o->lo && o->absab;
}

static void dd_release(struct mpb_ref_dd_out *o)
{
    free(o->hi);
    free(o->lo);
    free(o->absab);
}

/* One dot product of k doubles: hi and lo must be the given values. */
static void expect_dot(const char *what, const double *a, const double *b, int64_t k, double hi,
                       double lo)
{
    struct mpb_ref_dd_out o;
    CHECK(dd_alloc(&o, 1), "%s: out of memory", what);
    struct mpb_gemm g = {1, 1, k, MPB_TARGET_FP64, a, b, NULL, MPB_FIELD_REAL};
    CHECK(mpb_ref_dd_host(&g, 1, &o), "%s: evaluation failed", what);
    CHECK(same(o.hi[0], hi) && same(o.lo[0], lo), "%s: %a + %a, want %a + %a", what, o.hi[0],
          o.lo[0], hi, lo);
    dd_release(&o);
}

static void test_known(void)
{
    const double one[4] = {1, 1, 1, 1};
    /* [1 2; 3 4]·[5 6; 7 8] = [19 22; 43 50], column-major. */
    const double a[4] = {1, 3, 2, 4}, b[4] = {5, 7, 6, 8}, c[4] = {19, 43, 22, 50};
    struct mpb_ref_dd_out o;
    CHECK(dd_alloc(&o, 4), "2x2: out of memory");
    struct mpb_gemm g = {2, 2, 2, MPB_TARGET_FP64, a, b, NULL, MPB_FIELD_REAL};
    CHECK(mpb_ref_dd_host(&g, 2, &o), "2x2: evaluation failed");
    for (int p = 0; p < 4; p++)
        CHECK(o.hi[p] == c[p] && o.lo[p] == 0 && o.absab[p] == c[p], "2x2 entry %d: %g %g %g", p,
              o.hi[p], o.lo[p], o.absab[p]);
    dd_release(&o);

    /* 1 + 2^-80: one double cannot hold it, a double-double holds it exactly. */
    const double tiny[2] = {1, 0x1p-80};
    expect_dot("1 + 2^-80", tiny, one, 2, 1, 0x1p-80);
    /* 2^60 + 1 − 2^60 + 2^-60: exact cancellation leaves the small terms. */
    const double cancel[4] = {0x1p60, 1, -0x1p60, 0x1p-60};
    expect_dot("cancellation", cancel, one, 4, 1, 0x1p-60);
    /* (1 + 2^-52)² = 1 + 2^-51 + 2^-104: TwoProd keeps the last bit. */
    const double x[1] = {1 + 0x1p-52};
    expect_dot("square", x, x, 1, 1 + 0x1p-51, 0x1p-104);
    /* The building blocks on their own. */
    struct mpb_dd s = mpb_dd_two_sum(0x1p100, 3);
    CHECK(s.hi == 0x1p100 && s.lo == 3, "two_sum %a %a", s.hi, s.lo);
    struct mpb_dd p = mpb_dd_two_prod(0x1.0000001p0, 0x1.0000001p0);
    CHECK(p.hi == 0x1.0000002p0 && p.lo == 0x1p-56, "two_prod %a %a", p.hi, p.lo);
}

/* RN_fp32(hi + lo) from a dd value: ties broken by lo's sign, even
 * otherwise, the overflow threshold 2^128·(1 − 2^-25) like any midpoint. */
static void test_round_fp32(void)
{
    static const struct {
        double hi, lo, want;
    } t[] = {
        {1 + 0x1p-24, 0x1p-60, 1 + 0x1p-23},
        {1 + 0x1p-24, -0x1p-60, 1},
        {1 + 0x1p-24, 0, 1},
        {1 + 3 * 0x1p-24, 0, 1 + 0x1p-22},
        {-(1 + 0x1p-24), -0x1p-60, -(1 + 0x1p-23)},
        {-(1 + 0x1p-24), 0x1p-60, -1},
        {1 + 0x1p-25, 0x1p-70, 1},
        {0x1.ffffffp127, -0x1p60, FLT_MAX},
        {0x1.ffffffp127, 0x1p60, INFINITY},
        {-0x1.ffffffp127, 0x1p60, -FLT_MAX},
        {0x1.8p-150, -0x1p-200, 0x1p-149},
        {0x1p-150, -0x1p-200, 0},
        {0x1p-150, 0x1p-200, 0x1p-149},
    };
    for (size_t q = 0; q < sizeof t / sizeof t[0]; q++) {
        struct mpb_ref_dd_out o = {(double *)&t[q].hi, (double *)&t[q].lo, (double *)&t[q].hi};
        struct mpb_ref_value v = mpb_ref_dd_value(&o, 0, MPB_TARGET_FP32);
        CHECK(same(v.rounded, t[q].want), "fp32 rounding of %a + %a: %a, want %a", t[q].hi,
              t[q].lo, v.rounded, t[q].want);
    }
}

struct gen_case {
    struct mpb_gen_config cfg;
    void *a, *b;
};

static bool gen_make(struct gen_case *c, const struct mpb_generator *g, enum mpb_target t,
                     int64_t m, int64_t n, int64_t k, uint64_t seed)
{
    double p[MPB_MAX_PARAMS];
    char why[200] = "";
    mpb_param_defaults(g->params, g->n_params, p);
    if (g->resolve != NULL && !g->resolve(p, t, m, n, k, why, sizeof why))
        return false; /* this generator cannot make this shape: nothing to check */
    mpb_gen_config_init(&c->cfg, g, p, t, m, n, k, seed);
    c->a = malloc((size_t)(m * k) * mpb_target_size(t));
    c->b = malloc((size_t)(k * n) * mpb_target_size(t));
    mpb_gen_fill_host(&c->cfg, MPB_OPERAND_A, c->a);
    mpb_gen_fill_host(&c->cfg, MPB_OPERAND_B, c->b);
    return true;
}

/* Every entry of one case against MPFR; returns the worst error in units
 * of its bound (≤ 1 passes). */
static double check_case(const struct mpb_generator *gen, enum mpb_target t, int64_t m, int64_t n,
                         int64_t k, uint64_t seed)
{
    struct gen_case c;
    if (!gen_make(&c, gen, t, m, n, k, seed))
        return 0;
    const char *tn = t == MPB_TARGET_FP64 ? "fp64" : "fp32";
    struct mpb_gemm g = {m, n, k, t, c.a, c.b, NULL, MPB_FIELD_REAL};
    struct mpb_ref_dd_out o;
    struct mpb_ref_entry *e;
    int64_t count = mpb_ref_select(&c.cfg, INT64_MAX, 0, &e);
    struct mpb_ref_value *x = malloc(sizeof *x * (size_t)count);
    bool ok = dd_alloc(&o, m * n) && x && count == m * n && mpb_ref_dd_host(&g, 0, &o) &&
              mpb_ref_mpfr(&g, e, count, 0, x);
    CHECK(ok, "%s %s %lldx%lldx%lld: evaluation failed", gen->name, tn, (long long)m, (long long)n,
          (long long)k);
    double worst = 0, kd = (double)k;
    double rel = 3 * kd * U64 * U64 * (1 + 4 * kd * U64);
    long double floor_abs = kd * 0x1p-1075L;
    for (int64_t p = 0; ok && p < count; p++) {
        struct mpb_ref_value v = mpb_ref_dd_value(&o, p, t);
        int64_t i = e[p].i, j = e[p].j;
        if (!x[p].finite) {
            CHECK(!v.finite, "%s %s %lldx%lldx%lld seed %llu: C(%lld,%lld) exact %a, dd finite %a",
                  gen->name, tn, (long long)m, (long long)n, (long long)k, (unsigned long long)seed,
                  (long long)i, (long long)j, x[p].hi, v.hi);
            continue;
        }
        if (!v.finite)
            continue; /* recomputed exactly by accuracy.c (an overflowing partial sum) */
        long double err = fabsl(((long double)v.hi - x[p].hi) + ((long double)v.lo - x[p].lo));
        long double bound = rel * (long double)x[p].absab + floor_abs;
        double r = err == 0 ? 0 : (double)(err / bound);
        worst = r > worst ? r : worst;
        CHECK(err <= bound, "%s %s %lldx%lldx%lld seed %llu: C(%lld,%lld) dd %a + %a, exact %a + %a: "
              "error %.3Lg > bound %.3Lg", gen->name, tn, (long long)m, (long long)n, (long long)k,
              (unsigned long long)seed, (long long)i, (long long)j, v.hi, v.lo, x[p].hi, x[p].lo,
              err, bound);
        double dab = fabs(v.absab - x[p].absab);
        CHECK(dab <= (kd + 1) * U64 * x[p].absab + kd * 0x1p-1074,
              "%s %s: C(%lld,%lld) absab %a, exact %a", gen->name, tn, (long long)i, (long long)j,
              v.absab, x[p].absab);
        CHECK(same(v.rounded, x[p].rounded), "%s %s seed %llu: C(%lld,%lld) rounded %a, exact %a",
              gen->name, tn, (unsigned long long)seed, (long long)i, (long long)j, v.rounded,
              x[p].rounded);
    }
    dd_release(&o);
    free(e);
    free(x);
    free(c.a);
    free(c.b);
    return worst;
}

static void test_generators(void)
{
    static const int64_t shapes[][3] = {{7, 5, 33}, {33, 31, 64}, {16, 17, 300}};
    for (int q = 0; q < mpb_n_generators; q++)
        for (int tq = 0; tq < 2 && !mpb_generators[q]->from_files; tq++) {
            enum mpb_target t = tq ? MPB_TARGET_FP32 : MPB_TARGET_FP64;
            double worst = 0;
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                for (uint64_t seed = 1; seed <= 2; seed++) {
                    double w = check_case(mpb_generators[q], t, shapes[s][0], shapes[s][1],
                                          shapes[s][2], seed);
                    worst = w > worst ? w : worst;
                }
            printf("%-8s %s: worst dd error %.3g of its bound\n", mpb_generators[q]->name,
                   t == MPB_TARGET_FP64 ? "fp64" : "fp32", worst);
        }
}

/* The thread count only changes who computes an entry, never its bits. */
static void test_threads(void)
{
    struct gen_case c;
    int64_t m = 37, n = 29, k = 100;
    if (!gen_make(&c, mpb_generator_find("evil"), MPB_TARGET_FP64, m, n, k, 3)) {
        CHECK(false, "evil 37x29x100 cannot be made");
        return;
    }
    struct mpb_gemm g = {m, n, k, MPB_TARGET_FP64, c.a, c.b, NULL, MPB_FIELD_REAL};
    struct mpb_ref_dd_out one, three;
    CHECK(dd_alloc(&one, m * n) && dd_alloc(&three, m * n) && mpb_ref_dd_host(&g, 1, &one) &&
              mpb_ref_dd_host(&g, 3, &three),
          "threads: evaluation failed");
    for (int64_t p = 0; p < m * n; p++)
        CHECK(same(one.hi[p], three.hi[p]) && same(one.lo[p], three.lo[p]) &&
                  same(one.absab[p], three.absab[p]),
              "entry %lld differs between 1 and 3 threads", (long long)p);
    dd_release(&one);
    dd_release(&three);
    free(c.a);
    free(c.b);
}

int main(void)
{
    test_known();
    test_round_fp32();
    test_generators();
    test_threads();
    return check_report("test_ref_dd");
}
