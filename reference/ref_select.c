/* Which entries the exact reference computes (reference.h): all of them for
 * small cases, else a reproducible random sample plus the entries whose
 * exact value the generator's construction fixes (gen_designated.h). */
#include "reference.h"

#include <stdlib.h>
#include "gen_designated.h"
#include "pcg32.h"

/* PCG stream of the choice; streams 0–6 belong to the generators
 * (gen_element.h), so the choice never correlates with the data. */
#define REF_STREAM 7
/* The random samples consume draws from 0, two per candidate; the columns
 * (rows) picked for Test 1a's zero rows (columns) start far beyond, so
 * they do not change when the sample count does. */
#define REF_DRAW_ROW_PICK (UINT64_C(1) << 62)
#define REF_DRAW_COL_PICK (UINT64_C(3) << 61)
/* Test 3's leading block is (n0−1)² entries, up to 65535²: its first rows
 * up to this many entries suffice to classify. */
#define REF_TEST3_CAP 4096

/* A uniform index below `bound` from a 64-bit draw by multiply-shift
 * (Lemire, "Fast random integer generation in an interval", ACM TOMACS
 * 29(1), 2019): bias below bound/2^64, negligible for sampling. */
static uint64_t ref_draw_below(struct mpb_pcg32 *g, uint64_t bound)
{
    __extension__ typedef unsigned __int128 u128;
    uint64_t hi = mpb_pcg32_next(g);
    uint64_t x = hi << 32 | mpb_pcg32_next(g);
    return (uint64_t)(((u128)x * bound) >> 64);
}

static int ref_entry_cmp(const void *pa, const void *pb)
{
    const struct mpb_ref_entry *a = pa, *b = pb;
    if (a->j != b->j)
        return (a->j > b->j) - (a->j < b->j);
    return (a->i > b->i) - (a->i < b->i);
}

/* a·b·c ≤ limit for positive a, b, c, without overflow. */
static bool ref_product_le(int64_t a, int64_t b, int64_t c, int64_t limit)
{
    return limit >= 0 && a <= limit / b / c;
}

/* `count` distinct linear indices below mn (count < mn), in draw order;
 * duplicates are rejected through an open-addressing set. */
static bool ref_sample(uint64_t seed, int64_t count, uint64_t mn, uint64_t *out)
{
    size_t cap = 2;
    while (cap < 2 * (size_t)count)
        cap *= 2;
    uint64_t *set = malloc(cap * sizeof *set);
    if (set == NULL)
        return false;
    for (size_t s = 0; s < cap; s++)
        set[s] = UINT64_MAX; /* empty: indices are below mn ≤ 2^63 */
    struct mpb_pcg32 g = mpb_pcg32_seed(seed, REF_STREAM);
    for (int64_t got = 0; got < count;) {
        uint64_t t = ref_draw_below(&g, mn);
        size_t s = (size_t)((t * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (cap - 1);
        while (set[s] != UINT64_MAX && set[s] != t)
            s = (s + 1) & (cap - 1);
        if (set[s] == UINT64_MAX) {
            set[s] = t;
            out[got++] = t;
        }
    }
    free(set);
    return true;
}

/* Number of designated entries of the case; with `out`, also write them. */
static int64_t ref_designated(const struct mpb_gen_config *cfg, struct mpb_ref_entry *out,
                              int64_t *scratch)
{
    int64_t m = cfg->m, n = cfg->n, count = 0;
    switch (cfg->kind) {
    case MPB_GEN_TEST1A: {
        int64_t rows = mpb_test1a_zero_rows(cfg, NULL), cols = mpb_test1a_zero_cols(cfg, NULL);
        if (out != NULL) {
            /* One entry per zero row, at a random column, and one per zero
             * column, at a random row: every zero row and column is hit. */
            mpb_test1a_zero_rows(cfg, scratch);
            for (int64_t t = 0; t < rows; t++) {
                struct mpb_pcg32 g = mpb_pcg32_at(cfg->seed, REF_STREAM, REF_DRAW_ROW_PICK + 2 * (uint64_t)t);
                out[t] = (struct mpb_ref_entry){scratch[t], (int64_t)ref_draw_below(&g, (uint64_t)n)};
            }
            mpb_test1a_zero_cols(cfg, scratch);
            for (int64_t t = 0; t < cols; t++) {
                struct mpb_pcg32 g = mpb_pcg32_at(cfg->seed, REF_STREAM, REF_DRAW_COL_PICK + 2 * (uint64_t)t);
                out[rows + t] = (struct mpb_ref_entry){(int64_t)ref_draw_below(&g, (uint64_t)m), scratch[t]};
            }
        }
        count = rows + cols;
        break;
    }
    case MPB_GEN_TEST1B:
        count = mpb_test1b_pairs(cfg, NULL, NULL);
        if (out != NULL) {
            mpb_test1b_pairs(cfg, scratch, scratch + count);
            for (int64_t p = 0; p < count; p++)
                out[p] = (struct mpb_ref_entry){scratch[p], scratch[count + p]};
        }
        break;
    case MPB_GEN_TEST2:
    case MPB_GEN_TEST2R:
        count = m < n ? m : n;
        for (int64_t r = 0; out != NULL && r < count; r++)
            out[r] = (struct mpb_ref_entry){r, r};
        break;
    case MPB_GEN_TEST3: {
        int64_t rows, cols;
        mpb_test3_block(cfg, &rows, &cols);
        count = rows * cols < REF_TEST3_CAP ? rows * cols : REF_TEST3_CAP;
        for (int64_t p = 0; out != NULL && p < count; p++)
            out[p] = (struct mpb_ref_entry){p / cols, p % cols}; /* row by row */
        break;
    }
    default:
        break;
    }
    return count;
}

/* Scratch the designated entries need: Test 1's row/column lists. */
static int64_t ref_designated_scratch(const struct mpb_gen_config *cfg)
{
    int64_t m = cfg->m, n = cfg->n;
    return 2 * (m > n ? m : n);
}

int64_t mpb_ref_select(const struct mpb_gen_config *cfg, int64_t full_limit, int64_t samples,
                       struct mpb_ref_entry **out)
{
    int64_t m = cfg->m, n = cfg->n, k = cfg->k;
    *out = NULL;
    if (m <= 0 || n <= 0) {
        *out = malloc(sizeof **out); /* no entry, but a valid list */
        return *out != NULL ? 0 : -1;
    }
    if (!ref_product_le(m, n, 1, INT64_MAX))
        return -1; /* entries are not even countable */
    if (samples < 0)
        samples = 0;
    bool all = k <= 0 || ref_product_le(m, n, k, full_limit) || samples >= m * n;
    if (all) {
        struct mpb_ref_entry *e = malloc((size_t)(m * n) * sizeof *e);
        if (e == NULL)
            return -1;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                e[i + j * m] = (struct mpb_ref_entry){i, j};
        *out = e;
        return m * n;
    }
    int64_t designated = ref_designated(cfg, NULL, NULL);
    int64_t total = samples + designated;
    struct mpb_ref_entry *e = malloc((size_t)(total > 0 ? total : 1) * sizeof *e);
    uint64_t *idx = malloc((size_t)(samples > 0 ? samples : 1) * sizeof *idx);
    int64_t *scratch = malloc((size_t)ref_designated_scratch(cfg) * sizeof *scratch);
    /* samples < m·n < 2^63 here. */
    bool ok = e && idx && scratch && ref_sample(cfg->seed, samples, (uint64_t)m * (uint64_t)n, idx);
    if (ok) {
        for (int64_t s = 0; s < samples; s++)
            e[s] = (struct mpb_ref_entry){(int64_t)(idx[s] % (uint64_t)m),
                                          (int64_t)(idx[s] / (uint64_t)m)};
        ref_designated(cfg, e + samples, scratch);
        qsort(e, (size_t)total, sizeof *e, ref_entry_cmp);
        int64_t kept = 0;
        for (int64_t p = 0; p < total; p++)
            if (kept == 0 || ref_entry_cmp(&e[kept - 1], &e[p]) != 0)
                e[kept++] = e[p];
        total = kept;
    }
    free(idx);
    free(scratch);
    if (!ok) {
        free(e);
        return -1;
    }
    *out = e;
    return total;
}
