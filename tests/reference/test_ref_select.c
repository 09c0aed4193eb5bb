/* mpb_ref_select: every entry below the limit or when the samples cover
 * C; otherwise the sample count, range, order (by column, then row),
 * distinctness, reproducibility, and the designated entries of test1a,
 * test1b, test2, test2r and test3 present. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gen_designated.h"
#include "generators.h"
#include "reference.h"

/* The case's config with default parameters, `n0` for test3. */
static bool config(struct mpb_gen_config *cfg, const char *gen, int64_t m, int64_t n, int64_t k,
                   uint64_t seed, double n0)
{
    const struct mpb_generator *g = mpb_generator_find(gen);
    CHECK(g != NULL, "no generator %s", gen);
    if (g == NULL)
        return false;
    double p[MPB_MAX_PARAMS];
    char why[200] = "";
    mpb_param_defaults(g->params, g->n_params, p);
    if (n0 > 0)
        p[0] = n0;
    bool ok = g->resolve == NULL || g->resolve(p, MPB_TARGET_FP64, m, n, k, why, sizeof why);
    CHECK(ok, "%s m=%lld n=%lld k=%lld: %s", gen, (long long)m, (long long)n, (long long)k, why);
    if (ok)
        mpb_gen_config_init(cfg, g, p, MPB_TARGET_FP64, m, n, k, seed);
    return ok;
}

/* In range and strictly increasing in (j, i): sorted and distinct. */
static void check_list(const struct mpb_gen_config *cfg, const struct mpb_ref_entry *e,
                       int64_t count)
{
    for (int64_t p = 0; p < count; p++) {
        CHECK(e[p].i >= 0 && e[p].i < cfg->m && e[p].j >= 0 && e[p].j < cfg->n,
              "entry %lld (%lld,%lld) out of range", (long long)p, (long long)e[p].i,
              (long long)e[p].j);
        if (p > 0)
            CHECK(e[p - 1].j < e[p].j || (e[p - 1].j == e[p].j && e[p - 1].i < e[p].i),
                  "entries %lld and %lld not in (j, i) order or repeated", (long long)p - 1,
                  (long long)p);
    }
}

static bool has(const struct mpb_ref_entry *e, int64_t count, int64_t i, int64_t j)
{
    struct mpb_ref_entry key = {i, j};
    int64_t lo = 0, hi = count;
    while (lo < hi) { /* the list is sorted by (j, i) */
        int64_t mid = lo + (hi - lo) / 2;
        if (e[mid].j < key.j || (e[mid].j == key.j && e[mid].i < key.i))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && e[lo].i == i && e[lo].j == j;
}

static bool has_row(const struct mpb_ref_entry *e, int64_t count, int64_t i)
{
    for (int64_t p = 0; p < count; p++)
        if (e[p].i == i)
            return true;
    return false;
}

static bool has_col(const struct mpb_ref_entry *e, int64_t count, int64_t j)
{
    for (int64_t p = 0; p < count; p++)
        if (e[p].j == j)
            return true;
    return false;
}

static void test_all(void)
{
    struct mpb_gen_config cfg;
    struct mpb_ref_entry *e;
    if (!config(&cfg, "randn", 5, 7, 3, 1, 0))
        return;
    int64_t count = mpb_ref_select(&cfg, 5 * 7 * 3, 2, &e);
    CHECK(count == 35, "m·n·k at the limit: %lld entries, want 35", (long long)count);
    check_list(&cfg, e, count);
    free(e);
    count = mpb_ref_select(&cfg, 0, 35, &e);
    CHECK(count == 35, "samples = m·n: %lld entries, want 35", (long long)count);
    check_list(&cfg, e, count);
    free(e);
    count = mpb_ref_select(&cfg, 0, 34, &e);
    CHECK(count == 34, "34 samples: %lld entries", (long long)count);
    check_list(&cfg, e, count);
    free(e);
}

static void test_samples(void)
{
    struct mpb_gen_config cfg, other;
    if (!config(&cfg, "randn", 300, 200, 100, 5, 0) || !config(&other, "randn", 300, 200, 100, 6, 0))
        return;
    struct mpb_ref_entry *e, *again, *e6;
    int64_t count = mpb_ref_select(&cfg, 1000, 4096, &e);
    CHECK(count == 4096, "%lld entries, want 4096", (long long)count);
    check_list(&cfg, e, count);
    int64_t count2 = mpb_ref_select(&cfg, 1000, 4096, &again);
    CHECK(count2 == count && memcmp(e, again, (size_t)count * sizeof *e) == 0,
          "same seed, different choice");
    int64_t count6 = mpb_ref_select(&other, 1000, 4096, &e6);
    CHECK(count6 == count && memcmp(e, e6, (size_t)count * sizeof *e) != 0,
          "seeds 5 and 6 choose the same entries");
    /* Spread: every row decile and column decile is hit about 410 times. */
    int64_t rows[10] = {0}, cols[10] = {0};
    for (int64_t p = 0; p < count; p++) {
        rows[e[p].i * 10 / cfg.m]++;
        cols[e[p].j * 10 / cfg.n]++;
    }
    for (int d = 0; d < 10; d++)
        CHECK(rows[d] > 300 && rows[d] < 520 && cols[d] > 300 && cols[d] < 520,
              "decile %d: %lld rows, %lld columns", d, (long long)rows[d], (long long)cols[d]);
    free(e);
    free(again);
    free(e6);
}

static void test_test1a(void)
{
    struct mpb_gen_config cfg;
    if (!config(&cfg, "test1a", 256, 200, 300, 3, 0))
        return;
    struct mpb_ref_entry *e;
    int64_t count = mpb_ref_select(&cfg, 0, 10, &e);
    check_list(&cfg, e, count);
    int64_t nr = mpb_test1a_zero_rows(&cfg, NULL), nc = mpb_test1a_zero_cols(&cfg, NULL);
    int64_t *rows = malloc((size_t)nr * sizeof *rows), *cols = malloc((size_t)nc * sizeof *cols);
    mpb_test1a_zero_rows(&cfg, rows);
    mpb_test1a_zero_cols(&cfg, cols);
    CHECK(count > 10 && count <= 10 + nr + nc, "%lld entries for 10 samples, %lld + %lld zeros",
          (long long)count, (long long)nr, (long long)nc);
    for (int64_t t = 0; t < nr; t++)
        CHECK(has_row(e, count, rows[t]), "zero row %lld not checked", (long long)rows[t]);
    for (int64_t t = 0; t < nc; t++)
        CHECK(has_col(e, count, cols[t]), "zero column %lld not checked", (long long)cols[t]);
    free(rows);
    free(cols);
    free(e);
}

static void test_test1b(void)
{
    struct mpb_gen_config cfg;
    if (!config(&cfg, "test1b", 150, 190, 64, 4, 0))
        return;
    struct mpb_ref_entry *e;
    int64_t count = mpb_ref_select(&cfg, 0, 20, &e);
    check_list(&cfg, e, count);
    int64_t pairs = mpb_test1b_pairs(&cfg, NULL, NULL);
    int64_t *rows = malloc((size_t)pairs * sizeof *rows), *cols = malloc((size_t)pairs * sizeof *cols);
    mpb_test1b_pairs(&cfg, rows, cols);
    CHECK(pairs == 75 && count >= pairs, "%lld pairs, %lld entries", (long long)pairs,
          (long long)count);
    for (int64_t p = 0; p < pairs; p++)
        CHECK(has(e, count, rows[p], cols[p]), "pair (%lld,%lld) not checked", (long long)rows[p],
              (long long)cols[p]);
    free(rows);
    free(cols);
    free(e);
}

static void test_test2(const char *gen)
{
    struct mpb_gen_config cfg;
    if (!config(&cfg, gen, 300, 200, 128, 2, 0))
        return;
    struct mpb_ref_entry *e;
    int64_t count = mpb_ref_select(&cfg, 0, 50, &e);
    check_list(&cfg, e, count);
    CHECK(count >= 200 && count <= 250, "%s: %lld entries", gen, (long long)count);
    for (int64_t r = 0; r < 200; r++)
        CHECK(has(e, count, r, r), "%s: diagonal %lld not checked", gen, (long long)r);
    free(e);
}

static void test_test3(void)
{
    struct mpb_gen_config cfg;
    struct mpb_ref_entry *e;
    if (config(&cfg, "test3", 64, 64, 64, 7, 16)) {
        int64_t count = mpb_ref_select(&cfg, 0, 5, &e);
        check_list(&cfg, e, count);
        for (int64_t i = 0; i < 15; i++)
            for (int64_t j = 0; j < 15; j++)
                CHECK(has(e, count, i, j), "test3 n0=16: block entry (%lld,%lld) missing",
                      (long long)i, (long long)j);
        free(e);
    }
    /* n0 = 100: a 99×99 block, capped at its first 4096 entries row by
     * row: rows 0..40 whole, row 41 up to column 36. */
    if (config(&cfg, "test3", 200, 200, 200, 7, 100)) {
        int64_t count = mpb_ref_select(&cfg, 0, 0, &e);
        check_list(&cfg, e, count);
        CHECK(count == 4096, "test3 n0=100: %lld entries, want 4096", (long long)count);
        CHECK(has(e, count, 0, 98) && has(e, count, 40, 98) && has(e, count, 41, 36) &&
                  !has(e, count, 41, 37) && !has(e, count, 42, 0),
              "test3 n0=100: not the first 4096 entries of the block");
        free(e);
    }
}

int main(void)
{
    test_all();
    test_samples();
    test_test1a();
    test_test1b();
    test_test2("test2");
    test_test2("test2r");
    test_test3();
    return check_report("test_ref_select");
}
