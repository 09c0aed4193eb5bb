/* The designated entries evaluate to the values the constructions fix
 * (gen_designated.h): exactly 0 in Test 1a's zero rows and columns and at
 * Test 1b's pairs; Test 2's diagonal Σ x_l², computed independently with a
 * 192-bit integer, in every field (hi, lo, the fp32 rounding). Host fills,
 * fp64 and fp32, two shapes, two seeds. */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>

#include "check.h"
#include "gen_designated.h"
#include "generators.h"
#include "reference.h"

struct filled {
    struct mpb_gen_config cfg;
    void *a, *b;
    struct mpb_ref_entry *e;
    struct mpb_ref_value *v;
    int64_t count;
};

static bool evaluate(struct filled *f, const char *gen, enum mpb_target t, int64_t m, int64_t n,
                     int64_t k, uint64_t seed)
{
    const struct mpb_generator *g = mpb_generator_find(gen);
    double p[MPB_MAX_PARAMS];
    char why[200] = "";
    mpb_param_defaults(g->params, g->n_params, p);
    if (g->resolve != NULL && !g->resolve(p, t, m, n, k, why, sizeof why)) {
        CHECK(false, "%s: %s", gen, why);
        return false;
    }
    mpb_gen_config_init(&f->cfg, g, p, t, m, n, k, seed);
    f->a = malloc((size_t)(m * k) * mpb_target_size(t));
    f->b = malloc((size_t)(k * n) * mpb_target_size(t));
    mpb_gen_fill_host(&f->cfg, MPB_OPERAND_A, f->a);
    mpb_gen_fill_host(&f->cfg, MPB_OPERAND_B, f->b);
    f->count = mpb_ref_select(&f->cfg, 0, 30, &f->e);
    f->v = malloc((size_t)f->count * sizeof *f->v);
    struct mpb_gemm gm = {m, n, k, t, f->a, f->b, NULL, MPB_FIELD_REAL};
    bool ok = mpb_ref_mpfr(&gm, f->e, f->count, 0, f->v);
    CHECK(ok, "%s: evaluation failed", gen);
    return ok;
}

static void release(struct filled *f)
{
    free(f->a);
    free(f->b);
    free(f->e);
    free(f->v);
}

static bool is_zero(const struct mpb_ref_value *v)
{
    return v->rounded == 0 && v->hi == 0 && v->lo == 0 && v->finite;
}

static const char *tname(enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? "fp64" : "fp32";
}

static void test_test1(enum mpb_target t, int64_t m, int64_t n, int64_t k, uint64_t seed)
{
    struct filled f;
    if (evaluate(&f, "test1a", t, m, n, k, seed)) {
        int64_t *rows = malloc((size_t)m * sizeof *rows), *cols = malloc((size_t)n * sizeof *cols);
        int64_t nr = mpb_test1a_zero_rows(&f.cfg, rows), nc = mpb_test1a_zero_cols(&f.cfg, cols);
        int64_t zeros = 0;
        for (int64_t p = 0; p < f.count; p++) {
            bool row = false, col = false;
            for (int64_t q = 0; q < nr; q++)
                row |= rows[q] == f.e[p].i;
            for (int64_t q = 0; q < nc; q++)
                col |= cols[q] == f.e[p].j;
            if (row || col) {
                zeros++;
                CHECK(is_zero(&f.v[p]), "test1a %s seed %llu: C(%lld,%lld) = %a", tname(t),
                      (unsigned long long)seed, (long long)f.e[p].i, (long long)f.e[p].j,
                      f.v[p].rounded);
            }
        }
        CHECK(zeros >= (nr > nc ? nr : nc), "test1a: %lld zero entries checked", (long long)zeros);
        free(rows);
        free(cols);
        release(&f);
    }
    if (evaluate(&f, "test1b", t, m, n, k, seed)) {
        int64_t pairs = mpb_test1b_pairs(&f.cfg, NULL, NULL);
        int64_t *rows = malloc((size_t)pairs * sizeof *rows), *cols = malloc((size_t)pairs * sizeof *cols);
        mpb_test1b_pairs(&f.cfg, rows, cols);
        int64_t found = 0;
        for (int64_t p = 0; p < f.count; p++)
            for (int64_t q = 0; q < pairs; q++)
                if (rows[q] == f.e[p].i && cols[q] == f.e[p].j) {
                    found++;
                    CHECK(is_zero(&f.v[p]), "test1b %s seed %llu: C(%lld,%lld) = %a", tname(t),
                          (unsigned long long)seed, (long long)f.e[p].i, (long long)f.e[p].j,
                          f.v[p].rounded);
                }
        CHECK(found == pairs, "test1b: %lld of %lld pairs checked", (long long)found,
              (long long)pairs);
        free(rows);
        free(cols);
        release(&f);
    }
}

static void test_test2(const char *gen, enum mpb_target t, int64_t m, int64_t n, int64_t k,
                       uint64_t seed)
{
    struct filled f;
    if (!evaluate(&f, gen, t, m, n, k, seed))
        return;
    struct mpb_gen_exact x;
    double hi, lo;
    mpb_test2_diag_exact(&f.cfg, &x);
    mpb_gen_exact_to_dd(&x, &hi, &lo);
    mpfr_t c; /* the 192-bit exact value, for its fp32 rounding */
    mpfr_init2(c, 192);
    mpfr_set_ui(c, x.w[2], MPFR_RNDN);
    mpfr_mul_2ui(c, c, 64, MPFR_RNDN);
    mpfr_add_ui(c, c, x.w[1], MPFR_RNDN);
    mpfr_mul_2ui(c, c, 64, MPFR_RNDN);
    mpfr_add_ui(c, c, x.w[0], MPFR_RNDN);
    mpfr_mul_2si(c, c, x.exp2, MPFR_RNDN);
    double rounded = t == MPB_TARGET_FP64 ? hi : (double)mpfr_get_flt(c, MPFR_RNDN);
    mpfr_clear(c);
    int64_t diag = 0;
    for (int64_t p = 0; p < f.count; p++) {
        if (f.e[p].i != f.e[p].j)
            continue;
        diag++;
        const struct mpb_ref_value *v = &f.v[p];
        CHECK(v->hi == hi && v->lo == lo && v->rounded == rounded && v->finite,
              "%s %s seed %llu: C(%lld,%lld) = %a + %a (%a), want %a + %a (%a)", gen, tname(t),
              (unsigned long long)seed, (long long)f.e[p].i, (long long)f.e[p].j, v->hi, v->lo,
              v->rounded, hi, lo, rounded);
    }
    CHECK(diag == (m < n ? m : n), "%s: %lld diagonal entries checked", gen, (long long)diag);
    release(&f);
}

int main(void)
{
    static const int64_t shapes[2][3] = {{96, 96, 96}, {40, 70, 333}};
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 2; s++)
            for (uint64_t seed = 1; seed <= 2; seed++) {
                const int64_t *d = shapes[s];
                test_test1((enum mpb_target)t, d[0], d[1], d[2], seed);
                test_test2("test2", (enum mpb_target)t, d[0], d[1], d[2], seed);
                test_test2("test2r", (enum mpb_target)t, d[0], d[1], d[2], seed);
            }
    return check_report("test_ref_designated");
}
