/* Designated entries of the Demmel generators (gen_designated.h): the
 * bijections of gen_element.h read backwards, and Test 2's exact diagonal. */
#include "gen_designated.h"

#include <mpfr.h>
#include <stdlib.h>
#include "gen_element.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The first `count` preimages of a bijection, ascending: the positions it
 * maps into [0, count). */
static int64_t bij_preimages(const struct mpb_gen_bij *b, int64_t count, int64_t *out)
{
    if (out != NULL) {
        for (int64_t t = 0; t < count; t++)
            out[t] = (int64_t)mpb_bij_invert(b, (uint64_t)t);
        qsort(out, (size_t)count, sizeof *out, cmp_i64);
    }
    return count;
}

int64_t mpb_test1a_zero_rows(const struct mpb_gen_config *cfg, int64_t *rows)
{
    return bij_preimages(&cfg->bij_rows, cfg->m / 4, rows);
}

int64_t mpb_test1a_zero_cols(const struct mpb_gen_config *cfg, int64_t *cols)
{
    return bij_preimages(&cfg->bij_cols, cfg->n / 4, cols);
}

int64_t mpb_test1b_pairs(const struct mpb_gen_config *cfg, int64_t *rows, int64_t *cols)
{
    int64_t pairs = (cfg->m < cfg->n ? cfg->m : cfg->n) / 2;
    for (int64_t p = 0; p < pairs; p++) {
        if (rows != NULL)
            rows[p] = (int64_t)mpb_bij_invert(&cfg->bij_rows, (uint64_t)p);
        if (cols != NULL)
            cols[p] = (int64_t)mpb_bij_invert(&cfg->bij_cols, (uint64_t)p);
    }
    return pairs;
}

void mpb_test2_diag_exact(const struct mpb_gen_config *cfg, struct mpb_gen_exact *sum)
{
    __extension__ typedef unsigned __int128 u128;
    uint64_t w0 = 0, w1 = 0, w2 = 0;
    for (int64_t l = 0; l < cfg->k; l++) {
        uint64_t x = mpb_gen_test2_sig(cfg, l);
        u128 sq = (u128)x * x;
        uint64_t lo = (uint64_t)sq, hi = (uint64_t)(sq >> 64);
        w0 += lo;
        hi += w0 < lo; /* no overflow: hi < 2^42 */
        w1 += hi;
        w2 += w1 < hi;
    }
    sum->w[0] = w0;
    sum->w[1] = w1;
    sum->w[2] = w2;
    sum->exp2 = -2 * mpb_gen_test2_frac_bits(cfg);
}

void mpb_gen_exact_to_dd(const struct mpb_gen_exact *x, double *hi, double *lo)
{
    _Static_assert(sizeof(unsigned long) == sizeof(uint64_t), "mpfr_*_ui takes 64-bit words");
    mpfr_t v; /* 256 bits: the 192-bit value and v − hi are exact */
    mpfr_init2(v, 256);
    mpfr_set_ui(v, x->w[2], MPFR_RNDN);
    mpfr_mul_2ui(v, v, 64, MPFR_RNDN);
    mpfr_add_ui(v, v, x->w[1], MPFR_RNDN);
    mpfr_mul_2ui(v, v, 64, MPFR_RNDN);
    mpfr_add_ui(v, v, x->w[0], MPFR_RNDN);
    mpfr_mul_2si(v, v, x->exp2, MPFR_RNDN);
    *hi = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(v, v, *hi, MPFR_RNDN);
    *lo = mpfr_get_d(v, MPFR_RNDN);
    mpfr_clear(v);
}

void mpb_test3_block(const struct mpb_gen_config *cfg, int64_t *rows, int64_t *cols)
{
    int64_t side = cfg->ip[MPB_GP_N0] - 1;
    *rows = side < cfg->m - 1 ? side : cfg->m - 1;
    *cols = side < cfg->n - 1 ? side : cfg->n - 1;
    if (*rows < 0)
        *rows = 0;
    if (*cols < 0)
        *cols = 0;
}
